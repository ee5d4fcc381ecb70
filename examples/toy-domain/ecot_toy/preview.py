"""The toy domain's preview: the candidate's output next to the expected text, drawn as a PNG."""

from __future__ import annotations

from pathlib import Path

from ecot.core.task import Task
from ecot.core.views import Preview, PreviewHook
from ecot.domains import get_backend
from ecot_toy.domain import ToyOptions


def draw(task: Task, candidate: str, out_dir: Path, png: bool = True) -> Preview:
    """Judge the candidate, then write its verdict as text and, with `png`, draw it beside the expected output."""
    outcome = get_backend("toy").run(task, candidate)
    out_dir.mkdir(parents=True, exist_ok=True)
    verdict = out_dir / "verdict.txt"
    verdict.write_text(f"{outcome.label}: {outcome.diagnostic}\n", encoding="utf-8")
    shown = Preview(files={verdict.name: verdict}, outcome=outcome)
    if png:
        shown.png = _picture(f"expected: {ToyOptions.of_task(task).expect}", f"{outcome.label}: {outcome.diagnostic}",
                             out_dir / "preview.png")
    return shown


def _picture(expected: str, verdict: str, target: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure = plt.figure(figsize=(6, 1.5), dpi=80)
    figure.text(0.05, 0.65, expected, family="monospace")
    figure.text(0.05, 0.25, verdict, family="monospace")
    figure.savefig(target)
    plt.close(figure)
    return target


PREVIEW = PreviewHook(title="Toy preview", caption="What the last attempt printed, beside what was expected.", draw=draw)
