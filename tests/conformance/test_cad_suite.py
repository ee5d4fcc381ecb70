"""Shape of the bundled CAD suite: size, categories, and the conventions prompts and references follow."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from ecot.core.task import Task
from ecot.domains.cad.verdict import Thresholds

from .common import bundled_tasks

CATEGORIES = ("plate", "bracket", "flange", "shaft", "enclosure", "edges", "revolve", "sweep")
MIN_TASKS, MIN_PER_CATEGORY = 30, 4
CAD_TASKS = [pytest.param(task, id=task.id) for task in bundled_tasks("cad")]


def test_suite_is_large_and_covers_every_kind_of_part() -> None:
    tasks = bundled_tasks("cad")
    assert len(tasks) >= MIN_TASKS
    counts = Counter(tag for task in tasks for tag in task.tags if tag in CATEGORIES)
    for category in CATEGORIES:
        assert counts[category] >= MIN_PER_CATEGORY, f"only {counts[category]} {category} parts"
    assert any(task.option("reference_step") for task in tasks), "one task keeps a STEP file as its reference"


@pytest.mark.parametrize("task", CAD_TASKS)
def test_task_follows_conventions(task: Task) -> None:
    assert sum(tag in CATEGORIES for tag in task.tags) == 1, "exactly one category tag"
    assert "Units are millimetres" in task.prompt and "`result`" in task.prompt
    assert re.search(r"\b(origin|axis|plane)\b|\b[xyz] = -?\d", task.prompt), "the prompt must fix the placement"
    reference = task.reference or ""
    assert reference.startswith("import cadquery as cq\n") and re.search(r"^result = ", reference, re.M)
    Thresholds.from_options(task.options, task.id)  # thresholds, when given, are valid
    step = task.option("reference_step")
    assert step is None or task.files[step].startswith("ISO-10303-21;")
    assert task.limits.wall_s <= 30
