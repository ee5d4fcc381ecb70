"""Warming the backend workers while the first answers are still being generated (runs in a worker)."""

from __future__ import annotations

from ecot.domains import get_backend


def warm_worker(domain: str) -> None:
    """Import and check the domain's backend and read its tool versions, as a first evaluation would."""
    get_backend(domain).tool_versions()
