"""A resident checker (`ecot checker start`) for tests, in a private folder of the test's own, and a way
to run ecot commands in fresh processes against it."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

MEASURED = re.compile(r"\d+\.\d+(e-?\d+)?")  # durations, CPU ratios: what two runs of one check differ in


def ecot(argv: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ecot", *argv], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, check=False)


def without_timings(text: str) -> str:
    """Output with every decimal number (durations, CPU ratios) blanked: what two runs of one check may differ in.
    A number's width moves where rich wraps a line, so runs of spaces and line breaks compare as one space."""
    return re.sub(r"\s+", " ", MEASURED.sub("<measured>", text))


def checks_served(env: dict[str, str]) -> int:
    status = ecot(["checker", "status"], env)
    found = re.search(r"(\d+) checks", status.stdout)
    assert status.returncode == 0 and found, f"no resident checker answers: {status.stdout}{status.stderr}"
    return int(found.group(1))


@contextlib.contextmanager
def running_checker(folder: Path, idle_minutes: str = "10") -> Iterator[dict[str, str]]:
    """The environment whose `ecot check` calls go to a resident checker listening in `folder`/checker;
    the checker is stopped (and its log kept in the folder) afterwards."""
    env = {**os.environ, "ECOT_CHECKER_SOCKET": str(folder / "checker" / "checker.sock")}
    env.pop("ECOT_CHECKER", None)
    started = ecot(["checker", "start", "--idle-minutes", idle_minutes], env)
    assert started.returncode == 0, f"checker start failed: {started.stdout}{started.stderr}"
    try:
        yield env
    finally:
        ecot(["checker", "stop"], env)


def log_of(env: dict[str, str]) -> str:
    return (Path(env["ECOT_CHECKER_SOCKET"]).parent / "checker.log").read_text(encoding="utf-8", errors="replace")
