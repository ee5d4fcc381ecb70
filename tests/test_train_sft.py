"""`ecot train sft` on CPU: a tiny random Llama with the embedded SmolLM2 tokenizer, a few steps."""

from __future__ import annotations

import asyncio
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl")
pytest.importorskip("peft")

from ecot.cli.main import main  # noqa: E402
from ecot.export import ExportOptions, export_store  # noqa: E402
from ecot.store import TrajectoryStore  # noqa: E402
from export_fixtures import store_with, trajectory  # noqa: E402
from train_fixtures import tiny_llama  # noqa: E402

TRAIN = ["--max-steps", "4", "--save-steps", "2", "--grad-accum", "1", "--lr", "1e-3", "--device", "cpu", "--threads", "1"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_llama(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    longer = [" ".join(["because"] * 15 * n) for n in range(8)]  # rows of different lengths
    store_with(root / "s.db", [[(trajectory(f"python/task{n}", longer[n], n), 0, "passed") for n in range(8)]])
    with TrajectoryStore(root / "s.db") as store:
        asyncio.run(export_store(store, root / "out", ExportOptions(validation=0.3, seed=1, formats=("jsonl", "parquet"))))
    assert (root / "out" / "validation.parquet").is_file()
    return root / "out"


def summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "train_summary.json").read_text())


def history(checkpoint: Path) -> list[tuple[int, float]]:
    state = json.loads((checkpoint / "trainer_state.json").read_text())
    return [(e["step"], e["loss"]) for e in state["log_history"] if "loss" in e]


@pytest.mark.slow
def test_train_sft_then_resume_from_a_checkpoint(tiny_model: Path, corpus: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["train", "sft", "--data", str(corpus), "--out", str(out), "--model", str(tiny_model), *TRAIN]) == 0
    printed = capsys.readouterr().out
    assert "trained on" in printed and "{'loss'" not in printed  # ecot's lines, not the trainer's dicts
    steps = [line for line in printed.splitlines() if line.startswith("step ")]
    assert [line.split()[1] for line in steps] == ["1/4", "2/4", "3/4", "4/4"] and all(" lr " in line for line in steps)
    assert "ETA" in steps[0] and "validation loss before training:" in printed
    done = summary(out)
    assert done["steps"] == 4 and math.isfinite(done["final_train_loss"]) and math.isfinite(done["eval_loss"])
    assert math.isfinite(done["eval_loss_before"]) and f"validation loss: {done['eval_loss_before']:.4f} -> " in printed
    assert not done["stopped_by_time_limit"]
    assert (out / "loss.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "model" / "config.json").is_file() and {p.name for p in out.glob("checkpoint-*")} == {"checkpoint-2", "checkpoint-4"}
    uninterrupted = history(out / "checkpoint-4")
    assert [step for step, _ in uninterrupted] == [1, 2, 3, 4]
    # a crash after step 2: the last checkpoint and the model are gone; --resume redoes steps 3 and 4
    shutil.rmtree(out / "checkpoint-4")
    shutil.rmtree(out / "model")
    assert main(["train", "sft", "--data", str(corpus), "--out", str(out), "--model", str(tiny_model), *TRAIN]) == 2
    assert "pass --resume" in capsys.readouterr().err
    assert main(["train", "sft", "--data", str(corpus), "--out", str(out), "--model", str(tiny_model), *TRAIN, "--resume"]) == 0
    resumed = history(out / "checkpoint-4")
    assert [step for step, _ in resumed] == [1, 2, 3, 4]
    assert all(math.isfinite(loss) for _, loss in resumed)
    # the same run, picked up where it stopped
    assert [loss for _, loss in resumed] == pytest.approx([loss for _, loss in uninterrupted], rel=1e-4)
    assert summary(out)["steps"] == 4 and (out / "model" / "config.json").is_file()
    assert summary(out)["eval_loss_before"] == done["eval_loss_before"]  # kept in the checkpoint's log history


def test_the_model_folder_says_what_it_was_trained_on(tiny_model: Path, corpus: Path, tmp_path: Path) -> None:
    from ecot.export.decontam import read_training_data

    out = tmp_path / "carded"
    assert main(["train", "sft", "--data", str(corpus), "--out", str(out), "--model", str(tiny_model), *TRAIN[:1], "2",
                 *TRAIN[2:]]) == 0
    rows = [json.loads(line) for line in (corpus / "train.jsonl").read_text().splitlines()]
    record = read_training_data(out / "model")  # the model folder alone is enough
    assert record.tasks == sorted({row["task_id"] for row in rows}) and len(record.prompts) == len(record.tasks)
    assert record.base_model == str(tiny_model) and record.data == str(corpus.resolve())
    assert json.loads((out / "model" / "train_summary.json").read_text()) == summary(out)
    card = (out / "model" / "README.md").read_text()
    assert card.startswith(f"---\nbase_model: {tiny_model}\n") and f"**Data**: `{corpus.resolve()}`" in card
    assert f"{len(rows)} training rows" in card and "validation " in card and "`python/task" in card


def test_the_first_step_learns(tiny_model: Path, corpus: Path, tmp_path: Path) -> None:
    """The warm-up starts above 0: with 3 steps, HF's schedule would spend the first one at learning rate 0."""
    from ecot.train.data import load_corpus
    from ecot.train.model import load_tokenizer
    from ecot.train.progress import warm_cosine
    from ecot.train.sft import TrainSettings, _trainer

    tokenizer = load_tokenizer(tiny_model)
    trainer = _trainer(TrainSettings(corpus, tmp_path / "out", model=str(tiny_model), max_steps=3, device="cpu",
                                     learning_rate=1e-3), tiny_model, tokenizer, load_corpus(corpus, tokenizer, 4096), "cpu", False)
    trainer.create_optimizer_and_scheduler(num_training_steps=3)
    assert trainer.args.get_warmup_steps(3) == 1
    first = trainer.lr_scheduler.get_last_lr()[0]  # the rate of the first optimizer step
    assert first == pytest.approx(0.5e-3)
    for warmup, total in ((0, 1), (1, 3), (3, 100), (30, 1000)):
        factors = [warm_cosine(warmup, total)(step) for step in range(total)]
        assert all(f > 0 for f in factors) and max(factors) == 1.0


@pytest.mark.slow
def test_trained_model_loads_in_the_hf_generator(tiny_model: Path, corpus: Path, tmp_path: Path) -> None:
    from ecot.generators.hf_local import HFGenerator, HFOptions

    out = tmp_path / "lora"
    args = ["train", "sft", "--data", str(corpus), "--out", str(out), "--model", str(tiny_model), *TRAIN, "--lora", "--lora-r", "4"]
    assert main(args) == 0
    generator = HFGenerator(HFOptions(model=str(out / "model"), max_new_tokens=4, device="cpu", threads=1))
    reply = generator.chat([{"role": "system", "content": "s"}, {"role": "user", "content": "Write add(a, b)."}])
    assert generator.load_info["how"] == "dir" and reply.usage["completion_tokens"] > 0
    assert not any("lora" in name for name in json.loads((out / "model" / "config.json").read_text()))  # adapters merged


def test_a_time_limit_stops_training_and_still_saves_the_model(tiny_model: Path, corpus: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The GPU campaign's fixed budget: the run stops after the step that crossed the limit, and ends as usual."""
    out = tmp_path / "limited"
    args = ["train", "sft", "--data", str(corpus), "--out", str(out), "--model", str(tiny_model), *TRAIN, "--time-limit", "0.001"]
    assert main(args) == 0
    assert "stopped at its --time-limit of 0.001s" in capsys.readouterr().out
    done = summary(out)
    assert done["steps"] == 1 and done["stopped_by_time_limit"] and math.isfinite(done["eval_loss"])
    assert (out / "model" / "config.json").is_file()


def test_loss_is_on_the_completion_only(tiny_model: Path, corpus: Path, tmp_path: Path) -> None:
    from ecot.export.sample import Sample
    from ecot.export.tokens import TokenCounter
    from ecot.train.data import load_corpus
    from ecot.train.model import load_tokenizer
    from ecot.train.sft import TrainSettings, _trainer

    tokenizer = load_tokenizer(tiny_model)
    data = load_corpus(corpus, tokenizer, 4096)
    trainer = _trainer(TrainSettings(corpus, tmp_path / "out", model=str(tiny_model), max_steps=1, device="cpu"),
                       tiny_model, tokenizer, data, "cpu", False)
    row, first = trainer.train_dataset[0], data.train[0]
    counts = TokenCounter(tokenizer).count(Sample("sft", first["prompt"], {"completion": first["completion"]}, {}))
    trained = [label for label in row["labels"] if label != -100]
    assert len(row["input_ids"]) == counts["tokens"]
    assert len(trained) == counts["completion_tokens"] and trained == row["input_ids"][counts["prompt_tokens"]:]
    assert "<think>" in tokenizer.decode(trained)


def test_over_long_rows_are_left_out_and_listed(tiny_model: Path, corpus: Path) -> None:
    from ecot.core.errors import EcotError
    from ecot.export.sample import Sample
    from ecot.export.tokens import TokenCounter
    from ecot.train.data import load_corpus
    from ecot.train.model import load_tokenizer

    tokenizer = load_tokenizer(tiny_model)
    counter = TokenCounter(tokenizer)
    full = load_corpus(corpus, tokenizer, 100_000)
    lengths = [counter.count(Sample("sft", r["prompt"], {"completion": r["completion"]}, {}))["tokens"] for r in full.train]
    limit = sorted(lengths)[len(lengths) // 2]
    cut = load_corpus(corpus, tokenizer, limit)
    assert cut.train == [row for row, n in zip(full.train, lengths) if n <= limit]  # kept rows are untouched
    assert sorted(item["tokens"] for item in cut.too_long if item["split"] == "train") == sorted(n for n in lengths if n > limit)
    assert cut.too_long and all(item["task_id"].startswith("python/task") for item in cut.too_long)
    with pytest.raises(EcotError, match="no training row fits in 10 tokens"):
        load_corpus(corpus, tokenizer, 10)


def test_bad_training_input_is_a_one_line_error(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
        (["--data", str(tmp_path / "nowhere")], "no such file or folder"),
        (["--data", str(corpus), "--model", "some-org/some-hub-model"], "nothing is downloaded"),
        (["--data", str(corpus), "--max-steps", "0"], "--max-steps must be >= 1"),
        (["--data", str(corpus), "--time-limit", "0"], "--time-limit must be > 0 seconds"),
        (["--data", str(corpus), "--resume"], "no checkpoint-N folder"),
    ):
        assert main(["train", "sft", "--out", str(tmp_path / "out"), *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ecot: error: ") and message in err, err
