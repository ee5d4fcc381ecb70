"""`ecot bench`: score code models on benchmark suites with the paper's metrics, judged by the real toolchains.

- run, session: a benchmark run is a run of the synthesis loop in the same store, marked as one
  (single answers, or the agentic K-round loop); resumable, one writer per store; `benchmark`
  (ecot.bench.session, loaded on first use) is one as a library call;
- results, metrics, scores: each sample's verdict per round, the per-task metrics, group scores with
  95% bootstrap intervals; "not run here" kept apart from model failures;
- report, compare, plot: terminal tables, JSON, PNG (with a JSON twin);
- repair_split: held-out repair tasks from the mutators (Fix%);
- decontam: benchmark tasks never enter a training corpus unless asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecot.core.lazy import lazy_exports

if TYPE_CHECKING:
    from ecot.bench.session import benchmark

__all__ = ["benchmark"]

__getattr__ = lazy_exports(__name__, globals(), dict.fromkeys(__all__, "ecot.bench.session"))
