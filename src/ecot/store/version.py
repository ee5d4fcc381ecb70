"""Which ecot produced a run: the package version and, from a git checkout, `git describe`."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import ecot


def ecot_version() -> str:
    return ecot.__version__


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """`git describe --always --dirty` of the ecot checkout, else the package version.

    Only trusted when ecot's own files are tracked by that repository, so an installed copy that
    happens to sit inside some other git work tree does not report that tree's version.
    """
    package_dir = Path(ecot.__file__).resolve().parent
    tracked = _git(package_dir, "ls-files", "--error-unmatch", "__init__.py")
    described = _git(package_dir, "describe", "--always", "--dirty", "--tags") if tracked is not None else None
    return f"git:{described}" if described else ecot_version()


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
