"""World-model training data: every real execution turn in the store becomes one example.

An example is (domain tag, task = environment bundle, candidate code) -> the real outcome. Turns
judged by a world model are not examples, except where a real audit re-ran them: then the audit's
real outcome is the example's label. No_Code and Truncated turns ran nothing (a truncated answer is
incomplete, not faulty code) and Infra_Error turns blame the harness, so none of them teaches the
world model anything about code.

Splits are always by task (never by turn), so no task leaks between training and held-out data.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ecot.core.errors import EcotError
from ecot.core.outcome import INFRA_ERROR, NO_CODE, TRUNCATED, Outcome
from ecot.core.task import Task
from ecot.core.trajectory import REAL
from ecot.store import TrajectoryStore, require_store
from ecot.tasks.suite import bundled_domains, bundled_suite_path, load_suite

UNTRAINABLE = (NO_CODE, TRUNCATED, INFRA_ERROR)


@dataclass(frozen=True)
class Example:
    """One real (task, candidate) -> outcome pair, with where it came from in the store."""

    task_id: str
    domain: str
    code: str
    outcome: Outcome
    run_id: int = 0
    sample: int = 0
    turn: int = 0
    origin: str = "turn"  # "turn": a real turn; "audit": a world-model turn re-run for real


@dataclass
class Dataset:
    examples: list[Example]
    tasks: dict[str, Task]
    skipped: Counter[str] = field(default_factory=Counter)  # why turns were not used

    def domains(self) -> list[str]:
        return sorted({e.domain for e in self.examples})

    def select(self, task_ids: set[str], keep: bool = True) -> list[Example]:
        return [e for e in self.examples if (e.task_id in task_ids) == keep]

    def select_runs(self, run_ids: set[int], keep: bool = True) -> list[Example]:
        return [e for e in self.examples if (e.run_id in run_ids) == keep]


def trainable(outcome: Outcome) -> bool:
    return outcome.label not in UNTRAINABLE


def load_tasks(suites: Sequence[str | Path] = (), domains: Iterable[str] = ()) -> dict[str, Task]:
    """Tasks by id: the given suites, else every bundled suite (of the given domains)."""
    if suites:
        tasks = [t for s in suites for t in load_suite(Path(s))]
    else:
        wanted = set(domains)
        tasks = [t for d in bundled_domains() if not wanted or d in wanted for t in load_suite(bundled_suite_path(d))]
    return {t.id: t for t in tasks}


def load_dataset(store: TrajectoryStore, tasks: Mapping[str, Task], audits: bool = True) -> Dataset:
    """Every usable real turn of the store (plus audited world-model turns) as examples."""
    audited = _audit_outcomes(store) if audits else {}
    data = Dataset([], dict(tasks))
    for traj in store.iter_trajectories(finished_only=False):
        run_id = int(traj.provenance.get("run_id") or 0)
        for turn in traj.turns:
            if turn.code is None:
                data.skipped["no code"] += 1
                continue
            if turn.observation_source == REAL:
                outcome, origin = turn.outcome, "turn"
            else:
                found = audited.get((run_id, traj.task_id, traj.sample, turn.index))
                if found is None:
                    data.skipped["world-model turn, not audited"] += 1
                    continue
                outcome, origin = found, "audit"
            if not trainable(outcome):
                data.skipped[outcome.label] += 1
            elif traj.task_id not in tasks:
                data.skipped["task not found in the suites"] += 1
            else:
                data.examples.append(
                    Example(traj.task_id, traj.domain, turn.code, outcome, run_id, traj.sample, turn.index, origin)
                )
    return data


def _audit_outcomes(store: TrajectoryStore) -> dict[tuple[int, str, int, int], Outcome]:
    return {
        (int(a["run_id"]), a["task_id"], int(a["sample"]), int(a["idx"])): Outcome.from_dict(a["real_outcome"])
        for a in store.audits()
    }


def open_dataset(store_path: Path, suites: Sequence[str | Path] = (), audits: bool = True) -> Dataset:
    with TrajectoryStore(require_store(Path(store_path))) as store:
        domains = {t.domain for t in store.iter_trajectories(finished_only=False)}
        tasks = load_tasks(suites, domains)
        data = load_dataset(store, tasks, audits)
    if not data.examples:
        raise EcotError(f"{store_path} holds no usable real turns for the world model ({dict(data.skipped)})")
    return data


# -- splits ----------------------------------------------------------------------------------------
def _rank(task_id: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}\x1f{task_id}".encode()).hexdigest()


def tasks_by_domain(examples: Iterable[Example]) -> dict[str, list[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for e in examples:
        found[e.domain].add(e.task_id)
    return {d: sorted(ids) for d, ids in sorted(found.items())}


def held_out_tasks(examples: Iterable[Example], fraction: float, seed: int = 0) -> set[str]:
    """A stable, per-domain fraction of tasks (at least one where a domain has two or more)."""
    if not 0.0 < fraction < 1.0:
        raise EcotError(f"the held-out fraction must be in (0, 1), got {fraction}")
    held: set[str] = set()
    for ids in tasks_by_domain(examples).values():
        if len(ids) < 2:
            continue
        count = min(len(ids) - 1, max(1, round(fraction * len(ids))))
        held.update(sorted(ids, key=lambda t: _rank(t, seed))[:count])
    return held


def task_folds(examples: Iterable[Example], folds: int, seed: int = 0) -> list[set[str]]:
    """k disjoint task sets covering every task once, balanced within each domain."""
    if folds < 2:
        raise EcotError(f"cross-validation needs at least 2 folds, got {folds}")
    groups: list[set[str]] = [set() for _ in range(folds)]
    offset = 0
    for ids in tasks_by_domain(examples).values():
        for position, task_id in enumerate(sorted(ids, key=lambda t: _rank(t, seed))):
            groups[(position + offset) % folds].add(task_id)
        offset += len(ids)  # the next domain starts filling where this one stopped
    return [g for g in groups if g]


def run_folds(examples: Iterable[Example], folds: int) -> list[set[int]]:
    """k disjoint sets of synthesis runs, each domain's runs dealt in turn: the held-out runs' tasks
    are also trained on (through other runs), which is the amplification setting, not held-out tasks."""
    if folds < 2:
        raise EcotError(f"cross-validation needs at least 2 folds, got {folds}")
    runs: dict[str, set[int]] = defaultdict(set)
    for e in examples:
        runs[e.domain].add(e.run_id)
    groups: list[set[int]] = [set() for _ in range(folds)]
    dealt: set[int] = set()  # a run of several domains is dealt once, by the first
    offset = 0
    for domain in sorted(runs):
        fresh = sorted(runs[domain] - dealt)
        for position, run_id in enumerate(fresh):
            groups[(position + offset) % folds].add(run_id)
        dealt.update(fresh)
        offset += len(fresh)
    found = [g for g in groups if g]
    if len(found) < 2:
        raise EcotError("splitting by run needs turns from at least two synthesis runs")
    return found


def fingerprint(examples: Iterable[Example]) -> str:
    """Order-independent sha256 of the training examples (task, code, real label, diagnostic)."""
    digests = sorted(
        hashlib.sha256(
            json.dumps([e.task_id, e.code, e.outcome.label, e.outcome.diagnostic], ensure_ascii=False).encode()
        ).hexdigest()
        for e in examples
    )
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()


def label_counts(examples: Iterable[Example]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for e in examples:
        counts[e.domain][e.outcome.label] += 1
    return {d: dict(c.most_common()) for d, c in sorted(counts.items())}
