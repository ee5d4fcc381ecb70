"""A benchmark run read back from the store: its settings, its tasks, and each sample's verdict at each round.

A sample's verdict at round r (r = 0 is the first answer; an agentic run has rounds 0..K) is the
first passing turn among turns 0..r, else the last of them. Three outcomes are kept apart:
- judged: a toolchain (or, in a world-model run, the world model) gave the code a verdict;
- not run here: the last verdict is Infra_Error (the harness or this machine could not judge it),
  or the task's reference does not pass here (`bench run` checks it first and asks nothing);
  never counted as a model failure, never in a denominator;
- pending: the sample has not reached round r yet (a run still going, or killed: rerun to resume).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.trajectory import REAL
from ecot.export.decontam import BENCH, bench_runs  # re-exported: where benchmark runs are marked
from ecot.store import TrajectoryStore

JUDGED, NOT_RUN, PENDING = "judged", "not run here", "pending"


@dataclass(frozen=True)
class TaskInfo:
    domain: str
    group: str  # what the report aggregates over: the id's folder ("rtl", "verilog-eval", "repair/rtl", ...)
    repair: bool = False
    source: str | None = None  # a repair task's original task
    prompt: str | None = None  # sha256 of its prompt (decontamination finds re-imported copies by it)


@dataclass(frozen=True)
class Answer:
    """The shape of one answer (turn), whatever its verdict: for signal beyond pass@k."""

    has_code: bool
    tokens: int | None  # completion tokens, when the generator reported them
    chars: int  # characters of the whole answer (reasoning and code)


@dataclass
class SampleRecord:
    sample: int
    outcomes: list[Outcome]  # one per turn
    finished: bool
    answers: list[Answer] = field(default_factory=list)  # one per turn

    def verdict(self, round_: int) -> tuple[str, Outcome | None]:
        turns = self.outcomes[: round_ + 1]
        for outcome in turns:
            if outcome.passed:
                return JUDGED, outcome
        if not turns:
            return PENDING, None
        if turns[-1].is_infra:
            return NOT_RUN, turns[-1]
        if len(turns) < round_ + 1 and not self.finished:
            return PENDING, None
        return JUDGED, turns[-1]


@dataclass
class TaskRound:
    """One task's samples at one round."""

    judged: list[Outcome] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # why each unjudged sample was not run
    pending: int = 0


@dataclass
class BenchRun:
    run_id: int
    config: dict[str, Any]
    tasks: dict[str, TaskInfo]
    samples: dict[str, list[SampleRecord]]

    @property
    def bench(self) -> dict[str, Any]:
        return dict(self.config.get(BENCH) or {})

    @property
    def rounds(self) -> int:
        """The last round (0 in single mode, K in agentic mode)."""
        return int(self.config.get("max_rounds", 0))

    @property
    def environment(self) -> str:
        return str(self.config.get("environment", REAL))

    @property
    def skipped(self) -> dict[str, str]:
        """Tasks not attempted because their reference does not pass here: id -> why."""
        return dict(self.bench.get("not_run_here") or {})

    @property
    def label(self) -> str:
        given = self.bench.get("label")
        if given:
            return str(given)
        generator = self.config.get("generator") or {}
        return str(generator.get("model") or generator.get("generator") or f"run {self.run_id}")

    def at_round(self, round_: int) -> dict[str, TaskRound]:
        found: dict[str, TaskRound] = {}
        for task_id in self.tasks:
            entry = found[task_id] = TaskRound()
            if task_id in self.skipped:  # none of its samples was asked for
                entry.not_run += [self.skipped[task_id]] * int(self.config.get("samples", 1))
                continue
            records = self.samples.get(task_id, [])
            entry.pending = max(0, int(self.config.get("samples", 1)) - len(records))
            for record in records:
                state, outcome = record.verdict(round_)
                if state == JUDGED and outcome is not None:
                    entry.judged.append(outcome)
                elif state == NOT_RUN and outcome is not None:
                    entry.not_run.append(f"{outcome.label}: {outcome.diagnostic}")
                else:
                    entry.pending += 1
        return found


def load_run(store: TrajectoryStore, run_id: int) -> BenchRun:
    """The benchmark run `run_id` with every stored sample (finished or not)."""
    runs = {int(run["id"]): run for run in store.runs()}
    if run_id not in runs:
        raise EcotError(f"{store.path} has no run {run_id} (runs: {', '.join(map(str, runs)) or 'none'})")
    config = runs[run_id]["config"]
    if not isinstance(config.get(BENCH), dict):
        marked = ", ".join(str(r["id"]) for r in bench_runs(store)) or "none"
        raise EcotError(f"run {run_id} of {store.path} is not a benchmark run (`ecot synth` made it); benchmark runs: {marked}")
    tasks = {task_id: TaskInfo(**info) for task_id, info in (config[BENCH].get("tasks") or {}).items()}
    samples: dict[str, list[SampleRecord]] = defaultdict(list)
    for traj in store.iter_trajectories(run_id=run_id, finished_only=False):
        finished = traj.provenance.get("status") is not None
        answers = [Answer(bool((t.code or "").strip()), t.usage.get("completion_tokens"),
                          len(t.raw) + len(t.reasoning_content or "")) for t in traj.turns]
        samples[traj.task_id].append(SampleRecord(traj.sample, [t.outcome for t in traj.turns], finished, answers))
    return BenchRun(run_id, config, tasks, dict(samples))


def latest_run(store: TrajectoryStore) -> int:
    runs = bench_runs(store)
    if not runs:
        raise EcotError(f"{store.path} holds no benchmark run (make one with `ecot bench run`)")
    return int(runs[-1]["id"])
