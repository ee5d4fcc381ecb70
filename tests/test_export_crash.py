"""A SIGKILLed export leaves the previous corpus intact and nothing that outlives the next export."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from export_fixtures import store_with, trajectory

ROOT = Path(__file__).resolve().parents[1]


def export_process(store: Path, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "ecot.cli.main", "export", "--store", str(store), "--out", str(out)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


PLANTED = ".train.jsonl.x1y2.tmp"


def staging(out: Path) -> list[Path]:
    return [p for p in out.iterdir() if p.name.startswith(".ecot-export.")]


def in_progress(out: Path) -> bool:
    """An export has started writing: a hidden entry other than the planted leftover exists."""
    return any(p.name.startswith(".") and p.name != PLANTED for p in out.iterdir())


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}


@pytest.mark.slow
def test_sigkill_during_export_keeps_the_old_corpus_and_the_next_export_cleans_up(tmp_path: Path) -> None:
    small, big, out = tmp_path / "small.db", tmp_path / "big.db", tmp_path / "out"
    store_with(small, [[(trajectory(f"python/s{n}"), 0, "passed") for n in range(8)]])
    store_with(big, [[(trajectory(f"python/t{n:05d}", f"case {n} " * 30, n), 0, "passed") for n in range(6000)]])
    assert export_process(small, out).wait(timeout=120) == 0
    before = snapshot(out)
    (out / PLANTED).write_text("left by an older ecot killed mid-export")
    rng = random.Random(7)
    killed = 0
    for _ in range(3):
        process = export_process(big, out)
        deadline = time.monotonic() + 120
        while not in_progress(out) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.8))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=60)
        assert snapshot(out) == before  # every visible file is still the previous export's
    assert killed >= 2, "the exports finished before they could be killed: make the store bigger"
    assert staging(out), "a SIGKILLed export cannot remove its staging folder; the next run must"
    assert export_process(small, out).wait(timeout=120) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(before)  # no staging folder, no old-style temp file
    assert snapshot(out) == before  # same store, same bytes
