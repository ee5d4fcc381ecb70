"""What a domain may show of a candidate beyond its verdict, each named by its descriptor:

- a preview (`Domain.preview`): a picture of what the candidate made next to what the reference
  makes (a CAD solid), drawn on request for `ecot report` and `python -m ecot.cli.preview`;
- a trace format (`Domain.traces`): how the execution traces its backend records become training
  samples (`ecot export --kind trace`);
- a tool drift (`Domain.drift`): a second version of one of its tools, to judge the same text with
  both (`ecot audit --drift`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ecot.core.outcome import Outcome
from ecot.core.task import Task


@dataclass
class Preview:
    files: dict[str, Path] = field(default_factory=dict)  # what was drawn or exported, e.g. "candidate.stl" -> path
    png: Path | None = None  # the picture a report shows
    outcome: Outcome | None = None  # the evaluation's verdict, when the candidate was judged


class DrawPreview(Protocol):
    def __call__(self, task: Task, candidate: str, out_dir: Path, png: bool = True) -> Preview:
        """Judge the candidate and draw it (and the reference) into out_dir; may raise."""
        ...


@dataclass(frozen=True)
class PreviewHook:
    title: str  # the heading of the report's section ("CAD preview")
    caption: str  # what the picture shows
    draw: DrawPreview


@dataclass(frozen=True)
class TraceFormat:
    """A recorded trace (a JSON payload with `events`, `input`, `truncated`) as a training sample: the
    task's instructions, the input in words, and the trace as the text to predict."""

    instructions: str
    describe_input: Callable[[Any], str]
    render: Callable[[list[dict[str, Any]], bool], str]  # (events, truncated) -> the target text


@dataclass(frozen=True)
class ToolDrift:
    """A second version of one of the domain's tools, judging the same texts as the one its backend runs."""

    versions: Callable[[], str | None]  # "tool A vs tool B" where both are installed here, else None
    install: str  # how to get the second version (shown when it is missing)
    applies: Callable[[Task], bool]  # the tool decides part of this task's verdicts
    judge_both: Callable[[Task, str], tuple[Outcome, Outcome]]  # a text's verdict under the first and the second
