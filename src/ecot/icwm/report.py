"""Rendering a fidelity report: rich tables for the terminal and a Figure-5-style PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ecot.icwm.fidelity import PAPER, FidelityReport

# Under this many judged turns in a domain one turn moves its percentages by more than about 3 points:
# the numbers are shown, with a warning that they say little.
SMALL_SAMPLE = 30


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}%"


def _speed(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "-"
    if "speedup_median" not in entry:
        return f"{1000 * entry['icwm_median_s']:.2f}ms"
    return f"{entry['speedup_median']:.0f}x"


def examples_table(counts: dict[str, dict[str, int]]) -> Any:
    """The real examples a model learns from (or is judged on), per domain and label."""
    from rich.table import Table

    table = Table(title="real examples per domain")
    for column in ("domain", "examples", "labels"):
        table.add_column(column, justify="right" if column == "examples" else "left")
    for domain, labels in counts.items():
        table.add_row(domain, str(sum(labels.values())), ", ".join(f"{label} {n}" for label, n in labels.items()))
    return table


def held_out_table(held: dict[str, dict[str, Any]]) -> Any:
    """What `train` and `retrain` measured on the held-out tasks, per domain."""
    from rich.table import Table

    table = Table(title="held-out tasks (never trained on)")
    for column in ("domain", "turns", "acc", "majority", "bal acc", "recall per label"):
        table.add_column(column, justify="left" if column in ("domain", "recall per label") else "right")
    for domain, row in held.items():
        recall = ", ".join(f"{label} {_pct(value)}" for label, value in row.get("recall", {}).items())
        table.add_row(domain, str(row.get("turns", "-")), _pct(row.get("accuracy")), _pct(row.get("majority_baseline")),
                      _pct(row.get("balanced_accuracy")), recall)
    return table


def small_sample_warning(turns: dict[str, int], what: str = "held-out turns") -> str | None:
    """One line naming the domains with too few turns for their percentages to mean much; None if none."""
    small = {domain: n for domain, n in turns.items() if n < SMALL_SAMPLE}
    if not small:
        return None
    listed = ", ".join(f"{domain}: {n}, one turn moves a percentage by {100 / max(n, 1):.0f} points" for domain, n in small.items())
    return (f"warning: these numbers rest on few {what} ({listed}); read them as rough, and synthesize more "
            "trajectories (more tasks, --samples) for firm ones")


def summary_table(report: FidelityReport) -> Any:
    from rich.table import Table

    table = Table(title=f"ICWM fidelity: {report.model}", caption=_caption(report))
    for column in ("domain", "turns", "acc", "majority", "bal acc", "uniq acc", "traj agree", "diag sim", "speedup"):
        table.add_column(column, justify="left" if column == "domain" else "right")
    for domain, turns in report.turns.items():
        traj = report.trajectories.get(domain, {})
        agree = _pct(traj.get("agreement")) if traj else "-"
        table.add_row(
            domain, str(turns["turns"]), _pct(turns["accuracy"]), _pct(turns["majority_baseline"]),
            _pct(turns["balanced_accuracy"]), _pct(turns["unique_accuracy"]), agree,
            f"{turns['diagnostic']['similarity']:.3f}", _speed(report.speed.get(domain)),
        )
    summary = report.summary()
    table.add_row(
        "[bold]mean[/bold]", "", _pct(summary["outcome_accuracy"]), _pct(summary["majority_baseline"]),
        _pct(summary["balanced_accuracy"]), _pct(summary["unique_accuracy"]), _pct(summary["trajectory_agreement"]),
        "-" if summary["diagnostic_similarity"] is None else f"{summary['diagnostic_similarity']:.3f}",
        "-" if summary["speedup_median"] is None else f"{summary['speedup_median']:.0f}x",
    )
    table.add_row("[dim]paper[/dim]", "", _pct(PAPER["outcome_accuracy"]), "", "", "", _pct(PAPER["trajectory_agreement"]), "", "")
    return table


def _caption(report: FidelityReport) -> str:
    """Counts and timings the narrow columns leave out."""
    parts = []
    unseen = {d: t["unseen_accuracy"] for d, t in report.turns.items() if t.get("unseen_accuracy") is not None}
    if unseen:
        parts.append("accuracy on candidates never trained on: " + ", ".join(f"{d} {_pct(v)}" for d, v in unseen.items()))
    for domain, traj in report.trajectories.items():
        parts.append(f"{domain}: {traj['trajectories']} trajectories")
    for domain, entry in report.speed.items():
        if "real_median_s" in entry:
            parts.append(
                f"{domain} median per turn: icwm {1000 * entry['icwm_median_s']:.2f} ms vs real {1000 * entry['real_median_s']:.1f} ms "
                f"({entry['turns']} turns); distinct candidates {entry['speedup_median_distinct']:.0f}x; "
                f"batched {entry['speedup_batch']:.0f}x"
            )
    return "; ".join(parts)


def label_table(report: FidelityReport) -> Any:
    from rich.table import Table

    table = Table(title="per label (held-out turns)")
    for column in ("domain", "label", "support", "predicted", "precision", "recall", "f1", "mistaken for"):
        table.add_column(column, justify="left" if column in ("domain", "label", "mistaken for") else "right")
    for domain, turns in report.turns.items():
        for label, row in turns["labels"].items():
            wrong = {k: v for k, v in turns["confusion"].get(label, {}).items() if k != label}
            confused = ", ".join(f"{k} {v}" for k, v in list(wrong.items())[:3])
            table.add_row(domain, label, str(row["support"]), str(row["predicted"]), _pct(row["precision"]),
                          _pct(row["recall"]), f"{row['f1']:.3f}", confused)
    return table


def metric_table(report: FidelityReport) -> Any:
    from rich.table import Table

    table = Table(title="task metrics (held-out turns whose real outcome has them)")
    for column in ("domain", "metric", "real", "predicted", "exact", "median |err|", "mean rel err"):
        table.add_column(column, justify="left" if column in ("domain", "metric") else "right")
    for domain, turns in report.turns.items():
        for key, row in turns["metrics"].items():
            table.add_row(domain, key, str(row["real"]), str(row["predicted"]), _pct(row["exact"]),
                          "-" if row["median_abs_error"] is None else f"{row['median_abs_error']:g}",
                          _pct(row["mean_rel_error"]))
    return table


def selective_table(report: FidelityReport) -> Any:
    """Accuracy and coverage when predictions under a confidence threshold run for real instead."""
    from rich.table import Table

    table = Table(title="selective: accuracy / share of turns predicted, at confidence >= threshold (`ecot synth --min-confidence`)")
    domains = list(report.turns)
    table.add_column("threshold", justify="right")
    for domain in domains:
        table.add_column(domain, justify="right")
    first: dict[str, Any] = next(iter(report.turns.values()), {})
    for i, row in enumerate(first.get("selective", {}).get("thresholds", [])):
        cells = [report.turns[d]["selective"]["thresholds"][i] for d in domains]
        table.add_row(f"{row['threshold']:g}", *(f"{_pct(c['accuracy'])} / {_pct(c['coverage'])}" for c in cells))
    reached = [report.turns[d]["selective"]["for_target"] for d in domains]
    table.add_row(
        f"[bold]{_pct(first.get('selective', {}).get('target'))}[/bold] at",
        *("-" if r is None else f">= {r['threshold']:g}: {_pct(r['coverage'])}" for r in reached),
    )
    return table


def audit_table(audits: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="world-model runs: audits and verifications")
    for column in ("domain", "audits", "agreement", "disagreements (predicted->real)", "verified Pass", "overturned Pass"):
        table.add_column(column)
    for domain, row in audits.items():
        wrong = ", ".join(f"{k} {v}" for k, v in row["confusion"].items() if k.split("->")[0] != k.split("->")[1])
        verified = row.get("verifications", 0)
        table.add_row(domain, str(row["audits"]), _pct(row["agreement"]), wrong or "-",
                      str(row.get("verified_pass", 0)), str(verified - row.get("verified_pass", 0)))
    return table


def plot(report: FidelityReport, path: Path) -> Path:
    """Left: accuracy, trajectory agreement and the majority baseline per domain (dashed 95%);
    right: recall and precision of every label, so a model that ignores a rare label shows it."""
    import matplotlib.pyplot as plt

    fig = figure(report)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def figure(report: FidelityReport) -> Any:
    """The figure `plot` saves. Every text keeps clear of the others: the values stand upright above their
    bars, and the labels are rows of a horizontal chart that grows with their number."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    domains = list(report.turns)
    rows = [(d, label, row) for d in domains for label, row in report.turns[d]["labels"].items() if row["support"]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, max(4.8, 1.6 + 0.34 * len(rows))),
                                      gridspec_kw={"width_ratios": [1, 1.4]})
    _plot_fidelity(left, report, domains)
    _plot_recall(right, rows, len(domains) > 1)
    fig.suptitle(report.model, fontsize=9)
    fig.tight_layout()
    return fig


def _plot_fidelity(ax: Any, report: FidelityReport, domains: list[str]) -> None:
    series = [
        ("outcome accuracy", [report.turns[d]["accuracy"] for d in domains], "#3b6fb6"),
        ("trajectory agreement", [report.trajectories.get(d, {}).get("agreement") or 0 for d in domains], "#e08a2c"),
        ("balanced accuracy", [report.turns[d]["balanced_accuracy"] for d in domains], "#5aa469"),
        ("majority-label baseline", [report.turns[d]["majority_baseline"] for d in domains], "#b0b0b0"),
    ]
    width = 0.8 / len(series)
    for i, (name, values, colour) in enumerate(series):
        xs = [k + (i - 1.5) * width for k in range(len(domains))]
        bars = ax.bar(xs, [100 * v for v in values], width, label=name, color=colour)
        ax.bar_label(bars, fmt="%.1f", fontsize=6, padding=2, rotation=90)
    ax.axhline(95, linestyle="--", color="black", linewidth=1)
    ax.set_xticks(range(len(domains)), domains, rotation=30 if len(domains) > 4 else 0)
    ax.set_xlim(-0.6, max(len(domains), 3) - 0.4)  # a lone domain keeps narrow bars
    ax.set_ylim(0, 125)  # room for the upright values above a full bar
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("%")
    ax.set_title("ICWM fidelity on held-out tasks")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)


def _plot_recall(ax: Any, rows: list[tuple[str, str, Any]], several: bool) -> None:
    names = [f"{d}: {label}" if several else label for d, label, _ in rows]
    ys = range(len(rows))
    ax.barh([y - 0.2 for y in ys], [100 * row["recall"] for _, _, row in rows], 0.4, label="recall", color="#3b6fb6")
    ax.barh([y + 0.2 for y in ys], [100 * row["precision"] for _, _, row in rows], 0.4, label="precision", color="#9bb8e0")
    for y, (_, _, row) in zip(ys, rows):
        ax.text(102, y, f"n={row['support']}", va="center", fontsize=7)
    ax.set_yticks(list(ys), names, fontsize=7)
    ax.invert_yaxis()  # the first label on top
    ax.set_xlim(0, 118)
    ax.set_xticks(range(0, 101, 20))
    ax.set_title("per-label recall and precision, % (held-out turns)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
