"""Line-level execution traces (CWM-style observations): the tracer on its own, then through the backend."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ecot.core.errors import ToolMissingError
from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.domains.python.jobs.trace import Tracer, render
from ecot.tasks.suite import bundled_suite_path, load_suite

SOURCE = """def total(n):
    acc = 0
    for i in range(n):
        acc += i
    return acc


def fails(x):
    y = x * 2
    return 10 // (y - y)


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def shrink(items):
    big = list(items)
    del big
    return len(items)
"""


@pytest.fixture
def module(tmp_path: Path) -> tuple[str, dict[str, Any]]:
    path = tmp_path / "solution.py"
    path.write_text(SOURCE)
    namespace: dict[str, Any] = {}
    exec(compile(SOURCE, str(path), "exec"), namespace)
    return str(path), namespace


def traced(module: tuple[str, dict[str, Any]], call: Callable[[dict[str, Any]], Any], **kwargs: int) -> Tracer:
    filename, namespace = module
    tracer = Tracer(filename, **kwargs)
    with tracer:
        try:
            call(namespace)
        except ZeroDivisionError:
            pass
    return tracer


def test_events_carry_the_locals_after_each_line_with_unchanged_ones_elided(module: tuple[str, dict[str, Any]]) -> None:
    events = traced(module, lambda ns: ns["total"](2)).events
    steps = [(e["event"], e["line"], e["locals"]) for e in events]
    assert steps == [
        ("call", 1, {"n": "2"}),
        ("line", 2, {}),  # nothing changed since the call
        ("line", 3, {"acc": "0"}),  # the state after line 2 ran
        ("line", 4, {"i": "0"}),
        ("line", 3, {}),  # acc += 0 left acc unchanged, so it is not repeated
        ("line", 4, {"i": "1"}),
        ("line", 3, {"acc": "1"}),
        ("line", 5, {}),
        ("return", 5, {}),
    ]
    assert events[0]["source"] == "def total(n):" and events[-1]["value"] == "1"
    assert all(e["function"] == "total" and e["depth"] == 0 for e in events)


def test_exceptions_and_unwinding_are_recorded(module: tuple[str, dict[str, Any]]) -> None:
    events = traced(module, lambda ns: ns["fails"](4)).events
    kinds = [e["event"] for e in events]
    assert kinds == ["call", "line", "line", "exception", "return"]
    assert events[2]["locals"] == {"y": "8"}
    assert events[3]["exception"] == "ZeroDivisionError('integer division or modulo by zero')"
    assert events[4].get("unwinding") is True and "value" not in events[4]


def test_nested_calls_have_depth_and_deleted_names_are_listed(module: tuple[str, dict[str, Any]]) -> None:
    events = traced(module, lambda ns: ns["fact"](3)).events
    assert max(e["depth"] for e in events) == 2
    assert [e["value"] for e in events if e["event"] == "return"] == ["1", "2", "6"]
    shrink = traced(module, lambda ns: ns["shrink"]([1, 2])).events
    assert any(e.get("deleted") == ["big"] for e in shrink)


def test_length_and_values_are_bounded(module: tuple[str, dict[str, Any]]) -> None:
    tracer = traced(module, lambda ns: ns["total"](10_000), max_events=25)
    assert tracer.truncated and len(tracer.events) == 25
    long = traced(module, lambda ns: ns["shrink"](list(range(10_000))), max_repr=40).events
    shown = long[0]["locals"]["items"]
    assert len(shown) <= 40 and shown.startswith("[0, 1, 2")
    assert "(trace truncated)" in render(tracer.events, tracer.truncated)


def test_only_the_candidates_frames_are_traced(module: tuple[str, dict[str, Any]]) -> None:
    events = traced(module, lambda ns: json.dumps(ns["total"](2))).events
    assert {e["function"] for e in events} == {"total"}


# -- through the backend ------------------------------------------------------------------------------
def python_task(name: str, **options: Any) -> Task:
    task = next(t for t in load_suite(bundled_suite_path("python")) if t.id == f"python/{name}")
    return dataclasses.replace(task, options={**task.options, **options})


def backend():  # type: ignore[no-untyped-def]
    try:
        return get_backend("python")
    except ToolMissingError as err:
        pytest.skip(f"python backend needs the missing tool '{err.tool}'")


def test_backend_stores_a_trace_of_the_first_failing_test() -> None:
    task = python_task("lower_bound", trace=True, trace_events=200)
    buggy = (task.reference or "").replace("if a[mid] < x:", "if a[mid] <= x:")
    outcome = backend().run(task, buggy)
    assert outcome.label == "Wrong_Answer"
    trace = json.loads(str(outcome.metrics["trace"]))
    assert trace["test"] == outcome.metrics["first_failure"] == outcome.metrics["trace_test"]
    assert trace["input"] == json.loads(task.files["tests.json"])[trace["test"]]["input"]
    events = trace["events"]
    assert events[0]["event"] == "call" and events[0]["function"] == "lower_bound"
    assert events[-1]["event"] == "return" and outcome.metrics["trace_events"] == len(events)
    assert any(e["source"] == "mid = (lo + hi) // 2" for e in events)


def test_a_passing_run_traces_test_zero_and_stdio_programs_trace_the_module() -> None:
    outcome = backend().run(python_task("fizzbuzz", trace=True), python_task("fizzbuzz").reference or "")
    assert outcome.label == "Pass" and outcome.metrics["trace_test"] == 0
    events = json.loads(str(outcome.metrics["trace"]))["events"]
    assert events[0]["function"] == "<module>" and events[0]["event"] == "call"
    assert any(e["locals"].get("n") == "1" for e in events)


def test_a_long_run_is_truncated_but_still_judged() -> None:
    task = python_task("count_primes", trace=True, trace_test=8, trace_events=50)
    outcome = backend().run(task, task.reference or "")
    assert outcome.label == "Pass"
    assert outcome.metrics["trace_truncated"] is True and outcome.metrics["trace_events"] == 50


def test_environment_switch_enables_traces(monkeypatch: pytest.MonkeyPatch) -> None:
    task = python_task("caesar")
    assert "trace" not in backend().run(task, task.reference or "").metrics
    monkeypatch.setenv("ECOT_PYTHON_TRACE", "1")
    assert "trace" in backend().run(task, task.reference or "").metrics
