"""What a model's answers look like, whatever they scored: signal where pass@k is 0 for everyone.

Over every answer (every turn) of a benchmark run: how many there were, the mix of their labels, the
share that held code, the share whose code got past the toolchain's build step (parsed, compiled,
elaborated: it passed, ran or was refused by a static check), and the median answer length. Answers
the harness could not judge (Infra_Error) are counted in the label mix but left out of both shares.
"""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any

from rich.table import Table

from ecot.bench.results import BenchRun
from ecot.core.domain import find_domain
from ecot.core.outcome import LabelKind

BUILT = {LabelKind.PASS, LabelKind.REJECTED, LabelKind.RUNTIME, LabelKind.WRONG, LabelKind.LIMIT}
SHOWN_LABELS = 8


def answer_stats(run: BenchRun) -> dict[str, Any]:
    labels: Counter[str] = Counter()
    judged = with_code = built = 0
    tokens: list[int] = []
    chars: list[int] = []
    for task_id, records in run.samples.items():
        domain = find_domain(run.tasks[task_id].domain) if task_id in run.tasks else None
        for record in records:
            for outcome, answer in zip(record.outcomes, record.answers, strict=False):
                labels[outcome.label] += 1
                chars.append(answer.chars)
                tokens += [answer.tokens] if answer.tokens is not None else []
                if outcome.is_infra:
                    continue
                judged += 1
                with_code += answer.has_code
                built += domain is not None and domain.label_kind(outcome.label) in BUILT
    return {
        "answers": sum(labels.values()), "judged": judged, "labels": dict(labels.most_common()),
        "with_code": _share(with_code, judged), "syntax_valid": _share(built, judged),
        "median_tokens": median(tokens) if tokens else None, "median_chars": median(chars) if chars else None,
    }


def _share(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def table(title: str, columns: list[tuple[str, dict[str, Any]]]) -> Table:
    """One column per run: counts, shares, lengths, then the commonest labels (count and share)."""
    found = Table(title=title, title_justify="left")
    found.add_column("answers (every turn)", no_wrap=True)
    for name, _ in columns:
        found.add_column(name, justify="right")
    rows: list[tuple[str, str]] = [("answers", "answers"), ("with code (%)", "with_code"),
                                   ("syntax-valid (%)", "syntax_valid"), ("median length (tokens)", "median_tokens"),
                                   ("median length (characters)", "median_chars")]
    for label, key in rows:
        cells = [_pct(stats[key]) if key in ("with_code", "syntax_valid") else
                 ("-" if stats[key] is None else f"{stats[key]:g}") for _, stats in columns]
        found.add_row(label, *cells)
    every: Counter[str] = Counter()
    for _, stats in columns:
        every.update(stats["labels"])
    for label, _ in every.most_common(SHOWN_LABELS):
        found.add_row(f"label {label}", *[_label_cell(stats, label) for _, stats in columns])
    return found


def _label_cell(stats: dict[str, Any], label: str) -> str:
    count = stats["labels"].get(label, 0)
    return f"{count} ({100.0 * count / stats['answers']:.0f}%)" if stats["answers"] else "-"
