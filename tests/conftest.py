"""Test-suite wide hooks and fixtures: under ECOT_REQUIRE_TOOLS=1 (CI) a skip fails the run
(tests/require_tools.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ecot.domains.base import Backend

pytest_plugins = ("require_tools",)


def _backend(domain: str) -> Backend:
    from ecot.core.errors import ToolMissingError
    from ecot.domains import get_backend

    try:
        return get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"{domain} toolchain incomplete: {err.tool} is not installed")


@pytest.fixture(scope="module")
def rtl() -> Backend:
    """The rtl backend, for tests that judge designs (a test module may define its own `rtl`)."""
    return _backend("rtl")


@pytest.fixture(scope="module")
def asm() -> Backend:
    """The asm backend, for tests that judge assembly."""
    return _backend("asm")
