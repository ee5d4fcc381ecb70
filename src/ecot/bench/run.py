"""`ecot bench run`: a benchmark run is a run of the synthesis loop in the same store, marked as one.

- single mode: one answer per sample, no feedback (K = 0), the public benchmarks' protocol;
- agentic mode: the K-round loop with the real verdicts shown back, scored at every round.

n samples per task are the loop's samples (one request with `n` where the endpoint takes it, else
parallel requests with distinct seeds). The store gives the rest: one writer, every turn committed
as it happens, a killed run resumed by rerunning the command, UNIQUE(run, task, sample) so that
nothing is asked or stored twice. The run's config carries a `bench` entry: it marks the run (so
`ecot export` keeps its tasks out of training corpora), records how each task is grouped in the
report, and which tasks were not attempted because their reference does not pass on this machine
(checked once, when the run is created; a resumed run reuses the verdicts).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ecot.bench.results import TaskInfo
from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.executors.local import Executor
from ecot.export.decontam import BENCH, prompt_digest
from ecot.run.identity import run_config
from ecot.store import TrajectoryStore, run_key

MODES = ("single", "agentic")
BENCH_VERSION = 1  # bump when what a benchmark run records or how it is scored changes
REPAIR_TAG = "repair"
SOURCE_TAG = "repair-of:"
REFERENCE_RETRIES = 2  # re-runs of a reference check that failed for harness reasons


@dataclass(frozen=True)
class BenchSettings:
    mode: str = "single"
    rounds: int = 4  # K of the agentic mode
    samples: int = 1
    reference_check: bool = True
    label: str | None = None  # the model's name in reports (default: the generator's model)
    errata: dict[str, dict[str, Any]] = field(default_factory=dict)  # task id -> its erratum (`ecot audit`): flagged in reports

    @property
    def max_rounds(self) -> int:
        return 0 if self.mode == "single" else self.rounds


def task_info(task: Task) -> TaskInfo:
    """How the report groups a task: by the folder of its id (rtl/x -> rtl, kernelbench/level1/x ->
    kernelbench/level1, repair/rtl/x.b0 -> repair/rtl); repair tasks name the task they came from."""
    group = task.id.rsplit("/", 1)[0] if "/" in task.id else task.domain
    source = next((tag[len(SOURCE_TAG) :] for tag in task.tags if tag.startswith(SOURCE_TAG)), None)
    return TaskInfo(task.domain, group, REPAIR_TAG in task.tags, source, prompt_digest(task.prompt))


def bench_config(
    tasks: Sequence[Task], generator: Any, settings: BenchSettings, system_prompt: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config, identity) of the run: the synthesis loop's, plus the `bench` mark in both."""
    config, identity = run_config(tasks, generator, settings.samples, settings.max_rounds, system_prompt)
    marker = {"version": BENCH_VERSION, "mode": settings.mode, "reference_check": settings.reference_check}
    identity[BENCH] = dict(marker)
    config[BENCH] = {**marker, "tasks": {t.id: asdict(task_info(t)) for t in tasks}}
    if settings.label:
        config[BENCH]["label"] = settings.label
    chosen = {t.id for t in tasks}
    errata = {task_id: entry for task_id, entry in settings.errata.items() if task_id in chosen}
    if errata:  # recorded, not part of the identity: a resumed run keeps the errata it began with
        config[BENCH]["errata"] = errata
    return config, identity


def existing_run(store: TrajectoryStore, identity: dict[str, Any]) -> dict[str, Any] | None:
    key = run_key(identity)
    return next((run for run in store.runs() if run["run_key"] == key), None)


async def check_references(pool: Executor, tasks: Sequence[Task], on_done: Callable[[], None] = lambda: None) -> dict[str, str]:
    """task id -> why its reference does not pass on this machine (tasks without one are not checked)."""

    async def one(task: Task) -> tuple[str, Outcome | None]:
        if not task.reference:
            on_done()
            return task.id, None
        outcome = await pool.evaluate(task, task.reference)
        for _ in range(REFERENCE_RETRIES):
            if not outcome.is_infra:
                break
            outcome = await pool.evaluate(task, task.reference)
        on_done()
        return task.id, outcome

    found = [(task_id, o) for task_id, o in await asyncio.gather(*(one(task) for task in tasks)) if o is not None]
    if found and all(o.is_infra for _, o in found):  # a broken harness, not a property of the tasks: record nothing
        raise EcotError(f"every task's reference got Infra_Error (first: {found[0][0]}: {_first_line(found[0][1].diagnostic)}); "
                        "the harness or a toolchain is broken on this machine; nothing was stored")
    return {task_id: reference_failure(o) for task_id, o in found if not o.passed}


def reference_failure(outcome: Outcome) -> str:
    return f"the task's reference gets {outcome.label} on this machine: {_first_line(outcome.diagnostic)}"


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return re.sub(r"\s+", " ", line)[:300]


def begin(store: TrajectoryStore, pool: Executor, tasks: Sequence[Task], config: dict[str, Any],
          identity: dict[str, Any], on_checked: Callable[[], None] = lambda: None) -> tuple[int, dict[str, str]]:
    """(run id, tasks not run here): found again (resume) or created after checking the references."""
    found = existing_run(store, identity)
    if found is not None:
        skipped = dict((found["config"].get(BENCH) or {}).get("not_run_here") or {})
    elif config[BENCH]["reference_check"]:
        skipped = asyncio.run(check_references(pool, tasks, on_checked))
    else:
        skipped = {}
    config[BENCH]["not_run_here"] = skipped
    return store.begin_run(config, identity), skipped
