"""Repair benchmarks from our own mutators (the paper's VeriRepair idea, for every domain).

A held-out share of the tasks (chosen by a stable hash of the task id and the seed, so adding
tasks never moves another one) gives the split: for each, the domain's mutation set plants one
realistic bug into the reference; the real toolchain judges the buggy program; a bug that the
toolchain catches becomes a repair task: the original prompt, the buggy code and the verdict, to
be answered with the fixed code and scored by the same testbench (Fix%). The same tasks, seed and
SPLIT_VERSION give the same items; the split is written as a JSONL suite plus a manifest.

The source tasks are benchmark tasks from then on: `ecot export` keeps their trajectories out of
training corpora (decontamination), so the model never trains on the references it must repair.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from random import Random
from typing import Any

from ecot.bench.run import REPAIR_TAG, SOURCE_TAG
from ecot.core.extract import domain_fences
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.executors.local import Executor
from ecot.generators.repair import make_plan, stable_seed
from ecot.mutators import MUTATORS, Applied, MutationSet
from ecot.run.observation import render
from ecot.tasks.suite import write_jsonl

SPLIT_VERSION = 1  # bump when the choice of tasks or bugs, or the prompt, changes
TRIES = 3  # candidate bugs drawn per wanted item (some are not caught by the tests)

PROMPT = """{prompt}

The {artifact} below was written for this task, but it has a bug. The toolchain's verdict on it follows.
Find the bug and answer with the complete corrected {artifact}.

```{fence}
{code}```

{feedback}
"""


@dataclass(frozen=True)
class SplitSettings:
    share: float = 0.2  # of the tasks with a reference and bug operators
    per_task: int = 2  # repair items per held-out task
    seed: int = 0


@dataclass(frozen=True)
class Item:
    id: str
    source: str
    kind: str
    category: str
    line: int
    label: str  # the buggy program's verdict
    diagnostic: str


@dataclass
class Split:
    settings: SplitSettings
    held_out: list[str]
    tasks: list[Task]
    items: list[Item]
    dropped: list[dict[str, Any]]  # bugs left out (the tests did not catch them), and tasks whose reference fails

    def manifest(self) -> dict[str, Any]:
        return {"version": SPLIT_VERSION, **asdict(self.settings), "held_out": self.held_out,
                "items": [asdict(item) for item in self.items], "dropped": self.dropped}


def held_out(tasks: Sequence[Task], settings: SplitSettings) -> list[Task]:
    """The tasks of the split: a reference, bug operators for the domain, and a draw below the share."""
    chosen = []
    for task in tasks:
        if not task.reference or task.domain not in MUTATORS.names():
            continue
        draw = stable_seed(task.id, settings.seed, SPLIT_VERSION, "held-out") / 2**64
        if draw < settings.share:
            chosen.append(task)
    return chosen


def candidate_bugs(task: Task, settings: SplitSettings) -> list[tuple[int, Applied]]:
    """(draw index, one planted bug), distinct buggy programs in draw order."""
    mset: MutationSet = MUTATORS.get(task.domain)
    reference = (task.reference or "").strip() + "\n"
    found: list[tuple[int, Applied]] = []
    seen: set[str] = set()
    for draw in range(settings.per_task * TRIES):
        rng = Random(stable_seed(task.id, settings.seed, SPLIT_VERSION, draw, "bug"))
        plan = make_plan(reference, mset, rng, max_bugs=1, wrong_fix_rate=0.0)
        if plan.bugs and plan.bugs[0].applied.code not in seen:
            seen.add(plan.bugs[0].applied.code)
            found.append((draw, plan.bugs[0].applied))
    return found


def repair_task(task: Task, index: int, bug: Applied, verdict: Outcome) -> Task:
    mset = MUTATORS.get(task.domain)
    fence = mset.fence or (domain_fences(task.domain) or ("",))[0]
    prompt = PROMPT.format(prompt=task.prompt.strip(), artifact=mset.artifact, fence=fence, code=bug.code,
                           feedback=render(verdict, task))
    tags = (*task.tags, REPAIR_TAG, f"{SOURCE_TAG}{task.id}", f"bug-kind:{bug.kind}", f"bug-category:{bug.category}",
            f"bug-line:{bug.line}", f"buggy-label:{verdict.label}", f"repair-split:v{SPLIT_VERSION}")
    return replace(task, id=f"repair/{task.id}.b{index}", prompt=prompt, tags=tags)


async def build(pool: Executor, tasks: Sequence[Task], settings: SplitSettings) -> Split:
    """Judge the candidate bugs (and each reference) on the real backends; keep the caught ones."""
    chosen = held_out(tasks, settings)
    split = Split(settings, [t.id for t in chosen], [], [], [])
    results = await asyncio.gather(*(_one_task(pool, task, settings) for task in chosen))
    for task, (reference, judged) in zip(chosen, results):
        if not reference.passed:
            split.dropped.append({"source": task.id, "why": f"the reference gets {reference.label} here"})
            continue
        kept = 0
        for bug, verdict in judged:
            if verdict.passed or verdict.is_infra:
                split.dropped.append({"source": task.id, "kind": bug.kind, "line": bug.line,
                                      "why": f"the buggy program gets {verdict.label}"})
            elif kept < settings.per_task:
                made = repair_task(task, kept, bug, verdict)
                split.tasks.append(made)
                split.items.append(Item(made.id, task.id, bug.kind, bug.category, bug.line, verdict.label, verdict.diagnostic))
                kept += 1
    return split


async def _one_task(pool: Executor, task: Task, settings: SplitSettings) -> tuple[Outcome, list[tuple[Applied, Outcome]]]:
    """The reference's verdict and the verdicts of candidate bugs, judged a few at a time until
    `per_task` of them are caught (the draw order decides, so the result does not depend on timing)."""
    bugs = [bug for _, bug in candidate_bugs(task, settings)]
    reference = await pool.evaluate(task, task.reference or "")
    judged: list[tuple[Applied, Outcome]] = []
    while bugs and sum(not (v.passed or v.is_infra) for _, v in judged) < settings.per_task:
        batch, bugs = bugs[: settings.per_task], bugs[settings.per_task :]
        verdicts = await asyncio.gather(*(pool.evaluate(task, bug.code) for bug in batch))
        judged += list(zip(batch, verdicts))
    return reference, judged


def write(split: Split, out: Path) -> Path:
    """The suite (JSONL) at `out` and its manifest beside it (<name>.split.json)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(split.tasks, out)
    manifest = out.with_name(out.stem + ".split.json")
    manifest.write_text(json.dumps(split.manifest(), indent=1) + "\n", encoding="utf-8")
    return manifest
