"""Hostile CadQuery candidates (oracles build the reference part only if their attack worked)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ecot.domains import get_backend
from ecot.domains.cad.backend import CadBackend

from ..common import bundled_task, unique_marker
from . import pyattacks, pycases
from .framework import Attack, Case, NotApplicable, cleaned, label_in

TASK_ID = "cad/plate_four_holes"
HEAD = "import cadquery as cq\n"
WRONG_PART = "cq.Workplane('XY').box(10, 10, 10)"
WRONG = f"{HEAD}result = {WRONG_PART}\n"
RIGHT_ON_THE_HOST = Path(tempfile.gettempdir()) / f"{unique_marker('ecot-right-part-')}.brep"


def reference() -> str:
    return bundled_task(TASK_ID).reference or ""


def oracle(attack: str) -> str:
    body = reference().replace("result = (", "right = (", 1)
    return f"{body}\nescaped = False\n{attack}\nresult = right if escaped else {WRONG_PART}\n"


def plain(statements: str) -> str:
    return f"{HEAD}{statements}\nresult = {WRONG_PART}\n"


@contextlib.contextmanager
def right_part_on_the_host() -> Iterator[None]:
    """The reference solid in a host file: a host that followed the candidate's link would read it."""
    task = bundled_task(TASK_ID)
    backend = get_backend("cad")
    assert isinstance(backend, CadBackend)
    solid = backend.reference_shape(task)
    RIGHT_ON_THE_HOST.write_bytes(solid if isinstance(solid, bytes) else solid.read_bytes())  # older code: a Path
    try:
        yield
    finally:
        RIGHT_ON_THE_HOST.unlink()


# A child polls for the exported solid and swaps it for a link to the host's copy of the right part.
SWAP_EXPORT = f"""
import os, time
if os.fork() == 0:
    _end = time.monotonic() + 20
    while time.monotonic() < _end:
        if os.path.exists('result.brep') and not os.path.islink('result.brep'):
            time.sleep(0.01)
            try:
                os.remove('result.brep')
                os.symlink({str(RIGHT_ON_THE_HOST)!r}, 'result.brep')
            except OSError:
                pass
            break
    os._exit(0)
"""

FORGED_STATUS = """
import sys, json
for _token in sys.argv:
    if _token.startswith('ECOT-'):
        print(_token + ' ' + json.dumps({'stage': 'done'}))
        print(_token + ' ' + json.dumps({'stage': 'compare', 'iou': 1.0, 'consistent': True}))
print('ECOT-CHECK-0000 {"stage": "compare", "iou": 1.0}')
"""

TAMPERED_EXPORT = ("from OCP.BRepTools import BRepTools\n"
                   "BRepTools.Write_s = lambda shape, path, *rest: open(path, 'w').write('garbage') > 0\n")

# issue 26, finding 3: what the script prints and raises reaches the outcome's texts only cleaned
TRICKS_PRINTED = (f"import sys\n_TRICKS = {pyattacks.TERMINAL_TRICKS!r}\n"
                  "sys.stdout.buffer.write(_TRICKS.encode('utf-8', 'surrogatepass') + b' \\xff\\n')\n"
                  "sys.stderr.buffer.write(_TRICKS.encode('utf-8', 'surrogatepass') + b' \\xff\\n')\n")


def inflated(pattern: str) -> str:
    """A plate whose holes are 1 mm off, its sub-shapes' tolerances set to 0.3 mm: booleans on it fail,
    contradict themselves or merge the holes with the reference's."""
    return (f"{HEAD}from OCP.ShapeFix import ShapeFix_ShapeTolerance\nfrom OCP.TopAbs import TopAbs_SHAPE\n"
            f"result = (cq.Workplane('XY').box(100.0, 60.0, 5.0, centered=(True, True, False)).faces('>Z').workplane()"
            f".rect({pattern}, forConstruction=True).vertices().hole(6.6))\n"
            f"ShapeFix_ShapeTolerance().SetTolerance(result.val().wrapped, 0.3, TopAbs_SHAPE)\n")


CASES = {
    **pycases.shared_cases(TASK_ID, oracle, WRONG, plain),
    Attack.LINK_RACE: [Case("export-swapped-for-a-link-to-the-right-part", TASK_ID, plain(SWAP_EXPORT),
                            host=right_part_on_the_host)],
    Attack.FORGE_CHANNEL: [
        Case("status-lines-with-the-harness-token", TASK_ID, plain(FORGED_STATUS + pycases.forged_fds('{"stage": "done"}\n'))),
        Case("tampered-exporter", TASK_ID, plain(TAMPERED_EXPORT)),
    ],
    Attack.EARLY_EXIT: [
        Case("exit-before-the-export", TASK_ID, reference() + "\nimport os\nos._exit(0)\n"),
        Case("sys-exit-at-import", TASK_ID, f"{HEAD}import sys\nsys.exit(0)\n"),
    ],
    Attack.SHORTCUT: NotApplicable(
        "a part has no inputs: the solid the candidate builds is the whole answer and is measured against the "
        "reference solid, so there is nothing to echo, cache across calls or answer only for the sizes shown"),
    Attack.INSTRUMENTATION: NotApplicable(
        "nothing counts or times a CAD candidate from inside its process: the wall limit is enforced by the "
        "warm interpreter outside the job's namespace, and every measure comes from a separate check job"),
    # no static check reads the script; what a solid can hide from is the exact comparison (issue 26, finding 2)
    Attack.HIDE_FROM_CHECKS: [
        Case("tolerances-inflated-to-reach-the-voxel-fallback", TASK_ID, inflated("78.0, 40.0"),
             contained=label_in("Geometry_Error")),
        Case("tolerances-inflated-to-blur-the-exact-iou", TASK_ID, inflated("80.0, 42.0"),
             contained=label_in("Geometry_Error")),
        Case("booleans-contradict-on-a-task-that-allows-coarse-solids", TASK_ID, inflated("82.0, 40.0"),
             contained=label_in("Geometry_Error"), options={"tolerance_max": 1.0}),
    ],
    Attack.FORGED_PRINT: [Case("iou-one-printed", TASK_ID, plain("print('Pass: IoU 1.00000, valid single solid')\n"),
                               contained=label_in("Shape_Mismatch")),
                          Case("terminal-tricks-printed", TASK_ID, plain(TRICKS_PRINTED),
                               contained=cleaned(label_in("Shape_Mismatch"))),
                          Case("terminal-tricks-raised", TASK_ID, f"{TRICKS_PRINTED}raise ValueError(_TRICKS)\n",
                               contained=cleaned(label_in("Runtime_Error")))],
}

CONTROL = Case("oracle-control", TASK_ID, oracle("escaped = True"))
