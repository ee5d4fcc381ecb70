"""Which tasks of a benchmark run the model may have seen in training, and the one finding that
`ecot bench run` warns with and `ecot bench report` prints and writes alike.

Three sources are checked: the training (non-benchmark) runs of the run's store, an exported corpus
(`--corpus`), and the model's own training data (its train_summary.json, read from a local model
folder or `--trained-on` and recorded in the run when it is created). The report's JSON holds each
source's tasks and the exact lines the terminal shows ("summary"), so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ecot.bench.results import BenchRun
from ecot.bench.run import task_info
from ecot.core.task import Task
from ecot.export import decontam
from ecot.export.decontam import TRAINED_ON, TrainingData
from ecot.generators.base import Generator
from ecot.store import TrajectoryStore

SHOWN = 5  # task ids named in a line
RECALL = "scores on tasks a model has seen measure recall, not skill: score held-out tasks"


def training_data(generator: Generator, given: Path | None = None) -> TrainingData | None:
    """The model's training record: `given` (a folder or summary file), else the train_summary.json of
    the generator's model when that is a local folder (an `ecot train sft` output); None when unknown."""
    if given is not None:
        return decontam.read_training_data(given)
    return decontam.model_training_data(str(generator.provenance().get("model") or ""))


def _named(tasks: Sequence[str]) -> str:
    return ", ".join(tasks[:SHOWN]) + (f" and {len(tasks) - SHOWN} more" if len(tasks) > SHOWN else "")


def model_line(record: dict[str, Any], total: int) -> str:
    """The finding about the model's own training data, in the words of both `bench run` and `bench report`."""
    seen = record["tasks"]
    if not seen:
        return (f"contamination: the model was trained on none of the {total} tasks of this run "
                f"({record['trained_tasks']} tasks in {record['summary']})")
    return (f"contamination: the model was trained on {len(seen)} of the {total} tasks of this run "
            f"({record['summary']}): {_named(seen)}; {RECALL}")


def before_run(tasks: Sequence[Task], trained: TrainingData | None) -> dict[str, Any] | None:
    """The line (and whether it warns) for `bench run` to print before it asks the model anything."""
    if trained is None:
        return None
    record = trained.record({t.id: asdict(task_info(t)) for t in tasks})
    return {"text": model_line(record, len(tasks)), "warning": bool(record["tasks"])}


def default_suites_warning(store: Path, tasks: Sequence[Task]) -> str:
    """`bench run` without a suite scores the bundled suites, the tasks `ecot synth` makes its corpus of."""
    ids = {t.id for t in tasks}
    runs: list[int] = []
    if Path(store).is_file():
        with TrajectoryStore(store) as opened:
            for run in opened.runs():
                synthesis = not isinstance(run["config"].get(decontam.BENCH), dict)
                if synthesis and any(task_id in ids for task_id, _ in opened.task_prompts(int(run["id"]))):
                    runs.append(int(run["id"]))
    found = f"; synthesis runs {', '.join(map(str, runs))} of {store} attempted them" if runs else ""
    return (f"warning: no suite given: scoring the bundled suites ({len(tasks)} tasks), the tasks `ecot synth` "
            f"makes its corpus of by default{found}; a model trained on that corpus has seen them: "
            "score held-out tasks (a suite of your own, `ecot bench repair-split`, an imported benchmark)")


def findings(store: TrajectoryStore, run: BenchRun, corpus: Path | None = None,
             trained: TrainingData | None = None) -> dict[str, Any]:
    """Every source's tasks, their union, what could not be checked, and the lines to print."""
    checked: list[dict[str, Any]] = []
    in_store = decontam.store_overlap(store, run.config)
    if in_store["training_runs"]:
        checked.append({"source": "store", "where": f"training runs {', '.join(map(str, in_store['training_runs']))} "
                        "of this store", "tasks": in_store["tasks"]})
    if corpus is not None:
        checked.append({"source": "corpus", "where": f"corpus {corpus}", "tasks": decontam.corpus_overlap(corpus, run.config)})
    record = trained.record(run.bench.get("tasks") or {}) if trained is not None else run.bench.get(TRAINED_ON)
    if record:
        checked.append({"source": "model", "where": f"the model's training data ({record['summary']})",
                        "tasks": record["tasks"], "record": record})
    union = sorted({task for item in checked for task in item["tasks"]})
    unknown = [] if record else ["the model's own training data (unknown here; for a model `ecot train sft` made, "
                                 "`ecot bench run --trained-on DIR` records it)"]
    found = {"tasks": union, "checked": checked, "not_checked": unknown}
    found["summary"] = summary(found, len(run.tasks))
    return found


def summary(found: dict[str, Any], total: int) -> list[dict[str, Any]]:
    """The lines both the terminal and the JSON show: {"text", "warning"}."""
    lines = []
    for item in found["checked"]:
        if item["source"] == "model":
            lines.append({"text": model_line(item["record"], total), "warning": bool(item["tasks"])})
        elif item["tasks"]:
            verb = "attempted" if item["source"] == "store" else "holds"
            lines.append({"text": f"contamination: {item['where']} {verb} {len(item['tasks'])} task(s) of this run: "
                          f"{_named(item['tasks'])}; `ecot export` leaves benchmark tasks out unless --allow-overlap",
                          "warning": True})
    clean = [item["where"] for item in found["checked"] if not item["tasks"] and item["source"] != "model"]
    if clean:
        lines.append({"text": f"contamination: no task of this run in {', '.join(clean)}", "warning": False})
    if found["not_checked"]:
        lines.append({"text": f"contamination: not checked: {'; '.join(found['not_checked'])}", "warning": False})
    return lines
