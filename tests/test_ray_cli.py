"""`ecot synth --ray-address local`: the main job on a Ray instance it starts (and stops) itself."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="ray not installed")
pytestmark = pytest.mark.slow


def turns(store: Path) -> list[tuple]:
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT t.task_id, t.sample, u.idx, u.label, u.code FROM turns u JOIN trajectories t ON u.trajectory_id = t.id"
        ).fetchall()
    return sorted((task, sample, idx, label, hashlib.sha256((code or "").encode()).hexdigest()) for task, sample, idx, label, code in rows)


def synth(store: Path, *engine: str) -> None:
    argv = [sys.executable, "-m", "ecot.cli.main", "synth", "--domain", "rtl", "--limit", "4", "--store", str(store), "--no-export", *engine]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_synth_on_a_local_ray_matches_the_local_pool(tmp_path: Path) -> None:
    for tool in ("iverilog", "vvp", "yosys", "verilator"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed")
    synth(tmp_path / "ray.db", "--ray-address", "local", "--workers", "2", "--max-pending", "3")
    synth(tmp_path / "pool.db", "--workers", "2")
    expected = turns(tmp_path / "pool.db")
    assert len(expected) >= 4 and turns(tmp_path / "ray.db") == expected
