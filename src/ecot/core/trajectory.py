"""Turns and trajectories: what the loop produces and the store keeps."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypedDict

from ecot.core.outcome import Outcome

REAL = "real"  # observation_source of a turn judged by a real toolchain


class TrajectoryStatus(StrEnum):
    """How the loop left a trajectory. A StrEnum: stored and serialized as the plain string, and equal to it.

    Only the finished ones (FINISHED) are stored; the others say why a trajectory was left as it was."""

    PASSED = "passed"  # the last turn passed
    FAILED = "failed"  # every correction round was spent without a pass
    ERROR = "error"  # the harness kept failing (Infra_Error); the code is not blamed
    STOPPED = "stopped"  # a spent budget or an endpoint that went away stopped it; a rerun resumes it
    GENERATOR_ERROR = "generator_error"  # the generator failed; a rerun retries it
    CRASHED = "crashed"  # ecot itself failed on it (a bug, reported); the others go on, a rerun retries it
    SKIPPED = "skipped"  # finished by an earlier run

    @property
    def finished(self) -> bool:
        return self in FINISHED


FINISHED: frozenset[TrajectoryStatus] = frozenset({TrajectoryStatus.PASSED, TrajectoryStatus.FAILED, TrajectoryStatus.ERROR})


class Message(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class Turn:
    """One generate -> execute -> observe step. Index 0 is the first attempt, 1..K the corrections."""

    index: int
    reasoning: str
    code: str | None
    raw: str
    outcome: Outcome
    observation_source: str = REAL  # "real" or "icwm:<model name>"
    usage: dict[str, int] = field(default_factory=dict)
    gen_s: float = 0.0
    finish_reason: str | None = None  # as the endpoint reported it ("stop", "length", ...); None when unknown
    reasoning_content: str | None = None  # the endpoint's separate reasoning field, verbatim

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["outcome"] = self.outcome.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        return cls(
            index=int(data["index"]),
            reasoning=str(data.get("reasoning", "")),
            code=data.get("code"),
            raw=str(data.get("raw", "")),
            outcome=Outcome.from_dict(data["outcome"]),
            observation_source=str(data.get("observation_source", REAL)),
            usage=dict(data.get("usage") or {}),
            gen_s=float(data.get("gen_s", 0.0)),
            finish_reason=data.get("finish_reason"),
            reasoning_content=data.get("reasoning_content"),
        )


@dataclass
class Trajectory:
    """All turns of one task attempt, with the provenance needed to reproduce it."""

    task_id: str
    domain: str
    sample: int
    prompt_messages: list[Message]  # system + user messages the generator saw first
    turns: list[Turn] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    id: int | None = None  # store row id

    @property
    def final(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    @property
    def passed(self) -> bool:
        final = self.final
        return final is not None and final.outcome.passed

    @property
    def status(self) -> TrajectoryStatus | None:
        """The stored status of a finished trajectory; None while it is unfinished."""
        stored = self.provenance.get("status")
        return TrajectoryStatus(stored) if stored is not None else None

    @property
    def labels(self) -> list[str]:
        return [t.outcome.label for t in self.turns]
