"""Prediction speed of a world model against the real backend, measured in the same run.

The same held-out turns are judged three ways, one after the other in this process: by the real
backend (one candidate at a time, as a loop turn is), by the world model one request at a time
(latency), and by the world model in one batch (throughput per turn), its caches emptied first so
that predictions made before the timing (the accuracy pass) do not help; a candidate repeated within
the sample is served from the cache, as in a synthesis loop, and the distinct columns time first
occurrences only. The ratio of the medians is the speed-up; both sides see the same machine load.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from ecot.core.errors import ToolMissingError
from ecot.core.task import Task
from ecot.icwm.base import WorldModel
from ecot.icwm.dataset import Example


def sample_turns(examples: Sequence[Example], per_domain: int, seed: int = 0) -> list[Example]:
    """A stable turn-weighted sample (a candidate submitted often is drawn often), per domain."""
    chosen: dict[str, list[Example]] = defaultdict(list)
    keyed = [(hashlib.sha256(f"{seed}\x1f{i}".encode()).hexdigest(), i) for i in range(len(examples))]
    for _, index in sorted(keyed):
        example = examples[index]
        if len(chosen[example.domain]) < per_domain:
            chosen[example.domain].append(example)
    return [e for bucket in chosen.values() for e in bucket]


def first_occurrences(turns: Sequence[Example]) -> list[int]:
    """Indices of the first turn of each distinct candidate (the world model's caches are cold there)."""
    seen: set[tuple[str, str]] = set()
    keep = []
    for index, example in enumerate(turns):
        if (example.task_id, example.code) not in seen:
            seen.add((example.task_id, example.code))
            keep.append(index)
    return keep


def _real_times(turns: Sequence[Example], tasks: Mapping[str, Task]) -> tuple[list[float], str | None]:
    """Real backend seconds per turn, one at a time (after one untimed warm-up run)."""
    from ecot.domains import get_backend

    times: list[float] = []
    try:
        backend = get_backend(turns[0].domain)
    except ToolMissingError as err:
        return times, str(err)
    backend.run(tasks[turns[0].task_id], turns[0].code)
    for example in turns:
        start = time.perf_counter()
        backend.run(tasks[example.task_id], example.code)
        times.append(time.perf_counter() - start)
    return times, None


def _model_times(model: WorldModel, turns: Sequence[Example], tasks: Mapping[str, Task]) -> list[float]:
    times: list[float] = []
    for example in turns:
        start = time.perf_counter()
        model.predict([(tasks[example.task_id], example.code)])
        times.append(time.perf_counter() - start)
    return times


def measure(model: WorldModel, examples: Sequence[Example], tasks: Mapping[str, Task], per_domain: int = 60) -> dict[str, Any]:
    """Per domain: median seconds per turn, real vs world model (one request at a time, and batched)."""
    report: dict[str, Any] = {}
    sample = sample_turns(examples, per_domain)
    for domain in sorted({e.domain for e in sample}):
        turns = [e for e in sample if e.domain == domain]
        model.predict([(tasks[turns[0].task_id], turns[0].code + "\n")])  # warm-up, not a sampled candidate
        model.forget_recent()  # earlier predictions of these candidates (e.g. by the accuracy pass) must not help
        single = _model_times(model, turns, tasks)
        model.forget_recent()
        start = time.perf_counter()
        model.predict([(tasks[e.task_id], e.code) for e in turns])
        batch = (time.perf_counter() - start) / len(turns)
        real, skipped = _real_times(turns, tasks)
        firsts = first_occurrences(turns)
        entry: dict[str, Any] = {
            "turns": len(turns), "distinct": len(firsts),
            "icwm_median_s": round(median(single), 7),
            "icwm_median_distinct_s": round(median(single[i] for i in firsts), 7),
            "icwm_batch_per_turn_s": round(batch, 7),
        }
        if real:
            real_median = median(real)
            entry.update(
                real_median_s=round(real_median, 5),
                real_median_distinct_s=round(median(real[i] for i in firsts), 5),
                speedup_median=round(real_median / max(entry["icwm_median_s"], 1e-9), 1),
                speedup_median_distinct=round(median(real[i] for i in firsts) / max(entry["icwm_median_distinct_s"], 1e-9), 1),
                speedup_batch=round(real_median / max(batch, 1e-9), 1),
            )
        else:
            entry["real_skipped"] = skipped or "no real timing"
        report[domain] = entry
    return report
