"""Planted CAD bugs: each mutation of a bundled reference must earn exactly its expected label, and the
diagnostic must name what an engineer needs (the line, the failed check, the numbers).

Labels were established with the real toolchain (CadQuery 2.8, OpenCascade 7.9 through OCP).
"""

from __future__ import annotations

import re

import pytest

from ecot.core.outcome import PASS, Outcome
from ecot.domains.cad.verdict import (
    GEOMETRY_ERROR,
    RUNTIME_ERROR,
    SHAPE_MISMATCH,
    SYNTAX_ERROR,
)

from .common import (
    BugCase,
    bug_params,
    bundled_task,
    compose,
    describe,
    evaluate,
    regex_sub,
    replace_once,
    run_bug,
)

CAD_BUGS: tuple[BugCase, ...] = (
    # wrong dimension: the plate is 2 mm too thick
    BugCase("cad/plate_four_holes", "wrong_dimension", replace_once("thickness = 5.0", "thickness = 7.0"), SHAPE_MISMATCH),
    # wrong hole position: one bolt circle radius off by 3 mm
    BugCase("cad/flange_plain", "wrong_hole_position", replace_once("pcd = 75.0", "pcd = 81.0"), SHAPE_MISMATCH),
    # missing feature: the top fillets are left out
    BugCase("cad/block_filleted", "missing_fillet",
            replace_once('    .faces(">Z")\n    .edges()\n    .fillet(top_r)\n', ""), SHAPE_MISMATCH),
    # missing feature: the keyway is never cut
    BugCase("cad/shaft_keyway", "missing_keyway", replace_once("result = shaft.cut(key)", "result = shaft"), SHAPE_MISMATCH),
    # wrong operation: the bore is added instead of removed
    BugCase("cad/bore_block", "union_instead_of_cut", replace_once("block.cut(bore)", "block.union(bore)"), SHAPE_MISMATCH),
    # enclosure wall too thin: 2 mm instead of 2.5 mm (the wall-thickness constraint of the spec)
    BugCase("cad/enclosure_box", "thin_wall", replace_once("wall = 2.5", "wall = 2.0"), SHAPE_MISMATCH),
    # invalid boolean producing two solids: the hub floats 5 mm above the disc
    BugCase("cad/flange_hub", "two_solids", replace_once("workplane(offset=disc_t)", "workplane(offset=disc_t + 5.0)"),
            GEOMETRY_ERROR),
    # section 4.1: a bore tangent to the top face (zero-thickness wall)
    BugCase("cad/bore_block", "bore_tangent_to_face", replace_once("bore_z = 12.0", "bore_z = 15.0"), GEOMETRY_ERROR),
    # bolt holes tangent to the rim
    BugCase("cad/flange_plain", "holes_tangent_to_rim", replace_once("pcd = 75.0", "pcd = 91.0"), GEOMETRY_ERROR),
    # the kernel cannot build a fillet larger than the block
    BugCase("cad/block_filleted", "fillet_too_large", replace_once("corner_r = 6.0", "corner_r = 25.0"), GEOMETRY_ERROR),
    # degenerate geometry: a repeated polyline point gives a zero-length edge the kernel refuses
    BugCase("cad/v_pulley", "zero_length_edge", replace_once("    (30.0, 4.0),\n", "    (30.0, 4.0),\n    (30.0, 4.0),\n"),
            GEOMETRY_ERROR),
    # a self-intersecting (bow-tie) profile
    BugCase("cad/nozzle", "self_intersecting_profile", replace_once("(7.0, 35.0)", "(1.0, 35.0)"), GEOMETRY_ERROR),
    # syntax
    BugCase("cad/plate_slots", "missing_paren", replace_once(".cutThruAll()\n", ".cutThruAll(\n"), SYNTAX_ERROR),
    BugCase("cad/cup", "missing_comma", replace_once("(outer_r, height),", "(outer_r height),"), SYNTAX_ERROR),
    # API misuse
    BugCase("cad/plate_bolt_circle", "misspelled_method", replace_once(".polarArray(", ".polar_array("), RUNTIME_ERROR),
    BugCase("cad/plate_counterbore", "wrong_keyword", replace_once("forConstruction=True", "construction=True"), RUNTIME_ERROR),
    BugCase("cad/l_bracket", "missing_import", replace_once("import cadquery as cq\n", ""), RUNTIME_ERROR),
    BugCase("cad/u_handle", "no_result_variable", regex_sub(r"\nresult = ", "\npart = ", count=1), RUNTIME_ERROR),
    BugCase("cad/flange_square", "bad_plane_name", replace_once('cq.Workplane("XY")', 'cq.Workplane("XYZ")'), RUNTIME_ERROR),
)


_SEEN: dict[str, Outcome] = {}


def outcome_of(case: BugCase) -> Outcome:
    """Each planted bug runs once per session; the detail tests below reread its outcome."""
    if case.name not in _SEEN:
        _SEEN[case.name] = run_bug(case)
    return _SEEN[case.name]


@pytest.mark.parametrize("case", bug_params(CAD_BUGS))
def test_planted_bug_gets_its_label(case: BugCase) -> None:
    outcome = outcome_of(case)
    assert outcome.label == case.expected_label, f"{case.name}: {describe(outcome)}"


def _bug(name: str) -> BugCase:
    return next(c for c in CAD_BUGS if c.kind == name)


def test_section_4_1_tangent_bore_is_a_geometry_error_with_the_contact() -> None:
    """The paper's ICWM false positive: valid Python, plausible numbers, a degenerate solid."""
    outcome = outcome_of(_bug("bore_tangent_to_face"))
    assert outcome.label == GEOMETRY_ERROR, describe(outcome)
    assert "NonManifoldEdge" in outcome.diagnostic and "zero-thickness" in outcome.diagnostic
    assert "(0, 0, 20)" in outcome.diagnostic  # where: the contact line on the top face
    assert outcome.metrics["faults"] >= 1


def test_mismatch_diagnostic_gives_numbers_and_where_material_differs() -> None:
    outcome = run_bug(BugCase("cad/plate_four_holes", "moved_hole",
                              replace_once("rect(80.0, 40.0", "rect(74.0, 40.0"), SHAPE_MISMATCH))
    assert outcome.label == SHAPE_MISMATCH, describe(outcome)
    text = outcome.diagnostic
    assert re.search(r"IoU 0\.9\d+ with the reference is below 0\.999", text)
    assert "volume 2.93e+04" in text or "volume 29315.8" in text
    assert "missing material" in text and "extra material" in text
    assert "bounding box 100 x 60 x 5 mm" in text
    assert 0.9 < outcome.metrics["iou"] < 0.999


def test_wrong_dimension_names_the_bounding_box_face() -> None:
    outcome = outcome_of(_bug("wrong_dimension"))
    assert "bounding box differs by 2 mm (zmax 7 vs 5)" in outcome.diagnostic, describe(outcome)


def test_runtime_and_kernel_errors_quote_the_failing_line() -> None:
    outcome = outcome_of(_bug("misspelled_method"))
    assert re.match(r"candidate\.py:\d+ \(`\.polar_array\(pcd / 2, 0, 360, 6\)`\): AttributeError", outcome.diagnostic)
    kernel = outcome_of(_bug("fillet_too_large"))
    assert re.match(r"candidate\.py:\d+ \(`\.fillet\(corner_r\)`\): the geometry kernel could not build", kernel.diagnostic)


def test_two_solids_reports_each_volume() -> None:
    outcome = outcome_of(_bug("two_solids"))
    assert "2 separate solids" in outcome.diagnostic and outcome.metrics["solids"] == 2


def test_thresholds_are_per_task() -> None:
    """A looser iou_min / volume_rtol / bbox_tol lets a near miss pass; the strict defaults do not."""
    case = BugCase("cad/plate_hole_grid", "hole_8_2", replace_once("hole_d = 8.0", "hole_d = 8.2"), SHAPE_MISMATCH)
    assert run_bug(case).label == SHAPE_MISMATCH
    loose = BugCase(case.task_id, case.kind, case.mutate, PASS, options={"iou_min": 0.99, "volume_rtol": 0.01})
    assert run_bug(loose).label == PASS


def test_voxel_and_chamfer_limits_apply_when_set() -> None:
    task = bundled_task("cad/plate_four_holes")
    moved = compose(replace_once("rect(80.0, 40.0", "rect(74.0, 40.0"))(task.reference or "")
    options = {"iou_min": 0.9, "volume_rtol": 1.0, "chamfer_max": 0.001}
    outcome = evaluate(BugCase(task.id, "x", lambda s: s, PASS, options=options).task(), moved)
    assert outcome.label == SHAPE_MISMATCH and "Chamfer distance" in outcome.diagnostic, describe(outcome)
    assert outcome.metrics["chamfer_mm"] > 0.001 and outcome.metrics["voxel_iou"] < 1.0
