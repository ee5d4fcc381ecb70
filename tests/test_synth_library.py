"""The main job and a benchmark run driven from Python, as a notebook or a trainer would: `synthesize` and
`benchmark` on real toolchains, typed results, the store holding what they report, a second call resuming."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest

from ecot.bench import benchmark
from ecot.bench.run import BenchSettings
from ecot.core.trajectory import TrajectoryStatus
from ecot.generators.repair import RepairGenerator, RepairOptions
from ecot.run import RunOptions, RunResult, synthesize
from ecot.run.session import run_session
from ecot.store import TrajectoryStore
from ecot.tasks.suite import bundled_suite_path, load_suite

ONE_WORKER = RunOptions(workers=1)


@pytest.fixture(scope="module")
def tasks() -> list:
    found = {t.id: t for t in load_suite(bundled_suite_path("python"))}
    return [found["python/fizzbuzz"], found["python/climb_stairs"]]


def test_synthesize_runs_stores_and_resumes(tmp_path: Path, tasks: list) -> None:
    store = tmp_path / "ecot.db"
    generator = RepairGenerator(RepairOptions(seed=2, max_bugs=1, wrong_fix_rate=0.0))
    result = synthesize(tasks, generator, store, samples=2, max_rounds=4, options=ONE_WORKER)
    assert isinstance(result, RunResult) and result.run_id == 1 and not result.budget_hit
    assert sum(result.summary.statuses.values()) == 4 and result.summary.statuses[TrajectoryStatus.PASSED] == 4
    with TrajectoryStore(store) as opened:
        stored = list(opened.iter_trajectories(run_id=result.run_id))
    assert sorted((t.task_id, t.sample) for t in stored) == sorted((t.id, s) for t in tasks for s in (0, 1))
    assert all(t.passed and len(t.turns) >= 2 for t in stored)  # a planted bug, then its repair, judged for real
    assert result.summary.turns == sum(len(t.turns) for t in stored)
    again = synthesize(tasks, RepairGenerator(RepairOptions(seed=2, max_bugs=1, wrong_fix_rate=0.0)), store,
                       samples=2, max_rounds=4, options=ONE_WORKER)
    assert again.run_id == result.run_id and again.summary.turns == 0  # the same run, found again: nothing redone
    assert again.summary.statuses[TrajectoryStatus.SKIPPED] == 4


def test_benchmark_scores_single_answers(tmp_path: Path, tasks: list) -> None:
    generator = RepairGenerator(RepairOptions(seed=2, max_bugs=1, wrong_fix_rate=0.0))
    result = benchmark(tasks, generator, tmp_path / "bench.db", BenchSettings(samples=1), options=ONE_WORKER)
    assert result.not_run_here == {}  # both references pass here
    assert result.summary.statuses[TrajectoryStatus.FAILED] == 2  # one answer each, with its planted bug, no feedback
    with TrajectoryStore(tmp_path / "bench.db") as opened:
        assert all(len(t.turns) == 1 for t in opened.iter_trajectories(run_id=result.run_id))


@pytest.mark.parametrize("entry", [synthesize, benchmark, run_session])
def test_the_entry_points_are_typed_without_any(entry: typing.Callable[..., RunResult]) -> None:
    hints = typing.get_type_hints(entry, globalns=_names(entry))
    assert set(hints) >= set(inspect.signature(entry).parameters) | {"return"}  # every parameter annotated
    untyped = {name: hint for name, hint in hints.items() if "Any" in repr(hint)}
    assert not untyped, untyped


def _names(entry: typing.Callable[..., RunResult]) -> dict[str, object]:
    """The entry point's module namespace plus what it imports for type checking only."""
    from rich.console import Console

    from ecot.executors.work import Executor, Work

    return {**vars(inspect.getmodule(entry)), "Console": Console, "Executor": Executor, "Work": Work}
