"""The verdict of one execution: the shared currency of backends, the world model and the store."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

PASS = "Pass"
TIMEOUT = "Timeout"
INFRA_ERROR = "Infra_Error"  # the harness or toolchain failed, not the candidate
NO_CODE = "No_Code"  # the model's answer held no extractable code
RESOURCE_LIMIT = "Resource_Limit"  # memory, output or process limit hit
TRUNCATED = "Truncated"  # the answer hit the response length limit (finish_reason "length"); nothing ran

COMMON_LABELS: tuple[str, ...] = (PASS, TIMEOUT, INFRA_ERROR, NO_CODE)
NOT_RUN: tuple[str, ...] = (NO_CODE, TRUNCATED)  # labels given by the loop itself: no toolchain judged code

LOG_LIMIT = 8000  # characters of the full log kept with an outcome
Metric = float | int | str | bool


@dataclass(frozen=True)
class Outcome:
    label: str
    diagnostic: str
    log: str = ""
    metrics: dict[str, Metric] = field(default_factory=dict)
    tool_versions: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0

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
    if len(text) <= limit:
        return text
    half = limit // 2
    dropped = len(text) - 2 * half
    return f"{text[:half]}\n... [{dropped} characters cut] ...\n{text[-half:]}"


def infra_error(diagnostic: str, log: str = "", **metrics: Metric) -> Outcome:
    return Outcome(INFRA_ERROR, diagnostic, truncate_log(log), dict(metrics))


def no_code(diagnostic: str = "the answer held no extractable code block") -> Outcome:
    return Outcome(NO_CODE, diagnostic)


def truncated(tokens: int | None) -> Outcome:
    """An answer cut off by the length limit: incomplete, so it is neither run nor blamed on the code."""
    at = f"at {tokens} tokens " if tokens else ""
    diagnostic = f"the answer was cut off {at}by the response length limit (max_tokens) before it was complete"
    return Outcome(TRUNCATED, diagnostic, metrics={"completion_tokens": tokens} if tokens else {})
