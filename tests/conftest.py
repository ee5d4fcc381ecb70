"""Test-suite wide hooks and fixtures: under ECOT_REQUIRE_TOOLS=1 (CI) a skip fails the run
(tests/require_tools.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ecot.domains.base import Backend

pytest_plugins = ("require_tools",)


@pytest.fixture(scope="module")
def rtl() -> Backend:
    """The rtl backend, for tests that judge designs (a test module may define its own `rtl`)."""
    from ecot.core.errors import ToolMissingError
    from ecot.domains import get_backend

    try:
        return get_backend("rtl")
    except ToolMissingError as err:
        pytest.skip(f"RTL toolchain incomplete: {err.tool} is not installed")
