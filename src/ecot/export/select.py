"""Which stored trajectories an export reads: one per (task, sample index) unless all runs are asked for.

The same job can land in a store as two runs (the same server reached as `localhost` and as
`127.0.0.1` once made two run keys); exporting both would train twice on one task attempt. So by
default, for each (task id, sample index) the export keeps one finished trajectory: one whose
final turn passed real execution if any did, and among those the newest run's (highest run id,
then the latest stored). `--run ID` reads one run only, `--all-runs` every trajectory.
"""

from __future__ import annotations

from collections.abc import Iterator

from ecot.core.trajectory import Trajectory
from ecot.export.fold import foldable
from ecot.store import TrajectoryStore

Key = tuple[str, int]


def chosen_ids(store: TrajectoryStore, run_id: int | None, domain: str | None) -> tuple[set[int], int]:
    """(the store ids of the trajectories to export, how many finished ones were read): a first pass."""
    best: dict[Key, tuple[bool, int, int]] = {}
    seen = 0
    for traj in store.iter_trajectories(run_id=run_id, domain=domain):
        assert traj.id is not None
        seen += 1
        rank = (foldable(traj), int(traj.provenance.get("run_id") or 0), traj.id)
        key = (traj.task_id, traj.sample)
        if key not in best or rank > best[key]:
            best[key] = rank
    return {rank[2] for rank in best.values()}, seen


def trajectories(
    store: TrajectoryStore, run_id: int | None, domain: str | None, all_runs: bool
) -> tuple[Iterator[Trajectory], int]:
    """(the trajectories to read, how many were left out because another run had the same task and sample)."""
    stream = store.iter_trajectories(run_id=run_id, domain=domain)
    if all_runs or run_id is not None:
        return stream, 0
    chosen, seen = chosen_ids(store, run_id, domain)
    return (traj for traj in stream if traj.id in chosen), seen - len(chosen)
