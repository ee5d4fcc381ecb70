"""The repair split: held-out tasks chosen by a stable draw, one planted bug per item that the real
toolchain catches, the verdict in the prompt, the same items every time; written as a JSONL suite
whose references pass and whose items name their source task."""

from __future__ import annotations

import json
from pathlib import Path

from ecot.bench.repair_split import SplitSettings, candidate_bugs, held_out
from ecot.cli.main import main
from ecot.domains import get_backend
from ecot.tasks.suite import bundled_suite_path, load_suite

RTL = load_suite(bundled_suite_path("rtl"))


def test_the_choice_of_tasks_and_bugs_is_stable() -> None:
    settings = SplitSettings(share=0.3, per_task=2, seed=7)
    chosen = held_out(RTL, settings)
    assert 0 < len(chosen) < len(RTL)
    assert [t.id for t in held_out(RTL[::-1], settings)] == [t.id for t in chosen[::-1]]  # a task's draw is its own
    assert [t.id for t in held_out(RTL, SplitSettings(share=0.3, seed=8))] != [t.id for t in chosen]
    first = [(i, b.code) for i, b in candidate_bugs(chosen[0], settings)]
    assert first == [(i, b.code) for i, b in candidate_bugs(chosen[0], settings)]
    assert len({code for _, code in first}) == len(first) and all(code != chosen[0].reference for _, code in first)


def test_repair_split_suite_from_the_real_toolchain(tmp_path: Path) -> None:
    out = tmp_path / "repair.jsonl"
    args = ["bench", "repair-split", "--domain", "rtl", "--limit", "12", "--held-out", "0.5", "--per-task", "1",
            "--out", str(out), "--workers", "2"]
    assert main(args) == 0
    tasks = load_suite(out)
    manifest = json.loads((tmp_path / "repair.split.json").read_text())
    assert manifest["version"] == 1 and [item["id"] for item in manifest["items"]] == [t.id for t in tasks]
    assert tasks and len(tasks) <= len(manifest["held_out"])
    backend = get_backend("rtl")
    for task, item in zip(tasks, manifest["items"]):
        assert task.id == f"repair/{item['source']}.b0" and f"repair-of:{item['source']}" in task.tags
        assert item["label"] != "Pass" and f"Execution result: {item['label']}" in task.prompt
        assert backend.run(task, task.reference or "").passed  # the fix is the original reference
    buggy = tasks[0].prompt.split("```")[1].split("\n", 1)[1]  # the code block after the fence's language
    assert backend.run(tasks[0], buggy).label == manifest["items"][0]["label"]
