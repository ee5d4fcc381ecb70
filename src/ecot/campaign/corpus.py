"""The data of the second device call: a corpus split by task, the held-out prompts, the real turns.

1. `ecot synth --generator repair --samples N` fills a store with verified trajectories (resumable).
2. The held-out tasks are those `ecot export`'s split puts in validation (ecot.export.split.task_split
   with the same share and seed), so the corpus's training rows never hold a benchmark task; `check_split`
   proves it on the written rows, by task id and by prompt.
3. `ecot bench repair-split` plants one caught bug into each held-out task (`--held-out 1.0` on exactly
   those tasks): the held-out suite is the tasks plus these repair items (Fix%).
4. Each held-out task's prompt is written as the messages `ecot bench` sends (router.first_messages).
5. The store goes along, gzipped, for the world model (ecot.icwm.dataset reads it there).
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecot.core.task import Task
from ecot.export.decontam import prompt_digest
from ecot.export.split import VALIDATION, task_split
from ecot.run.router import first_messages
from ecot.tasks.suite import bundled_suite_path, load_suite, write_jsonl


@dataclass(frozen=True)
class CorpusPlan:
    domains: tuple[str, ...] = ("asm", "cad", "firmware", "gpu", "python", "rtl")
    limit: int | None = None  # tasks per domain (None: every bundled task)
    samples: int = 4  # repair trajectories per task
    validation: float = 0.2  # share of tasks held out (the export's split)
    seed: int = 0
    max_tokens: int = 4096  # the export drops longer samples; training takes rows up to this length
    repair_per_task: int = 1


def ecot(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "ecot", *args], check=True)


def scope(plan: CorpusPlan) -> list[str]:
    """The synth / repair-split arguments naming the tasks of the plan."""
    args = [arg for domain in plan.domains for arg in ("--domain", domain)]
    return [*args, "--limit", str(plan.limit)] if plan.limit else args


def bundled(plan: CorpusPlan) -> list[Task]:
    tasks = []
    for domain in plan.domains:
        found = load_suite(bundled_suite_path(domain))
        tasks += found[: plan.limit] if plan.limit else found
    return tasks


def held_out(plan: CorpusPlan) -> list[Task]:
    tasks = [t for t in bundled(plan) if task_split(t.id, plan.validation, plan.seed) == VALIDATION]
    if not tasks or len(tasks) == len(bundled(plan)):
        raise RuntimeError(f"the split (share {plan.validation}, seed {plan.seed}) holds out {len(tasks)} of "
                           f"{len(bundled(plan))} tasks: both sides must be non-empty")
    return tasks


def synthesize(plan: CorpusPlan, store: Path) -> None:
    store.parent.mkdir(parents=True, exist_ok=True)
    ecot("synth", *scope(plan), "--generator", "repair", "--samples", str(plan.samples), "--store", str(store),
         "--no-export", "--progress-every", "60")


def export(plan: CorpusPlan, store: Path, out: Path) -> dict[str, Any]:
    ecot("export", "--store", str(store), "--out", str(out), "--validation", str(plan.validation), "--seed",
         str(plan.seed), "--tokenizer", "smollm2", "--max-tokens", str(plan.max_tokens), "--format", "jsonl,parquet")
    return corpus_size(out)


def corpus_size(folder: Path) -> dict[str, Any]:
    sizes: dict[str, Any] = {}
    for split in ("train", "validation"):
        rows = _rows(folder / f"{split}.jsonl")
        sizes[split] = {"rows": len(rows), "tasks": len({r["task_id"] for r in rows}),
                        "tokens": sum(int(r.get("tokens") or 0) for r in rows),
                        "completion_tokens": sum(int(r.get("completion_tokens") or 0) for r in rows)}
    return sizes


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_split(corpus: Path, held: list[Task]) -> None:
    """No training row is a held-out task, by id or by the text of its prompt."""
    ids = {t.id for t in held}
    digests = {prompt_digest(t.prompt) for t in held}
    for row in _rows(corpus / "train.jsonl"):
        user = next((m["content"] for m in row.get("messages", []) if m.get("role") == "user"), row.get("prompt", ""))
        text = user if isinstance(user, str) else json.dumps(user)
        if row["task_id"] in ids or prompt_digest(text) in digests:
            raise RuntimeError(f"training row of {row['task_id']} is a held-out task: the split leaked")


def repair_items(plan: CorpusPlan, held: list[Task], work: Path) -> list[Task]:
    tasks_file, items = work / "heldout-tasks.jsonl", work / "repair.jsonl"
    write_jsonl(held, tasks_file)
    ecot("bench", "repair-split", str(tasks_file), "--held-out", "1.0", "--per-task", str(plan.repair_per_task),
         "--seed", str(plan.seed), "--out", str(items))
    return load_suite(items)


def write_heldout(tasks: list[Task], suite: Path, prompts: Path) -> None:
    write_jsonl(tasks, suite)
    with prompts.open("w", encoding="utf-8") as out:
        for task in tasks:
            out.write(json.dumps({"task_id": task.id, "messages": first_messages(task)}, ensure_ascii=False) + "\n")


def copy_corpus(source: Path, target: Path) -> None:
    """The training split, the validation split (held-out tasks' solutions: validation loss only) and the card."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("train.parquet", "validation.parquet", "README.md"):
        if (source / name).is_file():
            shutil.copyfile(source / name, target / name)


def pack_store(store: Path, target: Path) -> None:
    """A consistent copy of the store (VACUUM INTO: the WAL folded in, free pages dropped), gzipped."""
    plain = target.with_suffix("")
    plain.unlink(missing_ok=True)
    connection = sqlite3.connect(store)
    try:
        connection.execute("VACUUM INTO ?", (str(plain),))
    finally:
        connection.close()
    with plain.open("rb") as source, gzip.open(target, "wb", compresslevel=9) as out:
        shutil.copyfileobj(source, out)
    plain.unlink()
