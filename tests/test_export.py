"""ECoT folding and export: trace content, what is skipped, and files that load in `datasets`."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from ecot.cli import export as export_cli
from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.core.trajectory import Message, Trajectory, Turn
from ecot.export import TraceRewriter, build_trace, export_store, fold_trajectory, split_sample
from ecot.export import fold as fold_module
from ecot.generators.base import Generation, Generator
from ecot.store import TrajectoryStore

SYSTEM = "You are an RTL engineer. Reason about combinational path depth and reset behaviour."
TASK = "Implement a 4-bit counter `counter` with a synchronous active-high reset."
CODE0 = "module counter(input clk, input rst, output reg [3:0] q);\n  always @(posedge clk) q <= q + 1\nendmodule\n"
CODE1 = "module counter(input clk, input rst, output reg [3:0] q);\n  always @(posedge clk) q <= q + 1;\nendmodule\n"
CODE2 = (
    "module counter(input clk, input rst, output reg [3:0] q);\n"
    "  always @(posedge clk)\n    if (rst) q <= 4'd0;\n    else q <= q + 4'd1;\nendmodule\n"
)
SIM_LOG = "VCD info: dumpfile wave.vcd opened\ncycle 0: expected q=0 got q=x\nMismatches: 16 of 16\nDone"


def make_turn(index: int, label: str, code: str | None, reasoning: str, diagnostic: str, log: str = "",
              source: str = "real", **metrics: float | int) -> Turn:
    outcome = Outcome(label, diagnostic, log, dict(metrics), {"iverilog": "11.0"}, 0.015)
    return Turn(index, reasoning, code, f"<think>{reasoning}</think>```verilog\n{code}```", outcome, source)


def rtl_trajectory(final_source: str = "real") -> Trajectory:
    turns = [
        make_turn(0, "Syntax_Error", CODE0, "A counter is one always block incrementing q on each clock edge.",
                  "design.v:2: syntax error", "design.v:2: syntax error\ndesign.v:2: error: malformed statement"),
        make_turn(1, "Simulation_Mismatch", CODE1, "The increment statement lacks its semicolon; I add it.",
                  "16 of 16 vectors mismatch: q is x after reset", SIM_LOG, mismatches=16),
        make_turn(2, "Pass", CODE2, "q is never reset, so it stays x; I add the synchronous reset branch.",
                  "all 16 vectors match", "Mismatches: 0 of 16", final_source, mismatches=0),
    ]
    prompt: list[Message] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    provenance = {"generator": "replay", "model": "scripted", "synthetic": True, "environment": "real"}
    return Trajectory("rtl/counter", "rtl", 0, prompt, turns, provenance)


def one_turn(task_id: str, domain: str, label: str = "Pass", code: str = "x = 1\n", source: str = "real") -> Trajectory:
    turn = make_turn(0, label, code, "Straightforward: assign the value.", "ok" if label == "Pass" else "bad", "", source)
    return Trajectory(task_id, domain, 0, [{"role": "user", "content": f"Solve {task_id}."}], [turn], {"generator": "replay"})


def test_fold_walks_the_repair_path() -> None:
    sample = fold_trajectory(rtl_trajectory())
    assert sample is not None
    system, user, assistant = sample["messages"]
    assert (system["role"], user["role"], assistant["role"]) == ("system", "user", "assistant")
    assert (system["content"], user["content"]) == (SYSTEM, TASK)
    thinking, answer = split_sample(sample)
    assert assistant["content"] == f"<think>\n{thinking}\n</think>\n\n{answer}"
    assert answer == f"```verilog\n{CODE2.rstrip()}\n```"
    assert assistant["content"].endswith(CODE2.rstrip() + "\n```")
    for fact in (
        "Attempt 1. A counter is one always block",
        f"```verilog\n{CODE0.rstrip()}\n```",  # first attempt shown in full
        "The toolchain reports Syntax_Error: design.v:2: syntax error",
        "> design.v:2: error: malformed statement",  # the log excerpt
        "My diagnosis and fix: The increment statement lacks its semicolon",
        "--- attempt 1\n+++ attempt 2",
        "+  always @(posedge clk) q <= q + 1;",
        "The toolchain reports Simulation_Mismatch: 16 of 16 vectors mismatch: q is x after reset (mismatches=16)",
        "> cycle 0: expected q=0 got q=x",
        "My diagnosis and fix: q is never reset",
        "+    if (rst) q <= 4'd0;",
    ):
        assert fact in thinking, fact
    assert thinking.rstrip().endswith("The toolchain reports Pass: all 16 vectors match (mismatches=0)")
    assert "VCD info" not in thinking  # irrelevant log lines stay out
    meta = sample["metadata"]
    assert meta["rounds"] == 2 and meta["labels"] == ["Syntax_Error", "Simulation_Mismatch", "Pass"]
    assert (meta["task_id"], meta["domain"], meta["fold"]) == ("rtl/counter", "rtl", "deterministic")
    assert (meta["generator"], meta["model"], meta["synthetic"], meta["environment"]) == ("replay", "scripted", True, "real")
    assert meta["tool_versions"] == {"iverilog": "11.0"}


def test_fold_is_deterministic_and_survives_the_store(tmp_path: Path) -> None:
    assert fold_trajectory(rtl_trajectory()) == fold_trajectory(rtl_trajectory())
    with TrajectoryStore(tmp_path / "s.db") as store:
        run = store.begin_run({"k": 4})
        original = rtl_trajectory()
        traj = store.trajectory(run, original.task_id, "rtl", 0, original.prompt_messages, original.provenance)
        for turn in original.turns:
            store.append_turn(traj, turn)
        store.finish(traj, "passed")
        (loaded,) = list(store.iter_trajectories())
    folded = fold_trajectory(loaded)
    assert folded is not None and folded["messages"] == fold_trajectory(original)["messages"]  # type: ignore[index]
    assert folded["metadata"]["run_id"] == run


def test_single_turn_pass_folds_to_a_short_trace() -> None:
    sample = fold_trajectory(one_turn("py/one", "python"))
    assert sample is not None
    thinking, answer = split_sample(sample)
    assert thinking == "Straightforward: assign the value.\n\nI run it through the toolchain. The toolchain reports Pass: ok"
    assert answer == "```python\nx = 1\n```"
    assert sample["metadata"]["rounds"] == 0


@pytest.mark.parametrize(
    ("domain", "tag"), [("rtl", "verilog"), ("python", "python"), ("gpu", "python"), ("cad", "python"),
                        ("firmware", "c"), ("asm", "asm")],
)
def test_answer_fence_uses_the_domain_language(domain: str, tag: str) -> None:
    sample = fold_trajectory(one_turn("t", domain))
    assert sample is not None and split_sample(sample)[1].startswith(f"```{tag}\n")


def test_unpassed_or_world_model_final_is_not_folded() -> None:
    assert fold_trajectory(rtl_trajectory(final_source="icwm:tiny")) is None
    assert fold_trajectory(one_turn("f", "python", label="Wrong_Answer")) is None
    assert fold_trajectory(Trajectory("e", "rtl", 0, [])) is None


def test_no_code_and_infra_error_turns_read_sensibly() -> None:
    turns = [
        make_turn(0, "No_Code", None, "", "the answer held no extractable code block"),
        make_turn(1, "Infra_Error", "int main(void){return 0;}\n", "I write the program.", "qemu failed to start"),
        make_turn(2, "Pass", "int main(void){return 0;}\n", "", "exit code 0"),
    ]
    traj = Trajectory("fw/x", "firmware", 0, [{"role": "user", "content": "Boot."}], turns)
    thinking, answer = split_sample(fold_trajectory(traj))  # type: ignore[arg-type]
    assert "Attempt 1. I write a first implementation" in thinking
    assert "The harness reports No_Code" in thinking
    assert "My new version:\n```c\nint main(void){return 0;}\n```" in thinking
    assert "The toolchain reports Infra_Error: qemu failed to start" in thinking and "not in my code" in thinking
    assert "I keep the code unchanged." in thinking
    assert answer == "```c\nint main(void){return 0;}\n```"


def test_a_report_the_reasoning_repeats_is_quoted_once() -> None:
    diagnostic = "MISMATCH time=11 signal=q expected=0 got=x (mismatches=16, samples=16)"
    turns = [
        make_turn(0, "Simulation_Mismatch", CODE1, "A counter.", diagnostic),
        make_turn(1, "Pass", CODE2, f"The last run came back Simulation_Mismatch: {diagnostic} So q lacks a reset.", "ok"),
    ]
    thinking = build_trace(Trajectory("rtl/counter", "rtl", 0, [], turns))
    assert thinking.count(diagnostic) == 1
    assert "The last run came back Simulation_Mismatch (the report above) So q lacks a reset." in thinking


def test_long_reasoning_and_diffs_are_bounded() -> None:
    reasoning = "This sentence explains a detail of the design. " * 200
    big0 = "".join(f"wire w{i};\n" for i in range(400))
    big1 = "".join(f"wire v{i};\n" for i in range(400))
    turns = [
        make_turn(0, "Lint_Error", big0, reasoning, "too many wires"),
        make_turn(1, "Pass", big1, reasoning, "ok"),
    ]
    thinking = build_trace(Trajectory("rtl/big", "rtl", 0, [], turns))
    assert thinking.count("[...]") == 2
    assert f"... ({800 - fold_module.DIFF_LINES + 3} more diff lines)" in thinking
    assert len(thinking) < 2 * fold_module.REASONING_CHARS + fold_module.CODE_CHARS + 4000


def build_store(path: Path) -> int:
    """A store with one multi-turn pass, one single-turn pass, a failure, a world-model pass, an unfinished one."""
    with TrajectoryStore(path) as store:
        run = store.begin_run({"suite": "mixed"})
        trajectories = [
            (rtl_trajectory(), "passed"), (one_turn("py/a", "python"), "passed"),
            (one_turn("py/b", "python", label="Wrong_Answer"), "failed"),
            (rtl_trajectory(final_source="icwm:tiny"), "passed"), (one_turn("py/c", "python"), None),
        ]
        for n, (original, status) in enumerate(trajectories):
            traj = store.trajectory(run, original.task_id, original.domain, n, original.prompt_messages, original.provenance)
            for turn in original.turns:
                store.append_turn(traj, turn)
            if status:
                store.finish(traj, status)
    return run


def run_export(store_path: Path, out: Path, rewriter: TraceRewriter | None = None, **kwargs: object):  # type: ignore[no-untyped-def]
    with TrajectoryStore(store_path) as store:
        return asyncio.run(export_store(store, out, rewriter=rewriter, **kwargs))  # type: ignore[arg-type]


def test_export_loads_in_datasets_and_chat_templates(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    run = build_store(tmp_path / "s.db")
    report = run_export(tmp_path / "s.db", tmp_path / "out", validation=0.0)
    assert (report.trajectories, report.exported, report.skipped_not_passed, report.skipped_unverified) == (4, 2, 1, 1)
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "raw.jsonl", "train.jsonl", "train.parquet"]
    loaded = {
        kind: datasets.load_dataset(kind, data_files=str(out / name), split="train", cache_dir=str(tmp_path / "hf"))
        for kind, name in (("json", "train.jsonl"), ("parquet", "train.parquet"))
    }
    for ds in loaded.values():
        assert ds.num_rows == 2
        assert ds["task_id"] == ["rtl/counter", "py/a"] and ds["rounds"] == [2, 0] and ds["domain"] == ["rtl", "python"]
        assert [[m["role"] for m in row] for row in ds["messages"]] == [["system", "user", "assistant"]] * 2
        assert json.loads(ds[0]["metadata"])["run_id"] == run
    assert loaded["json"].to_list() == loaded["parquet"].to_list()
    first = loaded["parquet"][0]["messages"]
    assert first[2]["content"].startswith("<think>\nAttempt 1.")
    raw = [json.loads(line) for line in (out / "raw.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["status"], len(r["turns"])) for r in raw] == [
        ("rtl/counter", "passed", 3), ("py/a", "passed", 1), ("py/b", "failed", 1), ("rtl/counter", "passed", 3),
    ]
    assert raw[0]["turns"][1]["outcome"]["label"] == "Simulation_Mismatch" and raw[3]["turns"][2]["observation_source"] == "icwm:tiny"
    chat = pytest.importorskip("transformers.utils.chat_template_utils")
    chatml = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}")
    rendered = chat.render_jinja_template([first], chat_template=chatml)
    text = rendered[0][0] if isinstance(rendered, tuple) else rendered
    assert "<|im_start|>assistant\n<think>" in str(text)


def test_export_filters_and_formats(tmp_path: Path) -> None:
    build_store(tmp_path / "s.db")
    report = run_export(tmp_path / "s.db", tmp_path / "py", domain="python", formats=("jsonl",), validation=0.0)
    assert (report.trajectories, report.exported) == (2, 1)
    assert sorted(p.name for p in (tmp_path / "py").iterdir()) == ["README.md", "train.jsonl"]
    assert run_export(tmp_path / "s.db", tmp_path / "none", run_id=99).exported == 0


def test_failed_export_keeps_the_previous_files(tmp_path: Path) -> None:
    build_store(tmp_path / "s.db")
    out = tmp_path / "out"
    out.mkdir()
    (out / "train.jsonl").write_text("previous\n")

    def boom(_: int) -> None:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        run_export(tmp_path / "s.db", out, progress=boom)
    assert [p.name for p in out.iterdir()] == ["train.jsonl"]  # no temp files left behind
    assert (out / "train.jsonl").read_text() == "previous\n"


def test_an_install_that_fails_halfway_is_finished_by_the_next_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rename that fails after the commit point (say, the disk filled) must not leave two exports
    mixed for good: the complete staging folder stays and the next export moves the rest in first."""
    import os

    from ecot.export import staging

    build_store(tmp_path / "s.db")
    out = tmp_path / "out"
    run_export(tmp_path / "s.db", out, formats=("jsonl",), validation=0.0)
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    renames, real_replace = [], os.replace

    def fail_second(src: str, dst: str) -> None:
        renames.append(dst)
        if len(renames) == 2:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", fail_second)
    with pytest.raises(OSError, match="No space left"):
        run_export(tmp_path / "s.db", out, validation=0.0)  # now with parquet and raw.jsonl too
    monkeypatch.undo()
    (folder,) = [p for p in out.iterdir() if p.name.startswith(".ecot-export.")]
    assert (folder / staging.MANIFEST).is_file()
    staging.recover(out, locked=True)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "raw.jsonl", "train.jsonl", "train.parquet"]
    assert (out / "train.jsonl").read_bytes() == old["train.jsonl"] and (out / "README.md").read_bytes() != old["README.md"]


@pytest.mark.parametrize("way", ["as-allowed", "no-proc-link", "copy-only"])
def test_an_unnamed_file_gets_its_name_whichever_way_the_kernel_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    import os

    from ecot.export import staging

    if not staging.unnamed_files_work(tmp_path):
        pytest.skip("this file system has no O_TMPFILE")
    if way != "as-allowed":  # refuse the earlier ways, as a kernel or a /proc mount may
        monkeypatch.setattr(staging.os, "link", lambda *a, **k: (_ for _ in ()).throw(OSError(18, "Invalid cross-device link")))
    if way == "copy-only":
        monkeypatch.setattr(staging, "_linkat_empty_path", lambda fd, target: False)
    handle = os.fdopen(os.open(tmp_path, os.O_TMPFILE | os.O_RDWR), "w+b")
    handle.write(b"row\n" * 100_000)
    handle.flush()
    try:
        staging.name_unnamed(handle, tmp_path / "named.jsonl")
    finally:
        handle.close()
    assert (tmp_path / "named.jsonl").read_bytes() == b"row\n" * 100_000
    assert sorted(os.listdir(tmp_path)) == ["named.jsonl"]


class FakeGenerator(Generator):
    name = "fake"

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.seen: list[Sequence[Message]] = []

    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        self.seen.append(messages)
        trace = messages[-1]["content"]
        if self.mode == "raise":
            raise ConnectionError("endpoint down")
        if self.mode == "drop-labels":
            return Generation("", None, "I fixed it eventually." * 50)
        prose = "<think>planning the rewrite</think>First I reasoned it through. " + trace
        return Generation("", None, prose)


@pytest.mark.parametrize(("mode", "rewritten", "fallbacks"), [("good", 2, 0), ("raise", 0, 2), ("drop-labels", 0, 2)])
def test_fold_with_a_generator_rewrites_or_falls_back(tmp_path: Path, mode: str, rewritten: int, fallbacks: int) -> None:
    build_store(tmp_path / "s.db")
    generator = FakeGenerator(mode)
    report = run_export(tmp_path / "s.db", tmp_path / "out", TraceRewriter(generator, concurrency=2), formats=("jsonl",))
    assert (report.exported, report.rewritten, report.fallbacks) == (2, rewritten, fallbacks)
    assert len(generator.seen) == 2 and generator.seen[0][0]["role"] == "system"
    rows = [json.loads(line) for line in (tmp_path / "out" / "train.jsonl").read_text().splitlines()]
    thinking = rows[0]["messages"][-1]["content"]
    assert thinking.startswith("<think>\nFirst I reasoned it through. Attempt 1." if mode == "good" else "<think>\nAttempt 1.")
    assert "planning the rewrite" not in thinking  # the rewriter's own thinking is dropped
    assert json.loads(rows[0]["metadata"])["fold"] == ("llm:fake" if mode == "good" else "deterministic")


def test_cli_export_prints_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_store(tmp_path / "s.db")
    parser = argparse.ArgumentParser()
    export_cli.add_arguments(parser)
    args = parser.parse_args(["--store", str(tmp_path / "s.db"), "--out", str(tmp_path / "out"), "--format", "jsonl,raw",
                              "--validation", "0"])
    assert export_cli.run(args) == 0
    printed = capsys.readouterr().out
    assert "exported: 2" in printed and "skipped (not passed): 1" in printed
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["README.md", "raw.jsonl", "train.jsonl"]
    with pytest.raises(EcotError):
        export_cli.run(parser.parse_args(["--store", str(tmp_path / "s.db"), "--out", "x", "--format", "csv"]))
    with pytest.raises(EcotError):
        export_cli.run(parser.parse_args(["--store", str(tmp_path / "missing.db"), "--out", "x"]))


def test_cli_fold_with_a_registered_generator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_store(tmp_path / "s.db")
    prose = "First I wrote the counter and the toolchain reported Syntax_Error at line 2. " * 4
    prose += "After the fix it reported Simulation_Mismatch because q was never reset; with the reset it reported Pass. " * 4
    replay = tmp_path / "rewrite.jsonl"
    replay.write_text(json.dumps({"content": prose}) + "\n")
    parser = argparse.ArgumentParser()
    export_cli.add_arguments(parser)
    argv = ["--store", str(tmp_path / "s.db"), "--out", str(tmp_path / "out"), "--format", "jsonl"]
    assert export_cli.run(parser.parse_args([*argv, "--fold-with", "replay", "--fold-opt", f"path={replay}"])) == 0
    assert "rewritten by replay: 2, fallbacks to the deterministic trace: 0" in capsys.readouterr().out
    row = json.loads((tmp_path / "out" / "train.jsonl").read_text().splitlines()[0])
    assert row["messages"][-1]["content"].startswith(f"<think>\n{prose.strip()}\n</think>\n\n```verilog\n")
    assert json.loads(row["metadata"])["fold"] == "llm:replay"


def test_export_run_is_the_synchronous_entry_point(tmp_path: Path) -> None:
    from ecot.export import export_run

    run = build_store(tmp_path / "s.db")
    with TrajectoryStore(tmp_path / "s.db") as store:
        report = export_run(store, tmp_path / "out", run_id=run)
    assert str(report).startswith("2 samples from 4 finished trajectories (skipped: 1 not passed, 1 passed only")


def test_log_excerpt_and_metrics_keep_what_an_engineer_reads() -> None:
    quiet = Outcome("Output_Mismatch", "", "booting\nvalue 3\nvalue 4\ndone")
    assert fold_module.log_excerpt(quiet) == ["booting", "value 3", "value 4", "done"]  # no diagnostic: the tail
    noisy = Outcome("Syntax_Error", "t.sv:5: syntax error", "t.sv:5: syntax error\nI give up.")
    assert fold_module.log_excerpt(noisy) == []  # nothing beyond the diagnostic is worth repeating
    timed = Outcome("Pass", "ok", metrics={"sim_s": 0.0179, "compile_ms": 12, "speedup": 1.23456, "cells": 135})
    assert fold_module.report(timed) == "The toolchain reports Pass: ok (cells=135, speedup=1.235)"
