"""Test-suite wide hooks: under ECOT_REQUIRE_TOOLS=1 (CI) a skip fails the run (tests/require_tools.py)."""

pytest_plugins = ("require_tools",)
