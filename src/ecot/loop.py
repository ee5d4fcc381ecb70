"""The execution-grounded multi-turn loop (equation 1 of the paper).

task + routed instructions -> generator -> extracted code -> environment (a real backend, or the world
model through the same interface) -> observation -> revision, for at most K correction rounds, stopping
at Pass. Every turn is persisted before the next one starts, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from ecot import observation
from ecot.generators.base import Generator
from ecot.outcome import Outcome, no_code
from ecot.router import first_messages
from ecot.task import Task
from ecot.trajectory import REAL, Message, Trajectory, Turn

log = logging.getLogger(__name__)


class Environment(Protocol):
    source: str  # "real", or "icwm:<model>" for the world model

    async def observe(self, task: Task, code: str) -> Outcome: ...


class RealEnvironment:
    """Real toolchains, run by an executor (the local pool, or Ray)."""

    source = REAL

    def __init__(self, executor: Any) -> None:
        self.executor = executor

    async def observe(self, task: Task, code: str) -> Outcome:
        return await self.executor.evaluate(task, code)


class TrajectoryStoreLike(Protocol):
    def trajectory(self, run_id: int, task_id: str, domain: str, sample: int, prompt_messages: list[Message], provenance: dict[str, Any]) -> Trajectory: ...
    def append_turn(self, trajectory: Trajectory, turn: Turn) -> None: ...
    def finish(self, trajectory: Trajectory, status: str) -> None: ...
    def is_finished(self, run_id: int, task_id: str, sample: int) -> bool: ...


@dataclass(frozen=True)
class LoopSettings:
    max_rounds: int = 4  # K correction rounds after the first attempt
    infra_retries: int = 2  # re-runs of an evaluation that failed for harness reasons
    max_in_flight: int = 64  # trajectories advancing concurrently


@dataclass
class RunSummary:
    statuses: Counter[str] = field(default_factory=Counter)
    turns: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    generator_errors: list[str] = field(default_factory=list)
    harness_errors: list[str] = field(default_factory=list)  # trajectories ended by Infra_Error: task#sample: why

    def add(self, status: str, new_turns: Sequence[Turn]) -> None:
        self.statuses[status] += 1
        self.turns += len(new_turns)
        self.labels.update(t.outcome.label for t in new_turns)


def conversation(prompt: list[Message], turns: Sequence[Turn], task: Task) -> list[Message]:
    """Rebuild the chat from stored turns: each answer followed by its observation."""
    messages = list(prompt)
    for turn in turns:
        messages.append({"role": "assistant", "content": turn.raw})
        messages.append({"role": "user", "content": observation.render(turn.outcome, task)})
    return messages


class SynthesisLoop:
    def __init__(self, generator: Generator, environment: Environment, store: TrajectoryStoreLike, settings: LoopSettings) -> None:
        self.generator = generator
        self.environment = environment
        self.store = store
        self.settings = settings

    def provenance(self) -> dict[str, Any]:
        return {**self.generator.provenance(), "environment": self.environment.source, "max_rounds": self.settings.max_rounds}

    async def run(self, run_id: int, tasks: Sequence[Task], samples: int = 1, on_done: Callable[[str], None] | None = None) -> RunSummary:
        summary = RunSummary()
        gate = asyncio.Semaphore(self.settings.max_in_flight)

        async def one(task: Task, sample: int) -> None:
            async with gate:
                status, new_turns = await self.run_trajectory(run_id, task, sample, summary)
            summary.add(status, new_turns)
            if status == "error" and new_turns:
                summary.harness_errors.append(f"{task.id}#{sample}: {new_turns[-1].outcome.diagnostic}")
            if on_done:
                on_done(status)

        await asyncio.gather(*(one(task, s) for task in tasks for s in range(samples)))
        return summary

    async def run_trajectory(self, run_id: int, task: Task, sample: int, summary: RunSummary | None = None) -> tuple[str, list[Turn]]:
        """Advance one trajectory to its end; returns (status, turns added now)."""
        if self.store.is_finished(run_id, task.id, sample):
            return "skipped", []
        prompt = first_messages(task)
        traj = self.store.trajectory(run_id, task.id, task.domain, sample, prompt, self.provenance())
        added: list[Turn] = []
        while (status := self._status(traj)) is None:
            messages = conversation(traj.prompt_messages, traj.turns, task)
            try:
                turn = await self._turn(task, sample, messages, traj.turns)
            except Exception as err:  # noqa: BLE001 - an endpoint failure must not stop other trajectories
                log.warning("generator failed on %s sample %d: %s", task.id, sample, err)
                if summary is not None:
                    summary.generator_errors.append(f"{task.id}#{sample}: {type(err).__name__}: {err}")
                return "generator_error", added  # left unfinished: a rerun retries it
            self.store.append_turn(traj, turn)
            added.append(turn)
            await self._after_turn(traj, turn, task)
        self.store.finish(traj, status)
        return status, added

    def _status(self, traj: Trajectory) -> str | None:
        final = traj.final
        if final is None:
            return None
        if final.outcome.passed:
            return "passed"
        if final.outcome.is_infra:
            return "error"  # the harness kept failing; the code is not blamed and no revision is asked
        if len(traj.turns) > self.settings.max_rounds:
            return "failed"
        return None

    async def _turn(self, task: Task, sample: int, messages: list[Message], turns: Sequence[Turn]) -> Turn:
        start = time.monotonic()
        generation = await self.generator.generate(messages, task, turns, sample)
        gen_s = time.monotonic() - start
        source = self.environment.source
        if generation.code is None:
            outcome = no_code()
        else:
            outcome, source = await self._observe(task, generation.code)
        return Turn(
            index=len(turns),
            reasoning=generation.reasoning,
            code=generation.code,
            raw=generation.raw,
            outcome=outcome,
            observation_source=source,
            usage=dict(generation.usage),
            gen_s=round(gen_s, 4),
        )

    async def _observe(self, task: Task, code: str) -> tuple[Outcome, str]:
        outcome, source = await self._observe_once(task, code)
        for attempt in range(self.settings.infra_retries):
            if not outcome.is_infra:
                break
            log.info("infra failure on %s (attempt %d): %s", task.id, attempt + 1, outcome.diagnostic)
            outcome, source = await self._observe_once(task, code)
        return outcome, source

    async def _observe_once(self, task: Task, code: str) -> tuple[Outcome, str]:
        # A world-model environment names the source of each observation: a predicted Pass is
        # re-run for real (equation 3 with verification), and that observation is then "real".
        sourced = getattr(self.environment, "observe_sourced", None)
        if sourced is not None:
            return await sourced(task, code)  # type: ignore[no-any-return]
        return await self.environment.observe(task, code), self.environment.source

    async def _after_turn(self, traj: Trajectory, turn: Turn, task: Task) -> None:
        """Let a world-model environment audit the stored turn against real execution."""
        hook = getattr(self.environment, "after_turn", None)
        if hook is not None:
            await hook(traj, turn, task)
