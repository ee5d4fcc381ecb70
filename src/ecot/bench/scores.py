"""Scores of a benchmark run: every metric per task, per group (a domain or an imported benchmark) and
overall, each with a 95% bootstrap interval over tasks.

A group's value of a metric is the mean of its tasks' values; tasks whose value is None (too few
samples for that k, a speedup nobody could measure) are left out of that metric, and when every
task is, the metric is reported as not measured, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ecot.bench import metrics as M
from ecot.bench.results import BenchRun, TaskRound
from ecot.core.scoring import BenchMetric

BOOTSTRAP = 1000  # resamples of the tasks
CONFIDENCE = 0.95
OVERALL = "overall"


@dataclass(frozen=True)
class Score:
    value: float | None
    low: float | None = None
    high: float | None = None
    tasks: int = 0  # tasks that have a value
    note: str = ""  # why there is no value

    def as_dict(self) -> dict[str, Any]:
        return {"value": _round(self.value), "ci95": [_round(self.low), _round(self.high)], "tasks": self.tasks,
                **({"note": self.note} if self.note else {})}


@dataclass
class GroupScore:
    group: str
    domain: str
    units: dict[str, str]  # metric -> unit
    scores: dict[str, Score]
    tasks: int  # tasks with at least one judged sample
    samples: int  # judged samples
    not_run_here: dict[str, list[str]] = field(default_factory=dict)  # task -> why its samples were not run
    pending: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "group": self.group, "domain": self.domain, "tasks": self.tasks, "samples": self.samples,
            "metrics": {name: {**score.as_dict(), "unit": self.units[name]} for name, score in self.scores.items()},
            "not_run_here": {"tasks": len(self.not_run_here), "samples": sum(map(len, self.not_run_here.values())),
                             "why": {task: why[0] for task, why in self.not_run_here.items()}},
            "pending_samples": self.pending,
        }


def task_values(rounds: dict[str, TaskRound], run: BenchRun, metrics: Sequence[BenchMetric]) -> dict[str, dict[str, float | None]]:
    """metric -> task -> value, over the tasks with at least one judged sample."""
    return {m.name: {task: m.fn(entry.judged) for task, entry in rounds.items() if entry.judged} for m in metrics}


def bootstrap(values: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of the mean over `values` resampled with replacement."""
    data = np.asarray(values, dtype=float)
    if len(data) < 2:
        return float(data.mean()), float(data.mean())
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(BOOTSTRAP, len(data)))].mean(axis=1)
    tail = 100 * (1 - CONFIDENCE) / 2
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def aggregate(per_task: dict[str, float | None], metric: BenchMetric, samples: int) -> Score:
    values = [v for v in per_task.values() if v is not None]
    if not values or (metric.speed and len(values) < len(per_task)):  # a partial speed score would be a guess
        return Score(None, note=_why_none(metric, samples))
    low, high = bootstrap(values)
    return Score(float(np.mean(values)), low, high, len(values))


def _why_none(metric: BenchMetric, samples: int) -> str:
    if metric.name.startswith(("pass@", "syn@", "func@")):
        k = int(metric.name.split("@")[1])
        if samples < k:
            return f"n < k ({samples} samples per task)"
    if metric.speed:
        return "unmeasured (a correct sample has no measured speedup on this machine: GPU timing needs a GPU)"
    return "no task could be scored"


def group_scores(run: BenchRun, round_: int) -> list[GroupScore]:
    """One GroupScore per group of the run's tasks, then the overall pass@k."""
    rounds = run.at_round(round_)
    groups: dict[tuple[str, str], list[str]] = {}
    for task_id, info in run.tasks.items():
        groups.setdefault((info.group, info.domain), []).append(task_id)
    samples = int(run.config.get("samples", 1))
    found = []
    for (group, domain), ids in sorted(groups.items()):
        repair = any(run.tasks[t].repair for t in ids)
        found.append(_score(group, domain, {t: rounds[t] for t in ids}, run, M.metrics_for(domain, repair), samples))
    found.append(_score(OVERALL, "all", rounds, run, M.PASS_K, samples))
    return found


def _score(group: str, domain: str, rounds: dict[str, TaskRound], run: BenchRun, metrics: Sequence[BenchMetric],
           samples: int) -> GroupScore:
    values = task_values(rounds, run, metrics)
    return GroupScore(
        group=group,
        domain=domain,
        units={m.name: m.unit for m in metrics},
        scores={m.name: aggregate(values[m.name], m, samples) for m in metrics},
        tasks=sum(1 for entry in rounds.values() if entry.judged),
        samples=sum(len(entry.judged) for entry in rounds.values()),
        not_run_here={task: entry.not_run for task, entry in rounds.items() if entry.not_run},
        pending=sum(entry.pending for entry in rounds.values()),
    )


def per_task(run: BenchRun, round_: int) -> dict[str, dict[str, Any]]:
    """task -> its group, sample counts and every metric's value (the rows of the JSON report)."""
    rounds = run.at_round(round_)
    rows: dict[str, dict[str, Any]] = {}
    for task_id, info in run.tasks.items():
        entry = rounds[task_id]
        values = {m.name: _round(m.fn(entry.judged)) if entry.judged else None
                  for m in M.metrics_for(info.domain, info.repair)}
        labels: dict[str, int] = {}
        for outcome in entry.judged:
            labels[outcome.label] = labels.get(outcome.label, 0) + 1
        rows[task_id] = {"group": info.group, "domain": info.domain, "judged": len(entry.judged),
                         "not_run_here": len(entry.not_run), "pending": entry.pending, "labels": labels, "metrics": values}
    return rows


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
