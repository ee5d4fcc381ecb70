"""PNG figures of benchmark reports, in the spirit of the paper's tables: bars per metric with 95%
bootstrap intervals over tasks (one run's groups, or run A against run B), and for a comparison the
difference per task.

Next to every PNG a JSON twin (`NAME.panels.json`) holds each panel's title and numbers, and the PNG's
own metadata (`Title`, `Description`) names the panels, so a test or a script can check a figure
without reading pixels.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ecot.bench.compare import HEADLINE, per_task_rows
from ecot.bench.metrics import by_name

COLOURS = ("#3b6fb6", "#e08a2c", "#5aa469", "#b05aa4", "#c9c13a", "#7a7a7a", "#3ab0b0", "#b03a3a")
UNIT_CLASS = {"%": "%", "score": "%", "x": "x", "count": "count"}  # VeriScope's 0-100 score shares the % axis  # metrics sharing one y axis
MAX_TASK_BARS = 40


@dataclass
class Series:
    name: str
    values: list[float | None]
    low: list[float | None]
    high: list[float | None]
    missing: list[str] | None = None  # why a value is None: "n/a" (n < k) or "unmeasured"


@dataclass
class Panel:
    title: str
    unit: str
    categories: list[str]  # x axis: metric names, or task ids
    series: list[Series]


def report_panels(report: dict[str, Any]) -> list[Panel]:
    """pass@k per group, then per domain (and its repair tasks) its benchmark metrics, one panel per unit."""
    groups = report["groups"]
    panels = [_panel(f"pass@k by group (%), run {report['run']}", "%", ["pass@1", "pass@5", "pass@10"],
                     [(g["group"], g["metrics"]) for g in groups])]
    found: dict[tuple[str, str], tuple[list[str], list[dict[str, Any]]]] = {}
    for group in groups:
        kind = f"{group['domain']} repair" if "fix" in group["metrics"] else group["domain"]
        for name, row in group["metrics"].items():
            if name.startswith("pass@"):
                continue
            names, members = found.setdefault((kind, UNIT_CLASS[row["unit"]]), ([], []))
            names += [] if name in names else [name]
            members += [] if group in members else [group]
    for (kind, unit), (names, members) in found.items():
        sources = ", ".join(sorted({by_name(n, kind.split(" ")[0]).source for n in names}))
        panels.append(_panel(f"{kind}: {sources} ({unit})", unit, names, [(g["group"], g["metrics"]) for g in members]))
    return panels


def compare_panels(report: dict[str, Any]) -> list[Panel]:
    """Per group: A and B on each metric of one unit; last: the per-task difference of pass@1."""
    a, b = f"A: {report['a']['label']}", f"B: {report['b']['label']}"
    panels = []
    for group in report["groups"]:
        units = sorted({UNIT_CLASS[row["unit"]] for row in group["metrics"].values()}, key=lambda u: u != "%")
        for unit in units:
            names = [n for n, row in group["metrics"].items() if UNIT_CLASS[row["unit"]] == unit]
            rows = [("a", a), ("b", b)]
            panels.append(_panel(f"{group['group']} ({unit})", unit, names,
                                 [(label, {n: group["metrics"][n][side] for n in names}) for side, label in rows]))
    differ = per_task_rows(report)[:MAX_TASK_BARS]
    diff = Series("B - A", [r[3] for r in differ], [None] * len(differ), [None] * len(differ))
    panels.append(Panel(f"{HEADLINE} per task, B - A (% points; {len(differ)} tasks that differ)", "% points",
                        [r[0] for r in differ], [diff]))
    return panels


def _panel(title: str, unit: str, names: list[str], members: list[tuple[str, dict[str, Any]]]) -> Panel:
    series = []
    for label, scores in members:
        values = [scores.get(n, {}).get("value") for n in names]
        bounds = [scores.get(n, {}).get("ci95") or [None, None] for n in names]
        missing = ["n/a" if str(scores.get(n, {}).get("note", "")).startswith("n < k") else "unmeasured" for n in names]
        series.append(Series(label, values, [b[0] for b in bounds], [b[1] for b in bounds], missing))
    return Panel(title, unit, names, series)


def draw(panels: list[Panel], path: Path, title: str) -> Path:
    """Render the panels into one PNG (three per row) and write its JSON twin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        _draw_panel(ax, panel)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    titles = [p.title for p in panels]
    fig.savefig(path, dpi=110, metadata={"Title": title, "Description": json.dumps({"panels": titles})})
    plt.close(fig)
    twin = {"title": title, "png": path.name, "panels": [asdict(p) for p in panels]}
    twin_path(path).write_text(json.dumps(twin, indent=1) + "\n", encoding="utf-8")
    return path


def _mark_missing(ax: Any, panel: Panel) -> None:
    """One upright word per category without a value: why (n/a: n < k; unmeasured: no timing here)."""
    for k in range(len(panel.categories)):
        reasons = [(s.missing or ["n/a"] * len(s.values))[k] for s in panel.series if s.values[k] is None]
        if reasons:
            ax.text(k, 1, reasons[0], rotation=90, ha="center", va="bottom", fontsize=7, color="#555555")


def twin_path(png: Path) -> Path:
    """The JSON twin of a figure: a.png -> a.panels.json (never the report's own --json file)."""
    return Path(png).with_suffix(".panels.json")


def _draw_panel(ax: Any, panel: Panel) -> None:
    count = max(len(panel.series), 1)
    width = 0.8 / count
    for i, series in enumerate(panel.series):
        xs = [k + (i - (count - 1) / 2) * width for k in range(len(panel.categories))]
        values = [v if v is not None else 0.0 for v in series.values]
        errors = [[max(0.0, v - lo) if v is not None and lo is not None else 0.0 for v, lo in zip(series.values, series.low)],
                  [max(0.0, hi - v) if v is not None and hi is not None else 0.0 for v, hi in zip(series.values, series.high)]]
        colours = COLOURS[i % len(COLOURS)] if len(panel.series) > 1 else ["#5aa469" if v >= 0 else "#c0504d" for v in values]
        bars = ax.bar(xs, values, width, yerr=errors, capsize=2, label=series.name, color=colours, error_kw={"linewidth": 0.8})
        if len(panel.categories) <= 12:
            ax.bar_label(bars, labels=["" if v is None else f"{v:.1f}" for v in series.values], fontsize=6, padding=1)
    _mark_missing(ax, panel)
    ax.set_xticks(range(len(panel.categories)), panel.categories, rotation=30 if len(panel.categories) > 4 else 0,
                  ha="right" if len(panel.categories) > 4 else "center", fontsize=7)
    ax.set_xlim(-0.6, max(len(panel.categories), 3) - 0.4)  # a lone category keeps narrow bars
    if panel.unit == "%":
        ax.set_ylim(0, 105)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel(panel.unit)
    ax.set_title(panel.title, fontsize=9)
    if len(panel.series) > 1:
        ax.legend(fontsize=6)
