"""CAD previews on trajectory pages, drawn by the real CadQuery backend; kept for reruns and shared by
trajectories that ended with the same code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ecot.core.outcome import Outcome
from ecot.core.trajectory import Trajectory, Turn
from ecot.domains.cad import render
from ecot.report import ReportOptions, build_report
from ecot.store import TrajectoryStore
from ecot.tasks.suite import bundled_suite_path, load_suite
from report_fixtures import add
from report_html import page

pytestmark = pytest.mark.slow


def test_preview_of_the_last_attempt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cadquery", reason="CadQuery draws the previews")
    task = next(t for t in load_suite(bundled_suite_path("cad")) if t.id == "cad/blind_flange")
    assert task.reference is not None
    prompt = [{"role": "user", "content": task.prompt}]
    with TrajectoryStore(tmp_path / "ecot.db") as store:
        run = store.begin_run({"cad": True})
        for sample in range(3):
            turns = [Turn(0, "I copy the reference.", task.reference, task.reference, Outcome("Pass", "IoU 1.0"))]
            add(store, run, Trajectory(task.id, "cad", sample, prompt, turns, {}), "passed", sample)  # type: ignore[arg-type]
    renders: list[str] = []
    real_draw = render.PREVIEW.draw
    counted = replace(render.PREVIEW, draw=lambda *a, **k: renders.append(a[0].id) or real_draw(*a, **k))
    monkeypatch.setattr(render, "PREVIEW", counted)
    options = ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "report", previews=2, tasks={task.id: task})
    result = build_report(options)
    assert result.previews == 2 and renders == [task.id]  # one drawing for two trajectories with the same code
    images = [[a["src"] for t, a in page(tmp_path / "report" / "t" / f"{n}.html").tags if t == "img"] for n in (1, 2, 3)]
    assert images[0] == images[1] and len(images[0]) == 1 and images[2] == []  # the third is over the limit
    png = tmp_path / "report" / "t" / str(images[0][0])
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 10_000
    again = build_report(options)
    assert again.previews == 2 and renders == [task.id] and again.counts.written == 0
