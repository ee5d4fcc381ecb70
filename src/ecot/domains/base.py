"""The backend contract: run(task, candidate) -> Outcome, on a real toolchain."""

from __future__ import annotations

import shutil
import time
from abc import ABC, abstractmethod
from typing import ClassVar

from ecot.core.errors import ToolMissingError
from ecot.core.outcome import COMMON_LABELS, Outcome, infra_error
from ecot.core.task import Task
from ecot.domains.versions import tool_version

__all__ = ["Backend", "tool_version"]


class Backend(ABC):
    domain: ClassVar[str]
    labels: ClassVar[tuple[str, ...]]  # domain labels; COMMON_LABELS are always allowed
    tools: ClassVar[tuple[str, ...]] = ()  # executables that must be on PATH
    install_hint: ClassVar[str] = "run `make setup`"
    # what one evaluation needs, for placement on Ray (vocabulary in ecot.executors.local: "cpu", "gpu",
    # "memory_mb", "toolchain:<name>", custom names); "toolchain:<domain>" is always implied
    requires: ClassVar[dict[str, float]] = {}

    def check_tools(self) -> None:
        for tool in self.tools:
            if shutil.which(tool) is None:
                raise ToolMissingError(tool, self.install_hint)

    def tool_versions(self) -> dict[str, str]:
        return {tool: tool_version(tool) for tool in self.tools}

    def all_labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.labels, *COMMON_LABELS)))

    def run(self, task: Task, candidate: str) -> Outcome:
        """Judge one candidate; harness failures become Infra_Error, never the code's fault."""
        if task.domain != self.domain:
            raise ValueError(f"task {task.id} is domain '{task.domain}', not '{self.domain}'")
        start = time.monotonic()
        try:
            outcome = self.evaluate(task, candidate)
        except Exception as err:  # noqa: BLE001 - any harness crash is an infrastructure failure
            outcome = infra_error(f"{self.domain} backend failed: {type(err).__name__}: {err}")
        return Outcome(
            label=outcome.label,
            diagnostic=outcome.diagnostic,
            log=outcome.log,
            metrics=outcome.metrics,
            tool_versions=self.tool_versions(),
            wall_s=round(time.monotonic() - start, 4),
        )

    @abstractmethod
    def evaluate(self, task: Task, candidate: str) -> Outcome:
        """Domain work; may raise on harness failure."""
