"""The export's unit: one training sample of some kind, with its prompt, completions and provenance.

Every kind shares the same flat provenance columns (domain, task, run, sample index, rounds) so
splits, deduplication, token counting and the dataset card treat them alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Chat = list[dict[str, str]]


@dataclass
class Sample:
    """`completions` is {"completion": [...]} (sft, trace) or {"chosen": [...], "rejected": [...]}."""

    kind: str
    prompt: Chat
    completions: dict[str, Chat]
    metadata: dict[str, Any]

    @property
    def task_id(self) -> str:
        return str(self.metadata["task_id"])

    @property
    def domain(self) -> str:
        return str(self.metadata["domain"])

    def prompt_text(self) -> str:
        return "\n".join(m["content"] for m in self.prompt)

    def completion_text(self) -> str:
        return "\n".join(m["content"] for chat in self.completions.values() for m in chat)


def from_folded(folded: dict[str, Any], kind: str = "sft") -> Sample:
    """A folded chat sample ({"messages": [system, user, assistant], "metadata": ...}) as a Sample."""
    messages = folded["messages"]
    return Sample(kind, list(messages[:-1]), {"completion": [messages[-1]]}, folded["metadata"])
