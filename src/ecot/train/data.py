"""An ecot export as TRL training data: conversational prompt/completion rows, none truncated.

Every row becomes `{"prompt": [system, user], "completion": [assistant]}`, the layout for which
TRL computes the loss on the completion only (the `<think>` trace and the answer) with any chat
template; `assistant_only_loss` would need `{% generation %}` markers that templates such as
SmolLM2's lack. Rows longer than `max_length` tokens with the model's own tokenizer and template
are left out and listed, never cut: a cut sample would teach a trace without its answer. The tasks
of the kept training rows (id and prompt digest) are recorded: a benchmark of the trained model
checks its tasks against them (ecot.bench.contamination).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError
from ecot.export.decontam import prompt_digest, user_prompt
from ecot.export.sample import Sample
from ecot.export.tokens import TokenCounter

EXTENSIONS = (".parquet", ".jsonl")


@dataclass
class Corpus:
    train: list[dict[str, Any]]
    validation: list[dict[str, Any]]
    too_long: list[dict[str, Any]] = field(default_factory=list)  # {"task_id", "split", "tokens"}
    train_tokens: int = 0  # prompt + completion tokens of the kept training rows
    train_tasks: dict[str, str] = field(default_factory=dict)  # task id -> sha256 of its prompt, of the kept training rows
    train_domains: dict[str, int] = field(default_factory=dict)  # kept training rows per domain


def split_files(path: Path) -> dict[str, Path]:
    """{"train": file, "validation": file?} of an export folder, or {"train": path} for one file."""
    path = Path(path)
    if path.is_file():
        if path.suffix not in EXTENSIONS:
            raise EcotError(f"--data {path}: expected a .jsonl or .parquet file, or an export folder")
        return {"train": path}
    if not path.is_dir():
        raise EcotError(f"--data {path}: no such file or folder")
    found = {}
    for split in ("train", "validation"):
        for ext in EXTENSIONS:
            if (path / f"{split}{ext}").is_file():
                found[split] = path / f"{split}{ext}"
                break
    if "train" not in found:
        raise EcotError(f"--data {path}: no train.parquet or train.jsonl (write one with `ecot export`)")
    return found


def read_rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        return rows
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def as_prompt_completion(row: dict[str, Any], where: str) -> dict[str, Any]:
    if "chosen" in row:
        raise EcotError(f"{where}: a preference export (chosen/rejected) is for DPO, not `ecot train sft`")
    if "prompt" in row and "completion" in row:
        prompt, completion = row["prompt"], row["completion"]
    elif "messages" in row and len(row["messages"]) >= 2 and row["messages"][-1]["role"] == "assistant":
        prompt, completion = row["messages"][:-1], row["messages"][-1:]
    else:
        raise EcotError(f"{where}: a row needs `messages` ending in an assistant turn, or `prompt` and `completion`")
    return {"prompt": list(prompt), "completion": list(completion), "task_id": row.get("task_id", ""),
            "domain": row.get("domain") or str(row.get("task_id") or "?").split("/", 1)[0]}


def load_corpus(path: Path, tokenizer: Any, max_length: int, limit: int | None = None) -> Corpus:
    """Rows of the export at `path`, each checked against `max_length` with the model's tokenizer."""
    counter = TokenCounter(tokenizer)
    corpus = Corpus([], [])
    for split, file in split_files(path).items():
        rows = [as_prompt_completion(row, f"{file} row {n + 1}") for n, row in enumerate(read_rows(file))]
        if split == "train" and limit is not None:
            rows = rows[:limit]
        kept = corpus.train if split == "train" else corpus.validation
        for row in rows:
            tokens = counter.count(Sample("sft", row["prompt"], {"completion": row["completion"]}, {}))["tokens"]
            if tokens > max_length:
                corpus.too_long.append({"task_id": row["task_id"], "split": split, "tokens": tokens})
                continue
            kept.append({"prompt": row["prompt"], "completion": row["completion"]})
            if split == "train":
                corpus.train_tokens += tokens
                corpus.train_tasks[str(row["task_id"])] = prompt_digest(user_prompt(row["prompt"]))
                corpus.train_domains[row["domain"]] = corpus.train_domains.get(row["domain"], 0) + 1
    if not corpus.train:
        raise EcotError(f"--data {path}: no training row fits in {max_length} tokens ({len(corpus.too_long)} longer)")
    return corpus
