"""The verdict of one execution: the shared currency of backends, the world model and the store."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Self

from ecot.core.clean import cap, clean, scrub


class LabelKind(StrEnum):
    """The coarse meaning of an outcome label, shared by every domain."""

    PASS = "pass"  # the candidate is right
    BUILD = "build"  # it did not parse, compile, assemble, link or elaborate
    REJECTED = "rejected"  # a static check refused it before it ran (forbidden code)
    RUNTIME = "runtime"  # it crashed or faulted while running
    WRONG = "wrong"  # it ran to the end and produced the wrong result
    LIMIT = "limit"  # it hit a time, memory or resource limit
    INFRA = "infra"  # the harness or toolchain failed, not the candidate
    NOT_RUN = "not_run"  # nothing ran: no code in the answer, or the answer was cut off


class KindedLabel(StrEnum):
    """Base of every label set: a member is its label string (so it compares equal to stored labels)
    and carries its coarse kind. Declare members as `NAME = "Label_String", LabelKind.X`."""

    kind: LabelKind

    def __new__(cls, value: str, kind: LabelKind) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.kind = kind
        return member


class SharedLabel(KindedLabel):
    """Labels every domain may give; a domain's own label set holds only its own labels."""

    PASS = "Pass", LabelKind.PASS
    TIMEOUT = "Timeout", LabelKind.LIMIT
    RESOURCE_LIMIT = "Resource_Limit", LabelKind.LIMIT
    INFRA_ERROR = "Infra_Error", LabelKind.INFRA
    NO_CODE = "No_Code", LabelKind.NOT_RUN
    TRUNCATED = "Truncated", LabelKind.NOT_RUN


# Plain-string forms of the shared labels (what is stored and sent).
PASS: str = SharedLabel.PASS.value
TIMEOUT: str = SharedLabel.TIMEOUT.value
INFRA_ERROR: str = SharedLabel.INFRA_ERROR.value  # the harness or toolchain failed, not the candidate
NO_CODE: str = SharedLabel.NO_CODE.value  # the model's answer held no extractable code
RESOURCE_LIMIT: str = SharedLabel.RESOURCE_LIMIT.value  # memory, output or process limit hit
TRUNCATED: str = SharedLabel.TRUNCATED.value  # the answer hit the response length limit; nothing ran

NOT_RUN: tuple[str, ...] = (NO_CODE, TRUNCATED)  # labels given by the loop itself: no toolchain judged code

LOG_LIMIT = 8000  # characters of the full log kept with an outcome
DIAGNOSTIC_LIMIT = 4000  # characters of a diagnostic
METRIC_TEXT_LIMIT = 2000  # characters of a text metric (bulky records are cleaned, never cut)
NAME_LIMIT = 200  # characters of a metric name or a tool version
Metric = float | int | str | bool


@dataclass(frozen=True)
class Outcome:
    label: str
    diagnostic: str
    log: str = ""
    metrics: dict[str, Metric] = field(default_factory=dict)
    tool_versions: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0

    def __post_init__(self) -> None:
        """Every text here can hold what a candidate printed or raised: cleaned once, where every
        outcome is built, so no store, export, terminal or report sees it raw (see core/clean.py)."""
        metrics = {clean(str(key), NAME_LIMIT): _clean_metric(str(key), value) for key, value in self.metrics.items()}
        versions = {clean(str(k), NAME_LIMIT): clean(str(v), NAME_LIMIT) for k, v in self.tool_versions.items()}
        for name, value in (("label", clean(str(self.label), NAME_LIMIT)),
                            ("diagnostic", clean(str(self.diagnostic), DIAGNOSTIC_LIMIT)),
                            ("log", clean(str(self.log), LOG_LIMIT, sep="\n")),
                            ("metrics", metrics), ("tool_versions", versions)):
            object.__setattr__(self, name, value)

    @property
    def passed(self) -> bool:
        return self.label == PASS

    @property
    def is_infra(self) -> bool:
        return self.label == INFRA_ERROR

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        return cls(
            label=str(data["label"]),
            diagnostic=str(data.get("diagnostic", "")),
            log=str(data.get("log", "")),
            metrics=dict(data.get("metrics") or {}),
            tool_versions=dict(data.get("tool_versions") or {}),
            wall_s=float(data.get("wall_s", 0.0)),
        )


BULKY_METRICS = frozenset({"trace"})  # recorded with the turn, never shown to a generator or folded


def shown_metrics(metrics: dict[str, Metric]) -> dict[str, Metric]:
    """The metrics worth showing: no durations (they vary run to run) and no bulky records."""
    return {k: v for k, v in metrics.items() if not k.endswith(("_s", "_ms")) and k not in BULKY_METRICS}


def truncate_log(text: str, limit: int = LOG_LIMIT) -> str:
    """Keep the head and the tail of a long log: errors cluster at both ends."""
    return cap(text, limit, sep="\n")


def _clean_metric(name: str, value: Metric) -> Metric:
    if not isinstance(value, str):
        return value
    if name in BULKY_METRICS:  # a JSON record: cleaning characters keeps it JSON, cutting it would not
        return scrub(value)
    return clean(value, METRIC_TEXT_LIMIT)


def infra_error(diagnostic: str, log: str = "", **metrics: Metric) -> Outcome:
    return Outcome(INFRA_ERROR, diagnostic, truncate_log(log), dict(metrics))


def no_code(diagnostic: str = "the answer held no extractable code block") -> Outcome:
    return Outcome(NO_CODE, diagnostic)


def truncated(tokens: int | None) -> Outcome:
    """An answer cut off by the length limit: incomplete, so it is neither run nor blamed on the code."""
    at = f"at {tokens} tokens " if tokens else ""
    diagnostic = f"the answer was cut off {at}by the response length limit (max_tokens) before it was complete"
    return Outcome(TRUNCATED, diagnostic, metrics={"completion_tokens": tokens} if tokens else {})
