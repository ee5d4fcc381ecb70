"""A SIGKILLed export leaves the previous corpus intact and nothing that outlives the next export;
a kill inside the commit is rolled forward; two exports never write one folder at once.

Every test runs `ecot export` as a real process and kills it with a real SIGKILL."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from export_fixtures import store_with, trajectory

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
PLANTED = ".train.jsonl.x1y2.tmp"  # what ecot versions before the staging folder left behind
# Runs `ecot export` with the staging-folder path forced (a file system without O_TMPFILE) and,
# given KILL_AT_RENAME=n, SIGKILLs itself just before the commit's n-th rename into the folder.
HARNESS = """
import os, signal, sys
if os.environ.get("FORCE_STAGING_FOLDER"):
    import ecot.export.staging as staging
    staging.USE_UNNAMED = False
left, real = int(os.environ.get("KILL_AT_RENAME", "-1")), os.replace
def replace(src, dst, *args, **kwargs):
    global left
    if left == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    left -= 1
    return real(src, dst, *args, **kwargs)
os.replace = replace
from ecot.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def export_process(store: Path, out: Path, **env: str) -> subprocess.Popen[str]:
    environ = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "src")), **env}
    command = [sys.executable, "-c", HARNESS, "export", "--store", str(store), "--out", str(out)]
    return subprocess.Popen(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def export(store: Path, out: Path, **env: str) -> None:
    process = export_process(store, out, **env)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and not p.name.startswith(".")}


def writing(pid: int, out: Path) -> bool:
    """The export holds a file in `out` open (named, or unnamed: "out/#123 (deleted)")."""
    try:
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return False
    return any(link.startswith(f"{out}/") for link in links)


def unnamed_files_work(folder: Path) -> bool:
    try:
        os.close(os.open(folder, os.O_TMPFILE | os.O_RDWR))
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small store and one whose export takes seconds (so a kill lands mid-export)."""
    folder = tmp_path_factory.mktemp("stores")
    small, big = folder / "small.db", folder / "big.db"
    store_with(small, [[(trajectory(f"python/s{n}"), 0, "passed") for n in range(8)]])
    store_with(big, [[(trajectory(f"python/t{n:05d}", f"case {n} " * 30, n), 0, "passed") for n in range(6000)]])
    return small, big


@pytest.fixture(scope="module")
def big_corpus(stores: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("reference") / "out"
    export(stores[1], out)
    return snapshot(out)


@pytest.mark.parametrize("staging_folder", [False, True], ids=["unnamed-files", "staging-folder"])
def test_sigkill_while_writing_keeps_the_old_corpus_and_the_next_export_cleans_up(
    tmp_path: Path, stores: tuple[Path, Path], staging_folder: bool
) -> None:
    small, big = stores
    out = tmp_path / "out"
    env = {"FORCE_STAGING_FOLDER": "1"} if staging_folder else {}
    export(small, out, **env)
    before = snapshot(out)
    (out / PLANTED).write_text("left by an older ecot killed mid-export")
    rng, killed = random.Random(7), 0
    for _ in range(3):
        process = export_process(big, out, **env)
        deadline = time.monotonic() + 120
        while not writing(process.pid, out) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 1.5))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=60)
        assert snapshot(out) == before  # every visible file is still the previous export's
        leftovers = sorted(set(os.listdir(out)) - set(before) - {PLANTED})
        if not staging_folder and unnamed_files_work(out):
            assert leftovers == [], "a kill while writing unnamed files must leave nothing behind"
        else:
            assert all(name.startswith(".ecot-export.") for name in leftovers)
    assert killed >= 2, "the exports finished before they could be killed: make the store bigger"
    export(small, out, **env)
    assert sorted(os.listdir(out)) == sorted(before)  # no staging folder, no old-style temp file
    assert snapshot(out) == before  # same store, same bytes


@pytest.mark.parametrize("renames_done", [0, 2])
def test_a_kill_inside_the_commit_is_rolled_forward_never_left_mixed(
    tmp_path: Path, stores: tuple[Path, Path], big_corpus: dict[str, bytes], renames_done: int
) -> None:
    from ecot.export.staging import MANIFEST, recover

    small, big = stores
    out = tmp_path / "out"
    export(small, out)
    before = snapshot(out)
    process = export_process(big, out, KILL_AT_RENAME=str(renames_done))
    process.communicate(timeout=300)
    assert process.returncode == -signal.SIGKILL
    (folder,) = [p for p in out.iterdir() if p.name.startswith(".ecot-export.")]
    assert (folder / MANIFEST).is_file()  # killed after its commit point
    changed = {name for name, data in snapshot(out).items() if before.get(name) != data}
    assert len(changed) == renames_done  # the kill really left the folder half moved

    rolled = tmp_path / "rolled"
    shutil.copytree(out, rolled)
    recover(rolled, locked=True)  # what the next export does first
    assert snapshot(rolled) == big_corpus and sorted(os.listdir(rolled)) == sorted(big_corpus)

    export(small, out)  # the next export: recovers, then writes its own corpus
    assert sorted(os.listdir(out)) == sorted(before) and snapshot(out) == before


def test_a_second_export_into_the_same_folder_is_refused_and_the_first_completes(
    tmp_path: Path, stores: tuple[Path, Path], big_corpus: dict[str, bytes]
) -> None:
    small, big = stores
    out = tmp_path / "out"
    first = export_process(big, out)
    deadline = time.monotonic() + 120
    while not writing(first.pid, out) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert first.poll() is None, "the first export ended before the second started: make the store bigger"
    second = export_process(small, out)
    _, err = second.communicate(timeout=120)
    assert second.returncode == 2
    assert err.strip().splitlines() == [
        f"ecot: error: another ecot export (pid {first.pid}) is writing to {out}; wait for it to finish, or export elsewhere"
    ]
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert snapshot(out) == big_corpus and sorted(os.listdir(out)) == sorted(big_corpus)
