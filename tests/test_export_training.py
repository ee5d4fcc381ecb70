"""Training-ready exports: schemas, chat templates, lengths, splits, duplicates, runs, kinds, card."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from ecot.export import ExportOptions, export_store
from ecot.export.split import task_split
from ecot.store import TrajectoryStore
from export_fixtures import SYSTEM, solution, store_with, trajectory, turn


def export(store: Path, out: Path, **options: Any):  # type: ignore[no-untyped-def]
    with TrajectoryStore(store) as opened:
        return asyncio.run(export_store(opened, out, ExportOptions(**options)))


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 tasks, one sample each, every one repaired once (a failing then a passing turn, both traced)."""
    path = tmp_path_factory.mktemp("store") / "s.db"
    store_with(path, [[(trajectory(f"python/task{n:02d}", f"case {n}.", n), 0, "passed") for n in range(40)]])
    return path


@pytest.fixture(scope="module")
def smollm2_tokenizer() -> Any:
    pytest.importorskip("transformers")
    from ecot.export.tokens import load_tokenizer

    return load_tokenizer("smollm2")


@pytest.mark.parametrize(("kind", "layout", "tokenizer"), [
    ("sft", "messages", None), ("sft", "prompt-completion", "smollm2"), ("preference", "messages", None),
    ("trace", "messages", "smollm2"),
])
def test_jsonl_and_parquet_load_with_identical_schemas(corpus: Path, tmp_path: Path, kind: str, layout: str,
                                                      tokenizer: str | None) -> None:
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "out"
    export(corpus, out, kind=kind, layout=layout, tokenizer=tokenizer, validation=0.2)
    for split in ("train", "validation"):
        loaded = [datasets.load_dataset(fmt, data_files=str(out / f"{split}.{ext}"), split="train", cache_dir=str(tmp_path / "hf"))
                  for fmt, ext in (("json", "jsonl"), ("parquet", "parquet"))]
        assert loaded[0].num_rows > 0
        assert loaded[0].features == loaded[1].features
        assert loaded[0].to_list() == loaded[1].to_list()
        for name in ("run_id", "sample", "rounds", *(("tokens", "prompt_tokens", "completion_tokens") if tokenizer else ())):
            assert loaded[0].features[name].dtype == "int64", name
    by_folder = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf2"))  # the card's YAML names the splits
    assert set(by_folder) == {"train", "validation"}


def test_chat_template_renders_our_system_message_and_no_injected_one(corpus: Path, tmp_path: Path,
                                                                      smollm2_tokenizer: Any) -> None:
    export(corpus, tmp_path / "out", validation=0.0)
    row = rows(tmp_path / "out" / "train.jsonl")[0]
    assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant"]
    text = smollm2_tokenizer.apply_chat_template(row["messages"], tokenize=False)
    assert text.startswith(f"<|im_start|>system\n{SYSTEM}<|im_end|>")
    assert "SmolLM" not in text and text.count("<|im_start|>system") == 1
    assert row["messages"][-1]["content"] in text


def test_a_prompt_without_instructions_gets_the_domain_instructions(tmp_path: Path) -> None:
    bare = trajectory("python/bare")
    bare.prompt_messages = [m for m in bare.prompt_messages if m["role"] != "system"]
    store_with(tmp_path / "s.db", [[(bare, 0, "passed")]])
    export(tmp_path / "s.db", tmp_path / "out", validation=0.0)
    system = rows(tmp_path / "out" / "train.jsonl")[0]["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are an expert engineer")


def test_no_sample_is_silently_truncated(corpus: Path, tmp_path: Path, smollm2_tokenizer: Any) -> None:
    long_task = trajectory("python/long", " ".join(f"detail{n}" for n in range(600)))
    store_with(tmp_path / "s.db", [[(trajectory("python/short"), 0, "passed"), (long_task, 0, "passed")]])
    report = export(tmp_path / "s.db", tmp_path / "drop", tokenizer="smollm2", max_tokens=700, validation=0.0)
    kept = rows(tmp_path / "drop" / "train.jsonl")
    assert [r["task_id"] for r in kept] == ["python/short"]
    assert [(o["task_id"], o["tokens"] > 700) for o in report.over_length] == [("python/long", True)]
    assert "longer than 700 tokens | 1 |" in (tmp_path / "drop" / "README.md").read_text()
    for row in kept:  # counted the way training renders it, and complete: the final code closes the answer
        assert row["tokens"] == len(smollm2_tokenizer.apply_chat_template(row["messages"], tokenize=True)["input_ids"])
        assert row["tokens"] <= 700 and row["messages"][-1]["content"].endswith(solution("python/short").rstrip() + "\n```")
    export(tmp_path / "s.db", tmp_path / "keep", tokenizer="smollm2", max_tokens=700, over_length="keep", validation=0.0)
    kept = {r["task_id"]: r for r in rows(tmp_path / "keep" / "train.jsonl")}
    assert kept["python/long"]["tokens"] > 700
    assert kept["python/long"]["messages"][-1]["content"].endswith(solution("python/long").rstrip() + "\n```")


def test_splits_never_share_a_task_and_agree_across_kinds(corpus: Path, tmp_path: Path) -> None:
    tasks: dict[str, dict[str, set[str]]] = {}
    for kind in ("sft", "preference", "trace"):
        export(corpus, tmp_path / kind, kind=kind, validation=0.25, seed=3)
        tasks[kind] = {s: {r["task_id"] for r in rows(tmp_path / kind / f"{s}.jsonl")} for s in ("train", "validation")}
        assert tasks[kind]["train"] and tasks[kind]["validation"]
        assert not tasks[kind]["train"] & tasks[kind]["validation"]
    assert tasks["sft"] == tasks["preference"] == tasks["trace"]
    assert all(task_split(t, 0.25, 3) == "validation" for t in tasks["sft"]["validation"])
    export(corpus, tmp_path / "other", validation=0.25, seed=4)
    assert {r["task_id"] for r in rows(tmp_path / "other" / "validation.jsonl")} != tasks["sft"]["validation"]


def test_dedup_removes_planted_duplicates(tmp_path: Path) -> None:
    shared = " ".join(f"step{n} keeps the invariant" for n in range(60))
    base = trajectory("python/dup", f"{shared} The list is sorted first so the index is the rank of x.")
    near = trajectory("python/dup", f"{shared} The list is sorted first so the index is the rank of x!")
    other = trajectory("python/dup", "A completely different line of reasoning about binary search and its bounds.", 7)
    store_with(tmp_path / "s.db", [[(base, 0, "passed"), (base, 1, "passed"), (near, 2, "passed"), (other, 3, "passed")]])
    report = export(tmp_path / "s.db", tmp_path / "out", validation=0.0)
    assert (report.exported, report.duplicates["exact"], report.duplicates["near"]) == (2, 1, 1)
    assert [r["sample"] for r in rows(tmp_path / "out" / "train.jsonl")] == [0, 3]
    assert "exact duplicate | 1 |" in (tmp_path / "out" / "README.md").read_text()
    assert export(tmp_path / "s.db", tmp_path / "all", validation=0.0, dedup=False).exported == 4
    assert export(tmp_path / "s.db", tmp_path / "exact", validation=0.0, near_duplicates=None).exported == 3


def test_one_sample_per_task_and_sample_index_across_runs(tmp_path: Path) -> None:
    """The same job stored as two runs (a server named two ways) must not export each task twice."""
    first = [(trajectory(f"python/t{n}"), 0, "passed") for n in range(6)]
    failing = trajectory("python/t0")
    failing.turns = failing.turns[:1]
    second = [(failing, 0, "failed")] + [(trajectory(f"python/t{n}", "again"), 0, "passed") for n in range(1, 6)]
    store_with(tmp_path / "s.db", [first, second])
    report = export(tmp_path / "s.db", tmp_path / "out", validation=0.0)
    out = rows(tmp_path / "out" / "train.jsonl")
    assert (report.exported, report.other_runs) == (6, 6)
    assert sorted((r["task_id"], r["sample"]) for r in out) == [(f"python/t{n}", 0) for n in range(6)]
    runs = {r["task_id"]: r["run_id"] for r in out}
    assert runs["python/t0"] == 1 and all(runs[f"python/t{n}"] == 2 for n in range(1, 6))  # newest passing copy
    assert all(json.loads(r["metadata"])["run_id"] == r["run_id"] for r in out)
    assert len(rows(tmp_path / "out" / "raw.jsonl")) == 6
    assert export(tmp_path / "s.db", tmp_path / "all", validation=0.0, all_runs=True, dedup=False).exported == 11
    assert export(tmp_path / "s.db", tmp_path / "run1", validation=0.0, run_id=1).exported == 6


def test_preference_pairs_put_the_failed_attempt_against_the_verified_fix(tmp_path: Path) -> None:
    repaired = trajectory("python/pair")
    world_model = trajectory("python/wm")
    world_model.turns[0] = turn(0, "Wrong_Answer", "def wm(a, x):\n    return 0\n", "guess", source="icwm:fast")
    store_with(tmp_path / "s.db", [[(repaired, 0, "passed"), (world_model, 0, "passed"),
                                    (trajectory("python/first", fail_first=False), 0, "passed")]])
    export(tmp_path / "s.db", tmp_path / "out", kind="preference", validation=0.0)
    (pair,) = rows(tmp_path / "out" / "train.jsonl")
    assert [m["role"] for m in pair["prompt"]] == ["system", "user"] and pair["prompt"][0]["content"] == SYSTEM
    assert pair["chosen"] == [{"role": "assistant", "content": f"```python\n{solution('python/pair').rstrip()}\n```"}]
    assert "index(x) - 1" in pair["rejected"][0]["content"]
    meta = json.loads(pair["metadata"])
    assert (meta["kind"], meta["rejected_label"], meta["rejected_turn"]) == ("preference", "Wrong_Answer", 0)


def test_trace_samples_predict_the_stored_execution(tmp_path: Path) -> None:
    store_with(tmp_path / "s.db", [[(trajectory("python/traced"), 0, "passed")]])
    export(tmp_path / "s.db", tmp_path / "out", kind="trace", validation=0.0, dedup=False)
    samples = rows(tmp_path / "out" / "train.jsonl")
    assert [json.loads(s["metadata"])["label"] for s in samples] == ["Wrong_Answer", "Pass"]  # failing code's run counts too
    system, user, assistant = samples[0]["messages"]
    assert "index(x) - 1" in user["content"] and "[[1, 3, 5, 7], 5]" in user["content"]
    assert assistant["content"].splitlines() == [
        "call      lower_bound:1  def lower_bound(a, x):  | a=[1, 3, 5, 7], x=5",
        "line      lower_bound:2  return 2",
        "return    lower_bound:2  return 2  -> 2",
    ]


def test_dataset_card_describes_the_export(corpus: Path, tmp_path: Path) -> None:
    report = export(corpus, tmp_path / "out", validation=0.25, seed=3, formats=("jsonl",))
    card = (tmp_path / "out" / "README.md").read_text()
    assert card.startswith("---\nlicense: mit\n") and "path: validation.jsonl" in card
    line = next(line for line in card.splitlines() if line.startswith("| python |"))
    assert line == f"| python | {report.splits['train']} | {report.splits['train']} | {report.splits['validation']} | {report.splits['validation']} |"
    for fact in ("| 1 | 40 |", "| Wrong_Answer | 40 |", "| python3 | Python 3.11.2 (40) |",
                 "| ecot bundled suites (the ecot team) | MIT | 40 |", "## Lengths (characters)"):
        assert fact in card, fact


@pytest.mark.parametrize(("extra", "message"), [
    (["--max-tokens", "10"], "a token limit needs a tokenizer"),
    (["--validation", "1.5"], "the validation share must be in [0, 1)"),
    (["--kind", "preference", "--fold-with", "openai"], "applies to --kind sft only"),
    (["--near-dup", "0"], "--near-dup must be in (0, 1]"),
    (["--tokenizer", "/no/such/model"], "--tokenizer /no/such/model: model path"),
])
def test_bad_export_options_are_one_line_errors_before_any_file(corpus: Path, tmp_path: Path, extra: list[str],
                                                                 message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from ecot.cli.main import main

    assert main(["export", "--store", str(corpus), "--out", str(tmp_path / "out"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ecot: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
