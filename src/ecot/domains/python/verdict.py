"""Turning the harness's per-test records into an Outcome: the first failing test decides the label."""

from __future__ import annotations

import json
import re
import signal
from dataclasses import dataclass
from typing import Any

from ecot import sandbox
from ecot.core.outcome import (
    PASS,
    RESOURCE_LIMIT,
    TIMEOUT,
    Metric,
    Outcome,
    infra_error,
    truncate_log,
)
from ecot.domains.python.domain import PythonLabel
from ecot.domains.python.spec import Case, PySpec, big_ints, first_line_difference, loads, same_output

SYNTAX_ERROR = PythonLabel.SYNTAX_ERROR.value
RUNTIME_ERROR = PythonLabel.RUNTIME_ERROR.value
WRONG_ANSWER = PythonLabel.WRONG_ANSWER.value
MEMORY_LIMIT = PythonLabel.MEMORY_LIMIT.value
_MEMORY_HINTS = re.compile(r"MemoryError|Cannot allocate memory|out of memory", re.IGNORECASE)


@dataclass(frozen=True)
class Run:
    """One harness run: the sandbox's result, the records the harness printed, and how many tests it
    was asked to report. Only the harness writes its stdout; a candidate can at most end it early."""

    result: sandbox.ExecResult
    records: list[dict[str, Any]]
    expected: int

    def first(self, kind: str) -> dict[str, Any] | None:
        return next((r for r in self.records if r.get("kind") == kind), None)

    def tests(self) -> dict[int, dict[str, Any]]:
        """Per test index, its record (the first, should a broken report repeat one)."""
        found: dict[int, dict[str, Any]] = {}
        for record in self.records:
            if record.get("kind") == "test" and isinstance(record.get("i"), int):
                found.setdefault(record["i"], record)
        return found

    def problem(self) -> str | None:
        """Why the records are not one complete report of the expected tests (None when they are)."""
        if any(r.get("kind") == MALFORMED for r in self.records):
            return "a line of the report is not a JSON record"
        indices = [r.get("i") for r in self.records if r.get("kind") == "test"]
        if indices != list(range(len(indices))) or len(indices) > self.expected:
            return "test records are repeated or out of order"
        if len(indices) < self.expected:
            return f"{self.expected - len(indices)} of {self.expected} test records are missing"
        if not self.records or self.records[-1].get("kind") != "done":
            return "the report has no end"
        return None


MALFORMED = "malformed"


def parse_records(stdout: str) -> list[dict[str, Any]]:
    """The harness's records; a line that is not one stands in as {"kind": "malformed"}."""
    records: list[dict[str, Any]] = []
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError):
            value = None
        records.append(value if isinstance(value, dict) else {"kind": MALFORMED})
    return records


def clip(text: Any, limit: int = 160) -> str:
    shown = str(text).replace("\n", "\\n")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _where(error: dict[str, Any]) -> str:
    if not error.get("line"):
        return ""
    code = f" (`{clip(error['text'].strip(), 100)}`)" if error.get("text", "").strip() else ""
    return f" at solution.py:{error['line']}{code}"


@dataclass(frozen=True)
class Judge:
    spec: PySpec
    cases: list[Case]
    expected: list[Any]
    limits: list[float]
    reference_cpu: list[float | None]
    load_limit: float = 0.0  # the module's top-level code (function and check mode); with `limits`, the run's CPU budget
    reference_load_cpu: float | None = None

    @property
    def budget(self) -> float:
        return (self.load_limit if self.spec.mode != "stdio" else 0.0) + sum(self.limits)

    def call_text(self, index: int) -> str:
        case = self.cases[index]
        if self.spec.mode == "stdio":
            return f"input {clip(repr(case.input), 120)}"
        args = ", ".join(clip(_py(a), 60) for a in case.input)
        return f"{self.spec.entry_point.split('.')[-1]}({args})"

    def outcome(self, run: Run) -> Outcome:
        result = run.result
        log = _log(run)
        syntax = run.first("syntax")
        if syntax is not None:
            return Outcome(SYNTAX_ERROR, f"{syntax.get('type', 'SyntaxError')}: {syntax.get('message')}{_where(syntax)}", log)
        if run.first("compiled") is None:
            if result.timed_out:
                return Outcome(TIMEOUT, "the program did not even compile within the time limit", log)
            return infra_error(f"the python harness did not start: {clip(result.output, 400)}", result.output)
        problem = run.problem()
        if problem is not None:
            return self._incomplete(run, problem, log)
        load = run.first("load")
        if load is not None and load.get("status") != "ok":
            return self._load_failure(load, log)
        return self._tests(run, log)

    def _load_failure(self, load: dict[str, Any], log: str) -> Outcome:
        status = load.get("status")
        if status == "missing":
            return Outcome(RUNTIME_ERROR, f"solution.py does not define `{self.spec.entry_point}`", log)
        if status == "timeout":
            return Outcome(TIMEOUT, f"the module's top-level code did not finish within the run's CPU budget "
                           f"({self.budget:.2f} s for it and every test)", log, {"load_cpu_s": _cpu_of(load)})
        if status == "memory":
            return Outcome(MEMORY_LIMIT, "the module's top-level code ran out of memory (MemoryError)", log)
        if status == "exit":
            return Outcome(RUNTIME_ERROR, f"the module's top-level code called sys.exit({load.get('code')})", log)
        if status in ("crash", "bad_report"):
            return Outcome(RUNTIME_ERROR, f"the module's top-level code {_ended(load)}", log)
        error = load.get("error") or {}
        return Outcome(RUNTIME_ERROR, f"{error.get('type')}: {clip(error.get('message'))}{_where(error)} while loading the module", log)

    def _tests(self, run: Run, log: str) -> Outcome:
        records = run.tests()
        failure: Outcome | None = None
        load_cpu = _cpu_of(run.first("load") or {})  # the module's top-level code counts like a test
        passed, cpu = 0, load_cpu
        verdicts: dict[int, str] = {}
        for index in range(len(self.cases)):
            record = records[index]
            cpu += float(record.get("cpu", 0.0))
            problem = self._check(index, record, run, log)
            passed += problem is None
            verdicts[index] = "pass" if problem is None else problem.label
            failure = failure or problem
        metrics = {**self._metrics(passed, cpu), **({"load_cpu_s": round(load_cpu, 4)} if run.first("load") else {})}
        log = _log(run, verdicts)
        if failure is not None:
            return Outcome(failure.label, failure.diagnostic, log, {**metrics, **failure.metrics})
        slowest = max(range(len(self.cases)), key=lambda i: float(records[i].get("cpu", 0)) / self.limits[i])
        said = (f"all {len(self.cases)} tests passed (slowest: test {slowest}, "
                f"{_seconds(float(records[slowest].get('cpu', 0)))} CPU of its {self.limits[slowest]:.2f} s limit)")
        return Outcome(PASS, said, log, metrics)

    def _metrics(self, passed: int, cpu: float) -> dict[str, Any]:
        metrics: dict[str, Any] = {"tests": len(self.cases), "tests_passed": passed, "cpu_s": round(cpu, 4)}
        known = [c for c in self.reference_cpu if c is not None]
        reference = sum(known) + (self.reference_load_cpu or 0.0)  # both sides' top-level code counts
        if known and reference > 0 and passed == len(self.cases):
            metrics["cpu_ratio"] = round(cpu / reference, 3)  # vs the reference, like Mercury's efficiency
        return metrics

    def _check(self, index: int, record: dict[str, Any], run: Run, log: str) -> Outcome | None:
        status = record.get("status")
        first: dict[str, Metric] = {"first_failure": index}
        where = f"test {index} of {len(self.cases)} ({self.call_text(index)})"
        if status == "timeout":
            if record.get("limit") == "wall":
                wall = float(record.get("wall_limit", 0))
                return Outcome(TIMEOUT, f"{where} exceeded its {wall:.2f} s wall-time limit (sleeping or blocked?)", log, first)
            if record.get("limit") == "budget":
                spent = _cpu_of(run.first("load") or {})
                return Outcome(TIMEOUT, f"{where} ran out of the run's CPU budget ({self.budget:.2f} s for the module's "
                               f"top-level code and every test; the top-level code used {_seconds(spent)})", log, first)
            ref = self.reference_cpu[index]
            told = f"; the reference needs {_seconds(ref)}" if ref is not None else ""
            return Outcome(TIMEOUT, f"{where} exceeded its {self.limits[index]:.2f} s CPU limit{told}", log, first)
        if status in ("crash", "bad_report"):
            return self._crash(where, record, run, log, first)
        if status == "memory":
            return Outcome(MEMORY_LIMIT, f"{where} ran out of memory (MemoryError)", log, first)
        if status == "output_limit":
            return Outcome(RESOURCE_LIMIT, f"{where} printed more than {int(record.get('size', 0)) // 1024} KiB", log, first)
        if status == "error":
            error = record.get("error") or {}
            return Outcome(RUNTIME_ERROR, f"{error.get('type')}: {clip(error.get('message'))}{_where(error)} on {where}", log, first)
        if status == "exit":
            code = record.get("code")
            what = f"the function called sys.exit({code})" if self.spec.mode == "function" else f"the program exited with status {code}"
            return Outcome(RUNTIME_ERROR, f"{where}: {what}", log, first)
        if status == "unencodable":
            return Outcome(WRONG_ANSWER, f"{where} returned {clip(record.get('repr'))}, which is not a plain value "
                           f"({record.get('why')}); expected {clip(_py(self.expected[index]))}", log, first)
        if status != "ok":
            return Outcome(RUNTIME_ERROR, f"{where}: unexpected harness status {status!r}", log, first)
        return self._compare(index, record, where, log, first)

    def _compare(self, index: int, record: dict[str, Any], where: str, log: str, first: dict[str, Any]) -> Outcome | None:
        want = self.expected[index]
        if self.spec.mode == "function":
            try:
                got = loads(record.get("value", "null"))
            except (json.JSONDecodeError, RecursionError, ValueError):
                return Outcome(WRONG_ANSWER, f"{where}: unreadable return value", log, first)
            if same_output(want, got, self.spec.comparison):
                return None
            return Outcome(WRONG_ANSWER, f"{where} returned {clip(_py(got))}, expected {clip(_py(want))}", log, first)
        out = str(record.get("stdout", ""))
        if same_output(want, out, self.spec.comparison):
            return None
        diff = first_line_difference(str(want), out)
        if diff is None:  # tokens differ while lines agree cannot happen; keep a readable message anyway
            return Outcome(WRONG_ANSWER, f"{where}: the output differs from the expected output", log, first)
        line, a, b = diff
        return Outcome(WRONG_ANSWER, f"{where}: output line {line + 1} is {clip(b)!s}, expected {clip(a)!s}", log, first)

    def _crash(self, where: str, record: dict[str, Any], run: Run, log: str, first: dict[str, Any]) -> Outcome:
        """The test's process died without reporting, or its report was malformed."""
        number = record.get("signal")
        if number == signal.SIGXCPU:
            return Outcome(TIMEOUT, f"{where} used up the whole run's CPU time limit", log, first)
        if number == signal.SIGKILL and _MEMORY_HINTS.search(run.result.stderr):
            return Outcome(MEMORY_LIMIT, f"{where}: the interpreter ran out of memory", log, first)
        return Outcome(RUNTIME_ERROR, f"{where}: the program {_ended(record)}", log, first)

    def _incomplete(self, run: Run, problem: str, log: str) -> Outcome:
        """The harness's report is cut short or malformed: the job was killed, or the harness was."""
        result, records = run.result, run.tests()
        index = next((i for i in range(len(self.cases)) if i not in records), max(len(self.cases) - 1, 0))
        first: dict[str, Metric] = {"first_failure": index}
        where = f"test {index} of {len(self.cases)} ({self.call_text(index)})"
        if result.output_overflow:
            return Outcome(RESOURCE_LIMIT, f"{where}: the program's output exceeded the sandbox limit", log, first)
        if result.timed_out or result.signal == signal.SIGXCPU:
            return Outcome(TIMEOUT, f"{where} did not finish: the whole run hit its time limit", log, first)
        if _MEMORY_HINTS.search(result.stderr):
            return Outcome(MEMORY_LIMIT, f"{where}: the interpreter ran out of memory", log, first)
        how = f"was killed by {_signal_name(result.signal)}" if result.signal else f"ended with exit code {result.returncode}"
        return Outcome(RUNTIME_ERROR, f"{where}: the harness {how} before its report was complete ({problem}); "
                       "only the candidate's code could do that", log, first)


def _cpu_of(record: dict[str, Any]) -> float:
    cpu = record.get("cpu", 0.0)
    return float(cpu) if isinstance(cpu, (int, float)) else 0.0


def _ended(record: dict[str, Any]) -> str:
    """How a test's (or the module's) process ended without a proper report, for a diagnostic."""
    if record.get("status") == "bad_report":
        return f"sent a malformed report ({record.get('why')}): something wrote into the harness's pipe"
    if record.get("signal"):
        number = int(record["signal"])
        hint = " (a stack overflow from deep recursion?)" if number == signal.SIGSEGV else ""
        return f"crashed the interpreter with {_signal_name(number)}{hint}"
    return f"ended the interpreter (exit code {record.get('exit')}) before reporting (os._exit?)"


def _py(value: Any) -> str:
    """A JSON value the way Python prints it (None, True, 'text')."""
    try:
        with big_ints():
            return repr(value)
    except RecursionError:
        return "<deeply nested value>"


def _seconds(value: float) -> str:
    if value < 0.0001:
        return "<0.1 ms"
    return f"{value * 1000:.1f} ms" if value < 0.1 else f"{value:.2f} s"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _detail(record: dict[str, Any], error: dict[str, Any]) -> str:
    if error:
        return f" {error.get('type', '')}: {clip(error.get('message', ''))}"
    if record.get("status") in ("crash", "bad_report"):
        return f": {_ended(record)}"
    return ""


def _log(run: Run, verdicts: dict[int, str] | None = None) -> str:
    """What an engineer reads: one line per test with its verdict, the first traceback, then stderr."""
    verdicts = verdicts or {}
    lines: list[str] = []
    traceback_shown = False
    for record in run.records:
        kind = record.get("kind")
        error = record.get("error") or (record if kind == "syntax" else {})
        if kind == "test":
            index = record.get("i")
            verdict = verdicts.get(index, str(record.get("status"))) if isinstance(index, int) else "?"
            lines.append(f"test {index}: {verdict} ({float(record.get('cpu', 0)):.4f} s CPU){_detail(record, error)}")
            if record.get("printed"):
                lines.append(f"  printed: {clip(record['printed'], 300)}")
        elif kind == "load" and record.get("status") == "ok":
            lines.append(f"load: ok ({_cpu_of(record):.4f} s CPU)")
        elif kind == "syntax" or kind == "load":
            lines.append(f"{kind}: {record.get('status', 'error')}{_detail(record, error)}")
        if error.get("traceback") and not traceback_shown:
            lines.append(str(error["traceback"]).rstrip())
            traceback_shown = True
    if run.result.stderr.strip():
        lines.append("--- stderr ---")
        lines.append(run.result.stderr.strip())
    return truncate_log("\n".join(lines))
