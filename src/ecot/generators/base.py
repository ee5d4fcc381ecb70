"""The generator contract: messages (+ the task, for offline generators) -> reasoning, code, raw."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.core.trajectory import Message, Turn

LENGTH = "length"  # the finish_reason of an answer cut off by the length limit


@dataclass(frozen=True)
class Generation:
    reasoning: str  # the model's thinking (reasoning_content, <think> block, or written by an offline generator)
    code: str | None  # extracted code, None when the answer held none
    raw: str  # the full raw answer text
    usage: dict[str, int] = field(default_factory=dict)  # prompt_tokens, completion_tokens, ...
    finish_reason: str | None = None  # "stop", "length", ... as the endpoint reported it; None when unknown
    reasoning_content: str | None = None  # the endpoint's separate reasoning field, verbatim, when it sent one

    @property
    def truncated(self) -> bool:
        return self.finish_reason == LENGTH


class Generator(ABC):
    name: str = "base"
    synthetic: bool = False  # True for generators that do not sample a language model

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """Build the generator from its option table (`--gen-opt key=value` on the command line; values
        may arrive as strings). Unknown or bad options raise EcotError. The default takes none."""
        if options:
            raise EcotError(f"generator {cls.name!r} takes no options, got {', '.join(sorted(options))}")
        return cls()

    @abstractmethod
    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        """Answer the conversation so far.

        `task`, `turns` (this trajectory's earlier turns, with their structured outcomes) and `sample`
        (which of the task's trajectories this is) are for offline generators; language-model
        generators read only `messages` (and `sample`, to seed each sample's stream).
        """

    async def generate_samples(
        self, messages: Sequence[Message], task: Task, samples: Sequence[int], turns: Sequence[Turn] = ()
    ) -> list[Generation]:
        """Independent answers to one conversation, one per sample index (in that order).

        The default asks `generate` once per sample, concurrently, each with its own sample index
        (and so its own seed); endpoints that take `n` override this with one request.
        """
        return list(await asyncio.gather(*(self.generate(messages, task, turns, s) for s in samples)))

    @property
    def answer_limit(self) -> int | None:
        """The most tokens one answer may have (the request's max_tokens); None when not bounded."""
        return None

    async def preflight(self) -> None:  # noqa: B027  an optional hook: most generators need no check
        """Fail fast, with one clear line, when the generator cannot work at all (an endpoint is down)."""

    def provenance(self) -> dict[str, Any]:
        """What reproduces this generator's output: name, model, sampling settings."""
        return {"generator": self.name, "synthetic": self.synthetic}

    def identity(self) -> dict[str, Any]:
        """The part of the provenance that determines the data (a run's key): not where or how it is reached."""
        return self.provenance()

    async def aclose(self) -> None:  # noqa: B027  an optional hook: most generators hold nothing
        """Release clients and models."""
