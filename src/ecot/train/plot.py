"""The loss curve of a training run, from the trainer's log history (resumed runs included)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def losses(history: Sequence[dict[str, Any]], key: str) -> list[tuple[int, float]]:
    return [(int(entry["step"]), float(entry[key])) for entry in history if key in entry and "step" in entry]


def plot_losses(history: Sequence[dict[str, Any]], path: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for key, label, style in (("loss", "training loss", "-"), ("eval_loss", "validation loss", "o--")):
        points = losses(history, key)
        if points:
            ax.plot([s for s, _ in points], [v for _, v in points], style, label=label)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("loss (completion tokens)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
