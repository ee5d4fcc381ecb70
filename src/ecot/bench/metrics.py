"""The metrics a group of benchmark tasks is scored with: pass@k for every domain, the domain's own
(named by its descriptor, `Domain.metrics`: the paper's Tables 4-5, Appendix A.2), and Fix% for repair
tasks. A group's score is the mean of its tasks' values (ecot.bench.scores); what a metric is, and
the shared arithmetic, is `ecot.core.scoring`. Definitions and sources: docs/benchmarks.md.
"""

from __future__ import annotations

from ecot.core.domain import find_domain
from ecot.core.scoring import BenchMetric, at_k, passed

KS = (1, 5, 10)  # pass@k, as the general benchmarks report it


def _pass_k(k: int) -> BenchMetric:
    return BenchMetric(f"pass@{k}", "%", "Chen et al. 2021", lambda v: at_k(v, passed, k))


PASS_K = tuple(_pass_k(k) for k in KS)
REPAIR = (BenchMetric("fix", "%", "VeriRepair", lambda v: at_k(v, passed, 1)),)


def domain_metrics(domain: str) -> tuple[BenchMetric, ...]:
    """The domain's own metrics, as its descriptor names them; () for none or an unknown domain."""
    described = find_domain(domain)
    return described.load_metrics() if described is not None else ()


def metrics_for(domain: str, repair: bool = False) -> tuple[BenchMetric, ...]:
    """The metrics a group of tasks is scored with: pass@k, its domain's own, and Fix% for repair tasks."""
    return (*PASS_K, *(REPAIR if repair else domain_metrics(domain)))


def by_name(name: str, domain: str) -> BenchMetric:
    """The metric of that name a group of the domain's tasks is scored with; KeyError if none."""
    for metric in (*metrics_for(domain), *REPAIR):
        if metric.name == name:
            return metric
    raise KeyError(name)
