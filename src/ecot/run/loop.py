"""The execution-grounded multi-turn loop (equation 1 of the paper).

task + routed instructions -> generator -> extracted code -> environment (a real backend, or the world
model through the same interface) -> observation -> revision, for at most K correction rounds, stopping
at Pass. Every turn is persisted before the next one starts, so a killed run resumes where it stopped.

An answer cut off by the length limit is not run: it is labelled Truncated and the generator is told
so. The first answers of a task's samples share one prompt, so they are asked for together
(`Generator.generate_samples`: one request with `n` where the endpoint takes it). A RunControl may
stop the run (a spent budget, an endpoint that went away): no new request starts, the trajectories
left unfinished resume on a rerun.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from ecot.core.clean import clean
from ecot.core.outcome import Outcome, infra_error, no_code, truncated
from ecot.core.task import Task
from ecot.core.trajectory import REAL, Message, Trajectory, TrajectoryStatus, Turn
from ecot.generators.base import Generation, Generator
from ecot.generators.endpoint import EndpointDownError
from ecot.run import observation
from ecot.run.control import BudgetExhausted, Hold, RunControl, Stop, StopKind, prompt_bound
from ecot.run.progress import LiveCounters
from ecot.run.router import first_messages

if TYPE_CHECKING:  # the executors (process pools, Ray) load only where one is made
    from ecot.executors.work import Executor

log = logging.getLogger(__name__)


class Environment(Protocol):
    """What the loop runs candidates in: real toolchains, or the world model through the same interface."""

    source: str  # "real", or "icwm:<model>" for the world model

    async def observe(self, task: Task, code: str) -> Outcome:
        """The outcome of running `code` for `task`."""
        ...

    async def observe_sourced(self, task: Task, code: str) -> tuple[Outcome, str]:
        """The outcome and the source that produced it: a world model may hand some runs to real
        execution (a predicted Pass is verified), and that observation is then "real"."""
        ...

    async def after_turn(self, traj: Trajectory, turn: Turn, task: Task) -> None:
        """Called once a turn is stored (a world model audits it against real execution)."""
        ...


class BaseEnvironment:
    """Default hooks: every observation comes from `source`, and nothing happens after a turn."""

    source: str

    async def observe(self, task: Task, code: str) -> Outcome:
        raise NotImplementedError

    async def observe_sourced(self, task: Task, code: str) -> tuple[Outcome, str]:
        return await self.observe(task, code), self.source

    async def after_turn(self, traj: Trajectory, turn: Turn, task: Task) -> None:
        return None


class RealEnvironment(BaseEnvironment):
    """Real toolchains, run by an executor (the local pool, or Ray)."""

    source = REAL

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    async def observe(self, task: Task, code: str) -> Outcome:
        return await self.executor.evaluate(task, code)


class TrajectoryStoreLike(Protocol):
    def trajectory(self, run_id: int, task_id: str, domain: str, sample: int, prompt_messages: list[Message],
                   provenance: dict[str, Any]) -> Trajectory: ...
    def append_turn(self, trajectory: Trajectory, turn: Turn) -> object: ...  # the store returns the turn as stored
    def finish(self, trajectory: Trajectory, status: TrajectoryStatus) -> None: ...
    def is_finished(self, run_id: int, task_id: str, sample: int) -> bool: ...
    def started(self, run_id: int) -> set[tuple[str, int]]: ...


@dataclass(frozen=True)
class LoopSettings:
    max_rounds: int = 4  # K correction rounds after the first attempt
    infra_retries: int = 2  # re-runs of an evaluation that failed for harness reasons
    max_in_flight: int = 64  # trajectories advancing concurrently
    system_prompt: str | None = None  # replaces the routed system message (see router.first_messages)


@dataclass
class RunSummary:
    statuses: Counter[TrajectoryStatus] = field(default_factory=Counter)
    turns: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    generator_errors: list[str] = field(default_factory=list)
    harness_errors: list[str] = field(default_factory=list)  # trajectories ended by Infra_Error: task#sample: why
    crashes: list[str] = field(default_factory=list)  # trajectories ecot itself failed on: task#sample: why
    stop: Stop | None = None  # why the run stopped early (a budget, the endpoint, Ctrl-C); None when it did not

    @property
    def stop_reason(self) -> str | None:
        return self.stop.detail if self.stop is not None else None

    def add(self, status: TrajectoryStatus, new_turns: Sequence[Turn]) -> None:
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


class FirstTurns:
    """The first answers of one task's fresh samples, asked for together when the first of them needs its own.

    They share the prompt, so one `generate_samples` call (one request with `n` on endpoints that take
    it) serves them all; each trajectory still waits for its answer in its own in-flight slot. The
    request's worst case is reserved once for all of them; each answer gives its share back.
    """

    def __init__(self, loop: SynthesisLoop, task: Task, samples: list[int]) -> None:
        self.loop, self.task, self.samples = loop, task, samples
        self.hold: Hold | None = None
        self._pending: asyncio.Future[list[Generation]] | None = None
        self._settled: set[int] = set()

    async def answer(self, messages: list[Message], sample: int) -> Generation:
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._ask(messages))
        try:
            results = await asyncio.shield(self._pending)
        except BaseException:
            self.settle(sample, None)
            raise
        found = results[self.samples.index(sample)]
        self.settle(sample, found.usage)
        return found

    async def _ask(self, messages: list[Message]) -> list[Generation]:
        self.hold = await self.loop.reserve(messages, (), len(self.samples))
        counters = self.loop.counters
        counters.request_started()
        try:
            return await self.loop.generator.generate_samples(messages, self.task, self.samples)
        finally:
            counters.request_ended()

    def settle(self, sample: int, usage: dict[str, int] | None) -> None:
        """Charge this sample's answer (None: give its share back unspent), once per sample."""
        if sample in self._settled or sample not in self.samples:
            return
        self._settled.add(sample)
        if usage is None:
            self.loop.control.release(self.hold)
        else:
            self.loop.control.charge(usage, self.hold)


class SynthesisLoop:
    def __init__(
        self,
        generator: Generator,
        environment: Environment,
        store: TrajectoryStoreLike,
        settings: LoopSettings,
        control: RunControl | None = None,
        counters: LiveCounters | None = None,
    ) -> None:
        self.generator = generator
        self.environment = environment
        self.store = store
        self.settings = settings
        self.control = control or RunControl()
        self.counters = counters or LiveCounters()

    def provenance(self) -> dict[str, Any]:
        return {**self.generator.provenance(), "environment": self.environment.source, "max_rounds": self.settings.max_rounds}

    async def run(self, run_id: int, tasks: Sequence[Task], samples: int = 1, on_done: Callable[[str], None] | None = None) -> RunSummary:
        summary = RunSummary()
        gate = asyncio.Semaphore(self.settings.max_in_flight)
        started = self.store.started(run_id) if samples > 1 else set()
        self.counters.total = self.counters.total or len(tasks) * samples  # a caller may have set it before

        async def one(task: Task, sample: int, first: FirstTurns | None) -> None:
            async with gate:
                try:
                    status, new_turns = await self.run_trajectory(run_id, task, sample, summary, first)
                except Exception as err:  # noqa: BLE001 - one trajectory's failure must not cost the others theirs
                    log.exception("ecot failed on %s sample %d", task.id, sample)
                    summary.crashes.append(f"{task.id}#{sample}: {type(err).__name__}: {clean(str(err), 300)}")
                    status, new_turns = TrajectoryStatus.CRASHED, []
                finally:
                    if first is not None:
                        first.settle(sample, None)  # a share never taken (a crash before the answer) goes back
            summary.add(status, new_turns)
            if status == TrajectoryStatus.ERROR and new_turns:
                summary.harness_errors.append(f"{task.id}#{sample}: {new_turns[-1].outcome.diagnostic}")
            self.counters.trajectory_ended(skipped=status == TrajectoryStatus.SKIPPED)
            if on_done:
                on_done(status)

        jobs = []
        for task in tasks:
            fresh = [s for s in range(samples) if (task.id, s) not in started]
            first = FirstTurns(self, task, fresh) if len(fresh) > 1 else None
            jobs += [one(task, s, first if s in fresh else None) for s in range(samples)]
        await asyncio.gather(*jobs)
        if summary.statuses[TrajectoryStatus.STOPPED]:  # a budget spent by the very last turn stopped nothing
            summary.stop = self.control.stopped
        return summary

    async def run_trajectory(
        self, run_id: int, task: Task, sample: int, summary: RunSummary | None = None, first: FirstTurns | None = None
    ) -> tuple[TrajectoryStatus, list[Turn]]:
        """Advance one trajectory to its end; returns (status, turns added now)."""
        if self.store.is_finished(run_id, task.id, sample):
            return TrajectoryStatus.SKIPPED, []
        prompt = first_messages(task, self.settings.system_prompt)
        traj = self.store.trajectory(run_id, task.id, task.domain, sample, prompt, self.provenance())
        added: list[Turn] = []
        while (status := self._status(traj)) is None:
            messages = conversation(traj.prompt_messages, traj.turns, task)
            try:
                turn = await self._turn(task, sample, messages, traj.turns, first)
            except BudgetExhausted:
                return TrajectoryStatus.STOPPED, added  # left unfinished: a rerun (with budget left) resumes it
            except EndpointDownError as err:  # the breaker said it once, in the log; stop the others quietly
                self.control.stop(str(err), StopKind.ENDPOINT)
                return TrajectoryStatus.STOPPED, added
            except Exception as err:  # noqa: BLE001 - an endpoint failure must not stop other trajectories
                log.warning("generator failed on %s sample %d: %s", task.id, sample, err)
                if summary is not None:
                    summary.generator_errors.append(f"{task.id}#{sample}: {type(err).__name__}: {clean(str(err), 300)}")
                return TrajectoryStatus.GENERATOR_ERROR, added  # left unfinished: a rerun retries it
            turn = self._store(traj, turn)
            self.counters.turn_stored(turn.outcome.label, turn.usage)
            added.append(turn)
            await self._after_turn(traj, turn, task)
        self.store.finish(traj, status)
        return status, added

    def _store(self, traj: Trajectory, turn: Turn) -> Turn:
        """Append the turn; one the store refuses is replaced by an Infra_Error turn that says why, so the
        trajectory ends (as an error) instead of failing again on every rerun."""
        try:
            self.store.append_turn(traj, turn)
            return turn
        except Exception as err:  # noqa: BLE001 - reported in the turn that replaces it
            log.warning("turn %d of %s could not be stored: %s", turn.index, traj.task_id, err)
            why = f"the turn could not be stored ({type(err).__name__}: {clean(str(err), 300)}); its answer is dropped"
            stand_in = replace(turn, reasoning="", code=None, raw="", reasoning_content=None, outcome=infra_error(why))
            self.store.append_turn(traj, stand_in)
            return stand_in

    def _status(self, traj: Trajectory) -> TrajectoryStatus | None:
        final = traj.final
        if final is None:
            return None
        if final.outcome.passed:
            return TrajectoryStatus.PASSED
        if final.outcome.is_infra:
            return TrajectoryStatus.ERROR  # the harness kept failing; the code is not blamed and no revision is asked
        if len(traj.turns) > self.settings.max_rounds:
            return TrajectoryStatus.FAILED
        return None

    async def _generate(
        self, task: Task, sample: int, messages: list[Message], turns: Sequence[Turn], first: FirstTurns | None
    ) -> Generation:
        if first is not None and not turns:
            return await first.answer(messages, sample)
        hold = await self.reserve(messages, turns)
        self.counters.request_started()
        try:
            generation = await self.generator.generate(messages, task, turns, sample)
        except BaseException:
            self.control.release(hold)
            raise
        finally:
            self.counters.request_ended()
        self.control.charge(generation.usage, hold)
        return generation

    async def reserve(self, messages: list[Message], turns: Sequence[Turn], answers: int = 1) -> Hold:
        """Reserve the worst case of one request for `answers` answers (BudgetExhausted: none may start)."""
        if self.generator.synthetic:  # no model reads the prompt: only what the generator reports counts
            return await self.control.reserve(0, 0.0, answers)
        limit = self.generator.answer_limit
        answer = limit if limit is not None else self.control.longest_answer
        # each answer may be billed the whole prompt (an endpoint without `n` gets one request per answer)
        usage = {"prompt_tokens": answers * prompt_bound(messages, turns), "completion_tokens": answers * answer}
        price = self.control.budget.price
        usd = price.cost(usage) if price else 0.0
        return await self.control.reserve(usage["prompt_tokens"] + usage["completion_tokens"], usd, answers)

    async def _turn(
        self, task: Task, sample: int, messages: list[Message], turns: Sequence[Turn], first: FirstTurns | None = None
    ) -> Turn:
        start = time.monotonic()
        generation = await self._generate(task, sample, messages, turns, first)
        gen_s = time.monotonic() - start
        source = self.environment.source
        code = None if generation.truncated else generation.code  # an incomplete answer is never run
        if generation.truncated:
            outcome = truncated(generation.usage.get("completion_tokens"))
        elif code is None:
            outcome = no_code()
        else:
            outcome, source = await self._observe(task, code)
        return Turn(
            index=len(turns),
            reasoning=generation.reasoning,
            code=code,
            raw=generation.raw,
            outcome=outcome,
            observation_source=source,
            usage=dict(generation.usage),
            gen_s=round(gen_s, 4),
            finish_reason=generation.finish_reason,
            reasoning_content=generation.reasoning_content,
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
        return await self.environment.observe_sourced(task, code)

    async def _after_turn(self, traj: Trajectory, turn: Turn, task: Task) -> None:
        """Let a world-model environment audit the stored turn against real execution."""
        await self.environment.after_turn(traj, turn, task)
