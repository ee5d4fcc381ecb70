"""SuperCoder's metrics (Acc, Spd), named by the descriptor (`Domain.metrics`) and scored by `ecot bench`;
definitions in docs/benchmarks.md."""

from __future__ import annotations

from ecot.core.scoring import BenchMetric, Verdicts, number, pass_share


def asm_speedup(verdicts: Verdicts) -> float | None:
    """SuperCoder's Spd: mean speedup over gcc -O3 (callgrind instruction counts), a failing sample
    counting 1.0 (the compiler's own output stands); None when a passing sample was not measured."""
    speeds = []
    for verdict in verdicts:
        if not verdict.passed:
            speeds.append(1.0)
            continue
        speed = number(verdict.metrics.get("speedup", verdict.metrics.get("wall_speedup")))
        if speed is None:
            return None
        speeds.append(speed)
    return sum(speeds) / len(speeds) if speeds else None


METRICS = (
    BenchMetric("acc", "%", "SuperCoder", pass_share),
    BenchMetric("spd", "x", "SuperCoder", asm_speedup, True),
)
