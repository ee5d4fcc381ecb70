"""The python backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/python.md."""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field, model_validator

from ecot.domains.base import DomainOptions, OptionProblem
from ecot.domains.python.jobs.checkfile import split_tests

Mode = Literal["function", "stdio", "check"]
Compare = Literal["exact", "lines", "tokens"]
TIME_FACTOR = 5.0  # a test may use this many times the reference's CPU time ...
TIME_FLOOR_S = 1.0  # ... but never less than this (interpreter noise dominates tiny tests)


@lru_cache(maxsize=1024)  # checked when a suite loads and again when each evaluation builds its options
def python_problem(source: str) -> str | None:
    """Why a task's own Python file does not compile (None if it does)."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError) as err:
        return f"does not compile: {err}"
    return None


def check_tests(source: str) -> list[str]:
    """The tests of a check file, as the judge splits it (ecot_check.split_tests): each one's last statement."""
    return list(_check_tests(source))


@lru_cache(maxsize=1024)
def _check_tests(source: str) -> tuple[str, ...]:
    tests = split_tests(ast.parse(source))
    return tuple(ast.get_source_segment(source, statements[-1]) or "" for statements in tests)


class PythonOptions(DomainOptions):
    mode: Mode = Field(
        "function", description="function: call entry_point; stdio: run the program; check: the benchmark's own test "
        "code calls entry_point (default: function if entry_point is set)"
    )
    entry_point: str = Field("", description="function (or Class.method) called in function and check mode")
    tests: str = Field("tests.json", description="bundle file with the test cases (function and stdio mode)")
    check: str = Field("check.py", description="check mode: bundle file with the test code, run by the judge")
    preamble: str = Field("", description="check mode: bundle file run before the candidate's code and the check's "
                          "(HumanEval's prompt)")
    compare: Compare | None = Field(None, description="answer comparison (default: exact for function mode, lines for stdio)")
    time_factor: float = Field(TIME_FACTOR, gt=0, description="a test may use this many times the reference's CPU time")
    time_floor_s: float = Field(TIME_FLOOR_S, gt=0, description="but never less than this many seconds")
    trace: bool = Field(False, description="record an execution trace of one test")
    trace_test: int | None = Field(None, ge=0, description="the traced test (default: the first failing test, else test 0)")
    trace_events: int = Field(400, ge=1, description="most trace events kept")
    trace_repr: int = Field(80, ge=8, description="most characters of one value's repr in a trace")

    @model_validator(mode="before")
    @classmethod
    def _default_mode(cls, data: Any) -> Any:
        if isinstance(data, dict) and "mode" not in data:
            return {**data, "mode": "function" if data.get("entry_point") else "stdio"}
        return data

    @model_validator(mode="after")
    def _function_needs_entry(self) -> PythonOptions:
        if self.mode != "stdio" and not self.entry_point:
            raise ValueError(f"{self.mode} mode needs option entry_point")
        if self.mode == "check" and not self.entry_point.isidentifier():
            raise ValueError("check mode needs entry_point to be a function name")
        if self.mode == "check" and self.trace:
            raise ValueError("execution traces are recorded in function and stdio mode only")
        return self

    def check_bundle(self, files: Mapping[str, str]) -> None:
        if self.mode != "check":
            if self.tests not in files:
                raise OptionProblem("tests", f"bundle file {self.tests!r} is missing")
            return
        for option, name in (("check", self.check), ("preamble", self.preamble)):
            if name and name not in files:
                raise OptionProblem(option, f"bundle file {name!r} is missing")
            problem = python_problem(files[name]) if name else None
            if problem is not None:
                raise OptionProblem(option, f"{name} {problem}")
        if not check_tests(files[self.check]):
            raise OptionProblem("check", f"{self.check} has no test: no top-level `assert` or call such as `check({self.entry_point})`")

    @property
    def comparison(self) -> Compare:
        return self.compare or ("exact" if self.mode == "function" else "lines")

    def tracing(self) -> bool:
        """Traces are recorded when the task asks, or for every task with ECOT_PYTHON_TRACE=1 (never in
        check mode, where the check's calls are the tests)."""
        return self.mode != "check" and (self.trace or os.environ.get("ECOT_PYTHON_TRACE", "") not in ("", "0"))

    def limit(self, reference_cpu: float | None) -> float:
        if reference_cpu is None:
            return max(self.time_floor_s, 2.0)
        return max(self.time_floor_s, self.time_factor * reference_cpu)
