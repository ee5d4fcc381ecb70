"""From a trained model to its scores, as real `ecot` processes: `train sft` writes what the model was
trained on into its folder, `bench run` (a local model folder, and an endpoint with --trained-on) warns
about the benchmark tasks the model has seen and records them, `bench report` prints what it writes,
and `bench compare` tells two models apart by their answers when both score 0."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ecot.export import ExportOptions, export_store
from ecot.serve.server import ServerProcess
from ecot.store import TrajectoryStore
from ecot.tasks.replay import write_replay
from ecot.tasks.suite import bundled_suite_path, load_suite
from export_fixtures import store_with, trajectory
from train_fixtures import tiny_llama

pytestmark = pytest.mark.slow

SUITE = bundled_suite_path("python")
SCORED = load_suite(SUITE)[:3]  # what `--domain python --limit 3` selects
TRAINED = [SCORED[0].id, SCORED[1].id, "python/not_benchmarked"]  # two of the scored tasks, one other


def ecot(*args: str, cwd: Path) -> str:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "ecot.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode in (0, 1), f"ecot {' '.join(args)} exited {done.returncode}: {done.stderr[-3000:]}"
    return " ".join(done.stdout.replace("│", " ").split())  # rich wraps lines and draws cells: compare words


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trained")
    store_with(root / "synth.db", [[(trajectory(task), 0, "passed") for task in TRAINED]])
    with TrajectoryStore(root / "synth.db") as store:
        asyncio.run(export_store(store, root / "corpus", ExportOptions(validation=0.0)))
    printed = ecot("train", "sft", "--data", "corpus", "--out", "sft", "--model", str(tiny_llama(root / "tiny")),
                   "--max-steps", "1", "--grad-accum", "1", "--device", "cpu", "--threads", "1", cwd=root)
    assert "step 1/1 loss" in printed
    return root


def test_bench_names_the_tasks_the_model_was_trained_on_and_compare_shows_the_answers(trained: Path) -> None:
    root = trained
    common = ["--limit", "3", "--store", "bench.db", "--workers", "1"]
    local = ecot("bench", "run", "--domain", "python", "--generator", "hf", "--model", "sft/model", "--label", "local",
                 "--max-tokens", "4", "--gen-opt", "device=cpu", "--gen-opt", "threads=1", *common, cwd=root)
    seen = f"{SCORED[0].id}, {SCORED[1].id}"
    warning = f"the model was trained on 2 of the 3 tasks of this run ({root / 'sft' / 'model' / 'train_summary.json'}): {seen}"
    assert f"warning: contamination: {warning}" in local  # before the run
    assert "warning: no suite given: scoring the bundled suites (3 tasks)" in local

    write_replay(SCORED, root / "answers.jsonl")  # turn 0 of each: the reference with its last line cut off
    with ServerProcess(["--mode", "replay", "--replay", str(root / "answers.jsonl"), "--model-name", "served"]) as server:
        endpoint = ecot("bench", "run", str(SUITE), "--generator", "openai", "--base-url", server.url, "--model", "served",
                        "--label", "endpoint", "--trained-on", "sft", *common, cwd=root)
    assert f"warning: contamination: the model was trained on 2 of the 3 tasks of this run ({root / 'sft' / 'train_summary.json'})" in endpoint
    assert "no suite given" not in endpoint

    report = ecot("bench", "report", "--store", "bench.db", "--run", "1", "--json", "r1.json", cwd=root)
    found = json.loads((root / "r1.json").read_text())["contamination"]
    assert found["tasks"] == [SCORED[0].id, SCORED[1].id] and [c["source"] for c in found["checked"]] == ["model"]
    assert all(flat(line["text"]) in report for line in found["summary"]) and warning in report

    compared = ecot("bench", "compare", "1", "2", "--store", "bench.db", "--json", "c.json", cwd=root)
    shapes = json.loads((root / "c.json").read_text())["answers"]
    assert shapes["a"]["answers"] == shapes["b"]["answers"] == 3
    assert shapes["a"]["with_code"] == 0.0 and shapes["b"]["with_code"] == 100.0  # 4 random tokens vs fenced code
    assert shapes["b"]["median_tokens"] is not None and shapes["a"]["median_tokens"] == 4
    assert "what the answers look like" in compared and "with code (%) 0.0 100.0" in compared
    assert sum(shapes["a"]["labels"].get(label, 0) for label in ("Truncated", "No_Code")) == 3
    assert shapes["b"]["syntax_valid"] == 100.0 and "Truncated" not in shapes["b"]["labels"]
    assert "syntax-valid (%) 0.0 100.0" in compared
