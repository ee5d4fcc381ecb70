"""Decontamination: which tasks are benchmark tasks, so that none of them enters a training corpus unless asked.

A task is a benchmark task when a benchmark run of the store used it (by id, or by the text of its
prompt, so a re-import under another id is still caught), or when a repair item of such a run was
made from it (the repair split's held-out source tasks). `ecot export` leaves every trajectory of
such a task out (and every trajectory of a benchmark run itself) unless --allow-overlap;
`ecot bench report` names the benchmark tasks that training runs of the store also attempted.

A trained model carries what it was trained on: `ecot train sft` writes a `TrainingData` record
(base model, corpus, the ids and prompt digests of the training rows' tasks) into its folder's
`train_summary.json`; `ecot bench run` reads it and names the benchmark tasks the model has seen.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ecot.core.errors import EcotError
from ecot.core.trajectory import Trajectory
from ecot.store import TrajectoryStore

log = logging.getLogger(__name__)

CORPUS_FILES = ("train.jsonl", "validation.jsonl")
BENCH = "bench"  # the key of a run config that marks a benchmark run
SUMMARY = "train_summary.json"  # a trained model's record, in its folder and in the training run's folder
TRAINED_ON = "trained_on"  # the key of that record in the summary


def bench_runs(store: TrajectoryStore) -> list[dict[str, Any]]:
    """The store's runs marked as benchmark runs."""
    return [run for run in store.runs() if isinstance(run["config"].get(BENCH), dict)]


def prompt_digest(text: str) -> str:
    """sha256 of a task prompt as the generator reads it (the router sends it stripped)."""
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def user_prompt(messages: Iterable[Any]) -> str:
    return next((str(m.get("content", "")) for m in messages if isinstance(m, dict) and m.get("role") == "user"), "")


@dataclass(frozen=True)
class BenchmarkTasks:
    ids: frozenset[str]
    prompts: frozenset[str]  # prompt digests
    runs: frozenset[int]  # the benchmark runs themselves

    @classmethod
    def of(cls, store: TrajectoryStore) -> BenchmarkTasks:
        ids: set[str] = set()
        prompts: set[str] = set()
        runs = set()
        for run in bench_runs(store):
            runs.add(int(run["id"]))
            for task_id, info in (run["config"][BENCH].get("tasks") or {}).items():
                ids.add(task_id)
                ids.update([info["source"]] if info.get("source") else [])
                prompts.update([info["prompt"]] if info.get("prompt") else [])
        return cls(frozenset(ids), frozenset(prompts), frozenset(runs))

    def __bool__(self) -> bool:
        return bool(self.runs)

    def contains(self, traj: Trajectory) -> bool:
        if int(traj.provenance.get("run_id") or 0) in self.runs or traj.task_id in self.ids:
            return True
        return prompt_digest(user_prompt(traj.prompt_messages)) in self.prompts


def keep_clean(stream: Iterable[Trajectory], benchmark: BenchmarkTasks, dropped: list[Trajectory]) -> Iterator[Trajectory]:
    """The trajectories of `stream` that are no benchmark's; the others are appended to `dropped`."""
    for traj in stream:
        if benchmark and benchmark.contains(traj):
            dropped.append(traj)
        else:
            yield traj


def store_overlap(store: TrajectoryStore, run_config: dict[str, Any]) -> dict[str, Any]:
    """The tasks of one benchmark run that non-benchmark runs of the store attempted too."""
    ids, prompts = _keys(run_config)
    training = [run for run in store.runs() if not isinstance(run["config"].get(BENCH), dict)]
    seen: set[str] = set()
    for run in training:
        for task_id, messages in store.task_prompts(int(run["id"])):
            if task_id in ids or prompt_digest(user_prompt(messages)) in prompts:
                seen.add(task_id)
    return {"training_runs": [int(r["id"]) for r in training], "tasks": sorted(seen)}


def _keys(run_config: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(task ids, prompt digests) by which a benchmark run's tasks are recognised: each task's id, the
    task a repair item was made from, and each prompt's digest."""
    tasks = run_config[BENCH].get("tasks") or {}
    ids = set(tasks) | {info["source"] for info in tasks.values() if info.get("source")}
    return ids, {info["prompt"] for info in tasks.values() if info.get("prompt")}


class TrainingData(BaseModel):
    """What a trained model saw; `ecot train sft` writes it under "trained_on" in train_summary.json."""

    model_config = ConfigDict(extra="ignore")
    base_model: str
    data: str  # the corpus (an `ecot export` folder or file)
    tasks: list[str]  # ids of the tasks of the training rows
    prompts: list[str] = []  # sha256 of their prompts (a task re-imported under another id is still found)
    summary: str = ""  # the file this record was read from

    def seen(self, tasks: dict[str, dict[str, Any]]) -> list[str]:
        """The benchmark tasks (id -> the run config's task info) this model was trained on, by id,
        repair source or prompt text."""
        ids, prompts = set(self.tasks), set(self.prompts)
        found = [task_id for task_id, info in tasks.items()
                 if task_id in ids or info.get("source") in ids or info.get("prompt") in prompts]
        return sorted(found)

    def record(self, tasks: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """What a benchmark run keeps of it: where it came from and which of its tasks the model has seen."""
        return {"summary": self.summary, "base_model": self.base_model, "data": self.data,
                "trained_tasks": len(self.tasks), "tasks": self.seen(tasks)}


def read_training_data(path: Path) -> TrainingData:
    """The record of a trained model: `path` is its folder, the training run's folder or the summary file."""
    path = Path(path)
    candidates = [path] if path.is_file() else [path / SUMMARY, path.parent / SUMMARY]
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise EcotError(f"{path}: no {SUMMARY} (give the folder `ecot train sft --out` wrote, its model folder or the file)")
    try:
        record = json.loads(found.read_text(encoding="utf-8"))[TRAINED_ON]
        return TrainingData.model_validate({**record, "summary": str(found.resolve())})
    except (ValueError, KeyError, TypeError, ValidationError):
        raise EcotError(f"{found}: no record of the training data under '{TRAINED_ON}' "
                        "(written by `ecot train sft` of this ecot version)") from None


def model_training_data(model: str | None) -> TrainingData | None:
    """The record in a local model folder (an `ecot train sft` output), if the model is one; else None."""
    if not model or not Path(model).is_dir():
        return None
    folder = Path(model)
    if not any((where / SUMMARY).is_file() for where in (folder, folder.parent)):
        return None
    try:
        return read_training_data(folder)
    except EcotError as err:  # an older summary: say so, and go on without it
        log.warning("%s", err)
        return None


def corpus_overlap(corpus: Path, run_config: dict[str, Any]) -> list[str]:
    """Task ids of an exported corpus (train/validation JSONL) that are tasks of the benchmark run."""
    ids, prompts = _keys(run_config)
    if not Path(corpus).is_dir():
        raise EcotError(f"--corpus {corpus} is not a folder (give the folder `ecot export --out` wrote)")
    found: set[str] = set()
    for name in CORPUS_FILES:
        path = Path(corpus) / name
        if not path.is_file():
            continue
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as err:
                    raise EcotError(f"--corpus {path}:{number}: not JSON ({err.msg}); give an `ecot export` folder") from None
                messages = row.get("messages") or row.get("prompt") or []
                if row.get("task_id") in ids or prompt_digest(user_prompt(messages)) in prompts:
                    found.add(str(row.get("task_id")))
    return sorted(found)
