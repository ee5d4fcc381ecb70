"""The RTL benchmarks' metrics (RealBench's Syn@k/Func@k, VeriScope, ArchXBench's n and t), named by
the descriptor (`Domain.metrics`) and scored by `ecot bench`; definitions in docs/benchmarks.md."""

from __future__ import annotations

from ecot.core.outcome import NO_CODE, TIMEOUT, TRUNCATED, Outcome
from ecot.core.scoring import BenchMetric, Verdicts, at_k, passed
from ecot.domains.rtl.domain import RtlLabel

# Labels of a candidate that never got past the compiler (no design to simulate).
RTL_NOT_COMPILED = frozenset({RtlLabel.SYNTAX_ERROR.value, RtlLabel.ELABORATION_ERROR.value, NO_CODE, TRUNCATED})


def rtl_compiled(outcome: Outcome) -> bool:
    """The design compiled and elaborated (RealBench's Syn): it reached simulation."""
    if outcome.label in RTL_NOT_COMPILED:
        return False
    return not (outcome.label == TIMEOUT and outcome.metrics.get("stage") == "compile")


def check_share(outcome: Outcome) -> float:
    """Share of the testbench's checks the design passed (ArchXBench's t, per candidate): 1 for a
    Pass, 1 - mismatches / samples when the testbench counted them, else 0."""
    if outcome.passed:
        return 1.0
    samples, mismatches = outcome.metrics.get("samples"), outcome.metrics.get("mismatches")
    if not rtl_compiled(outcome) or not isinstance(samples, (int, float)) or not isinstance(mismatches, (int, float)) or samples <= 0:
        return 0.0
    return max(0.0, 1.0 - float(mismatches) / float(samples))


def veriscope(verdicts: Verdicts) -> float | None:
    """VeriScope's score: 0 (does not compile), 50 (compiles, fails the testbench), 100 (passes)."""
    scores = [100.0 if v.passed else 50.0 if rtl_compiled(v) else 0.0 for v in verdicts]
    return sum(scores) / len(scores) if scores else None


def archx_n(verdicts: Verdicts) -> float | None:
    """ArchXBench's n: how many of the task's candidates are syntactically correct (compile)."""
    return float(sum(rtl_compiled(v) for v in verdicts)) if verdicts else None


def archx_t(verdicts: Verdicts) -> float | None:
    """ArchXBench's t: % of testbench checks passed by the best compiling candidate (0 if none compiles)."""
    if not verdicts:
        return None
    return 100.0 * max((check_share(v) for v in verdicts if rtl_compiled(v)), default=0.0)


METRICS = (
    BenchMetric("syn@1", "%", "RealBench", lambda v: at_k(v, rtl_compiled, 1)),
    BenchMetric("syn@5", "%", "RealBench", lambda v: at_k(v, rtl_compiled, 5)),
    BenchMetric("func@1", "%", "RealBench", lambda v: at_k(v, passed, 1)),
    BenchMetric("func@5", "%", "RealBench", lambda v: at_k(v, passed, 5)),
    BenchMetric("veriscope", "score", "VeriScope", veriscope),
    BenchMetric("archx_n", "count", "ArchXBench", archx_n),
    BenchMetric("archx_t", "%", "ArchXBench", archx_t),
)
