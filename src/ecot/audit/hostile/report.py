"""What a hostile audit found: one verdict per case, tallies per domain, the machine it ran on (the JSON
report of `ecot audit hostile --json`)."""

from __future__ import annotations

import os
import platform
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

DETAIL_LIMIT = 1200  # characters of a case's detail kept: enough for a label, a diagnostic and a check


class Verdict(StrEnum):
    CONTAINED = "contained"  # the case's containment check held and the host saw nothing escape
    FORGED = "forged"  # the attack earned a Pass
    LEAK = "leak"  # a host-side check found something escaped the job (a file, a process, a time limit)
    UNCONTAINED = "uncontained"  # no Pass, but not the label or log containment requires (a secret in the log)
    ERROR = "error"  # the audit could not judge the case (an exception, a label the backend does not declare)
    NOT_RUN = "not_run"  # a tool the case needs is missing on this machine


FAILING = frozenset({Verdict.FORGED, Verdict.LEAK, Verdict.UNCONTAINED, Verdict.ERROR})

# exit statuses of `ecot audit hostile` (2 is the CLI's usage error)
CLEAN, ESCAPED, INCOMPLETE = 0, 1, 3


def clean_text(text: str, limit: int = DETAIL_LIMIT) -> str:
    """Candidate-influenced text made safe to store and print: control characters shown as escapes, cut."""
    shown = "".join(ch if ch.isprintable() or ch in "\n\t" else ascii(ch)[1:-1] for ch in text[: limit * 2])
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


class CaseResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    domain: str
    attack: str
    case: str
    verdict: Verdict
    label: str | None = None  # the outcome's label (the second candidate's, for a case with `then`)
    detail: str = ""  # why it is not contained, or what is missing; cleaned
    seconds: float = 0.0
    known_failure: str | None = None  # the reason it is listed in KNOWN_FAILURES

    @property
    def failed(self) -> bool:
        """Not contained, and not a known failure."""
        return self.verdict in FAILING and self.known_failure is None

    @property
    def tally(self) -> str:
        """The column it counts in: its verdict, or 'known failure'."""
        return "known failure" if self.verdict in FAILING and self.known_failure is not None else self.verdict.value


class ControlResult(BaseModel):
    """The domain's oracle with a harmless 'attack': a Pass shows its oracles can pass at all."""

    model_config = ConfigDict(frozen=True)

    case: str
    label: str | None
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.label == "Pass"


class DomainResult(BaseModel):
    domain: str
    missing: str | None = None  # a tool missing here: nothing of the domain ran
    broken: str | None = None  # the domain's cases could not be loaded
    control: ControlResult | None = None
    not_applicable: dict[str, str] = Field(default_factory=dict)  # attack class -> why it cannot arise
    cases: list[CaseResult] = Field(default_factory=list)
    seconds: float = 0.0  # evaluation time of its cases, summed over workers

    def count(self, tally: str) -> int:
        return sum(result.tally == tally for result in self.cases)

    @property
    def ran(self) -> int:
        return sum(result.verdict != Verdict.NOT_RUN for result in self.cases)

    @property
    def failed(self) -> bool:
        return self.broken is not None or any(r.failed for r in self.cases) or (self.control is not None and not self.control.passed)

    @property
    def complete(self) -> bool:
        return self.missing is None and all(r.verdict != Verdict.NOT_RUN for r in self.cases)

    def tools_missing(self) -> list[str]:
        """What kept this domain, or some of its cases, from running here."""
        found = [self.missing] if self.missing else []
        return found + sorted({r.detail for r in self.cases if r.verdict == Verdict.NOT_RUN} - set(found))


class Machine(BaseModel):
    system: str = Field(default_factory=lambda: f"{platform.system()} {platform.release()} {platform.machine()}")
    cpus: int = Field(default_factory=lambda: os.cpu_count() or 1)
    python: str = Field(default_factory=platform.python_version)


class AuditReport(BaseModel):
    suite: str = "hostile"
    ecot_version: str
    machine: Machine = Field(default_factory=Machine)
    isolation: str  # "bubblewrap", or why the sandbox cannot isolate here
    workers: int
    seconds: float = 0.0  # wall-clock time of the whole audit
    domains: list[DomainResult]

    def total(self, tally: str) -> int:
        return sum(d.count(tally) for d in self.domains)

    @property
    def exit_status(self) -> int:
        """ESCAPED if anything not known escaped (or a control failed), else INCOMPLETE if anything did
        not run here, else CLEAN."""
        if any(d.failed for d in self.domains):
            return ESCAPED
        return CLEAN if all(d.complete for d in self.domains) else INCOMPLETE
