"""Decontamination: tasks a benchmark run evaluates on (by id, by prompt text, or as the source of a
repair item) never enter an `ecot export` corpus unless --allow-overlap, and the reports say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ecot.bench.run import BenchSettings, bench_config
from ecot.cli.main import main
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.export.decontam import prompt_digest
from ecot.generators.repair import RepairGenerator
from ecot.run.identity import run_config
from ecot.store import TrajectoryStore

A = Task("rtl/a", "rtl", "Write module a.")
B = Task("rtl/b", "rtl", "Write module b.")
C = Task("rtl/c", "rtl", "Write module c.")
COPY = Task("mine/a_again", "rtl", "Write module a.")  # A imported again under another id
FIX_B = Task("repair/rtl/b.b0", "rtl", "Fix module b.", tags=("repair", "repair-of:rtl/b"))


def add(store: TrajectoryStore, run_id: int, task: Task) -> None:
    prompt = [{"role": "system", "content": "instructions"}, {"role": "user", "content": task.prompt}]
    traj = store.trajectory(run_id, task.id, task.domain, 0, prompt, {})  # type: ignore[arg-type]
    code = f"module {task.id.split('/')[-1]}; endmodule\n"
    store.append_turn(traj, Turn(0, "I write it.", code, f"```verilog\n{code}```", Outcome("Pass", "ok")))
    store.finish(traj, "passed")


def make_store(path: Path) -> Path:
    generator = RepairGenerator()
    with TrajectoryStore(path, writer=True) as store:
        config, identity = run_config([A, B, C, COPY], generator, 1, 4)
        training = store.begin_run(config, identity)
        for task in (A, B, C, COPY):
            add(store, training, task)
        config, identity = bench_config([A, FIX_B], generator, BenchSettings())
        config["bench"]["not_run_here"] = {}
        bench = store.begin_run(config, identity)
        for task in (A, FIX_B):
            add(store, bench, task)
    return path


def exported(out: Path) -> list[str]:
    rows = [json.loads(line) for name in ("train.jsonl", "validation.jsonl") if (out / name).is_file()
            for line in (out / name).read_text().splitlines()]
    return sorted(row["task_id"] for row in rows)


def test_export_leaves_benchmark_tasks_out_unless_asked(tmp_path: Path, capsys: Any) -> None:
    store = make_store(tmp_path / "s.db")
    assert main(["export", "--store", str(store), "--out", str(tmp_path / "clean"), "--all-runs"]) == 0
    assert exported(tmp_path / "clean") == ["rtl/c"]  # a: benchmark task, its copy: same prompt, b: a repair source
    printed = capsys.readouterr().out
    assert "skipped (benchmark tasks" in printed and ": 5" in printed  # a, a_again, b and both bench trajectories
    assert "benchmark task (decontamination" in (tmp_path / "clean" / "README.md").read_text()
    assert main(["export", "--store", str(store), "--out", str(tmp_path / "all"), "--all-runs", "--allow-overlap", "--no-dedup"]) == 0
    assert exported(tmp_path / "all") == sorted(["mine/a_again", "repair/rtl/b.b0", "rtl/a", "rtl/a", "rtl/b", "rtl/c"])


def flat(text: str) -> str:
    return "".join(text.split())  # rich wraps lines, long paths mid-word


def test_bench_report_names_the_overlap_with_training_runs_and_a_corpus(tmp_path: Path, capsys: Any) -> None:
    store = make_store(tmp_path / "s.db")
    corpus = tmp_path / "corpus"
    assert main(["export", "--store", str(store), "--out", str(corpus), "--run", "1", "--allow-overlap"]) == 0
    out = tmp_path / "r.json"
    capsys.readouterr()
    assert main(["bench", "report", "--store", str(store), "--corpus", str(corpus), "--json", str(out)]) == 0
    overlap = json.loads(out.read_text())["contamination"]
    assert overlap["tasks"] == ["mine/a_again", "rtl/a", "rtl/b"]
    checked = {item["source"]: item for item in overlap["checked"]}
    assert checked["store"]["where"] == "training runs 1 of this store"
    assert checked["store"]["tasks"] == checked["corpus"]["tasks"] == ["mine/a_again", "rtl/a", "rtl/b"]
    assert [line["warning"] for line in overlap["summary"]] == [True, True, False]  # store, corpus, not checked
    printed = flat(capsys.readouterr().out)
    for line in overlap["summary"]:  # the terminal says what the JSON says, word for word
        assert flat(line["text"]) in printed
    assert "no task of this run" not in printed


def test_a_clean_corpus_is_reported_clean(tmp_path: Path, capsys: Any) -> None:
    store = make_store(tmp_path / "s.db")
    assert main(["export", "--store", str(store), "--out", str(tmp_path / "clean"), "--all-runs"]) == 0
    capsys.readouterr()
    assert main(["bench", "report", "--store", str(store), "--corpus", str(tmp_path / "clean"), "--json",
                 str(tmp_path / "r.json")]) == 0
    overlap = json.loads((tmp_path / "r.json").read_text())["contamination"]
    assert {item["source"]: item["tasks"] for item in overlap["checked"]}["corpus"] == []
    assert flat(f"contamination: no task of this run in corpus {tmp_path / 'clean'}") in flat(capsys.readouterr().out)


def test_bench_report_reads_a_models_training_record(tmp_path: Path, capsys: Any) -> None:
    store = make_store(tmp_path / "s.db")
    folder = tmp_path / "sft" / "model"
    folder.mkdir(parents=True)
    record = {"base_model": "smollm2", "data": "corpus", "tasks": ["rtl/c"], "prompts": [prompt_digest(A.prompt)]}
    (folder / "train_summary.json").write_text(json.dumps({"steps": 1, "trained_on": record}))
    capsys.readouterr()
    assert main(["bench", "report", "--store", str(store), "--trained-on", str(folder), "--json", str(tmp_path / "r.json")]) == 0
    found = json.loads((tmp_path / "r.json").read_text())["contamination"]
    model = next(item for item in found["checked"] if item["source"] == "model")
    assert model["tasks"] == ["rtl/a"]  # found by its prompt text; rtl/c is no task of this run
    text = f"the model was trained on 1 of the 2 tasks of this run ({folder / 'train_summary.json'}): rtl/a"
    assert flat(text) in flat(capsys.readouterr().out) and not found["not_checked"]
    (folder / "train_summary.json").write_text(json.dumps({"steps": 1}))  # written by an older ecot
    assert main(["bench", "report", "--store", str(store), "--trained-on", str(folder)]) == 2
    assert "no record of the training data under 'trained_on'" in capsys.readouterr().err
    assert main(["bench", "report", "--store", str(store), "--trained-on", str(tmp_path)]) == 2
    assert f"{tmp_path}: no train_summary.json" in capsys.readouterr().err
