"""`ecot bench run/report/compare` end to end on the real RTL toolchain with a replay generator whose
answers are known (correct, wrong with a known share of mismatches, not compiling, no code): every
metric against hand-computed values, resumption without duplicates, the agentic rounds, a task whose
reference fails here (not run here), and the comparison's tables, JSON and PNG."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from ecot.cli.main import main

TB = """module tb;
    reg a, b;
    wire y;
    integer errors, samples, i;
    {top} dut (.a(a), .b(b), .y(y));
    initial begin
        errors = 0; samples = 0;
        for (i = 0; i < 4; i = i + 1) begin
            {{a, b}} = i[1:0];
            #1;
            samples = samples + 1;
            if (y !== (a {op} b)) errors = errors + 1;
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
"""
GATES = {"and2": "&", "xor2": "^"}


def design(top: str, expr: str, semicolon: bool = True) -> str:
    return f"module {top} (input wire a, input wire b, output wire y);\n    assign y = {expr}{';' if semicolon else ''}\nendmodule\n"


def write_suite(root: Path) -> Path:
    """Two gates, and a third task whose reference is wrong (its testbench wants AND, it computes OR)."""
    for name, top, op, reference in [("and2", "and2", "&", "a & b"), ("xor2", "xor2", "^", "a ^ b"), ("broken", "and2", "&", "a | b")]:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "reference.sv").write_text(design(top, reference))
        (folder / "testbench.sv").write_text(TB.format(top=top, op=op))
        (folder / "task.toml").write_text(
            f'id = "t/{name}"\ndomain = "rtl"\nprompt = "Write module {top}: y = a {op} b."\nreference_file = "reference.sv"\n'
            f'[options]\ntop = "{top}"\ntestbench = "testbench.sv"\n[limits]\nwall_s = 10.0\ncpu_s = 10.0\n'
        )
    return root


def answer(top: str, expr: str | None, semicolon: bool = True) -> str:
    if expr is None:
        return "I am not sure how to do this."
    return f"<think>gates</think>\n```verilog\n{design(top, expr, semicolon)}```\n"


# and2: correct, OR (2 of 4 checks wrong), `a` twice (1 of 4 wrong), a syntax error, no code
# xor2: OR (1 of 4 wrong) twice, two syntax errors, two without code
SINGLE = {
    "t/and2": [("a & b", True), ("a | b", True), ("a", True), ("a", True), ("a & b", False), (None, True)],
    "t/xor2": [("a | b", True), ("a ^ b", False), ("a ^ b", False), (None, True), (None, True), ("a | b", True)],
    "t/broken": [("a & b", True)] * 6,
}


def write_replay(path: Path, answers: dict[str, list[tuple[str | None, bool]]], turn: int | None = 0) -> Path:
    with path.open("w") as handle:
        for task_id, samples in answers.items():
            top = "and2" if task_id != "t/xor2" else "xor2"
            for sample, (expr, semicolon) in enumerate(samples):
                entry: dict[str, Any] = {"task_id": task_id, "sample": sample, "content": answer(top, expr, semicolon)}
                if turn is not None:
                    entry["turn"] = turn
                handle.write(json.dumps(entry) + "\n")
    return path


def bench(store: Path, suite: Path, replay: Path, *extra: str) -> list[str]:
    return ["bench", "run", str(suite), "--generator", "replay", "--gen-opt", f"path={replay}", "--samples", "6",
            "--store", str(store), "--workers", "2", *extra]


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bench")
    suite = write_suite(root / "suite")
    store, out = root / "b.db", root / "r1.json"
    assert main(bench(store, suite, write_replay(root / "a.jsonl", SINGLE), "--json", str(out))) == 0
    return {"root": root, "suite": suite, "store": store, "report": json.loads(out.read_text())}


def metric(report: dict[str, Any], group: str, name: str) -> Any:
    found = next(g for g in report["groups"] if g["group"] == group)
    return found["metrics"][name]["value"]


def near(expected: float) -> Any:
    return pytest.approx(expected, abs=1e-3)


def test_every_rtl_metric_matches_hand_computed_values(single: dict[str, Any]) -> None:
    report = single["report"]
    and2, xor2 = report["tasks"]["t/and2"]["metrics"], report["tasks"]["t/xor2"]["metrics"]
    assert and2["pass@1"] == near(100 / 6) and and2["pass@5"] == near(100 * 5 / 6)  # 1 - C(5,5)/C(6,5)
    assert and2["syn@1"] == near(100 * 4 / 6) and and2["veriscope"] == near(250 / 6)
    assert and2["archx_n"] == 4 and and2["archx_t"] == 100
    assert xor2["pass@1"] == 0 and xor2["syn@1"] == near(100 * 2 / 6) and xor2["archx_t"] == near(75.0)
    expected = {"pass@1": 100 / 12, "pass@5": 100 * 5 / 12, "pass@10": None, "syn@1": 50.0, "syn@5": 100.0,
                "func@1": 100 / 12, "func@5": 100 * 5 / 12, "veriscope": 175 / 6, "archx_n": 3.0, "archx_t": 87.5}
    for name, value in expected.items():
        assert metric(report, "t", name) == (None if value is None else near(value)), name
    assert metric(report, "overall", "pass@1") == near(100 / 12)
    labels = report["tasks"]["t/and2"]["labels"]
    assert labels == {"Pass": 1, "Simulation_Mismatch": 3, "Syntax_Error": 1, "No_Code": 1}


def test_a_reference_that_fails_here_is_not_run_here_not_a_model_failure(single: dict[str, Any]) -> None:
    group = next(g for g in single["report"]["groups"] if g["group"] == "t")
    assert group["tasks"] == 2 and group["samples"] == 12
    assert group["not_run_here"] == {"tasks": 1, "samples": 6, "why": group["not_run_here"]["why"]}
    assert "reference gets Simulation_Mismatch" in group["not_run_here"]["why"]["t/broken"]
    with sqlite3.connect(single["store"]) as db:  # nothing was asked for it
        assert db.execute("SELECT COUNT(*) FROM trajectories WHERE task_id = 't/broken'").fetchone()[0] == 0


def test_rerunning_resumes_without_duplicating_a_sample(single: dict[str, Any], capsys: Any) -> None:
    root = single["root"]
    assert main(bench(single["store"], single["suite"], root / "a.jsonl")) == 0
    assert "added 0 turns" in capsys.readouterr().out
    with sqlite3.connect(single["store"]) as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT t.task_id || '#' || t.sample) FROM turns u "
                          "JOIN trajectories t ON t.id = u.trajectory_id").fetchone() == (12, 12)


def test_agentic_mode_scores_every_round(tmp_path: Path, single: dict[str, Any]) -> None:
    # sample 0: a syntax error, then the fix; sample 1: OR twice, then the fix
    lines = [("t/and2", 0, 0, answer("and2", "a & b", False)), ("t/and2", 0, 1, answer("and2", "a & b")),
             ("t/and2", 1, 0, answer("and2", "a | b")), ("t/and2", 1, 1, answer("and2", "a | b")),
             ("t/and2", 1, 2, answer("and2", "a & b"))]
    replay = tmp_path / "agentic.jsonl"
    replay.write_text("".join(json.dumps({"task_id": t, "sample": s, "turn": r, "content": c}) + "\n" for t, s, r, c in lines))
    suite = single["suite"] / "and2"
    out = tmp_path / "r.json"
    args = ["bench", "run", str(suite), "--generator", "replay", "--gen-opt", f"path={replay}", "--samples", "2",
            "--mode", "agentic", "--max-rounds", "2", "--store", str(tmp_path / "a.db"), "--workers", "1", "--json", str(out)]
    assert main(args) == 0
    report = json.loads(out.read_text())
    assert report["mode"] == "agentic" and report["rounds"] == 2
    by_round = {r: values["t"] for r, values in report["pass_at_1_by_round"].items()}
    assert by_round == {"0": 0.0, "1": 50.0, "2": 100.0}
    assert report["tasks"]["t/and2"]["metrics"]["pass@1"] == 100.0  # the headline is the last round


def test_compare_prints_the_difference_and_plots_it(single: dict[str, Any], capsys: Any) -> None:
    root = single["root"]
    better = {**SINGLE, "t/xor2": [("a ^ b", True), *SINGLE["t/xor2"][1:]]}  # B fixes one xor2 sample
    assert main(bench(single["store"], single["suite"], write_replay(root / "b.jsonl", better), "--label", "B")) == 0
    png, data = root / "cmp.png", root / "cmp.json"
    capsys.readouterr()
    assert main(["bench", "compare", "1", "2", "--store", str(single["store"]), "--plot", str(png), "--json", str(data)]) == 0
    printed = capsys.readouterr().out
    assert "t/xor2" in printed and "+16.7" in printed
    compared = json.loads(data.read_text())
    group = next(g for g in compared["groups"] if g["group"] == "t")
    assert group["metrics"]["pass@1"]["difference"]["value"] == near(100 / 12)
    assert compared["tasks"]["t/and2"]["a"] == compared["tasks"]["t/and2"]["b"]
    titles = json.loads(Image.open(png).text["Description"])["panels"]
    assert titles[0].startswith("t (%)") and any(t.startswith("pass@1 per task, B - A") for t in titles)
    twin = json.loads(png.with_suffix(".panels.json").read_text())
    assert [p["title"] for p in twin["panels"]] == titles
    assert twin["panels"][-1]["categories"] == ["t/xor2"] and twin["panels"][-1]["series"][0]["values"] == [near(100 / 6)]


@pytest.mark.slow
def test_a_world_model_judge_is_marked_and_never_compared_with_real_scores(single: dict[str, Any], capsys: Any) -> None:
    root, store = single["root"], single["store"]
    model = root / "wm"
    train = ["icwm", "train", "--store", str(store), "--suite", str(single["suite"]), "--out", str(model), "--all-tasks"]
    assert main(train) == 0
    out = root / "wm.json"
    assert main(bench(store, single["suite"], root / "a.jsonl", "--world-model", str(model), "--json", str(out))) == 0
    report = json.loads(out.read_text())
    assert report["real_scores"] is False and report["judged_by"].startswith("icwm:")
    assert "predicted scores, not real ones" in capsys.readouterr().out
    with sqlite3.connect(store) as db:
        run = db.execute("SELECT MAX(id) FROM runs").fetchone()[0]
        sources = db.execute("SELECT DISTINCT u.observation_source FROM turns u JOIN trajectories t ON t.id = u.trajectory_id "
                             "WHERE t.run_id = ? AND u.code IS NOT NULL", (run,)).fetchall()
    assert sources == [(report["judged_by"],)]  # every verdict predicted: none mixed in from a toolchain
    assert main(["bench", "compare", "1", str(run), "--store", str(store)]) == 2
    assert "never compared with real ones" in capsys.readouterr().err
