"""KernelBench's metrics (correct, fast_p), named by the descriptor (`Domain.metrics`) and scored by
`ecot bench`; definitions in docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Callable

from ecot.core.scoring import BenchMetric, Verdicts, fast_p, number

FAST_PS = (0.0, 1.0, 1.5, 2.0)  # KernelBench's fast_p thresholds


def gpu_fast(p: float) -> Callable[[Verdicts], float | None]:
    """KernelBench's fast_p per task: % of samples correct and more than p times faster than eager
    PyTorch; None (unmeasured) for p > 0 when a correct sample has no measured speedup (no GPU)."""

    def metric(verdicts: Verdicts) -> float | None:
        if not verdicts:
            return None
        items = [(v.passed, number(v.metrics.get("speedup"))) for v in verdicts]
        if p > 0 and any(ok and speed is None for ok, speed in items):
            return None
        return 100.0 * fast_p(items, p)

    return metric


METRICS = tuple(BenchMetric("correct" if p == 0 else f"fast_{p:g}", "%", "KernelBench", gpu_fast(p), p > 0) for p in FAST_PS)
