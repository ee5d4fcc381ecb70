"""Hostile CadQuery candidates (oracles build the reference part only if their attack worked)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ecot.domains import get_backend

from ..common import bundled_task, unique_marker
from . import pycases
from .framework import Attack, Case, NotApplicable, label_in

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
    solid = get_backend("cad").reference_shape(task)
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
    Attack.HIDE_FROM_CHECKS: NotApplicable(
        "no static check reads the script: validity, volume and IoU are measured on the exported solid by a "
        "check job that never runs candidate code, and a solid it cannot read is a Geometry_Error"),
    Attack.FORGED_PRINT: [Case("iou-one-printed", TASK_ID, plain("print('Pass: IoU 1.00000, valid single solid')\n"),
                               contained=label_in("Shape_Mismatch"))],
}

CONTROL = Case("oracle-control", TASK_ID, oracle("escaped = True"))
