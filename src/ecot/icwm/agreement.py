"""Trajectory agreement: the same deterministic generator, the same task and sample, once against the
real backend and once against the world model; do the final pass/fail verdicts match?

The real trajectories are the store's own (the `repair` generator is a pure function of task,
sample, options and the outcomes it sees, so it is rebuilt from each trajectory's provenance), or
fresh ones run now on the real backends. The world-model side runs the synthesis loop in memory
with the world model as its only environment: no verification, no audits, so a mistake propagates
exactly as it would (the paper's "error compounding across turns").
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

from ecot.core.task import Task
from ecot.core.trajectory import REAL, Message, Trajectory, TrajectoryStatus, Turn
from ecot.generators import make_generator
from ecot.generators.base import Generator
from ecot.icwm.base import WorldModel
from ecot.icwm.environment import WorldModelEnvironment
from ecot.run.loop import Environment, LoopSettings, SynthesisLoop

# generators whose answers depend only on task, sample, options and outcomes -> their option keys
REPLAYABLE: dict[str, tuple[str, ...]] = {"repair": ("seed", "max_bugs", "wrong_fix_rate", "no_code_rate")}


@dataclass
class Pair:
    domain: str
    task_id: str
    sample: int
    real_passed: bool
    world_passed: bool
    real_labels: list[str]
    world_labels: list[str]


class MemoryStore:
    """The loop's store contract in memory: nothing of an evaluation touches the trajectory store."""

    def __init__(self) -> None:
        self.trajectories: dict[tuple[str, int], Trajectory] = {}

    def trajectory(
        self, run_id: int, task_id: str, domain: str, sample: int, prompt_messages: list[Message],
        provenance: dict[str, Any],
    ) -> Trajectory:
        key = (task_id, sample)
        if key not in self.trajectories:
            self.trajectories[key] = Trajectory(task_id, domain, sample, prompt_messages, [], {**provenance, "run_id": run_id})
        return self.trajectories[key]

    def append_turn(self, trajectory: Trajectory, turn: Turn) -> None:
        trajectory.turns.append(turn)

    def finish(self, trajectory: Trajectory, status: str) -> None:
        trajectory.provenance["status"] = status

    def is_finished(self, run_id: int, task_id: str, sample: int) -> bool:
        return False

    def started(self, run_id: int) -> set[tuple[str, int]]:
        """(task_id, sample) of the trajectories that hold at least one turn (the store holds one run)."""
        return {key for key, trajectory in self.trajectories.items() if trajectory.turns}


def replayable(traj: Trajectory) -> bool:
    """A finished real trajectory of a deterministic generator whose plan rules are still current."""
    from ecot.generators.repair import PLAN_VERSION

    prov = traj.provenance
    return (
        prov.get("generator") in REPLAYABLE
        and prov.get("plan_version") == PLAN_VERSION
        and prov.get("environment", REAL) == REAL
        and prov.get("status") in (TrajectoryStatus.PASSED, TrajectoryStatus.FAILED)
        and bool(traj.turns)
    )


def generator_options(traj: Trajectory) -> tuple[str, tuple[tuple[str, Any], ...]]:
    name = str(traj.provenance["generator"])
    options = tuple((k, traj.provenance[k]) for k in REPLAYABLE[name] if k in traj.provenance)
    return name, options


async def run_loop(
    generator: Generator, environment: Environment, jobs: Sequence[tuple[Task, int]], max_rounds: int, in_flight: int = 64
) -> dict[tuple[str, int], Trajectory]:
    store = MemoryStore()
    loop = SynthesisLoop(generator, environment, store, LoopSettings(max_rounds=max_rounds, max_in_flight=in_flight))
    gate = asyncio.Semaphore(in_flight)

    async def one(task: Task, sample: int) -> None:
        async with gate:
            await loop.run_trajectory(0, task, sample)

    await asyncio.gather(*(one(task, sample) for task, sample in jobs))
    return store.trajectories


def agreement_pairs(model: WorldModel, real: Iterable[Trajectory], tasks: Mapping[str, Task]) -> list[Pair]:
    """Replay each stored real trajectory's generator under the world model and pair the verdicts."""
    groups: dict[tuple[Any, ...], list[Trajectory]] = defaultdict(list)
    for traj in real:
        if replayable(traj) and traj.task_id in tasks and traj.domain in model.domains():
            max_rounds = int(traj.provenance.get("max_rounds", 4))
            groups[(*generator_options(traj), max_rounds)].append(traj)
    pairs: list[Pair] = []
    for (name, options, max_rounds), trajs in groups.items():
        generator = make_generator(name, dict(options))
        environment = WorldModelEnvironment(model, verify=False)
        jobs = [(tasks[t.task_id], t.sample) for t in trajs]
        world = asyncio.run(run_loop(generator, environment, jobs, max_rounds))
        for traj in trajs:
            mine = world[(traj.task_id, traj.sample)]
            pairs.append(Pair(traj.domain, traj.task_id, traj.sample, traj.passed, mine.passed, traj.labels, mine.labels))
    return pairs


def real_pairs_now(
    model: WorldModel, tasks: Sequence[Task], samples: int, options: Mapping[str, Any], real: Environment,
    max_rounds: int = 4,
) -> list[Pair]:
    """Run the repair generator on the real backends now and under the world model, and pair them."""
    generator = make_generator("repair", options)
    jobs = [(task, s) for task in tasks for s in range(samples)]
    real_runs = asyncio.run(run_loop(generator, real, jobs, max_rounds))
    world_runs = asyncio.run(run_loop(generator, WorldModelEnvironment(model, verify=False), jobs, max_rounds))
    return [
        Pair(t.domain, t.id, s, real_runs[(t.id, s)].passed, world_runs[(t.id, s)].passed,
             real_runs[(t.id, s)].labels, world_runs[(t.id, s)].labels)
        for t, s in jobs
    ]


@dataclass
class AgreementSummary:
    trajectories: int = 0
    agreement: float | None = None
    real_pass_rate: float | None = None
    world_pass_rate: float | None = None
    same_labels: float | None = None  # whole label sequence identical
    mean_turns_real: float | None = None
    mean_turns_world: float | None = None
    disagreements: list[str] = field(default_factory=list)


def summarize(pairs: Sequence[Pair]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        grouped[pair.domain].append(pair)
    out: dict[str, dict[str, Any]] = {}
    for domain, rows in sorted(grouped.items()):
        summary = AgreementSummary(
            trajectories=len(rows),
            agreement=round(mean(p.real_passed == p.world_passed for p in rows), 4),
            real_pass_rate=round(mean(p.real_passed for p in rows), 4),
            world_pass_rate=round(mean(p.world_passed for p in rows), 4),
            same_labels=round(mean(p.real_labels == p.world_labels for p in rows), 4),
            mean_turns_real=round(mean(len(p.real_labels) for p in rows), 3),
            mean_turns_world=round(mean(len(p.world_labels) for p in rows), 3),
            disagreements=[f"{p.task_id}#{p.sample}: real {p.real_labels} / icwm {p.world_labels}"
                           for p in rows if p.real_passed != p.world_passed][:10],
        )
        out[domain] = summary.__dict__
    return out
