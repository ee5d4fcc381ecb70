"""Previews: STL and STEP exports of candidate and reference, and a side-by-side PNG for reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecot.cli.preview import main
from ecot.core.errors import ToolMissingError
from ecot.domains import get_backend
from ecot.domains.cad.render import preview, render_png
from ecot.tasks.suite import bundled_suite_path, load_suite

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def backend():
    try:
        return get_backend("cad")
    except ToolMissingError as err:
        pytest.skip(f"the CAD backend needs the missing tool '{err.tool}'")


def test_preview_writes_stl_step_and_png(tmp_path: Path, backend) -> None:
    task = load_suite(bundled_suite_path("cad") / "bore_block")[0]
    tangent = (task.reference or "").replace("bore_z = 12.0", "bore_z = 15.0")
    shown = preview(task, tangent, tmp_path, backend=backend)
    assert shown.outcome is not None and shown.outcome.label == "Geometry_Error"
    names = sorted(shown.files)
    assert names == ["candidate.step", "candidate.stl", "reference.step", "reference.stl"]
    assert (tmp_path / "candidate.step").read_text().startswith("ISO-10303-21;")
    stl = (tmp_path / "reference.stl").read_bytes()  # binary STL: header, triangle count, 50 bytes each
    triangles = int.from_bytes(stl[80:84], "little")
    assert triangles > 100 and len(stl) == 84 + 50 * triangles
    assert shown.png is not None and shown.png.read_bytes()[:8] == PNG_MAGIC


def test_a_candidate_without_a_solid_still_previews_the_reference(tmp_path: Path, backend, capsys) -> None:
    folder = bundled_suite_path("cad") / "cup"
    script = tmp_path / "broken.py"
    script.write_text("import cadquery as cq\nresult = cq.Workplane().boxx(1, 1, 1)\n")
    assert main([str(folder), str(script), str(tmp_path / "out"), "--no-png"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Runtime_Error: candidate.py:2")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["reference.step", "reference.stl"]


def test_render_png_from_a_plain_mesh(tmp_path: Path) -> None:
    cube = {"vertices": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]],
            "triangles": [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
                          [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]]}
    target = render_png({"candidate": cube}, tmp_path / "one.png", "only a candidate")
    assert target.read_bytes()[:8] == PNG_MAGIC
