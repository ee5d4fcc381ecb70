"""Optional LLM pass that turns the deterministic trace into natural first-person prose.

The rewrite is only accepted when it still names every outcome label of the trajectory and keeps
a plausible length; anything else (an exception, an empty or mangled answer) falls back to the
deterministic trace, and the fallback is counted so a bad endpoint shows up in the export report.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from ecot.core.extract import split_thinking
from ecot.core.task import Task
from ecot.core.trajectory import Message, Trajectory
from ecot.generators.base import Generator

log = logging.getLogger(__name__)

MIN_LENGTH_RATIO = 0.3  # a rewrite much shorter than the trace has dropped facts

INSTRUCTIONS = """You rewrite an engineer's working notes into the inner monologue they had while solving \
the task. The notes list each attempt: what was tried, the code or the diff, what the toolchain \
reported (outcome label, diagnostic, log lines), and the diagnosis and fix that followed.

Rewrite them as natural first-person prose, in the same order. Keep every code fact: identifiers, \
signal and variable names, numbers, outcome labels written exactly (for example Syntax_Error), \
diagnostics, the code blocks and diffs. Invent nothing. Return only the rewritten prose: no preamble, \
no headings, no <think> tags."""


@dataclass
class RewriteStats:
    rewritten: int = 0
    fallbacks: int = 0


class TraceRewriter:
    """Rewrites traces with a generator, at most `concurrency` requests in flight."""

    def __init__(self, generator: Generator, concurrency: int = 8) -> None:
        self.generator = generator
        self.stats = RewriteStats()
        self._slots = asyncio.Semaphore(concurrency)

    @property
    def fold_name(self) -> str:
        return f"llm:{self.generator.name}"

    async def __call__(self, trace: str, traj: Trajectory) -> str | None:
        """The accepted rewrite, or None (counted as a fallback) when it cannot be trusted."""
        async with self._slots:
            text = await rewrite_trace(self.generator, trace, traj)
        if text is None:
            self.stats.fallbacks += 1
        else:
            self.stats.rewritten += 1
        return text


async def rewrite_trace(generator: Generator, trace: str, traj: Trajectory) -> str | None:
    messages: list[Message] = [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": trace},
    ]
    # Language-model generators read only the messages; the task is there to satisfy the contract.
    task = Task(id=traj.task_id, domain=traj.domain, prompt=trace)
    try:
        generation = await generator.generate(messages, task, ())
    except Exception as err:  # noqa: BLE001 - any endpoint failure means "use the deterministic trace"
        log.warning("trace rewrite failed for %s: %s", traj.task_id, err)
        return None
    _, answer = split_thinking(generation.raw)
    return accept(answer, trace, traj)


def accept(text: str, trace: str, traj: Trajectory) -> str | None:
    text = text.strip()
    if not text or "<think>" in text or "</think>" in text:
        return None
    if len(text) < MIN_LENGTH_RATIO * len(trace):
        return None
    if any(label not in text for label in set(traj.labels)):
        return None
    return text

