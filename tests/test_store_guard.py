"""A damaged store is refused by every command before anything reads or writes it; a second
writer is refused with the first one's pid and leaves the first run unharmed. Real stores, real
processes."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ecot.cli.main import main
from ecot.store import StoreError, TrajectoryStore

ROOT = Path(__file__).resolve().parents[1]


def ecot(*argv: str, **popen: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "src"))}
    command = [sys.executable, "-m", "ecot.cli.main", *argv]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **popen)


def finished(*argv: str) -> tuple[int, list[str]]:
    process = ecot(*argv)
    _, err = process.communicate(timeout=300)
    return process.returncode, err.strip().splitlines()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real store: three Python tasks through the repair generator."""
    path = tmp_path_factory.mktemp("guard") / "ecot.db"
    assert main(["synth", "--domain", "python", "--limit", "3", "--store", str(path), "--no-export", "--workers", "1"]) == 0
    return path


def garble(source: Path, target: Path, table: str) -> None:
    """A copy of `source` with the first page of `table` (a table or an index) overwritten."""
    with sqlite3.connect(source) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    shutil.copy(source, target)
    with open(target, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xa5" * 64)  # page type, cell count and cell pointers: nonsense


@pytest.mark.parametrize("table", ["turns_label", "turns"])  # an index no read uses; the table every read uses
@pytest.mark.parametrize("command", ["synth", "export", "stats", "icwm"])
def test_every_command_refuses_a_damaged_store_and_leaves_it_as_it_was(
    store: Path, tmp_path: Path, table: str, command: str
) -> None:
    damaged = tmp_path / "damaged.db"
    garble(store, damaged, table)
    before = digest(damaged)
    argv = {
        "synth": ["synth", "--domain", "python", "--limit", "3", "--store", str(damaged), "--out", str(tmp_path / "corpus")],
        "export": ["export", "--store", str(damaged), "--out", str(tmp_path / "corpus")],
        "stats": ["stats", "--store", str(damaged), "--json", str(tmp_path / "stats.json")],
        "icwm": ["icwm", "train", "--store", str(damaged), "--out", str(tmp_path / "model"), "--all-tasks"],
    }[command]
    status, err = finished(*argv)
    assert status == 2
    assert len(err) == 1 and err[0].startswith(f"ecot: error: the trajectory store {damaged} is damaged (")
    assert "nothing was read or written" in err[0]
    assert digest(damaged) == before
    wal = Path(f"{damaged}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert not any(tmp_path.glob("corpus*")) and not (tmp_path / "stats.json").exists() and not (tmp_path / "model").exists()


def test_the_check_is_what_finds_damage_that_reads_would_walk_past(store: Path, tmp_path: Path) -> None:
    """The index on labels is read by no query of export or stats: without the page check they
    would have run on this store as if it were whole."""
    from ecot.store import DamagedStoreError

    damaged = tmp_path / "damaged.db"
    garble(store, damaged, "turns_label")
    with sqlite3.connect(damaged) as conn:
        assert conn.execute("SELECT COUNT(*), MAX(length(raw)) FROM turns").fetchone()[0] > 0  # a plain read works
    with pytest.raises(DamagedStoreError, match=r"is damaged \("):
        TrajectoryStore(damaged)


def test_a_changed_indexed_value_is_caught_though_every_page_is_well_formed(store: Path, tmp_path: Path) -> None:
    """One letter of the stored labels changed in the table's pages: each page still parses and
    every read succeeds (returning the wrong label), but the label index no longer matches its
    table; the integrity check (not quick_check) sees it."""
    damaged = tmp_path / "damaged.db"
    with sqlite3.connect(store) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'turns' AND pagetype != 'internal'")]
    data = bytearray(store.read_bytes())
    for page in pages:
        start = (page - 1) * page_size
        data[start : start + page_size] = bytes(data[start : start + page_size]).replace(b"Wrong_Answer", b"Wrong_Answex")
    damaged.write_bytes(bytes(data))
    with sqlite3.connect(damaged) as conn:
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        # a read of the table itself (not through the index) gets the changed label
        assert conn.execute("SELECT COUNT(*) FROM turns NOT INDEXED WHERE label = 'Wrong_Answex'").fetchone()[0] > 0
    before = digest(damaged)
    status, err = finished("stats", "--store", str(damaged))
    assert status == 2 and len(err) == 1 and "missing from index turns_label" in err[0]
    assert digest(damaged) == before


def test_damage_met_after_the_open_is_named_as_damage(store: Path, tmp_path: Path) -> None:
    from ecot.store.health import describe

    damaged = tmp_path / "damaged.db"
    garble(store, damaged, "turns")
    with sqlite3.connect(damaged) as conn, pytest.raises(sqlite3.DatabaseError) as caught:
        conn.execute("SELECT * FROM turns").fetchall()
    line = describe(caught.value, damaged)
    assert line.startswith(f"the trajectory store {damaged} is damaged (database disk image is malformed)")
    assert describe(sqlite3.OperationalError("database is locked"), damaged).endswith("failed: database is locked")


def synth_argv(path: Path) -> list[str]:
    return ["synth", "--domain", "rtl", "--limit", "4", "--samples", "30", "--store", str(path), "--no-export", "--workers", "1"]


def stored_turns(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT t.task_id, t.sample, t.status, u.idx, u.label, u.code FROM turns u "
            "JOIN trajectories t ON u.trajectory_id = t.id"
        ).fetchall()
    return sorted(rows, key=repr)


def turn_count(path: Path) -> int:
    try:
        with sqlite3.connect(path, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


@pytest.mark.slow
def test_a_second_synth_on_a_store_is_refused_naming_the_first_which_is_unharmed(tmp_path: Path) -> None:
    clean, shared = tmp_path / "clean.db", tmp_path / "shared.db"
    assert finished(*synth_argv(clean))[0] == 0
    first = ecot(*synth_argv(shared))
    deadline = time.monotonic() + 120
    while turn_count(shared) == 0 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert first.poll() is None, "the first synth ended before the second started: give it more work"
    status, err = finished(*synth_argv(shared))
    assert first.poll() is None, "the second synth must be refused while the first still writes"
    assert status == 2
    assert err == [
        f"ecot: error: another ecot process (pid {first.pid}) is writing to the trajectory store {shared}; one process "
        "writes a store at a time. Wait for it to finish (rerunning the same command then resumes), or stop it first"
    ]
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err[-2000:]
    assert stored_turns(shared) == stored_turns(clean)  # turn for turn what an undisturbed run stores
    assert finished(*synth_argv(shared))[0] == 0  # the lock went with its holder: the store is writable again


def test_the_writer_lock_is_per_store_and_readers_never_take_it(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with TrajectoryStore(path, writer=True):
        busy = re.escape(f"another ecot process (pid {os.getpid()}) is writing to the trajectory store {path};")
        with pytest.raises(StoreError, match=busy):
            TrajectoryStore(path, writer=True)
        with TrajectoryStore(path) as reader:  # stats and export read while synth writes
            assert reader.runs() == []
        with TrajectoryStore(tmp_path / "other.db", writer=True):
            pass
    with TrajectoryStore(path, writer=True):  # released by close()
        pass


def sqlite_locks(path: Path) -> list[str]:
    """The POSIX (SQLite) locks this process holds on `path`, as /proc/locks lists them."""
    stat = path.stat()
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    lines = Path("/proc/locks").read_text().splitlines()
    return [" ".join(line.split()[1:]) for line in lines if "POSIX" in line and f" {os.getpid()} {device} " in line]


def test_releasing_the_writer_lock_keeps_the_sqlite_locks_of_other_connections(tmp_path: Path) -> None:
    """Closing any descriptor of a file drops every POSIX lock of the process on it, SQLite's too:
    the writer lock must never do that to a connection still open in the same process."""
    path = tmp_path / "s.db"
    writer = TrajectoryStore(path, writer=True)
    with TrajectoryStore(path) as reader:
        reader.runs()
        held = sqlite_locks(path)
        assert held, "an open WAL connection holds a shared lock on its database"
        writer.close()
        assert sqlite_locks(path) == held
