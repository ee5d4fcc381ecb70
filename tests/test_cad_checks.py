"""CAD checks as units: mesh metrics on known meshes, thresholds, and the verdict on known reports.

No CadQuery needed: these exercise the numpy metrics and the host-side label logic directly.
"""

from __future__ import annotations

import signal
from typing import Any

import numpy as np
import pytest

from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT
from ecot.core.task import Limits, Task
from ecot.domains.cad.jobs import metrics
from ecot.domains.cad.verdict import (
    GEOMETRY_ERROR,
    RUNTIME_ERROR,
    SHAPE_MISMATCH,
    SYNTAX_ERROR,
    Thresholds,
    judge,
    parse_status,
    script_outcome,
)
from ecot.sandbox import ExecResult

CUBE_TRIANGLES = np.array([
    [0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
    [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7],
])


def box(low: tuple[float, float, float], high: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    (x0, y0, z0), (x1, y1, z1) = low, high
    corners = np.array([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
                        [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]], dtype=float)
    return corners, CUBE_TRIANGLES.copy()


# -- mesh metrics ------------------------------------------------------------------------------------
def test_voxelizing_a_box_fills_exactly_its_cells() -> None:
    vertices, triangles = box((-0.5, -0.5, -0.5), (0.0, 0.5, 0.25))
    grid = metrics.voxelize(vertices, triangles, 16)
    assert grid.sum() == 8 * 16 * 12  # half in x, all of y, three quarters of z


def test_voxel_iou_ignores_placement_and_scale_but_not_shape() -> None:
    cube = box((0, 0, 0), (1, 1, 1))
    moved_and_scaled = box((10, 20, 30), (13, 23, 33))
    assert metrics.normalized_voxel_iou(cube, moved_and_scaled) == 1.0
    slab = box((0, 0, 0), (1, 1, 0.5))
    assert metrics.normalized_voxel_iou(cube, slab) < 0.8


def test_chamfer_is_zero_for_the_same_surface_and_the_offset_for_a_shifted_one() -> None:
    cube = box((0, 0, 0), (10, 10, 10))
    assert metrics.chamfer(cube, cube, 500) == (0.0, 0.0)
    taller = box((0, 0, 0), (10, 10, 10.5))
    mean, worst = metrics.chamfer(cube, taller, 2000)
    assert 0.0 < mean < 0.5 and worst == pytest.approx(0.5, abs=1e-6)


def test_point_triangle_distance_inside_and_beyond_an_edge() -> None:
    a, b, c = (np.array([[0.0, 0, 0]]), np.array([[1.0, 0, 0]]), np.array([[0.0, 1, 0]]))
    above = metrics.triangle_distance(np.array([[0.2, 0.2, 3.0]]), a, b, c)
    beyond = metrics.triangle_distance(np.array([[2.0, 0.0, 0.0]]), a, b, c)
    assert above[0] == pytest.approx(3.0) and beyond[0] == pytest.approx(1.0)


# -- thresholds ----------------------------------------------------------------------------------------
def test_thresholds_read_and_validate_task_options() -> None:
    read = Thresholds.from_options({"iou_min": 0.99, "single_solid": False, "samples": 500, "reference_step": "r.step"}, "task x")
    assert read.iou_min == 0.99 and read.single_solid is False and read.samples == 500
    for bad, match in (({"iou_min": 1.5}, "'iou_min'.*less than or equal to 1"), ({"single_solid": "yes"}, "'single_solid'.*boolean"),
                       ({"voxels": 3}, "'voxels'.*greater than or equal to 8"), ({"bbox_tol": -1}, "'bbox_tol'.*greater than or equal to 0"),
                       ({"other": 1}, "'other': unknown option")):
        with pytest.raises(ValueError, match=match):
            Thresholds.from_options(bad, "task x")


# -- verdicts from reports -----------------------------------------------------------------------------
def measured(volume: float = 1000.0, bbox: list[float] | None = None, solids: int = 1) -> dict:
    return {"volume": volume, "area": 600.0, "center": [0, 0, 0], "bbox": bbox or [0, 0, 0, 10, 10, 10],
            "solids": solids, "solid_volumes": [volume], "shells": solids, "faces": 6, "edges": 12}


def report(candidate: dict, faults: list | None = None, iou: float = 1.0, **compare: object) -> dict:
    return {"measure": {"candidate": candidate, "reference": measured(), "faults": faults or []},
            "compare": {"iou": iou, "consistent": True, "missing": [], "extra": [], **compare},
            "mesh": {"voxel_iou": 1.0, "chamfer": 0.0, "hausdorff": 0.0}}


def test_a_matching_valid_solid_passes_with_its_numbers() -> None:
    outcome = judge(report(measured()), Thresholds(), "")
    assert outcome.label == PASS and "IoU 1.00000" in outcome.diagnostic
    assert outcome.metrics["iou"] == 1.0 and outcome.metrics["solids"] == 1


def test_each_failed_check_gets_its_label_and_words() -> None:
    none = judge(report(measured(solids=0)), Thresholds(), "")
    assert none.label == GEOMETRY_ERROR and "no solid" in none.diagnostic
    fault = {"check": "topology", "kind": "NonManifoldEdge", "shape": "edge", "at": [0, 0, 5], "detail": "d", "count": 2}
    invalid = judge(report(measured(), [fault]), Thresholds(), "")
    assert invalid.label == GEOMETRY_ERROR and "2 x NonManifoldEdge on edge at (0, 0, 5)" in invalid.diagnostic
    two = judge(report(measured(solids=2)), Thresholds(), "")
    assert two.label == GEOMETRY_ERROR and "2 separate solids" in two.diagnostic
    assert judge(report(measured(solids=2)), Thresholds(single_solid=False), "").label == PASS
    taller = judge(report(measured(1100.0, [0, 0, 0, 10, 10, 11]), iou=0.909), Thresholds(), "")
    assert taller.label == SHAPE_MISMATCH
    assert "bounding box differs by 1 mm (zmax 11 vs 10)" in taller.diagnostic and "volume differs by 10.00%" in taller.diagnostic


def test_missing_and_extra_material_are_located() -> None:
    piece = {"volume": 12.5, "center": [40.0, 20.0, 2.5], "bbox": [38, 18, 0, 42, 22, 5]}
    outcome = judge(report(measured(), iou=0.98, missing=[piece]), Thresholds(), "")
    assert outcome.label == SHAPE_MISMATCH and "missing material 12.5 mm^3 (12.5 mm^3 at (40, 20, 2.5))" in outcome.diagnostic


def test_a_solid_the_booleans_cannot_compare_never_passes_on_a_weaker_measure() -> None:
    crashed = report(measured())
    crashed.pop("compare")
    crashed["failure"] = "the geometry kernel crashed (signal 11) while checking the solid"
    outcome = judge(crashed, Thresholds(), "")
    assert outcome.label == GEOMETRY_ERROR and "cannot be compared exactly" in outcome.diagnostic
    assert "signal 11" in outcome.diagnostic and "iou" not in outcome.metrics  # the voxel IoU 1.0 decides nothing
    contradicting = report(measured(), consistent=False)
    outcome = judge(contradicting, Thresholds(), "")
    assert outcome.label == GEOMETRY_ERROR and "contradict" in outcome.diagnostic
    reference_too = {**crashed, "reference_not_compared": "the check job failed (exit 1): BooleanFailed"}
    assert judge(reference_too, Thresholds(), "").is_infra


def test_a_gate_the_task_sets_fails_when_its_metric_could_not_be_measured() -> None:
    unmeasured = report(measured())
    unmeasured["mesh"] = {"voxel_iou": None, "chamfer": None, "hausdorff": None}
    assert judge(unmeasured, Thresholds(), "").label == PASS  # metrics only: nothing gates on them
    for gate in (Thresholds(voxel_iou_min=0.9), Thresholds(chamfer_max=0.1)):
        outcome = judge(unmeasured, gate, "")
        assert outcome.label == SHAPE_MISMATCH and "(not measured)" in outcome.diagnostic
    unmeasured.pop("mesh")  # the mesh stage never reported
    assert judge(unmeasured, Thresholds(voxel_iou_min=0.9), "").label == SHAPE_MISMATCH


def test_the_reference_is_compared_with_itself_only_when_the_candidate_could_not_be(monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot.domains.cad.backend import CadBackend

    backend, calls = CadBackend(), []
    candidate_report = {"measure": report(measured())["measure"], "complete": False, "failure": "kernel crashed"}
    answers = {b"cand": candidate_report, b"ref": {"measure": report(measured())["measure"], "complete": False,
                                                    "failure": "kernel crashed on the reference"}}
    monkeypatch.setattr(backend, "_check_once", lambda shape, ref, options, limits: calls.append((shape, options)) or
                        (dict(answers[shape]), "log"))
    checked, _ = backend.check(b"cand", b"ref", Thresholds(), LIMITS)
    assert [shape for shape, _ in calls] == [b"cand", b"ref"] and calls[1][1]["validity"] is False
    assert checked["reference_not_compared"] == "kernel crashed on the reference"
    answers[b"ref"] = {**report(measured()), "complete": True}
    calls.clear()
    checked, _ = backend.check(b"cand", b"ref", Thresholds(), LIMITS)
    assert "reference_not_compared" not in checked and judge(checked, Thresholds(), "").label == GEOMETRY_ERROR
    calls.clear()
    answers[b"cand"] = {**report(measured()), "complete": True}
    assert backend.check(b"cand", b"ref", Thresholds(), LIMITS)[0]["compare"] and len(calls) == 1


# -- verdicts from the script's job ----------------------------------------------------------------------
def result(returncode: int | None = 0, stdout: str = "", stderr: str = "", timed_out: bool = False) -> ExecResult:
    return ExecResult(returncode, stdout, stderr, timed_out, False, 0.1, True)


LIMITS = Limits(wall_s=5, cpu_s=5)
SOURCE = "import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1).holes(2)\n"


def status(**fields: object) -> dict:
    return parse_status(result(stdout=f"noise\nTOKEN {__import__('json').dumps(fields)}\n").stdout, "TOKEN") or {}


def test_script_failures_map_to_labels_and_quote_the_line() -> None:
    syntax = script_outcome(result(3), status(stage="syntax", type="SyntaxError", message="bad", line=2), SOURCE, LIMITS, "")
    assert syntax and syntax.label == SYNTAX_ERROR and syntax.diagnostic.startswith("candidate.py:2 (`result = cq.")
    api = script_outcome(result(3), status(stage="runtime", type="AttributeError", message="no holes", line=2, kernel=False),
                         SOURCE, LIMITS, "")
    assert api and api.label == RUNTIME_ERROR
    kernel = script_outcome(result(3), status(stage="runtime", type="StdFail_NotDone", message="x", line=2, kernel=True),
                            SOURCE, LIMITS, "")
    assert kernel and kernel.label == GEOMETRY_ERROR
    memory = script_outcome(result(3), status(stage="runtime", type="MemoryError", message="", line=1), SOURCE, LIMITS, "")
    assert memory and memory.label == RESOURCE_LIMIT
    assert script_outcome(result(0), status(stage="done"), SOURCE, LIMITS, "") is None


def test_crashes_and_hangs_use_the_traceback_faulthandler_printed() -> None:
    frames = 'Fatal Python error: Segmentation fault\n  File "candidate.py", line 2 in <module>\n'
    crash = script_outcome(result(-signal.SIGSEGV, stderr=frames), None, SOURCE, LIMITS, "")
    assert crash and crash.label == GEOMETRY_ERROR and crash.diagnostic.startswith("candidate.py:2 ")
    hang = script_outcome(result(None, stderr=frames, timed_out=True), None, SOURCE, LIMITS, "")
    assert hang and hang.label == TIMEOUT and "within 5 s" in hang.diagnostic
    vanished = script_outcome(result(0), None, SOURCE, LIMITS, "")
    assert vanished and vanished.label == RUNTIME_ERROR and "before producing a solid" in vanished.diagnostic


# -- one evaluation's options ---------------------------------------------------------------------------
def cad_task(options: dict[str, object], files: dict[str, str] | None = None) -> Task:
    return Task(id="cad/t", domain="cad", prompt="p", files=files or {}, reference=SOURCE, options=options)


def test_an_evaluation_checks_the_task_options_once_and_hands_them_down(monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot.domains.cad.backend import CadBackend
    from ecot.domains.cad.options import CadOptions

    validated: list[object] = []
    plain = CadOptions.model_validate

    def counted(cls: type[CadOptions], data: Any, **keywords: Any) -> CadOptions:
        validated.append(data)
        return plain(data, **keywords)

    monkeypatch.setattr(CadOptions, "model_validate", classmethod(counted))
    backend, built, judged = CadBackend(), [], []
    monkeypatch.setattr(backend, "_build_reference", lambda task, source, is_step: built.append((source, is_step)) or b"ref")
    monkeypatch.setattr(backend, "run_script", lambda code, limits: (b"shape", "ran"))
    monkeypatch.setattr(backend, "check", lambda shape, ref, limits, task_limits: judged.append((ref, limits)) or ({"unreadable": "x"}, ""))
    task = cad_task({"reference_step": "ref.step", "iou_min": 0.99}, {"ref.step": "STEP DATA"})
    outcome = backend.run(task, "candidate")
    assert len(validated) == 1
    assert built == [("STEP DATA", True)]  # the reference read the same options: the STEP file, not the script
    assert judged == [(b"ref", Thresholds(iou_min=0.99))]
    assert outcome.label == GEOMETRY_ERROR


def test_bad_options_fail_the_evaluation_naming_the_option() -> None:
    from ecot.domains.cad.backend import CadBackend

    backend = CadBackend()
    wrong = backend.run(cad_task({"iou_min": 1.5}), "candidate")
    assert wrong.is_infra and "task cad/t: option 'iou_min': Input should be less than or equal to 1" in wrong.diagnostic
    missing = backend.run(cad_task({"reference_step": "gone.step"}), "candidate")
    assert missing.is_infra and "task cad/t: option 'reference_step': 'gone.step' is not a bundle file" in missing.diagnostic
