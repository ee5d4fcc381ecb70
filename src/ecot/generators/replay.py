"""Deterministic answers read from a JSONL file: the generator of tests, demos and `ecot serve --mode replay`.

Each line is one recorded answer and the conditions under which it is given:

    {"task_id": "adder", "turn": 0, "content": "...", "reasoning_content": "..."}
    {"task_id": "*", "content": "..."}                      # any task, any turn
    {"match": "Simulation_Mismatch", "content": "..."}      # last user message contains the text
    {"task_id": "adder", "sample": 2, "content": "..."}     # the third sample of the task only

Omitted conditions match everything (`task_id` defaults to "*", `turn` and `sample` to any, `match`
to any text). The most specific matching line wins (an exact task beats "*", a set turn beats any
turn, a set sample beats any sample, a `match` beats none); among equally specific lines the first
one in the file wins. Only the replay generator knows the sample index; `ecot serve` ignores `sample`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.core.trajectory import Message, Turn
from ecot.generators.base import Generation, Generator
from ecot.generators.options import GeneratorOptions, build_generation, content_text, turn_number

ANY_TASK = "*"


class ReplayEntry(BaseModel):
    """One line of a replay file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str = ANY_TASK
    turn: int | None = Field(default=None, ge=0)
    sample: int | None = Field(default=None, ge=0)
    match: str | None = None
    content: str
    reasoning_content: str | None = None
    usage: dict[str, int] | None = None
    finish_reason: str | None = None  # as an endpoint reports it; "length" marks an answer cut off

    def applies(self, task_id: str | None, turn: int | None, text: str, sample: int | None = None) -> bool:
        if self.task_id != ANY_TASK and self.task_id != task_id:
            return False
        if self.turn is not None and self.turn != turn:
            return False
        if self.sample is not None and sample is not None and self.sample != sample:
            return False
        return self.match is None or self.match in text

    @property
    def specificity(self) -> int:
        return (self.task_id != ANY_TASK) * 8 + (self.turn is not None) * 4 + (self.sample is not None) * 2 + (self.match is not None)


@dataclass(frozen=True)
class ReplayBook:
    """The parsed lines of a replay file and the lookup rule shared by the generator and the server."""

    path: Path
    entries: tuple[ReplayEntry, ...]
    sha256: str

    @classmethod
    def load(cls, path: str | Path) -> ReplayBook:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as err:
            raise EcotError(f"replay file {path}: cannot read ({err.strerror or err})") from None
        entries = tuple(_parse_line(path, number, line) for number, line in _lines(data))
        if not entries:
            raise EcotError(f"replay file {path}: holds no answers")
        return cls(path, entries, hashlib.sha256(data).hexdigest())

    def lookup(self, task_id: str | None, turn: int | None, text: str = "", sample: int | None = None) -> ReplayEntry | None:
        best: ReplayEntry | None = None
        for entry in self.entries:
            if entry.applies(task_id, turn, text, sample) and (best is None or entry.specificity > best.specificity):
                best = entry
        return best


def _lines(data: bytes) -> list[tuple[int, str]]:
    text = data.decode("utf-8", errors="replace")
    return [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _parse_line(path: Path, number: int, line: str) -> ReplayEntry:
    try:
        return ReplayEntry.model_validate(json.loads(line))
    except json.JSONDecodeError as err:
        raise EcotError(f"replay file {path}:{number}: not valid JSON ({err.msg})") from None
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in err.errors())
        raise EcotError(f"replay file {path}:{number}: {problems}") from None


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


class ReplayOptions(GeneratorOptions):
    """The replay generator's one option."""

    owner: ClassVar[str] = "replay generator"

    path: Path  # the JSONL replay file


class ReplayGenerator(Generator):
    """Answers from a replay file; a missing answer is an error that names the task and turn."""

    name = "replay"
    synthetic = True

    def __init__(self, options: ReplayOptions) -> None:
        self.book = ReplayBook.load(options.path)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        return cls(ReplayOptions.from_table(options))

    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        turn = turn_number(messages, turns)
        entry = self.book.lookup(task.id, turn, last_user_text(messages), sample)
        if entry is None:
            raise EcotError(f"replay file {self.book.path}: no answer for task '{task.id}' turn {turn} sample {sample}")
        return build_generation(entry.content, entry.reasoning_content, task.domain, entry.usage, entry.finish_reason)

    def provenance(self) -> dict[str, Any]:
        return {**super().provenance(), "path": str(self.book.path), "sha256": self.book.sha256}

    def identity(self) -> dict[str, Any]:
        return {key: value for key, value in self.provenance().items() if key != "path"}  # the content, not its place
