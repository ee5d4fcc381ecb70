"""The generator contract: messages (+ the task, for offline generators) -> reasoning, code, raw."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

from ecot.task import Task
from ecot.trajectory import Message, Turn


@dataclass(frozen=True)
class Generation:
    reasoning: str  # the model's thinking (reasoning_content, <think> block, or written by an offline generator)
    code: str | None  # extracted code, None when the answer held none
    raw: str  # the full raw answer text
    usage: dict[str, int] = field(default_factory=dict)  # prompt_tokens, completion_tokens, ...


class Generator(ABC):
    name: str = "base"
    synthetic: bool = False  # True for generators that do not sample a language model

    @abstractmethod
    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        """Answer the conversation so far.

        `task`, `turns` (this trajectory's earlier turns, with their structured outcomes) and `sample`
        (which of the task's trajectories this is) are for offline generators; language-model
        generators read only `messages`.
        """

    def provenance(self) -> dict[str, Any]:
        """What reproduces this generator's output: name, model, sampling settings."""
        return {"generator": self.name, "synthetic": self.synthetic}

    async def aclose(self) -> None:
        """Release clients and models."""
