"""`ecot synth` killed with SIGKILL at arbitrary moments resumes with no lost and no duplicated turns."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def synth_cmd(store: Path) -> list[str]:
    return [
        sys.executable, "-m", "ecot.cli.main", "synth", "--domain", "rtl", "--limit", "20", "--samples", "3",
        "--store", str(store), "--no-export", "--workers", "2",
    ]  # fmt: skip


def turns(store: Path) -> list[tuple]:
    """Each turn's key, label, and digests of its code and of the text written from the feedback."""
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT t.task_id, t.sample, u.idx, u.label, u.code, u.reasoning, u.raw FROM turns u "
            "JOIN trajectories t ON u.trajectory_id = t.id"
        ).fetchall()
    return sorted((*row[:4], *(digest(text) for text in row[4:])) for row in rows)


def digest(text: str | None) -> str:
    return hashlib.sha256((text or "").encode()).hexdigest()


def run_to_end(store: Path) -> None:
    done = subprocess.run(synth_cmd(store), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def stored_turns(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def test_kill_and_resume_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    clean = tmp_path / "clean.db"
    run_to_end(clean)
    expected = turns(clean)
    assert len(expected) >= 60

    crashed = tmp_path / "crashed.db"
    kills = 0
    step = len(expected) // 8  # each run is killed once it has stored about this many more turns
    for _ in range(5):
        proc = subprocess.Popen(synth_cmd(crashed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        target = stored_turns(crashed) + step
        deadline = time.monotonic() + 300
        while proc.poll() is None and stored_turns(crashed) < target and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
        partial = turns(crashed) if crashed.exists() else []
        keys = [row[:3] for row in partial]
        assert len(keys) == len(set(keys)), "a turn was stored twice"
        for task, sample, idx in keys:  # each trajectory holds a gap-free prefix of its turns
            assert all((task, sample, i) in set(keys) for i in range(idx))
    run_to_end(crashed)
    assert kills >= 4, "the runs finished before they could be killed; raise --limit"
    assert turns(crashed) == expected
