"""Domains: one package per domain, each with its descriptor (`domain.py`: DOMAIN), backend, helpers,
sandbox jobs, mutators and bundled suite.

A domain is found through its descriptor (ecot.core.domain.DOMAINS: the built-ins plus the
`ecot.domains` entry-point group), and its backend through the descriptor's `backend` reference.
The older `ecot.backends` group (name -> Backend class) is still read for backends without one.
"""

from __future__ import annotations

from functools import lru_cache

from ecot.core.domain import DescribedRegistry
from ecot.domains.base import Backend

BACKENDS: DescribedRegistry[type[Backend]] = DescribedRegistry("backends", "backend")


@lru_cache(maxsize=None)
def get_backend(domain: str) -> Backend:
    """One checked backend instance per domain and process (backends keep warm state)."""
    backend = BACKENDS.get(domain)()
    backend.check_tools()
    return backend


__all__ = ["BACKENDS", "Backend", "get_backend"]
