"""A candidate's CPU budget from its reference's time: a candidate that hangs stops in seconds, not at
the task's own limit, and fails as it would have anyway (rtl and asm; python budgets each test)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from ecot.domains.base import DomainOptions


class BudgetOptions(DomainOptions):
    """The options of a domain whose candidates run under a budget measured from the reference."""

    time_factor: float | None = Field(
        50.0, gt=0, description="a run may use this many times the reference's CPU time (at least time_floor_s, "
        "at most the task's cpu_s); None: the task's limits alone"
    )
    time_floor_s: float = Field(2.0, gt=0, description="but never less than this many seconds of CPU time")


@dataclass(frozen=True)
class CpuBudget:
    """A CPU limit below the task's, and why (said in the Timeout's diagnostic)."""

    cpu_s: float
    why: str

    def exceeded(self, what: str) -> str:
        return f"{what} used more than {self.cpu_s:g} s of CPU time ({self.why})"


def from_reference(options: BudgetOptions, measured_s: float | None, limit_s: float, reference: str) -> CpuBudget | None:
    """max(time_floor_s, time_factor x measured_s) when that is below the task's cpu_s, else None (also
    without a factor or a measurement). `reference`: what was measured, for the diagnostic."""
    factor, floor = options.time_factor, options.time_floor_s
    if factor is None or measured_s is None:
        return None
    allowed = max(floor, factor * measured_s)
    if allowed >= limit_s:
        return None
    return CpuBudget(round(allowed, 3), f"{factor:g}x the {measured_s:.3g} s of {reference}, at least {floor:g} s; option time_factor")
