"""Depth statistics of a corpus, per domain (in the spirit of the paper's Figure 6).

Over finished trajectories: pass rate (final turn passed real execution), median and IQR of the
folded samples' thinking and answer lengths in characters, turns needed to pass (1 = first
attempt), and the label distribution per round (round 0 = first attempt).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecot.core.trajectory import Trajectory
from ecot.export.fold import fold_trajectory, split_sample

ALL = "all"


@dataclass(frozen=True)
class Spread:
    median: float
    p25: float
    p75: float

    @classmethod
    def of(cls, values: list[int]) -> Spread | None:
        if not values:
            return None
        ordered = sorted(values)
        return cls(quantile(ordered, 0.5), quantile(ordered, 0.25), quantile(ordered, 0.75))


def quantile(ordered: list[int], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default method)."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (position - low) * (ordered[high] - ordered[low]))


@dataclass
class DomainStats:
    domain: str
    finished: int = 0
    passed: int = 0
    thinking_chars: list[int] = field(default_factory=list)
    answer_chars: list[int] = field(default_factory=list)
    turns_to_pass: list[int] = field(default_factory=list)
    labels_per_round: list[Counter[str]] = field(default_factory=list)

    def add(self, traj: Trajectory, sample: dict[str, Any] | None) -> None:
        """Count a finished trajectory; `sample` is its folded sample (fold_trajectory), None when it has none."""
        self.finished += 1
        for index, turn in enumerate(traj.turns):
            while len(self.labels_per_round) <= index:
                self.labels_per_round.append(Counter())
            self.labels_per_round[index][turn.outcome.label] += 1
        if sample is None:
            return
        self.passed += 1
        thinking, answer = split_sample(sample)
        self.thinking_chars.append(len(thinking))
        self.answer_chars.append(len(answer))
        self.turns_to_pass.append(len(traj.turns))

    @property
    def pass_rate(self) -> float:
        return self.passed / self.finished if self.finished else 0.0

    def to_dict(self) -> dict[str, Any]:
        def spread(values: list[int]) -> dict[str, float] | None:
            found = Spread.of(values)
            return found.__dict__.copy() if found else None

        return {
            "finished": self.finished,
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "thinking_chars": spread(self.thinking_chars),
            "answer_chars": spread(self.answer_chars),
            "turns_to_pass": spread(self.turns_to_pass),
            "turns_to_pass_histogram": {str(k): v for k, v in sorted(Counter(self.turns_to_pass).items())},
            "labels_per_round": [dict(sorted(c.items())) for c in self.labels_per_round],
        }


def compute_stats(
    trajectories: Iterable[Trajectory], fold: Callable[[Trajectory], dict[str, Any] | None] = fold_trajectory
) -> dict[str, DomainStats]:
    """Per-domain statistics (sorted by domain) plus an `all` row; pass finished trajectories only.
    `fold` gives a trajectory's folded sample (a caller that already folded it passes a lookup)."""
    per_domain: dict[str, DomainStats] = {}
    overall = DomainStats(ALL)
    for traj in trajectories:
        sample = fold(traj)  # once: the domain's row and the `all` row both count it
        per_domain.setdefault(traj.domain, DomainStats(traj.domain)).add(traj, sample)
        overall.add(traj, sample)
    result = {name: per_domain[name] for name in sorted(per_domain)}
    if result:
        result[ALL] = overall
    return result


def stats_json(stats: dict[str, DomainStats]) -> dict[str, Any]:
    return {"domains": {name: s.to_dict() for name, s in stats.items()}}


# -- presentation ----------------------------------------------------------------------------


def render_table(stats: dict[str, DomainStats]) -> Any:
    """A rich Table: one row per domain."""
    from rich.table import Table

    table = Table(
        title="ECoT depth statistics (finished trajectories)",
        caption="thinking, answer: characters of the folded samples; turns: turns until pass; median [P25-P75]",
        show_edge=False,
    )
    table.add_column("domain", no_wrap=True)
    for column in ("done", "passed", "rate", "thinking", "answer", "turns"):
        table.add_column(column, justify="right", no_wrap=True)
    for name, s in stats.items():
        table.add_row(
            name,
            str(s.finished),
            str(s.passed),
            f"{s.pass_rate:.0%}",
            _spread_text(Spread.of(s.thinking_chars), "{:.0f}"),
            _spread_text(Spread.of(s.answer_chars), "{:.0f}"),
            _spread_text(Spread.of(s.turns_to_pass), "{:.2g}"),
        )
    return table


def render_rounds(stats: dict[str, DomainStats]) -> Any:
    """A rich Table: label distribution per round over all domains."""
    from rich.table import Table

    table = Table(title="Outcome labels per round (round 0 = first attempt)")
    table.add_column("round", justify="right")
    table.add_column("turns", justify="right")
    table.add_column("labels")
    rounds = stats[ALL].labels_per_round if ALL in stats else []
    for index, counter in enumerate(rounds):
        labels = ", ".join(f"{label} {count}" for label, count in counter.most_common())
        table.add_row(str(index), str(sum(counter.values())), labels)
    return table


def _spread_text(spread: Spread | None, number: str) -> str:
    """median [p25-p75]."""
    if spread is None:
        return "-"
    return f"{number.format(spread.median)} [{number.format(spread.p25)}-{number.format(spread.p75)}]"


def plot_stats(stats: dict[str, DomainStats], path: Path) -> Path:
    """Three panels: thinking/answer length per domain, labels per round, turns needed to pass."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2), constrained_layout=True)
    domains = [s for name, s in stats.items() if name != ALL]
    _plot_lengths(axes[0], domains)
    _plot_labels(axes[1], stats.get(ALL))
    _plot_turns(axes[2], domains)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _plot_lengths(ax: Any, domains: list[DomainStats]) -> None:
    shown = sorted((d for d in domains if d.thinking_chars), key=lambda d: Spread.of(d.thinking_chars).median)  # type: ignore[union-attr]
    if not shown:
        ax.text(0.5, 0.5, "no passed trajectories", ha="center", va="center", transform=ax.transAxes)
        return
    positions = range(len(shown))
    for values, offset, color, name in (
        ([d.thinking_chars for d in shown], -0.18, "#8e6bbf", "thinking (T)"),
        ([d.answer_chars for d in shown], 0.18, "#9aa5b1", "answer (A)"),
    ):
        box = ax.boxplot(
            values, positions=[p + offset for p in positions], widths=0.32, patch_artist=True, showfliers=False,
            medianprops={"color": "black"},
        )
        for patch in box["boxes"]:
            patch.set_facecolor(color)
        box["boxes"][0].set_label(name)
    ax.set_xticks(list(positions), [d.domain for d in shown], rotation=30)
    ax.set_yscale("log")
    ax.set_ylabel("characters (median, P25-P75 box)")
    ax.set_title("Thinking and answer length per domain")
    ax.legend(loc="upper left")


def _plot_labels(ax: Any, overall: DomainStats | None) -> None:
    rounds = overall.labels_per_round if overall else []
    labels = sorted({label for counter in rounds for label in counter}, key=lambda name: (name != "Pass", name))
    bottoms = [0] * len(rounds)
    cmap = _colors(len(labels))
    for color, label in zip(cmap, labels):
        heights = [counter.get(label, 0) for counter in rounds]
        ax.bar(range(len(rounds)), heights, bottom=bottoms, label=label, color="#3c9d5d" if label == "Pass" else color)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(range(len(rounds)))
    ax.set_xlabel("round (0 = first attempt)")
    ax.set_ylabel("turns")
    ax.set_title("Outcome labels per round")
    if labels:
        ax.legend(fontsize="small")


def _plot_turns(ax: Any, domains: list[DomainStats]) -> None:
    most = max((max(d.turns_to_pass) for d in domains if d.turns_to_pass), default=1)
    xs = list(range(1, most + 1))
    bottoms = [0] * len(xs)
    for color, d in zip(_colors(len(domains)), domains):
        counts = Counter(d.turns_to_pass)
        heights = [counts.get(x, 0) for x in xs]
        ax.bar(xs, heights, bottom=bottoms, label=d.domain, color=color)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(xs)
    ax.set_xlabel("turns until pass (1 = first attempt)")
    ax.set_ylabel("passed trajectories")
    ax.set_title("Turns needed")
    if domains:
        ax.legend(fontsize="small")


def _colors(n: int) -> list[Any]:
    """tab20 without its greens, which are reserved for Pass."""
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    palette = [cmap(i) for i in range(20) if i not in (4, 5)]
    return [palette[i % len(palette)] for i in range(n)]
