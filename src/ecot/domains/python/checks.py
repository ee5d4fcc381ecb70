"""Check mode on the host: the judge's per-test records (jobs/check.py) as an Outcome.

A check-mode test is one top-level `assert` or call of the task's check file (HumanEval's
`check(find_zero)`, one MBPP `assert`), run by the judge in the sandbox; the candidate's function runs in
the child and answers the calls. The judge writes, per test, how its statements ended (`ok`,
`assertion`, `check_error`, `error` for an exception the candidate raised, `vacuous` when no assertion
ran, or a failure of a call: `exit`, `unencodable`, `unsupported`, a limit, a crash), the number of
calls and of assertions that ran, the last call and what it returned.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ecot.core.outcome import PASS, Metric, Outcome, infra_error
from ecot.domains.python.spec import Case, PySpec
from ecot.domains.python.verdict import RUNTIME_ERROR, WRONG_ANSWER, Judge, Run, clip

CHECK_FILE = "check.py"  # the name the judge gives the check file in its records


class CheckJudge(Judge):
    """The python Judge, reading check-mode records: every test's verdict is the judge's own."""

    @classmethod
    def of(cls, spec: PySpec, tests: list[str], limits: list[float], reference_cpu: list[float | None],
           load_limit: float, reference_load_cpu: float | None = None) -> CheckJudge:
        return cls(spec, [Case(text) for text in tests], [None] * len(tests), limits, reference_cpu, load_limit,
                   reference_load_cpu)

    def call_text(self, index: int) -> str:
        return clip(str(self.cases[index].input), 120)

    def outcome(self, run: Run) -> Outcome:
        outcome = super().outcome(run)
        records = run.tests()
        if not records or outcome.label == "Infra_Error":
            return outcome
        counted: dict[str, Metric] = {
            "assertions": sum(int(r.get("assertions", 0)) for r in records.values()),
            "calls": sum(int(r.get("calls", 0)) for r in records.values()),
        }
        outcome = replace(outcome, metrics={**outcome.metrics, **counted})
        if outcome.label != PASS:
            return outcome
        cpu = float(outcome.metrics.get("cpu_s", 0.0))  # the tests' and the module load's
        said = (f"all {len(self.cases)} tests of {self.spec.check} passed ({counted['assertions']} assertions, "
                f"{counted['calls']} calls of {self.spec.entry_point}, {cpu * 1000:.1f} ms CPU)")
        return replace(outcome, diagnostic=said)

    def _compare(self, index: int, record: dict[str, Any], where: str, log: str, first: dict[str, Any]) -> Outcome | None:
        return None  # status ok: the check's statements ran to the end, with at least one assertion

    def _check(self, index: int, record: dict[str, Any], run: Run, log: str) -> Outcome | None:
        status = record.get("status")
        first: dict[str, Metric] = {"first_failure": index}
        where = f"test {index} of {len(self.cases)} (`{self.call_text(index)}`)"
        after = _after(record)
        if status == "assertion":
            message = f": {clip(record['message'], 120)}" if record.get("message") else ""
            return Outcome(WRONG_ANSWER, f"{where}: assertion failed{_line(record, self.cases[index].input)}{message}{after}", log, first)
        if status == "check_error":
            said = (f"{where}: the check raised {record.get('type')}: {clip(record.get('message'), 120)}"
                    f"{_line(record, self.cases[index].input)}{after}")
            return Outcome(WRONG_ANSWER, said, log, first)
        if status == "vacuous":
            return Outcome(WRONG_ANSWER, f"{where} ran no assertion: the check checked nothing{after}", log, first)
        if status == "unsupported":
            return infra_error(f"{where}: {record.get('why')}; the task cannot be judged here", log)
        if status == "unencodable":
            said = (f"{where}: {record.get('call')} returned {clip(record.get('repr'))}, which is not plain data "
                    f"({record.get('why')})")
            return Outcome(WRONG_ANSWER, said, log, first)
        if status == "error":
            error = record.get("error") or {}
            said = (f"{error.get('type')}: {clip(error.get('message'))}{_solution_line(error)} in {record.get('call')} "
                    f"on {where}")
            return Outcome(RUNTIME_ERROR, said, log, first)
        if status == "exit":
            return Outcome(RUNTIME_ERROR, f"{where}: {record.get('call')} called sys.exit({record.get('code')})", log, first)
        return super()._check(index, record, run, log)


def _line(record: dict[str, Any], test: str) -> str:
    """Where in the check file it failed; the line's text unless it is the test's own."""
    if not record.get("line"):
        return ""
    text = str(record.get("text") or "")
    return f" at {CHECK_FILE}:{record['line']}" + (f" (`{clip(text, 100)}`)" if text and text != test.strip() else "")


def _solution_line(error: dict[str, Any]) -> str:
    if not error.get("line"):
        return ""
    return f" at solution.py:{error['line']}" + (f" (`{clip(str(error.get('text', '')).strip(), 100)}`)" if error.get("text") else "")


def _after(record: dict[str, Any]) -> str:
    """The last call of the candidate before the verdict, and what it returned."""
    if not record.get("call"):
        return ""
    returned = f" returned {clip(record['returned'], 120)}" if record.get("returned") else ""
    return f" (last call: {clip(record['call'], 120)}{returned})"
