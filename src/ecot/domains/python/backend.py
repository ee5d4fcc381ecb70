"""General Python (LiveCodeBench / CWM style): a function or a stdin/stdout program, run against tests.

The candidate runs under the system interpreter (/usr/bin/python3 -S: standard library only) in the
long-lived sandbox. A harness (python_harness.py) that never runs candidate code forks a child
(python_child.py, walled in by python_jail.py) that runs the tests one by one; the child reports what
the candidate returned or printed, or how it failed, and the harness alone decides each test's status
and CPU time (the kernel's clock) and writes the records. Expected outputs stay on the host and are
compared there; a report missing a test, repeating one or cut short never passes.
Per-test CPU limits are max(time_floor_s, time_factor x the reference's CPU time on that test), and
in function mode the module's load gets one the same way; the reference is timed once per task and
toolchain, in the same sandbox, and what it showed is kept across processes (ecot.domains.taskcache:
keyed by the task's content, its options, the interpreter and the harness's code; only a reference that
passed every test is kept). The run's CPU budget is the sum of them all: what the module's top-level
code spends counts, in `cpu_s` and against the budget, like a test's time. With tracing on (option
`trace`, or ECOT_PYTHON_TRACE=1) one test is re-run under a line tracer (python_trace.py) and the
trace is stored with the outcome in metrics["trace"] (JSON).

Options (task.toml [options]): mode, entry_point, tests, compare, time_factor, time_floor_s, trace,
trace_test, trace_events, trace_repr. See docs/domains/python.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from ecot.core.errors import ToolMissingError
from ecot.core.outcome import PASS, Outcome, infra_error
from ecot.core.task import Task
from ecot.domains import taskcache
from ecot.domains.base import Backend, tool_version
from ecot.domains.python import bundle as python_bundle
from ecot.domains.python.checks import CheckJudge
from ecot.domains.python.jobrun import CHECK_HARNESS, HARNESS, INTERPRETER, TRACE_HARNESS, JobRunner
from ecot.domains.python.options import PythonOptions, check_tests
from ecot.domains.python.spec import MISSING, Case, PySpec, big_ints, load_cases, loads
from ecot.domains.python.verdict import (
    SYNTAX_ERROR,
    Judge,
    Run,
    parse_records,
)

TRACE_SLOWDOWN = 20.0  # a traced test may take this much longer than its limit
CHECK_FILE, PREAMBLE_FILE = "check.py", "prompt.py"  # where a check-mode job finds the task's files


@dataclass(frozen=True)
class Reference:
    cpu: list[float | None]  # per test; None where the reference failed
    answers: list[Any]  # per test: its return value or stdout (MISSING where it failed)
    load_cpu: float | None = None  # its module's top-level code (function and check mode)
    failure: str = ""  # check mode: why the reference does not pass (the task is then not run here)


class PythonBackend(Backend[PythonOptions]):
    domain = "python"
    options_model = PythonOptions
    install_hint = "install the Debian package python3 (`make setup`)"

    def __init__(self, warm: bool = True) -> None:
        self.jobs = JobRunner(warm)  # the warm judge, started by prepare() or the first job

    def prepare(self) -> None:
        self.jobs.warm_up()

    def close(self) -> None:
        self.jobs.close()

    def check_tools(self) -> None:
        if not os.access(INTERPRETER, os.X_OK):
            raise ToolMissingError(INTERPRETER, self.install_hint)

    def tool_versions(self) -> dict[str, str]:
        return {"python3": tool_version(INTERPRETER)}

    def evaluate(self, task: Task, spec: PySpec, candidate: str) -> Outcome:
        if spec.mode == "check":
            return self._evaluate_check(task, spec, candidate)
        cases = load_cases(task, spec)
        reference = self.reference(task, spec, lambda: _measure_reference(self.jobs, task, spec, cases))
        limits = [spec.limit(cpu) for cpu in reference.cpu]
        load_limit = spec.limit(reference.load_cpu) if spec.mode == "function" else 0.0
        expected = []
        for index, case in enumerate(cases):
            answer = case.output if case.output is not MISSING else reference.answers[index]
            if answer is MISSING:
                raise RuntimeError(f"task {task.id}: test {index} has no expected output and the reference fails it")
            expected.append(answer)
        judge = Judge(spec, cases, expected, limits, reference.cpu, load_limit, reference.load_cpu)
        outcome = judge.outcome(run_harness(self.jobs, task, spec, candidate, cases, limits, load_limit))
        if spec.tracing() and outcome.label != SYNTAX_ERROR and outcome.label != "Infra_Error":
            outcome = with_trace(self.jobs, task, spec, candidate, cases, limits, load_limit, outcome)
        return outcome

    def _evaluate_check(self, task: Task, spec: PySpec, candidate: str) -> Outcome:
        """Check mode: the benchmark's own test code judges; the reference must pass it here first."""
        tests = check_tests(task.files[spec.check])
        reference = self.reference(task, spec, lambda: _measure_check_reference(self.jobs, task, spec, tests))
        if reference.failure:
            return infra_error(f"not run here: the task's reference does not pass its own check on this machine "
                               f"({reference.failure})")
        limits = [spec.limit(cpu) for cpu in reference.cpu]
        load_limit = spec.limit(reference.load_cpu)
        judge = CheckJudge.of(spec, tests, limits, reference.cpu, load_limit, reference.load_cpu)
        return judge.outcome(run_job(self.jobs, task, spec, candidate, len(tests), limits, load_limit))

    @staticmethod
    def reference(task: Task, spec: PySpec, measure: Callable[[], Reference]) -> Reference:
        """CPU time and answers of the reference on every test, measured once per task and toolchain."""
        return taskcache.lookup("python-reference", reference_key(task, spec), measure, _dump, _load)


def reference_key(task: Task, spec: PySpec) -> str:
    """Everything the reference's run reads: the task's content, its options, the interpreter, the harness."""
    return taskcache.key("python-reference", dict(task.files), task.reference, spec.model_dump(mode="json"),
                         task.limits.to_dict(), taskcache.tool_identity(INTERPRETER), _harness_identity())


@cache
def _harness_identity() -> str:
    """The code that measures a reference and reads its measurement back: the harness's and this module's."""
    harness = python_bundle.texts(HARNESS + CHECK_HARNESS + TRACE_HARNESS)
    return taskcache.key("python-harness", sorted(harness.items()), taskcache.code_identity(__name__))


def _dump(reference: Reference) -> dict[str, Any] | None:
    """A reference that passed every test, as a cache entry; None for any other (measured again next time)."""
    if reference.failure or not reference.cpu or any(cpu is None for cpu in reference.cpu):
        return None
    missing = [answer is MISSING for answer in reference.answers]
    if any(missing) and not all(missing):
        return None
    with big_ints():  # check mode keeps no answers (the check holds them)
        answers = None if all(missing) else json.dumps(reference.answers)
    return {"cpu": reference.cpu, "answers": answers, "load_cpu": reference.load_cpu, "count": len(reference.cpu)}


def _load(entry: dict[str, Any]) -> Reference:
    cpu, load_cpu, count = entry["cpu"], entry["load_cpu"], entry["count"]
    answers = [MISSING] * count if entry["answers"] is None else loads(entry["answers"])
    if not isinstance(cpu, list) or not all(isinstance(c, float) for c in cpu) or len(cpu) != count \
            or not isinstance(answers, list) or len(answers) != count or not (load_cpu is None or isinstance(load_cpu, float)):
        raise ValueError("not a reference measurement")
    return Reference(cpu, answers, load_cpu)


def _measure_reference(jobs: JobRunner, task: Task, spec: PySpec, cases: list[Case]) -> Reference:
    if not task.reference:
        return Reference([None] * len(cases), [MISSING] * len(cases))
    generous = [task.limits.cpu_s] * len(cases)
    run = run_harness(jobs, task, spec, task.reference, cases, generous, task.limits.cpu_s)
    records = run.tests()
    cpu: list[float | None] = []
    answers: list[Any] = []
    for index in range(len(cases)):
        record = records.get(index, {})
        if record.get("status") != "ok":
            cpu.append(None)
            answers.append(MISSING)
        elif spec.mode == "function":
            cpu.append(float(record["cpu"]))
            answers.append(loads(record["value"]))
        else:
            cpu.append(float(record["cpu"]))
            answers.append(record.get("stdout", ""))
    load = run.first("load") or {}
    return Reference(cpu, answers, float(load["cpu"]) if load.get("status") == "ok" else None)


def _measure_check_reference(jobs: JobRunner, task: Task, spec: PySpec, tests: list[str]) -> Reference:
    if not task.reference:
        return Reference([None] * len(tests), [MISSING] * len(tests))
    generous = [task.limits.cpu_s] * len(tests)
    run = run_job(jobs, task, spec, task.reference, len(tests), generous, task.limits.cpu_s)
    outcome = CheckJudge.of(spec, tests, generous, [None] * len(tests), task.limits.cpu_s).outcome(run)
    passed = outcome.label == PASS
    cpu: list[float | None] = [float(run.tests()[i]["cpu"]) if passed else None for i in range(len(tests))]
    load = run.first("load") or {}
    load_cpu = float(load["cpu"]) if passed and load.get("status") == "ok" else None
    return Reference(cpu, [MISSING] * len(tests), load_cpu, "" if passed else f"{outcome.label}: {outcome.diagnostic}")


def run_harness(
    jobs: JobRunner, task: Task, spec: PySpec, code: str, cases: list[Case], limits: list[float], load_limit: float,
    trace: dict[str, Any] | None = None,
) -> Run:
    """One sandboxed harness run over the tests' inputs (never their expected outputs)."""
    return run_job(jobs, task, spec, code, [case.sandbox_input(spec.mode) for case in cases], limits, load_limit, trace)


def run_job(
    jobs: JobRunner, task: Task, spec: PySpec, code: str, tests: list[str] | int, limits: list[float], load_limit: float,
    trace: dict[str, Any] | None = None,
) -> Run:
    """One sandboxed harness run: over the tests' inputs, or in check mode over the check file's `tests`
    tests (the file goes in whole: the judge runs it and reads it where the candidate cannot)."""
    count = tests if isinstance(tests, int) else len(tests)
    job = {
        "mode": spec.mode,
        "entry": spec.entry_point,
        "tests": [None] * tests if isinstance(tests, int) else tests,
        "limits": limits,
        "load_limit": load_limit,
        # a quarter of the job's output limit per test: results travel on the job's stdout
        "output_cap": task.limits.output_kb * 1024 // 4,
        "trace": trace,
    }
    files = {"solution.py": code}
    modules = HARNESS + (TRACE_HARNESS if trace is not None else ())
    if spec.mode == "check":
        job.update(check=CHECK_FILE, preamble=PREAMBLE_FILE if spec.preamble else None)
        files[CHECK_FILE] = task.files[spec.check]
        if spec.preamble:
            files[PREAMBLE_FILE] = task.files[spec.preamble]
        modules += CHECK_HARNESS
    with big_ints():
        files["spec.json"] = json.dumps(job)
    result = jobs.run(files, modules, task.limits)
    return Run(result, parse_records(result.stdout), count if trace is None else 1)  # a trace run runs one test


def with_trace(
    jobs: JobRunner, task: Task, spec: PySpec, candidate: str, cases: list[Case], limits: list[float], load_limit: float, outcome: Outcome
) -> Outcome:
    """Re-run one test under the line tracer and keep the trace with the outcome."""
    index = spec.trace_test if spec.trace_test is not None else int(outcome.metrics.get("first_failure", 0))
    if not 0 <= index < len(cases):
        index = 0
    trace = {"test": index, "max_events": spec.trace_events, "max_repr": spec.trace_repr}
    slow = [limit * TRACE_SLOWDOWN for limit in limits]
    run = run_harness(jobs, task, spec, candidate, cases, slow, load_limit * TRACE_SLOWDOWN, trace)
    traces = [r for r in run.records if r.get("kind") == "trace"]
    record = traces[-1] if traces else None  # the harness writes its own last
    if record is None:
        return replace(outcome, log=outcome.log + "\n[ecot] no execution trace: the traced run ended early")
    found = record.get("events")
    events: list[Any] = found if isinstance(found, list) else []
    payload = {"test": index, "input": cases[index].input, "events": events, "truncated": bool(record.get("truncated"))}
    with big_ints():
        trace_text = json.dumps(payload, ensure_ascii=False)
    metrics = {
        **outcome.metrics,
        "trace": trace_text,
        "trace_test": index,
        "trace_events": len(events),
        "trace_truncated": bool(record.get("truncated")),
    }
    return replace(outcome, metrics=metrics)
