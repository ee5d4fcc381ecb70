"""What a user sees while `ecot synth` and `ecot bench run` work, against real `ecot serve` processes: an early
warning when the answers run nothing (the embedded SmolLM2 at a tiny answer limit), Ctrl-C and SIGTERM that
say what the run keeps and resume on a rerun, the resume line, and tasks chosen by id."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ecot.cli.main import main
from ecot.core.outcome import NO_CODE, PASS, TRUNCATED
from ecot.run.advice import AnswerWatch
from ecot.serve.server import ServerProcess
from ecot.tasks.replay import write_replay
from ecot.tasks.suite import bundled_suite_path, load_suite

RTL = load_suite(bundled_suite_path("rtl"))


def rows(store: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store, timeout=10) as db:
        return db.execute(sql).fetchall()


def stored_turns(store: Path) -> int:
    try:
        return int(rows(store, "SELECT COUNT(*) FROM turns")[0][0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def replay_server(tmp_path: Path, count: int, latency_ms: int = 0) -> ServerProcess:
    replay = tmp_path / "replay.jsonl"
    write_replay(RTL[:count], replay)
    return ServerProcess(["--mode", "replay", "--replay", str(replay), "--latency-ms", str(latency_ms)])


def synth(url: str, store: Path, *extra: str) -> list[str]:
    return ["synth", "--generator", "openai", "--base-url", url, "--model", "ecot-replay", "--store", str(store),
            "--no-export", "--workers", "1", *extra]


@pytest.mark.slow
def test_a_synth_whose_answers_run_nothing_says_so_early_and_names_the_fix(tmp_path: Path) -> None:
    """The issue's journey: the embedded SmolLM2 behind `ecot serve`, answers cut off at a few tokens."""
    args = ["--mode", "hf", "--device", "cpu", "--threads", "1"]
    with ServerProcess(args, startup_s=300, env={"HF_HUB_OFFLINE": "1"}) as server:
        command = [sys.executable, "-m", "ecot.cli.main", *synth(server.url, tmp_path / "t.db"), "--model", "smollm2",
                   "--domain", "python", "--limit", "9", "--max-rounds", "0", "--max-tokens", "12", "--max-in-flight", "1"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    warnings = [i for i, line in enumerate(lines) if line.startswith("warning: ")]
    assert len(warnings) == 1, done.stdout  # said once
    warning = lines[warnings[0]]
    assert "of the first 8 answers ran nothing" in warning and "cut off by the length limit" in warning
    assert "--max-tokens 48" in warning  # the flag to change, with a larger value
    table = next(i for i, line in enumerate(lines) if "this invocation added 9 turns" in line)
    assert warnings[0] < table  # before the run ends, not in its summary


def test_the_watch_names_the_chat_template_when_answers_hold_no_code_and_stays_quiet_when_code_runs() -> None:
    watch = AnswerWatch(answer_limit=None)
    said = [watch.turn(label) for label in [NO_CODE] * 6 + [PASS] * 2 + [NO_CODE] * 5]
    assert said[:7] == [None] * 7 and said[8:] == [None] * 5  # one warning, at the eighth answer
    assert said[7] is not None and "--chat-template" in said[7] and "6 without a code block" in said[7]
    cut = AnswerWatch(answer_limit=None)
    assert "vLLM: --max-model-len" in str([cut.turn(TRUNCATED) for _ in range(8)][-1])
    fine = AnswerWatch(answer_limit=256)
    assert all(fine.turn(label) is None for label in [TRUNCATED] * 4 + [PASS] * 4)  # half ran: nothing to say


def test_ctrl_c_and_sigterm_keep_the_turns_say_so_and_a_rerun_resumes(tmp_path: Path) -> None:
    store = tmp_path / "t.db"
    with replay_server(tmp_path, 6, latency_ms=400) as server:
        command = [sys.executable, "-m", "ecot.cli.main", *synth(server.url, store, "--domain", "rtl", "--limit", "6",
                                                                  "--max-in-flight", "2")]
        for sent in (signal.SIGINT, signal.SIGTERM):
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            before = stored_turns(store)
            deadline = time.monotonic() + 120
            while stored_turns(store) < before + 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            proc.send_signal(sent)
            out, err = proc.communicate(timeout=120)
            kept = stored_turns(store)
            assert proc.returncode == 130, (out, err)
            assert err.strip().splitlines()[-1] == (
                f"ecot: interrupted: run 1 keeps its {kept} turns ({kept - before} from this invocation); "
                "rerun the same command to resume (finished turns are kept)")
            if before:
                assert f"resuming run 1: {before} turns" in out
        assert main(synth(server.url, store, "--domain", "rtl", "--limit", "6")) == 0
    invocations = rows(store, "SELECT stop_kind, turns FROM invocations ORDER BY id")
    assert [kind for kind, _ in invocations] == ["interrupted", "interrupted", None]
    assert sum(turns for _, turns in invocations) == stored_turns(store) == 12  # each turn stored once, counted once
    assert rows(store, "SELECT COUNT(*) FROM runs") == [(1,)]


def test_synth_and_bench_choose_tasks_by_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = [RTL[4].id, RTL[1].id]
    picked = ["--task", chosen[0], "--task-id", chosen[1]]  # --task-id: as `ecot check` spells it
    with replay_server(tmp_path, 6) as server:
        assert main(synth(server.url, tmp_path / "s.db", *picked)) == 0  # no suite, no --domain: the bundled one
        bench = ["bench", "run", "--generator", "openai", "--base-url", server.url, "--model", "ecot-replay",
                 "--store", str(tmp_path / "b.db"), "--workers", "1", "--no-reference-check", *picked]
        assert main(bench) in (0, 1)
    for store in ("s.db", "b.db"):
        assert sorted(t for (t,) in rows(tmp_path / store, "SELECT task_id FROM trajectories")) == sorted(chosen)
    capsys.readouterr()
    typo = RTL[1].id[:-1] + "x"
    assert main(["synth", "--task", typo, "--store", str(tmp_path / "n.db")]) == 2
    assert f"--task {typo}: no such task in the chosen suites (did you mean '{RTL[1].id}'?)" in capsys.readouterr().err
    assert not (tmp_path / "n.db").exists()
