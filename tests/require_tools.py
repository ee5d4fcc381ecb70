"""A pytest plugin (loaded by tests/conftest.py): under ECOT_REQUIRE_TOOLS=1, which CI sets, a test that
would skip fails instead, with the reason it gave (the missing tool: bwrap, a toolchain, a library, data).
CI must not go green because what a test needs is missing there. GPU tests still skip, since CI has no
GPU: those marked `gpu`, and skips raised through `skip_gpu_only`. Without the switch, skips are skips."""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any, NoReturn

import pytest

SWITCH = "ECOT_REQUIRE_TOOLS"


class GpuOnly(pytest.skip.Exception):
    """A skip that only a GPU (or its absence) explains: allowed under the switch."""


def skip_gpu_only(reason: str) -> NoReturn:
    """Skip because of the GPU (none here, or one that a better test uses): still a skip under the switch."""
    raise GpuOnly(reason)


def required() -> bool:
    return os.environ.get(SWITCH, "") not in ("", "0")


def _reason(longrepr: Any) -> str:
    """The reason a skip gave (pytest keeps it as (path, line, 'Skipped: reason'))."""
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def _refused(report: pytest.CollectReport | pytest.TestReport, where: str) -> None:
    report.outcome = "failed"
    report.longrepr = f"{SWITCH}=1, so {where} may not skip: {_reason(report.longrepr)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if not (required() and report.skipped) or hasattr(report, "wasxfail"):
        return
    if item.get_closest_marker("gpu") is not None or (call.excinfo is not None and call.excinfo.errisinstance(GpuOnly)):
        return
    _refused(report, "this test")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.CollectReport = outcome.get_result()
    if required() and report.skipped:
        _refused(report, f"collecting {collector.nodeid or 'the tests'}")
