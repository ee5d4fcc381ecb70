"""What a benchmark metric is, and the arithmetic the metrics share (pass@k, shares of samples).

A metric scores one task from the verdicts of its judged samples (samples the backend could not run
are left out before: "not run here", never a model failure) and returns a number in the unit its
benchmark reports, or None when this machine cannot measure it (a speedup without a GPU) or the task
has too few samples (pass@k with n < k). The metrics every domain is scored with live in
`ecot.bench.metrics`; a domain's own (the paper's Tables 4-5) live in its folder and are named by its
descriptor (`Domain.metrics`). Definitions and sources: docs/benchmarks.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ecot.core.outcome import Outcome

Verdicts = Sequence[Outcome]


@dataclass(frozen=True)
class BenchMetric:
    name: str
    unit: str  # "%", "x", "score", "count"
    source: str  # the benchmark that defines it
    fn: Callable[[Verdicts], float | None]
    speed: bool = False  # None means "not measured here": one such task leaves the whole group unmeasured


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Chen et al. (2021), eq. 1: 1 - C(n-c, k) / C(n, k), the chance that at least one of k samples
    drawn without replacement from n (c of them correct) is correct. None when n < k."""
    if k < 1 or n < k:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def share(flags: Sequence[bool]) -> float | None:
    """The percentage of true flags; None for no samples."""
    return 100.0 * sum(flags) / len(flags) if flags else None


def at_k(verdicts: Verdicts, good: Callable[[Outcome], bool], k: int) -> float | None:
    """pass@k in percent, with `good` deciding which samples count as correct."""
    value = pass_at_k(len(verdicts), sum(1 for v in verdicts if good(v)), k)
    return None if value is None else 100.0 * value


def passed(outcome: Outcome) -> bool:
    return outcome.passed


def pass_share(verdicts: Verdicts) -> float | None:
    """The percentage of samples that passed."""
    return share([v.passed for v in verdicts])


def number(value: object) -> float | None:
    """A metric value as a float; None for a missing or non-numeric one (a bool is no number)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def fast_p(results: Iterable[tuple[bool, float | None]], p: float) -> float:
    """KernelBench's fast_p: the fraction of tasks whose kernel is correct and more than p times
    faster than the reference (p = 0 is plain correctness)."""
    items = list(results)
    if not items:
        return 0.0
    good = sum(1 for correct, speedup in items if correct and (p == 0 or (speedup is not None and speedup > p)))
    return good / len(items)
