"""The paper's benchmark metrics (Tables 4-5, Appendix A.2), each computed for one task from the verdicts
of its judged samples. A group's score is the mean of its tasks' values (ecot.bench.scores).

Every function takes the task's judged outcomes (samples the backend could not run are left out
before: they are "not run here", never a model failure) and returns a number in the unit its
benchmark reports, or None when this machine cannot measure it (a speedup without a GPU) or the
task has too few samples (pass@k with n < k). Definitions and sources: docs/benchmarks.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ecot.core.outcome import NO_CODE, PASS, TIMEOUT, TRUNCATED, Outcome
from ecot.domains.gpu.jobs.timing import fast_p

Verdicts = Sequence[Outcome]
KS = (1, 5, 10)  # pass@k, as the general benchmarks report it
FAST_PS = (0.0, 1.0, 1.5, 2.0)  # KernelBench's fast_p thresholds

# RTL labels of a candidate that never got past the compiler (no design to simulate).
RTL_NOT_COMPILED = frozenset({"Syntax_Error", "Elaboration_Error", NO_CODE, TRUNCATED})
CAD_VALID = frozenset({PASS, "Shape_Mismatch"})  # scripts that ran and built a valid solid


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Chen et al. (2021), eq. 1: 1 - C(n-c, k) / C(n, k), the chance that at least one of k samples
    drawn without replacement from n (c of them correct) is correct. None when n < k."""
    if k < 1 or n < k:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def _share(flags: Sequence[bool]) -> float | None:
    return 100.0 * sum(flags) / len(flags) if flags else None


def _at_k(verdicts: Verdicts, good: Callable[[Outcome], bool], k: int) -> float | None:
    value = pass_at_k(len(verdicts), sum(1 for v in verdicts if good(v)), k)
    return None if value is None else 100.0 * value


def passed(outcome: Outcome) -> bool:
    return outcome.passed


# -- RTL ---------------------------------------------------------------------------------------------
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


# -- GPU ---------------------------------------------------------------------------------------------
def gpu_fast(p: float) -> Callable[[Verdicts], float | None]:
    """KernelBench's fast_p per task: % of samples correct and more than p times faster than eager
    PyTorch; None (unmeasured) for p > 0 when a correct sample has no measured speedup (no GPU)."""

    def metric(verdicts: Verdicts) -> float | None:
        if not verdicts:
            return None
        items = [(v.passed, _number(v.metrics.get("speedup"))) for v in verdicts]
        if p > 0 and any(ok and speed is None for ok, speed in items):
            return None
        return 100.0 * fast_p(items, p)

    return metric


# -- asm ---------------------------------------------------------------------------------------------
def asm_speedup(verdicts: Verdicts) -> float | None:
    """SuperCoder's Spd: mean speedup over gcc -O3 (callgrind instruction counts), a failing sample
    counting 1.0 (the compiler's own output stands); None when a passing sample was not measured."""
    speeds = []
    for verdict in verdicts:
        if not verdict.passed:
            speeds.append(1.0)
            continue
        speed = _number(verdict.metrics.get("speedup", verdict.metrics.get("wall_speedup")))
        if speed is None:
            return None
        speeds.append(speed)
    return sum(speeds) / len(speeds) if speeds else None


# -- CAD ---------------------------------------------------------------------------------------------
def cad_comp(verdicts: Verdicts) -> float | None:
    """CAD-Coder's Comp: % of scripts that ran and produced a valid solid."""
    return _share([v.label in CAD_VALID for v in verdicts])


def cad_iou(verdicts: Verdicts) -> float | None:
    """CAD-Coder's IoU (%): exact IoU with the reference solid (voxel IoU where the exact one is
    missing), 0 for a script without a valid solid."""
    values = []
    for verdict in verdicts:
        if verdict.label not in CAD_VALID:
            values.append(0.0)
            continue
        iou = _number(verdict.metrics.get("iou", verdict.metrics.get("voxel_iou")))
        if iou is not None:
            values.append(100.0 * iou)
    return sum(values) / len(values) if values else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str  # "%", "x", "score", "count"
    source: str  # the benchmark that defines it
    fn: Callable[[Verdicts], float | None]
    speed: bool = False  # None means "not measured here": one such task leaves the whole group unmeasured


def _pass_k(k: int) -> Metric:
    return Metric(f"pass@{k}", "%", "Chen et al. 2021", lambda v: _at_k(v, passed, k))


PASS_K = tuple(_pass_k(k) for k in KS)
RTL = (
    Metric("syn@1", "%", "RealBench", lambda v: _at_k(v, rtl_compiled, 1)),
    Metric("syn@5", "%", "RealBench", lambda v: _at_k(v, rtl_compiled, 5)),
    Metric("func@1", "%", "RealBench", lambda v: _at_k(v, passed, 1)),
    Metric("func@5", "%", "RealBench", lambda v: _at_k(v, passed, 5)),
    Metric("veriscope", "score", "VeriScope", veriscope),
    Metric("archx_n", "count", "ArchXBench", archx_n),
    Metric("archx_t", "%", "ArchXBench", archx_t),
)
GPU = tuple(Metric("correct" if p == 0 else f"fast_{p:g}", "%", "KernelBench", gpu_fast(p), p > 0) for p in FAST_PS)
ASM = (
    Metric("acc", "%", "SuperCoder", lambda v: _share([x.passed for x in v])),
    Metric("spd", "x", "SuperCoder", asm_speedup, True),
)
FIRMWARE = (Metric("main", "%", "EmbedCGen", lambda v: _share([x.passed for x in v])),)
CAD = (Metric("comp", "%", "CAD-Coder", cad_comp), Metric("iou", "%", "CAD-Coder", cad_iou))
REPAIR = (Metric("fix", "%", "VeriRepair", lambda v: _at_k(v, passed, 1)),)
DOMAIN_METRICS: dict[str, tuple[Metric, ...]] = {"rtl": RTL, "gpu": GPU, "asm": ASM, "firmware": FIRMWARE, "cad": CAD}


def metrics_for(domain: str, repair: bool = False) -> tuple[Metric, ...]:
    """The metrics a group of tasks is scored with: pass@k, its domain's own, and Fix% for repair tasks."""
    return (*PASS_K, *(REPAIR if repair else DOMAIN_METRICS.get(domain, ())))


def by_name(name: str) -> Metric:
    for metric in (*PASS_K, *REPAIR, *(m for group in DOMAIN_METRICS.values() for m in group)):
        if metric.name == name:
            return metric
    raise KeyError(name)
