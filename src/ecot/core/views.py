"""What a domain may show of a candidate beyond its verdict, each named by its descriptor:

- a preview (`Domain.preview`): a picture of what the candidate made next to what the reference
  makes (a CAD solid), drawn on request for `ecot report` and `python -m ecot.cli.preview`;
- a trace format (`Domain.traces`): how the execution traces its backend records become training
  samples (`ecot export --kind trace`).
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
