"""The trajectory store on real SQLite files: migrations, resume, duplicates, SIGKILL crash safety."""

from __future__ import annotations

import dataclasses
import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ecot.core.outcome import Outcome
from ecot.core.trajectory import Trajectory, Turn
from ecot.store import MIGRATIONS, Migration, StoreError, TrajectoryStore, apply_migrations
from ecot.store import db as store_db

PROMPT = [{"role": "system", "content": "You write Verilog."}, {"role": "user", "content": "Write an adder."}]
PROVENANCE = {"generator": "replay", "model": "none", "backend": "rtl"}


def turn_for(index: int, label: str = "Syntax_Error") -> Turn:
    """A deterministic, fairly large turn, so a kill can land in the middle of writing one."""
    return Turn(
        index=index,
        reasoning=f"reasoning {index} " * 40,
        code=f"module m{index}; endmodule\n" * 20,
        raw=f"raw answer {index} " * 40,
        outcome=Outcome(
            label=label,
            diagnostic=f"diagnostic {index}",
            log=f"log line {index}\n" * 600,
            metrics={"index": index, "ratio": index / 7, "name": f"n{index}", "ok": index % 2 == 0},
            tool_versions={"iverilog": "11.0"},
            wall_s=0.015 * index,
        ),
        observation_source="real" if index % 3 else "icwm:tiny",
        usage={"prompt_tokens": index, "completion_tokens": 2 * index},
        gen_s=0.5 + index,
    )


def open_traj(store: TrajectoryStore, run: int, task: str = "adder", sample: int = 0, domain: str = "rtl") -> Trajectory:
    return store.trajectory(run, task, domain, sample, PROMPT, PROVENANCE)


@pytest.fixture
def store(tmp_path: Path):
    with TrajectoryStore(tmp_path / "store.db") as opened:
        yield opened


def test_open_applies_versioned_migrations_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first = TrajectoryStore(path)
    assert first.applied_migrations == [m.name for m in MIGRATIONS]
    first.close()
    again = TrajectoryStore(path)
    assert again.applied_migrations == []
    again.close()
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
    assert rows == [(m.version, m.name) for m in MIGRATIONS]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "trajectories", "turns", "audits", "schema_version"} <= tables


def test_old_store_is_upgraded_from_its_version(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    assert apply_migrations(conn, MIGRATIONS[:1]) == ["initial"]
    conn.close()
    store = TrajectoryStore(path)
    assert store.applied_migrations == [m.name for m in MIGRATIONS[1:]]
    store.close()


def test_failed_migration_rolls_back_whole(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "bad.db", isolation_level=None)
    bad = Migration(2, "broken", ("CREATE TABLE half (x INTEGER)", "THIS IS NOT SQL"))
    with pytest.raises(sqlite3.OperationalError):
        apply_migrations(conn, (MIGRATIONS[0], bad))
    assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'").fetchone()[0] == 0
    with pytest.raises(ValueError):
        apply_migrations(conn, (bad,))  # versions must start at 1 and be contiguous


def test_same_config_same_run(store: TrajectoryStore) -> None:
    first = store.begin_run({"model": "m", "k": 4, "suite": ["a", "b"]})
    assert store.begin_run({"suite": ["a", "b"], "k": 4, "model": "m"}) == first
    assert store.begin_run({"model": "m", "k": 3, "suite": ["a", "b"]}) != first
    runs = store.runs()
    assert [r["id"] for r in runs] == [first, first + 1]
    assert runs[0]["config"] == {"model": "m", "k": 4, "suite": ["a", "b"]}
    assert runs[0]["ecot_version"] and runs[0]["code_version"] and len(runs[0]["run_key"]) == 64


def test_resume_returns_stored_turns(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with TrajectoryStore(path) as store:
        run = store.begin_run({"x": 1})
        traj = open_traj(store, run)
        for i in range(3):
            store.append_turn(traj, turn_for(i))
        assert [t.index for t in traj.turns] == [0, 1, 2]
    with TrajectoryStore(path) as store:
        run = store.begin_run({"x": 1})
        resumed = store.trajectory(run, "adder", "rtl", 0, [{"role": "user", "content": "ignored"}], {})
        assert resumed.id == traj.id
        assert resumed.turns == [turn_for(i) for i in range(3)]
        assert resumed.prompt_messages == PROMPT
        assert resumed.provenance["generator"] == "replay" and resumed.provenance["run_id"] == run
        store.append_turn(resumed, turn_for(3))
        assert len(open_traj(store, run).turns) == 4
        assert len(open_traj(store, run, sample=1).turns) == 0  # another sample is another trajectory


def test_duplicate_or_gapped_turn_is_rejected(store: TrajectoryStore) -> None:
    traj = open_traj(store, store.begin_run({}))
    store.append_turn(traj, turn_for(0))
    with pytest.raises(StoreError):
        store.append_turn(traj, turn_for(0))
    with pytest.raises(StoreError):
        store.append_turn(traj, turn_for(2))
    stale = open_traj(store, store.begin_run({}))  # a second in-memory copy cannot sneak a duplicate in
    store.append_turn(traj, turn_for(1))
    with pytest.raises(StoreError):
        store.append_turn(stale, turn_for(1))
    assert [t.index for t in traj.turns] == [0, 1]
    assert store.counts()["turns"] == 2
    with pytest.raises(StoreError):
        store.append_turn(Trajectory("x", "rtl", 0, PROMPT), turn_for(0))


def test_finish_counts_and_filters(store: TrajectoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_db, "_PAGE", 2)  # exercise paging with a handful of rows
    run_a, run_b = store.begin_run({"run": "a"}), store.begin_run({"run": "b"})
    statuses = ["passed", "failed", "error", None, "passed"]
    for n, status in enumerate(statuses):
        traj = open_traj(store, run_a if n < 4 else run_b, task=f"t{n}", domain="rtl" if n % 2 else "gpu")
        store.append_turn(traj, turn_for(0))
        if status:
            store.finish(traj, status)
    with pytest.raises(StoreError):
        store.finish(traj, "done")
    assert store.is_finished(run_a, "t0", 0) and not store.is_finished(run_a, "t3", 0)
    assert not store.is_finished(run_a, "missing", 0)
    assert store.counts() == {"trajectories": 5, "finished": 4, "passed": 2, "turns": 5}
    assert store.counts(run_a) == {"trajectories": 4, "finished": 3, "passed": 1, "turns": 4}
    activity = store.run_activity()
    assert {run: (a["trajectories"], a["finished"], a["passed"]) for run, a in activity.items()} == {run_a: (4, 3, 1), run_b: (1, 1, 1)}
    assert activity[run_a]["first_started"] <= activity[run_a]["last_finished"]
    assert [t.task_id for t in store.iter_trajectories()] == ["t0", "t1", "t2", "t4"]
    assert [t.task_id for t in store.iter_trajectories(finished_only=False)] == ["t0", "t1", "t2", "t3", "t4"]
    assert [t.task_id for t in store.iter_trajectories(run_id=run_a, domain="gpu")] == ["t0", "t2"]
    assert [t.provenance["status"] for t in store.iter_trajectories(run_id=run_b)] == ["passed"]


def test_audit_verdicts_are_recorded(store: TrajectoryStore) -> None:
    traj = open_traj(store, store.begin_run({}))
    store.append_turn(traj, turn_for(0, label="Pass"))
    assert store.record_audit(traj, 0, Outcome("Syntax_Error", "real says no"), "icwm:tiny") is False
    assert store.record_audit(traj, 0, Outcome("Pass", "ok"), "icwm:tiny") is True
    audits = store.audits()
    assert [(a["predicted_label"], a["real_label"], a["agree"]) for a in audits] == [
        ("Pass", "Syntax_Error", False),
        ("Pass", "Pass", True),
    ]
    assert audits[0]["real_outcome"]["diagnostic"] == "real says no"
    with pytest.raises(StoreError):
        store.record_audit(traj, 5, Outcome("Pass", ""), "icwm:tiny")


CHILD = """
import sys
sys.path.insert(0, sys.argv[2])
from pathlib import Path
from ecot.store import TrajectoryStore
from test_store import PROMPT, PROVENANCE, turn_for
store = TrajectoryStore(Path(sys.argv[1]))
run = store.begin_run({"test": "sigkill"})
traj = store.trajectory(run, "adder", "rtl", 0, PROMPT, PROVENANCE)
print(len(traj.turns), flush=True)
while True:
    store.append_turn(traj, turn_for(len(traj.turns)))
"""


def test_sigkill_never_loses_or_duplicates_committed_turns(tmp_path: Path) -> None:
    path = tmp_path / "killed.db"
    rng = random.Random(1234)
    resumed_from: list[int] = []
    for iteration in range(8):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), str(Path(__file__).parent)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if iteration % 2:  # kill anywhere, including while it opens the store and migrates
            time.sleep(rng.uniform(0.0, 0.4))
        else:  # kill while it is appending
            line = child.stdout.readline()
            assert line.strip().isdigit(), child.stderr.read()
            resumed_from.append(int(line))
            time.sleep(rng.uniform(0.01, 0.15))
        assert child.poll() is None, child.stderr.read()  # it must still be running: no StoreError
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
    assert resumed_from == sorted(resumed_from) and resumed_from[-1] > 0
    _check_contiguous_complete(path)


def _check_contiguous_complete(path: Path) -> None:
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute(
        "SELECT idx, reasoning, code, raw, label, diagnostic, log, metrics, tool_versions, wall_s, "
        "observation_source, usage, gen_s FROM turns ORDER BY idx"
    ).fetchall()
    n = len(rows)
    assert n > 0
    assert [r[0] for r in rows] == list(range(n))  # contiguous and no duplicates
    for row in rows:
        expected = turn_for(row[0])
        out = expected.outcome
        assert row[1:7] == (expected.reasoning, expected.code, expected.raw, out.label, out.diagnostic, out.log)
        assert json.loads(row[7]) == out.metrics and json.loads(row[8]) == out.tool_versions
        assert (row[9], row[10], json.loads(row[11]), row[12]) == (
            out.wall_s, expected.observation_source, expected.usage, expected.gen_s,
        )
    conn.close()
    with TrajectoryStore(path) as store:
        traj = open_traj(store, store.begin_run({"test": "sigkill"}))
        assert len(traj.turns) == n
        store.append_turn(traj, turn_for(n))
        with pytest.raises(StoreError):
            store.append_turn(traj, turn_for(n))
        assert store.counts()["turns"] == n + 1


def test_synchronous_mode_is_selectable(tmp_path: Path) -> None:
    with TrajectoryStore(tmp_path / "full.db", synchronous="FULL") as store:
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    with TrajectoryStore(tmp_path / "normal.db") as store:
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    with pytest.raises(StoreError):
        TrajectoryStore(tmp_path / "off.db", synchronous="OFF")


def test_an_appended_turn_is_kept_as_a_reload_gives_it(store: TrajectoryStore) -> None:
    """What the loop holds after an append is what a resumed run loads: the generator's next
    prompt and text cannot depend on whether the run was interrupted in between."""
    metrics = {"tests_passed": 1, "tests": 5, "first_failure": 0, "shape": (2, 3), "nested": {"b": 1, "a": 2}}
    turn = dataclasses.replace(
        turn_for(0), outcome=dataclasses.replace(turn_for(0).outcome, metrics=metrics),
        usage={"prompt_tokens": 3, "completion_tokens": 4, "cached": {"z": 1, "y": 0}},
    )
    run = store.begin_run({"resume": 1})
    traj = open_traj(store, run)
    kept = store.append_turn(traj, turn)
    assert traj.turns == [kept]
    (reloaded,) = open_traj(store, run).turns
    assert kept == reloaded and kept.to_dict() == reloaded.to_dict()
    assert list(kept.outcome.metrics) == ["first_failure", "nested", "shape", "tests", "tests_passed"]
    assert list(kept.outcome.metrics["nested"]) == ["a", "b"] and kept.outcome.metrics["shape"] == [2, 3]
    assert list(kept.usage["cached"]) == ["y", "z"]


def test_statuses_are_an_enum_stored_as_plain_strings(store: TrajectoryStore) -> None:
    from ecot.core.trajectory import FINISHED, TrajectoryStatus
    from ecot.store.errors import StoreError

    assert TrajectoryStatus.PASSED == "passed" and {"passed": 1}[TrajectoryStatus.PASSED] == 1
    assert {s.value for s in FINISHED} == {"passed", "failed", "error"} and not TrajectoryStatus.STOPPED.finished
    run = store.begin_run({"model": "m"})
    traj = open_traj(store, run)
    store.append_turn(traj, turn_for(0, "Pass"))
    with pytest.raises(StoreError, match="stopped"):
        store.finish(traj, TrajectoryStatus.STOPPED)  # left unfinished on purpose: never stored
    store.finish(traj, TrajectoryStatus.PASSED)
    assert type(traj.provenance["status"]) is str and traj.status is TrajectoryStatus.PASSED
    (loaded,) = list(store.iter_trajectories(run_id=run))
    assert loaded.status is TrajectoryStatus.PASSED and loaded.provenance["status"] == "passed"
    assert open_traj(store, run, task="other").status is None
