"""The python backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/python.md."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from ecot.core.task import Task
from ecot.domains.base import DomainOptions, OptionProblem

Mode = Literal["function", "stdio"]
Compare = Literal["exact", "lines", "tokens"]
TIME_FACTOR = 5.0  # a test may use this many times the reference's CPU time ...
TIME_FLOOR_S = 1.0  # ... but never less than this (interpreter noise dominates tiny tests)


class PythonOptions(DomainOptions):
    mode: Mode = Field(
        "function", description="function: call entry_point; stdio: run the program (default: function if entry_point is set)"
    )
    entry_point: str = Field("", description="function (or Class.method) called in function mode")
    tests: str = Field("tests.json", description="bundle file with the test cases")
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
        if self.mode == "function" and not self.entry_point:
            raise ValueError("function mode needs option entry_point")
        return self

    @classmethod
    def of(cls, task: Task) -> PythonOptions:
        return cls.of_task(task)

    def check_bundle(self, files: Mapping[str, str]) -> None:
        if self.tests not in files:
            raise OptionProblem("tests", f"bundle file {self.tests!r} is missing")

    @property
    def comparison(self) -> Compare:
        return self.compare or ("exact" if self.mode == "function" else "lines")

    def tracing(self) -> bool:
        """Traces are recorded when the task asks, or for every task with ECOT_PYTHON_TRACE=1."""
        return self.trace or os.environ.get("ECOT_PYTHON_TRACE", "") not in ("", "0")

    def limit(self, reference_cpu: float | None) -> float:
        if reference_cpu is None:
            return max(self.time_floor_s, 2.0)
        return max(self.time_floor_s, self.time_factor * reference_cpu)
