"""The python judge beyond the attack classes (those are in hostile/python.py): what enters the sandbox,
the labels of resource failures, the report the host accepts, and the time it attributes to each test."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from ecot import sandbox
from ecot.audit.hostile.python import SOLVE
from ecot.core.outcome import PASS, TIMEOUT
from ecot.domains.python.spec import PySpec, load_cases
from ecot.domains.python.verdict import MEMORY_LIMIT, RUNTIME_ERROR, WRONG_ANSWER, Judge, Run, parse_records
from ecot.sandbox import runner
from ecot.sandbox.warm import WarmPython

from .common import bundled_task, describe, evaluate, skip_unless_isolated, with_changes

TASK_ID = "python/two_sum"


@pytest.fixture(autouse=True)
def _isolated() -> None:
    skip_unless_isolated()


def test_expected_outputs_never_enter_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spy on the candidate's sandboxed run: no file it can see holds an expected output (roman_to_int:
    the inputs are letters, the outputs numbers, so any digit run of an answer would be a leak)."""
    task = bundled_task("python/roman_to_int")
    expected = {json.dumps(t["output"]) for t in json.loads(task.files["tests.json"])}
    seen: list[str] = []
    served, forked = runner.run_steps, WarmPython.run

    def look(cwd: Path) -> None:
        blobs = {p.name: p.read_text(errors="replace") for p in Path(cwd).rglob("*") if p.is_file()}
        if "MARKER_CANDIDATE" in blobs.get("solution.py", ""):
            seen.append("\n".join(text for name, text in blobs.items() if name.endswith(".json")))

    def spy_served(steps: Any, cwd: Path, *args: Any, **kwargs: Any) -> Any:
        look(cwd)
        return served(steps, cwd, *args, **kwargs)

    def spy_forked(self: WarmPython, cwd: Path, *args: Any, **kwargs: Any) -> Any:
        look(cwd)
        return forked(self, cwd, *args, **kwargs)

    monkeypatch.setattr(runner, "run_steps", spy_served)  # sandbox.run calls it too
    monkeypatch.setattr(WarmPython, "run", spy_forked)  # the warm judge's jobs
    candidate = (task.reference or "") + "\n# MARKER_CANDIDATE\n"
    assert evaluate(task, candidate).label == PASS
    assert seen, "the spy saw no candidate run"
    assert '"output"' not in seen[0]
    leaked = [value for value in expected if len(value) >= 2 and value in seen[0]]
    assert leaked == []


def test_memory_hog_is_labelled_memory_limit() -> None:
    # 256 MB, not the task's 1 GB: touching 1 GB costs about 0.6 s of CPU here, too near the 1 s per-test
    # CPU limit for a slow machine, where the hog would be stopped as a Timeout first
    task = bundled_task(TASK_ID)
    task = dataclasses.replace(task, limits=task.limits.scaled(memory_mb=256))
    outcome = evaluate(task, "def two_sum(nums, target):\n    hog = []\n    while True:\n        hog.append(bytearray(1 << 24))\n")
    assert outcome.label == MEMORY_LIMIT, describe(outcome)


def test_third_party_packages_are_not_importable() -> None:
    """Candidates get the standard library only (-S): whatever the host has installed stays out."""
    candidate = ("try:\n    import numpy, pydantic\n    found = True\nexcept ImportError:\n    found = False\n"
                 "def two_sum(nums, target):\n    return [0, 1] if found else [-1]\n")
    assert evaluate(bundled_task(TASK_ID), candidate).label == WRONG_ANSWER


def test_a_judge_killed_mid_run_never_passes() -> None:
    """Right answers, but the judge dies at test 5: the host needs every test's record and the end."""
    candidate = (bundled_task(TASK_ID).reference or "").replace("def two_sum(nums, target):", (
        "import os, signal\n_calls = []\ndef two_sum(nums, target):\n    _calls.append(1)\n"
        "    if len(_calls) == 6:\n        os.kill(os.getppid(), signal.SIGKILL)\n"))
    outcome = evaluate(bundled_task(TASK_ID), candidate)
    assert outcome.label == RUNTIME_ERROR, describe(outcome)
    assert "harness was killed by SIGKILL" in outcome.diagnostic and outcome.metrics.get("first_failure") == 5


def test_each_test_is_charged_its_own_cpu_time() -> None:
    """The judge gives the go-ahead per test, so work done in test 3 lands in test 3's record only."""
    burn = "import time\n_calls = []\n" + (bundled_task(TASK_ID).reference or "").replace(
        "def two_sum(nums, target):",
        "def two_sum(nums, target):\n    _calls.append(1)\n    if len(_calls) == 4:\n"
        "        end = time.process_time() + 0.4\n        while time.process_time() < end:\n            pass\n")
    outcome = evaluate(bundled_task(TASK_ID), burn)
    assert outcome.label == PASS, describe(outcome)
    cpu = {int(line.split(":")[0][5:]): float(line.split("(")[1].split(" s")[0]) for line in outcome.log.splitlines()
           if line.startswith("test ")}
    assert 0.38 < cpu[3] < 0.6 and max(v for i, v in cpu.items() if i != 3) < 0.05, cpu


def test_stdio_programs_may_work_in_a_thread() -> None:
    """The deep-recursion idiom: main() in a thread with a big stack; the test waits for it, as a
    real interpreter waits for its threads before it exits."""
    task = bundled_task("python/fizzbuzz")
    program = ("import sys, threading\nthreading.stack_size(1 << 26)\nsys.setrecursionlimit(10000)\n"
               "def main():\n" + "".join("    " + line + "\n" for line in (task.reference or "").splitlines())
               + "threading.Thread(target=main).start()\n")
    outcome = evaluate(task, program)
    assert outcome.label == PASS, describe(outcome)


def test_processes_cannot_be_started_but_threads_can() -> None:
    """A process the candidate started would compute outside the CPU clock the judge reads."""
    candidate = """import os, subprocess, threading
def two_sum(nums, target):
    for start in (os.fork, lambda: subprocess.run(['/bin/true'])):
        try:
            start()
            return [-1]
        except OSError:
            pass
    box = []
    worker = threading.Thread(target=lambda: box.append(_solve(nums, target)))
    worker.start()
    worker.join()
    return box[0]
""" + SOLVE
    outcome = evaluate(bundled_task(TASK_ID), candidate)
    assert outcome.label == PASS, describe(outcome)


# -- the report the host accepts (no sandbox: records as the harness would print them) ----------------
def _judge(task_id: str = TASK_ID) -> Judge:
    task = bundled_task(task_id)
    spec = PySpec.of_task(task)
    cases = load_cases(task, spec)
    return Judge(spec, cases, [c.output for c in cases], [1.0] * len(cases), [0.001] * len(cases))


def _lines(judge: Judge, tests: list[dict[str, Any]], done: bool = True) -> str:
    head = [{"kind": "compiled"}, {"kind": "load", "i": -1, "status": "ok", "cpu": 0.0}]
    return "\n".join(json.dumps(r) for r in head + tests + ([{"kind": "done"}] if done else []))


def _passing(judge: Judge) -> list[dict[str, Any]]:
    return [{"kind": "test", "i": i, "status": "ok", "cpu": 0.001, "value": json.dumps(want)}
            for i, want in enumerate(judge.expected)]


def _outcome(judge: Judge, stdout: str) -> Any:
    result = sandbox.ExecResult(0, stdout, "", False, False, 0.1, True)
    return judge.outcome(Run(result, parse_records(stdout), len(judge.cases)))


def test_a_complete_passing_report_passes() -> None:
    judge = _judge()
    assert _outcome(judge, _lines(judge, _passing(judge))).label == PASS


@pytest.mark.parametrize("damage", ["missing_test", "repeated_test", "no_end", "garbage_line", "out_of_order"])
def test_a_damaged_report_never_passes(damage: str) -> None:
    judge = _judge()
    tests = _passing(judge)
    if damage == "missing_test":
        del tests[4]
    elif damage == "repeated_test":
        tests.insert(3, tests[2])
    elif damage == "out_of_order":
        tests[3], tests[4] = tests[4], tests[3]
    text = _lines(judge, tests, done=damage != "no_end")
    if damage == "garbage_line":
        text = text.replace("\n", "\n{not json\n", 1)
    outcome = _outcome(judge, text)
    assert outcome.label == RUNTIME_ERROR, describe(outcome)
    assert "report" in outcome.diagnostic


def test_a_timeout_record_is_a_timeout_whatever_else_it_says() -> None:
    judge = _judge()
    tests = _passing(judge)
    tests[2] = {**tests[2], "status": "timeout", "limit": "cpu"}
    assert _outcome(judge, _lines(judge, tests)).label == TIMEOUT


# -- the module's top-level code (issue 26, finding 4) ----------------------------------------------------
SPIN_AT = """import resource
def _spin(seconds):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    end = usage.ru_utime + usage.ru_stime + seconds
    while True:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        if usage.ru_utime + usage.ru_stime >= end:
            return
"""


def test_cpu_spent_at_import_counts_in_cpu_s_and_the_ratio() -> None:
    """The same work at import or in the first call costs the same CPU seconds and ratio."""
    reference = bundled_task(TASK_ID).reference or ""
    at_import = f"{SPIN_AT}_spin(0.5)\n{reference}"
    in_call = f"{SPIN_AT}_calls = []\n" + reference.replace(
        "def two_sum(nums, target):", "def two_sum(nums, target):\n    _calls.append(1)\n    if len(_calls) == 1:\n"
        "        _spin(0.5)")
    loaded, called = (evaluate(bundled_task(TASK_ID), code) for code in (at_import, in_call))
    assert loaded.label == called.label == PASS, describe(loaded) + describe(called)
    assert 0.5 <= float(loaded.metrics["load_cpu_s"]) < 0.7 and "load: ok (0.5" in loaded.log
    for outcome in (loaded, called):
        assert 0.5 <= float(outcome.metrics["cpu_s"]) < 0.8, describe(outcome)
    assert float(loaded.metrics["cpu_ratio"]) > 0.5 * float(called.metrics["cpu_ratio"])


def test_the_load_and_the_tests_share_the_runs_cpu_budget() -> None:
    """Limits of 0.2 s (floor) per test and for the load: a 2.2 s budget. 1.9 s at import fits it, and
    then the tests have only what is left: 0.15 s each runs out of the budget by the third test."""
    task = with_changes(bundled_task(TASK_ID), {"time_floor_s": 0.2})
    reference = task.reference or ""
    candidate = f"{SPIN_AT}_spin(1.9)\n" + reference.replace(
        "def two_sum(nums, target):", "def two_sum(nums, target):\n    _spin(0.15)")
    outcome = evaluate(task, candidate)
    assert outcome.label == TIMEOUT and "ran out of the run's CPU budget (2.20 s" in outcome.diagnostic, describe(outcome)
    assert int(outcome.metrics["first_failure"]) in (1, 2)


def test_the_judge_adds_the_loads_cpu_to_the_runs_and_the_references() -> None:
    judge = dataclasses.replace(_judge(), load_limit=1.0, reference_load_cpu=0.01)
    text = _lines(judge, _passing(judge)).replace('"cpu": 0.0}', '"cpu": 0.5}', 1)
    outcome = _outcome(judge, text)
    assert outcome.label == PASS and outcome.metrics["load_cpu_s"] == 0.5
    assert outcome.metrics["cpu_s"] == pytest.approx(0.5 + 10 * 0.001)
    assert outcome.metrics["cpu_ratio"] == pytest.approx((0.5 + 0.01) / (10 * 0.001 + 0.01), rel=1e-2)
