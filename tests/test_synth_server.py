"""`ecot synth` against a real OpenAI-compatible server process (replayed answers, real toolchains)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import datasets
import pytest

from ecot.cli.main import main
from ecot.serve.server import ServerProcess
from ecot.tasks.replay import write_replay
from ecot.tasks.suite import bundled_suite_path, load_suite

LIMIT = 4


def test_synth_through_an_openai_compatible_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = load_suite(bundled_suite_path("rtl"))[:LIMIT]
    replay = tmp_path / "replay.jsonl"
    write_replay(tasks, replay)
    store, out = tmp_path / "t.db", tmp_path / "corpus"
    with ServerProcess(["--mode", "replay", "--replay", str(replay), "--latency-ms", "50", "--model-name", "replay"]) as server:
        code = main([
            "synth", "--domain", "rtl", "--limit", str(LIMIT), "--generator", "openai", "--base-url", server.url,
            "--model", "replay", "--gen-opt", "api_key=EMPTY", "--store", str(store), "--out", str(out),
        ])  # fmt: skip
    assert code == 0
    assert f"this invocation added {2 * LIMIT} turns (passed: {LIMIT})" in capsys.readouterr().out
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT idx, label, tool_versions, usage, observation_source FROM turns ORDER BY trajectory_id, idx").fetchall()
    assert [(idx, label) for idx, label, *_ in rows] == [(0, "Syntax_Error"), (1, "Pass")] * LIMIT
    for _, _, versions, usage, source in rows:
        assert "Icarus Verilog" in json.loads(versions)["iverilog"]  # a real toolchain judged it
        assert json.loads(usage)["completion_tokens"] > 0
        assert source == "real"
    splits = [str(out / name) for name in ("train.jsonl", "validation.jsonl") if (out / name).is_file()]
    corpus = datasets.load_dataset("json", data_files=splits, split="train")
    assert len(corpus) == LIMIT
    assert [m["role"] for m in corpus[0]["messages"]] == ["system", "user", "assistant"]
    assistant = corpus[0]["messages"][-1]["content"]
    assert assistant.startswith("<think>") and "Syntax_Error" in assistant and "</think>" in assistant


def test_synth_rejects_bad_generator_options(tmp_path: Path, capsys) -> None:
    code = main(["synth", "--domain", "rtl", "--generator", "openai", "--gen-opt", "oops", "--store", str(tmp_path / "x.db")])
    assert code == 2
    assert "KEY=VALUE" in capsys.readouterr().err
