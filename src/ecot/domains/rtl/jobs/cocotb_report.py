"""cocotb's regression, run inside the simulator beside the design, reporting on a channel the design
cannot write (standard library and cocotb only).

vvp loads cocotb's VPI library, which starts an embedded Python and calls the entry points named in
PYGPI_USERS; this module's `run` takes the place of `cocotb.regression:_run_regression`. It runs
before any of the design's code (cocotb starts at the start of simulation, before time 0 executes):

- it takes the secret tag out of the environment (the design, Verilog, has no way to read the
  environment, and the sandbox shows no /proc to read it from);
- it sets up cocotb's regression manager exactly as cocotb does, except that the current folder is
  not put on sys.path (it is the design's work folder, where it may write), and records the tests it
  planned before any of them ran;
- when every test has a result (cocotb's tear-down, reached however the simulation ends), it writes
  one tagged line per planned test and an end line straight to file descriptor 1, each line one
  write() of less than PIPE_BUF bytes, so no output of the design can land inside it.

The design can print anything, end the simulation, or write any file in its folder (results.xml
included); none of that is read. The host (ecot.domains.rtl.cocotb_sim) accepts a Pass only from a
complete report: a start line, one line per planned test, all passed, and an end line that says the
simulation was not cut short.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

TAG_VARIABLE = "ECOT_COCOTB_TAG"
MAX_LINE = 3800  # below PIPE_BUF (4096): one write() on a pipe is never interleaved with another
MAX_NAME = 300
PASSED = ("PASS", "XFAIL")  # cocotb's own notion of success (an expected failure that happened)


def run() -> None:
    """The PYGPI_USERS entry point (module:function) that starts the regression."""
    tag = os.environ.pop(TAG_VARIABLE, "")
    if not tag:
        raise RuntimeError(f"{TAG_VARIABLE} is not set: the harness was started without its report tag")
    _Reporter(tag).start()


class _Reporter:
    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.reported = False
        self.messages: dict[str, str] = {}
        self.planned: list[tuple[str, bool]] = []

    def start(self) -> None:
        from cocotb import _shutdown, regression

        if not sys.warnoptions:
            warnings.simplefilter("default")
        try:
            regression._setup_regression_manager()
        except BaseException as err:
            self.emit({"kind": "error", "message": _describe(err)})
            raise
        manager = regression._manager_inst
        self.planned = [(test.fullname, bool(test.skip)) for test in manager._test_queue]
        self._hook(manager)
        self.emit({"kind": "start", "tests": len(self.planned)})
        manager.start_regression()
        _shutdown.register(manager._on_sim_end)

    def _hook(self, manager: Any) -> None:
        """Keep each failing test's exception, and report once every test has its result."""
        score, tear_down = manager._score_test, manager._tear_down

        def scored(exc: BaseException | None, *times: float) -> None:
            if exc is not None:
                self.messages[manager._test.fullname] = _describe(exc)
            score(exc, *times)

        def torn_down() -> None:
            if not self.reported:
                self.reported = True
                self.report(manager)
            tear_down()

        manager._score_test = scored
        manager._tear_down = torn_down

    def report(self, manager: Any) -> None:
        results = {result.test_fullname: result for result in manager._test_results}
        for name, skipped in self.planned:
            result = results.get(name)
            self.emit({
                "kind": "test",
                "name": name[:MAX_NAME],
                "outcome": result.outcome.name if result is not None else "MISSING",
                "marked_skip": skipped,
                "sim_ns": float(result.sim_time_ns) if result is not None else 0.0,
                "message": self.messages.get(name, ""),
            })
        terminated = manager._regression_terminated
        self.emit({"kind": "end", "tests": len(self.planned), "cut_short": terminated is not None})

    def emit(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=True)
        while len(line) > MAX_LINE and record.get("message"):
            record = {**record, "message": record["message"][: len(record["message"]) // 2]}
            line = json.dumps(record, ensure_ascii=True)
        data = f"{self.tag}{line}\n".encode()
        while data:
            data = data[os.write(1, data):]


def _describe(err: BaseException) -> str:
    """The exception's type and first line (an assertion's own message; pytest's explanation follows it)."""
    text = next((line.strip() for line in str(err).splitlines() if line.strip()), "")
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
