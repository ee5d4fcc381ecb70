"""`ecot synth` against real `ecot serve` processes on loopback: truncation, budgets, run identity,
progress with stdout redirected, a closed port, and an endpoint that dies mid-run (real RTL toolchain)."""

from __future__ import annotations

import html
import json
import re
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ecot.cli.main import main
from ecot.serve.server import ServerProcess
from ecot.tasks.replay import fenced, write_replay
from ecot.tasks.suite import bundled_suite_path, load_suite

TASKS = load_suite(bundled_suite_path("rtl"))


def synth(url: str, store: Path, limit: int, *extra: str) -> list[str]:
    return [
        "synth", "--domain", "rtl", "--limit", str(limit), "--generator", "openai", "--base-url", url,
        "--model", "replay", "--store", str(store), "--no-export", "--workers", "1", *extra,
    ]  # fmt: skip


def rows(store: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store) as db:
        return db.execute(sql).fetchall()


def turns(store: Path) -> list[tuple[Any, ...]]:
    return sorted(rows(store, "SELECT t.task_id, t.sample, u.idx, u.label FROM turns u JOIN trajectories t ON t.id = u.trajectory_id"))


def replay_server(tmp_path: Path, limit: int, latency_ms: int = 0) -> ServerProcess:
    replay = tmp_path / "replay.jsonl"
    write_replay(TASKS[:limit], replay)
    return ServerProcess(["--mode", "replay", "--replay", str(replay), "--latency-ms", str(latency_ms)])


def test_an_answer_cut_off_by_max_tokens_is_truncated_and_the_model_is_told(tmp_path: Path) -> None:
    tasks = TASKS[:2]
    limit = max(len(fenced(t, t.reference, "fixed").split()) for t in tasks) + 5
    lines = []
    for task in tasks:  # turn 0 thinks past the limit; turn 1 answers only if told where it was cut
        lines.append({"task_id": task.id, "turn": 0, "reasoning_content": "hmm " * (limit + 20), "content": fenced(task, task.reference, "")})
        lines.append({"task_id": task.id, "turn": 1, "match": f"cut off at {limit} tokens", "reasoning_content": "shorter", "content": fenced(task, task.reference, "")})
    replay = tmp_path / "replay.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in lines))
    store = tmp_path / "t.db"
    with ServerProcess(["--mode", "replay", "--replay", str(replay)]) as server:
        assert main(synth(server.url, store, 2, "--gen-opt", f"max_tokens={limit}")) == 0
    stored = rows(store, "SELECT idx, label, finish_reason, code IS NULL, reasoning_content, usage FROM turns ORDER BY trajectory_id, idx")
    assert [row[:4] for row in stored] == [(0, "Truncated", "length", 1), (1, "Pass", "stop", 0)] * 2
    assert all(json.loads(row[5])["completion_tokens"] == limit for row in stored if row[1] == "Truncated")
    assert {row[4] for row in stored if row[0] == 1} == {"shorter"}  # the endpoint's reasoning field, kept apart


def test_a_budget_is_never_passed_and_every_line_tells_the_same_total(tmp_path: Path, capsys: Any) -> None:
    clean, budgeted = tmp_path / "clean.db", tmp_path / "budget.db"
    limit = ("--max-tokens", "400")  # the replay answers are shorter: none is cut, and the bound is hard
    with replay_server(tmp_path, 4, latency_ms=200) as server:  # the four first requests are in flight together
        assert main(synth(server.url, clean, 4, *limit)) == 0
        budget = store_tokens(clean)  # what the whole run used: the worst cases reserved do not all fit
        capsys.readouterr()
        assert main(synth(server.url, budgeted, 4, *limit, "--budget-tokens", str(budget))) == 3
        out = capsys.readouterr().out
        spent = store_tokens(budgeted)
        assert 0 < spent <= budget, (spent, budget)
        assert f"token budget: {spent:,} of {budget:,} tokens used" in out  # the stop line ...
        assert re.search(rf"^ *all +│ +{len(turns(budgeted))} │.*│ +{spent:,} │", out, re.M), out  # ... and the table agree
        assert "rerun with a larger --budget-tokens" in out
        assert rows(budgeted, "SELECT stop_kind, turns, tokens FROM invocations") == [("budget", len(turns(budgeted)), spent)]
        assert main(["report", "--store", str(budgeted), "--out", str(tmp_path / "report")]) == 0  # the report says it too
        page = html.unescape((tmp_path / "report" / "index.html").read_text())
        assert f"stopped early (budget): token budget: {spent:,} of {budget:,} tokens used" in page
        assert "rerun with a larger --budget-tokens" in page
        assert main(synth(server.url, budgeted, 4, *limit, "--budget-tokens", str(budget))) == 3  # still no room
        assert f"resuming run 1: {len(turns(budgeted))} turns, {spent:,} tokens already stored" in capsys.readouterr().out
        assert store_tokens(budgeted) == spent
        assert main(synth(server.url, budgeted, 4, *limit)) == 0  # no budget: the run resumes and ends
        capsys.readouterr()
        assert main(synth(server.url, tmp_path / "soft.db", 1, "--budget-tokens", str(budget))) == 0
        assert "give --max-tokens N to make it a hard limit" in capsys.readouterr().out  # no answer limit: said so
    assert turns(budgeted) == turns(clean)
    assert [kind for (kind,) in rows(budgeted, "SELECT stop_kind FROM invocations ORDER BY id")] == ["budget", "budget", None]


def test_a_budget_holds_for_samples_asked_for_in_one_request(tmp_path: Path, capsys: Any) -> None:
    clean, budgeted = tmp_path / "clean.db", tmp_path / "budget.db"
    args = ("--samples", "3", "--max-tokens", "400")  # each task's three first answers: one request with n=3
    with replay_server(tmp_path, 6, latency_ms=100) as server:
        assert main(synth(server.url, clean, 6, *args)) == 0
        budget = store_tokens(clean)  # the worst cases reserved exceed what the answers use: not all fit
        assert main(synth(server.url, budgeted, 6, *args, "--budget-tokens", str(budget))) == 3
        spent = store_tokens(budgeted)
        assert 0 < spent <= budget and f"token budget: {spent:,} of {budget:,} tokens used" in capsys.readouterr().out
        assert main(synth(server.url, budgeted, 6, *args)) == 0  # what was held for those answers came back
    assert turns(budgeted) == turns(clean)


def store_tokens(store: Path) -> int:
    return sum(json.loads(u)["total_tokens"] for (u,) in rows(store, "SELECT usage FROM turns"))


def test_the_same_server_spelled_two_ways_is_one_run(tmp_path: Path) -> None:
    store = tmp_path / "t.db"
    with replay_server(tmp_path, 2) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert main(synth(server.url, store, 2)) == 0
        before = turns(store)
        assert main(synth(server.url.replace("127.0.0.1", "localhost"), store, 2)) == 0
        assert rows(store, "SELECT COUNT(*) FROM runs")[0][0] == 1 and turns(store) == before  # nothing regenerated
        assert main(synth(server.url, store, 2, "--gen-opt", "temperature=0.2")) == 0  # other sampling: another run
    assert rows(store, "SELECT COUNT(*) FROM runs")[0][0] == 2


def test_progress_lines_appear_while_stdout_is_a_file(tmp_path: Path) -> None:
    log = tmp_path / "out.log"
    with replay_server(tmp_path, 2, latency_ms=600) as server, log.open("w") as out:
        command = [sys.executable, "-m", "ecot.cli.main", *synth(server.url, tmp_path / "t.db", 2, "--progress-every", "0.2")]
        done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in log.read_text().splitlines() if line.startswith("run 1: trajectories")]
    assert len(lines) >= 4, lines  # periodic lines, not only the final one
    assert any("in flight 2" in line for line in lines)  # both first requests were seen waiting on the server
    assert "trajectories 2/2 | turns 4 (" in lines[-1] and "tok/s" in lines[-1]
    assert "ETA -" in lines[0] and re.search(r"ETA 0:00:0\d", lines[-1])  # unknown until a trajectory ends


def test_closed_port_fails_at_once_with_one_line_naming_the_url(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    store = tmp_path / "t.db"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ecot.cli.main", *synth(url, store, 3)], capture_output=True, text=True, timeout=120
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 2 and elapsed < 10, (done.returncode, elapsed, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and url in lines[0] and "Connection refused" in lines[0], lines
    assert not store.exists()  # nothing was started, so nothing was stored


def test_a_dead_endpoint_trips_the_breaker_and_a_new_one_resumes_the_run(tmp_path: Path) -> None:
    store = tmp_path / "t.db"
    patient = ("--gen-opt", "max_retries=100", "--gen-opt", "backoff=0.1", "--gen-opt", "max_backoff=0.2")
    breaker = ("--gen-opt", "breaker_failures=3", "--gen-opt", "breaker_seconds=0.5", "--max-in-flight", "2")
    with replay_server(tmp_path, 6, latency_ms=300) as server:
        command = [sys.executable, "-m", "ecot.cli.main", *synth(server.url, store, 6, *patient, *breaker)]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (store.exists() and _stored(store) >= 2):
            time.sleep(0.05)
        server.stop()  # the endpoint dies mid-run
        killed = time.monotonic()
    out, err = proc.communicate(timeout=120)
    stopped_after = time.monotonic() - killed
    # without the breaker each of 6 trajectories would retry for about 100 x 0.1 s
    assert proc.returncode == 1 and stopped_after < 8, (proc.returncode, stopped_after, err[-2000:])
    assert "stopped early (endpoint)" in out and "unreachable" in out and "rerun the same command once the endpoint answers" in out
    assert err.count("connection failures in a row") == 1
    assert rows(store, "SELECT COUNT(*) FROM trajectories WHERE status IS NULL")[0][0] + _unstarted(store, 6) >= 1
    with replay_server(tmp_path, 6) as again:  # a new server on another port: the same run continues
        assert main(synth(again.url, store, 6)) == 0
    assert rows(store, "SELECT COUNT(*) FROM runs")[0][0] == 1
    assert [label for *_, label in turns(store)] == ["Syntax_Error", "Pass"] * 6


def _stored(store: Path) -> int:
    try:
        return int(rows(store, "SELECT COUNT(*) FROM turns")[0][0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def _unstarted(store: Path, total: int) -> int:
    return total - int(rows(store, "SELECT COUNT(*) FROM trajectories")[0][0])


def test_system_prompt_file_replaces_the_routed_instructions(tmp_path: Path) -> None:
    prompt = tmp_path / "system.txt"
    prompt.write_text("Be terse.\n\n{domain_instructions}\n")
    store = tmp_path / "t.db"
    with replay_server(tmp_path, 1) as server:
        assert main(synth(server.url, store, 1)) == 0
        assert main(synth(server.url, store, 1, "--system-prompt", str(prompt))) == 0
    (routed,), (custom,) = rows(store, "SELECT prompt_messages FROM trajectories ORDER BY id")
    routed_system, user = json.loads(routed)
    custom_system, custom_user = json.loads(custom)
    assert routed_system["role"] == "system" and "```verilog" in routed_system["content"]  # answer format: system
    assert user == custom_user == {"role": "user", "content": TASKS[0].prompt.strip()}  # the task alone
    assert custom_system["content"] == "Be terse.\n\n" + routed_system["content"]
    assert rows(store, "SELECT COUNT(*) FROM runs")[0][0] == 2  # another prompt, another run


def test_chat_template_file_is_sent_and_keys_the_run(tmp_path: Path, capsys: Any) -> None:
    template = tmp_path / "template.jinja"
    template.write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}")
    store = tmp_path / "t.db"
    with replay_server(tmp_path, 1) as server:
        assert main(synth(server.url, store, 1)) == 0
        assert main(synth(server.url, store, 1, "--chat-template", str(template))) == 0
        assert main(synth(server.url, store, 1, "--chat-template", str(tmp_path / "missing.jinja"))) == 2
    assert "--chat-template" in capsys.readouterr().err
    (plain,), (templated,) = rows(store, "SELECT provenance FROM trajectories ORDER BY id")
    assert "chat_template_sha256" not in json.loads(plain)
    assert len(json.loads(templated)["chat_template_sha256"]) == 64
    assert rows(store, "SELECT COUNT(*) FROM runs")[0][0] == 2
