"""Yosys after a passing simulation: in the simulation's own sandbox request (a worker per core, the
default) or beside the simulation (cores to spare, `overlap`). One request instead of two, and the same
verdicts either way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ecot.audit.common import bundled_task, bundled_tasks
from ecot.core.outcome import Outcome
from ecot.domains.base import Backend
from ecot.domains.rtl.checks import SYNTHESIS_ERROR
from ecot.sandbox import server

TASK = "rtl/mux4_bus"
HEAD = "module mux4_bus (input wire [1:0] sel, input wire [7:0] d0, d1, d2, d3, output reg [7:0] y);\n"
MUX = "    always @* case (sel) 2'b00: y = d0; 2'b01: y = d1; 2'b10: y = d2; default: y = d3; endcase\n"
WRONG = MUX.replace("y = d2", "y = d1")
LATCH = "    reg [7:0] keep;\n    always @* if (sel == 2'b01) keep = d1;\n"  # passes the testbench, infers a latch


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The programs of every request sent to a long-lived sandbox, request by request."""
    sent: list[list[str]] = []
    run = server.SandboxServer.run

    def counted(self: server.SandboxServer, jobs: list[dict[str, Any]]) -> dict[str, Any]:
        sent.append([job["argv"][0] for job in jobs])
        return run(self, jobs)

    monkeypatch.setattr(server.SandboxServer, "run", counted)
    yield sent


@pytest.fixture
def in_request(rtl: Backend) -> Iterator[Backend]:
    overlap, rtl.overlap = rtl.overlap, False
    yield rtl
    rtl.overlap = overlap


def comparable(outcome: Outcome) -> tuple[str, str, dict[str, Any]]:
    return outcome.label, outcome.diagnostic, {k: v for k, v in outcome.metrics.items() if k != "sim_s"}


def test_a_passing_design_takes_one_sandbox_request(in_request: Backend, requests: list[list[str]]) -> None:
    task = bundled_task(TASK)
    in_request.run(task, task.reference or "")  # the reference's profile is measured (and cached) first
    requests.clear()
    assert in_request.run(task, HEAD + MUX + "endmodule\n").passed
    assert requests == [["iverilog", "vvp", "yosys"]]


def test_a_failing_design_runs_no_yosys(in_request: Backend, requests: list[list[str]]) -> None:
    task = bundled_task(TASK)
    in_request.run(task, task.reference or "")
    requests.clear()
    outcome = in_request.run(task, HEAD + WRONG + "endmodule\n")
    assert outcome.label == "Simulation_Mismatch" and "Yosys" not in outcome.log
    assert len(requests) == 1  # the gated Yosys step was sent along and not run


def test_yosys_in_the_request_and_beside_the_simulation_give_the_same_verdicts(rtl: Backend) -> None:
    """Every bundled reference, and designs that fail the testbench or only Yosys."""
    tasks = [t for t in bundled_tasks("rtl") if t.option("testbench_kind", "verilog") != "cocotb"]
    cases = [(t, t.reference or "") for t in tasks] + [(bundled_task(TASK), HEAD + body + "endmodule\n") for body in (WRONG, MUX + LATCH)]
    overlap = rtl.overlap
    try:
        seen = {}
        for mode in (False, True):
            rtl.overlap = mode
            seen[mode] = [comparable(rtl.run(task, code)) for task, code in cases]
    finally:
        rtl.overlap = overlap
    assert seen[False] == seen[True]
    assert seen[False][-1][:2] == (SYNTHESIS_ERROR, "inferred latch for signal mux4_bus.keep")
