"""Per-turn fidelity: predicted vs real outcome on held-out turns, per domain.

Besides plain accuracy (what the paper reports), every domain gets the numbers that keep a lazy model
from looking good: the majority-label baseline, balanced accuracy (mean per-label recall), per-label
precision/recall/F1 and the confusion matrix, and accuracy over *unique* candidates (the same
candidate, e.g. the reference itself, is submitted many times and is easy every time).
"""

from __future__ import annotations

import difflib
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import mean, median
from typing import Any

from ecot.core.outcome import Outcome
from ecot.icwm.templates import TIME_SUFFIXES


@dataclass(frozen=True)
class TurnRecord:
    domain: str
    task_id: str
    key: str  # task + candidate digest: equal keys are the same candidate
    real: Outcome
    predicted: Outcome
    confidence: float = 1.0
    seen: bool | None = None  # the candidate was among the training examples (None: not tracked)


def similarity(a: str, b: str) -> float:
    """difflib ratio of two diagnostics (1.0 = identical), whitespace-normalized."""
    a, b = " ".join(a.split())[:500], " ".join(b.split())[:500]
    if a == b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def label_table(records: list[TurnRecord]) -> dict[str, dict[str, float | int]]:
    real = Counter(r.real.label for r in records)
    predicted = Counter(r.predicted.label for r in records)
    right = Counter(r.real.label for r in records if r.real.label == r.predicted.label)
    table: dict[str, dict[str, float | int]] = {}
    for label in sorted(set(real) | set(predicted)):
        precision = right[label] / predicted[label] if predicted[label] else 0.0
        recall = right[label] / real[label] if real[label] else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        table[label] = {
            "support": real[label], "predicted": predicted[label],
            "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
        }
    return table


def confusion(records: list[TurnRecord]) -> dict[str, dict[str, int]]:
    grid: dict[str, Counter[str]] = defaultdict(Counter)
    for r in records:
        grid[r.real.label][r.predicted.label] += 1
    return {real: dict(row.most_common()) for real, row in sorted(grid.items())}


def metric_errors(records: list[TurnRecord]) -> dict[str, dict[str, float | int | None]]:
    """For each numeric metric of the real outcomes: how often it was predicted, and how far off."""
    errors: dict[str, list[float]] = defaultdict(list)
    relative: dict[str, list[float]] = defaultdict(list)
    totals: Counter[str] = Counter()
    for r in records:
        for key, value in r.real.metrics.items():
            if key.endswith(TIME_SUFFIXES) or isinstance(value, (bool, str)):
                continue
            totals[key] += 1
            guess = r.predicted.metrics.get(key)
            if isinstance(guess, (int, float)) and not isinstance(guess, bool) and math.isfinite(float(guess)):
                gap = abs(float(guess) - float(value))
                errors[key].append(gap)
                relative[key].append(gap / max(abs(float(value)), 1e-9))
    return {
        key: {
            "real": totals[key],
            "predicted": len(errors[key]),
            "mae": round(mean(errors[key]), 4) if errors[key] else None,
            "median_abs_error": round(median(errors[key]), 4) if errors[key] else None,
            "exact": round(sum(e == 0 for e in errors[key]) / len(errors[key]), 4) if errors[key] else None,
            "mean_rel_error": round(mean(min(x, 10.0) for x in relative[key]), 4) if relative[key] else None,
        }
        for key in sorted(totals)
    }


THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
TARGET = 0.95


def selective(records: list[TurnRecord]) -> dict[str, Any]:
    """Accuracy when only predictions at or above a confidence threshold are used (the rest would run
    for real: `ecot synth --min-confidence`), and the share of turns that keeps; `for_target` is the
    lowest threshold (0.05 steps) whose accuracy reaches TARGET."""
    def at(threshold: float) -> dict[str, Any]:
        kept = [r.real.label == r.predicted.label for r in records if r.confidence >= threshold]
        return {
            "threshold": threshold, "coverage": round(len(kept) / len(records), 4),
            "accuracy": round(mean(kept), 4) if kept else None,
        }

    steps = [at(round(t / 100, 2)) for t in range(0, 100, 5)]
    reached = next((s for s in steps if s["accuracy"] is not None and s["accuracy"] >= TARGET), None)
    return {"thresholds": [at(t) for t in THRESHOLDS], "target": TARGET, "for_target": reached}


def domain_turns(records: list[TurnRecord]) -> dict[str, Any]:
    """All per-turn fidelity numbers of one domain's records."""
    n = len(records)
    right = [r.real.label == r.predicted.label for r in records]
    labels = label_table(records)
    supported = [v["recall"] for v in labels.values() if v["support"]]
    majority, majority_n = Counter(r.real.label for r in records).most_common(1)[0]
    unique: dict[str, TurnRecord] = {}
    for r in records:
        unique.setdefault(r.key, r)
    sims = [similarity(r.predicted.diagnostic, r.real.diagnostic) for r in records]
    sims_right = [s for s, ok in zip(sims, right) if ok]
    return {
        "turns": n,
        "accuracy": round(sum(right) / n, 4),
        "balanced_accuracy": round(mean(supported), 4),
        "macro_f1": round(mean(float(v["f1"]) for v in labels.values()), 4),
        "majority_label": majority,
        "majority_baseline": round(majority_n / n, 4),
        "unique_candidates": len(unique),
        "unique_accuracy": round(mean(r.real.label == r.predicted.label for r in unique.values()), 4),
        "labels": labels,
        "confusion": confusion(records),
        "diagnostic": {
            "similarity": round(mean(sims), 4),
            "similarity_label_right": round(mean(sims_right), 4) if sims_right else None,
            "exact": round(sum(s == 1.0 for s in sims) / n, 4),
        },
        "metrics": metric_errors(records),
        "selective": selective(records),
        **_unseen(records),
    }


def _unseen(records: list[TurnRecord]) -> dict[str, Any]:
    """Accuracy over candidates the model never trained on (where that is tracked)."""
    tracked = [r for r in records if r.seen is not None]
    if not tracked:
        return {}
    new = [r.real.label == r.predicted.label for r in tracked if not r.seen]
    return {"unseen_turns": len(new), "unseen_accuracy": round(mean(new), 4) if new else None}


def per_domain(records: Iterable[TurnRecord]) -> dict[str, Any]:
    grouped: dict[str, list[TurnRecord]] = defaultdict(list)
    for r in records:
        grouped[r.domain].append(r)
    return {domain: domain_turns(rows) for domain, rows in sorted(grouped.items())}
