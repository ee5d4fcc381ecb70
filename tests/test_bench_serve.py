"""`ecot bench run` against `ecot serve` with the embedded model (SmolLM2 on the CPU), killed with SIGKILL
mid-run while the server is also restarted on another port: the rerun finishes the same run with every
sample stored exactly once and the samples stored before the kill unchanged."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ecot.serve.server import ServerProcess

pytestmark = pytest.mark.slow

TASKS, SAMPLES = 3, 3


def serve(cache: Path) -> ServerProcess:
    args = ["--mode", "hf", "--device", "cpu", "--threads", "1", "--max-new-tokens", "12", "--latency-ms", "300"]
    return ServerProcess(args, startup_s=300, env={"ECOT_CACHE": str(cache), "HF_HUB_OFFLINE": "1"})


def command(url: str, store: Path) -> list[str]:
    return [sys.executable, "-m", "ecot.cli.main", "bench", "run", "--domain", "rtl", "--limit", str(TASKS),
            "--samples", str(SAMPLES), "--generator", "openai", "--base-url", url, "--model", "smollm2",
            "--temperature", "0.8", "--seed", "5", "--max-tokens", "12", "--max-in-flight", "1",
            "--store", str(store), "--workers", "1"]  # fmt: skip


def stored(store: Path) -> dict[tuple[str, int], tuple[Any, ...]]:
    """(task, sample) -> (turn index, raw answer, label) of every stored turn."""
    try:
        with sqlite3.connect(store, timeout=5) as db:
            rows = db.execute("SELECT t.task_id, t.sample, u.idx, u.raw, u.label FROM turns u "
                              "JOIN trajectories t ON t.id = u.trajectory_id").fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return {}
    found: dict[tuple[str, int], tuple[Any, ...]] = {}
    for task, sample, idx, raw, label in rows:
        assert (task, sample) not in found, f"{task}#{sample} stored twice"
        found[(task, sample)] = (idx, raw, label)
    return found


def test_kill_9_and_a_server_restart_lose_and_duplicate_nothing(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache, tmp = tmp_path_factory.mktemp("ecot-cache"), tmp_path_factory.mktemp("bench")
    store = tmp / "b.db"
    with serve(cache) as first:
        proc = subprocess.Popen(command(first.url, store), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.monotonic() + 240
        while proc.poll() is None and len(stored(store)) < SAMPLES and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = stored(store)
    assert SAMPLES <= len(before) < TASKS * SAMPLES
    with serve(cache) as second:  # the server restarted, on another port
        done = subprocess.run(command(second.url, store), capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    after = stored(store)
    assert len(after) == TASKS * SAMPLES and all(turn[0] == 0 for turn in after.values())
    assert {key: after[key] for key in before} == before  # nothing stored before the kill changed or was lost
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        assert db.execute("SELECT COUNT(*) FROM trajectories WHERE status IS NULL").fetchone()[0] == 0
    assert "pass@1" in done.stdout and "overall" in done.stdout
