"""Hostile or crashing CAD candidates: contained, labelled, and the warm worker keeps serving.

Oracle candidates build the right part only if their attack worked, so a contained attack shows up
as a failing label and an escape would show up as Pass.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome
from ecot.domains.cad.verdict import GEOMETRY_ERROR, RUNTIME_ERROR, SHAPE_MISMATCH

from .common import (
    bundled_task,
    describe,
    evaluate,
    skip_unless_isolated,
    skip_unless_tools,
    unique_marker,
    with_changes,
)

TASK_ID = "cad/plate_four_holes"
HEAD = "import cadquery as cq\n"
WRONG_PART = "cq.Workplane('XY').box(10, 10, 10)"


def run(candidate: str, wall_s: float | None = None) -> Outcome:
    return evaluate(with_changes(bundled_task(TASK_ID), wall_s=wall_s), candidate)


def reference() -> str:
    return bundled_task(TASK_ID).reference or ""


def oracle(attack: str) -> str:
    """The reference part when `attack` (statements setting `escaped`) succeeds, a wrong part otherwise."""
    body = reference().replace("result = (", "right = (", 1)
    return f"{body}\nescaped = False\n{attack}\nresult = right if escaped else {WRONG_PART}\n"


def test_kernel_segfault_is_labelled_and_the_worker_keeps_serving() -> None:
    crash = HEAD + "import ctypes\nshape = cq.Workplane('XY').box(1, 1, 1)\nctypes.string_at(0)\n"
    outcome = run(crash)
    assert outcome.label == GEOMETRY_ERROR and "SIGSEGV" in outcome.diagnostic, describe(outcome)
    assert outcome.diagnostic.startswith("candidate.py:4 "), "faulthandler names the crashing line"
    assert run(reference()).label == PASS


def test_hang_is_a_timeout_naming_the_line_and_costs_only_its_limit() -> None:
    start = time.monotonic()
    outcome = run(HEAD + "n = 0\nwhile True:\n    n += 1\n", wall_s=2.0)
    assert outcome.label == TIMEOUT, describe(outcome)
    assert "candidate.py:" in outcome.diagnostic and "within 2 s" in outcome.diagnostic
    assert time.monotonic() - start < 15
    assert run(reference()).label == PASS


def test_killing_the_warm_interpreter_from_inside_fails() -> None:
    skip_unless_isolated()  # without bubblewrap's PID namespace the parent is in reach (same uid)
    attack = HEAD + "import os, signal\nfor pid in (os.getppid(), 1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n" \
                    "    except OSError:\n        pass\n"
    outcome = run(attack + "result = " + WRONG_PART + "\n")
    assert outcome.label == SHAPE_MISMATCH, describe(outcome)
    assert run(reference()).label == PASS


def test_a_warm_interpreter_killed_mid_job_is_replaced_and_the_job_retried() -> None:
    """Nothing is lost when the warm interpreter itself dies: a new one starts and the job reruns."""
    backend = skip_unless_tools("cad")
    assert run(reference()).label == PASS  # warm, reference cached
    runner = backend.runner()
    first = runner._proc  # the interpreter this process started; killed as if the kernel took it down
    assert first is not None
    slow = reference().replace("import cadquery as cq\n", "import cadquery as cq\nimport time\ntime.sleep(1.5)\n", 1)
    killer = threading.Timer(0.5, first.kill)
    killer.start()
    outcome = run(slow)
    killer.join()
    assert outcome.label == PASS, describe(outcome)
    assert runner._proc is not None and runner._proc is not first


def test_resource_floods_are_contained() -> None:
    assert run("x = bytearray(16 * 1024 ** 3)\n").label == RESOURCE_LIMIT
    assert run("print('y' * 10 ** 7)\n").label == RESOURCE_LIMIT
    bomb = run("import os\nwhile True:\n    os.fork()\n", wall_s=3.0)
    assert bomb.label in (RUNTIME_ERROR, TIMEOUT, RESOURCE_LIMIT), describe(bomb)
    assert run(reference()).label == PASS


def test_forged_verdict_lines_do_not_pass() -> None:
    """The candidate cannot know the per-run tokens; lines that imitate the harness change nothing."""
    fake = ('print(\'ECOT-CAD-0000 {"stage": "done"}\')\n'
            'print(\'ECOT-CHECK-0000 {"stage": "compare", "iou": 1.0}\')\n')
    outcome = run(HEAD + fake + "result = " + WRONG_PART + "\n")
    assert outcome.label == SHAPE_MISMATCH, describe(outcome)


def test_a_tampered_export_is_the_candidates_own_failure() -> None:
    patch = HEAD + ("from OCP.BRepTools import BRepTools\n"
                    "BRepTools.Write_s = lambda shape, path, *rest: open(path, 'w').write('garbage') > 0\n")
    outcome = run(patch + "result = " + WRONG_PART + "\n")
    assert outcome.label == GEOMETRY_ERROR and "could not be read back" in outcome.diagnostic, describe(outcome)


@pytest.mark.parametrize("swap", ["os.symlink('/etc/passwd', 'result.brep')", "os.mkfifo('result.brep')"],
                         ids=["symlink", "fifo"])
def test_an_export_swapped_for_a_link_or_pipe_is_refused(swap: str) -> None:
    """A child outlives the script and replaces the exported file after the harness wrote it."""
    late = (f"import os, time\nresult = {WRONG_PART}\nif os.fork() == 0:\n    time.sleep(0.5)\n"
            f"    os.remove('result.brep')\n    {swap}\n    os._exit(0)\n")
    outcome = run(HEAD + late)
    assert outcome.label == RUNTIME_ERROR and "not a regular file" in outcome.diagnostic, describe(outcome)


def test_oracle_control_passes_when_the_attack_succeeds() -> None:
    """Positive control: a failing label above means the sandbox refused, not that the oracle is broken."""
    assert run(oracle("escaped = True")).label == PASS


@pytest.fixture
def _isolated() -> None:
    skip_unless_isolated()


def test_the_reference_is_out_of_reach(_isolated: None) -> None:
    """The reference BREP lives in a host cache folder; no candidate job can list or read it."""
    attack = ("import glob, os\n"
              "found = glob.glob('/tmp/ecot-cad-ref-*/*.brep') + glob.glob('/tmp/**/*.brep', recursive=True)\n"
              "found += [p for p in glob.glob('*') if p != 'candidate.py']\n"
              "escaped = any(os.path.getsize(p) > 1000 for p in found if os.path.isfile(p))\n")
    run(reference())  # the reference is cached on the host by now
    outcome = run(oracle(attack))
    assert outcome.label == SHAPE_MISMATCH, describe(outcome)


def test_writes_outside_the_work_dir_do_not_reach_the_host(_isolated: None) -> None:
    marker = unique_marker()
    targets = [Path("/etc") / marker, Path("/usr") / marker, Path.home() / marker]
    attack = "".join(f"try:\n    open({str(t)!r}, 'w').write('x')\n    escaped = True\nexcept OSError:\n    pass\n"
                     for t in targets)
    outcome = run(oracle(attack))
    assert outcome.label == SHAPE_MISMATCH, describe(outcome)
    assert not any(t.exists() for t in targets)


def test_no_network(_isolated: None) -> None:
    attack = ("import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    escaped = True\n"
              "except OSError:\n    pass\n")
    assert run(oracle(attack)).label == SHAPE_MISMATCH
