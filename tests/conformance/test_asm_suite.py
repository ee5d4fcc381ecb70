"""The bundled asm suite is self-consistent: every prompt shows exactly the C source and the -O3
assembly the backend uses, and both the baseline and the C function compiled at -O0 pass the
task's driver (so the tests agree with the C semantics, and the baseline is the C function)."""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from ecot.core.outcome import PASS
from ecot.core.task import Task
from ecot.domains.asm.options import AsmOptions
from ecot.domains.asm.suite_builder import prompt_is_current

from .common import bundled_tasks, describe, evaluate, skip_unless_tools, with_changes

CATEGORIES = {"loops", "bit-tricks", "strings", "numeric", "branchy"}


def asm_params() -> list[object]:
    return [pytest.param(t, id=t.id) for t in bundled_tasks("asm")]


def test_suite_size_and_coverage() -> None:
    tasks = bundled_tasks("asm")
    assert len(tasks) >= 30
    tags = Counter(tag for t in tasks for tag in t.tags)
    assert set(tags) >= CATEGORIES, tags
    assert all(tags[c] >= 4 for c in CATEGORIES), tags
    assert {t.id for t in tasks if "callbacks" in t.tags}, "some task must call out (stack alignment at calls)"


@pytest.mark.parametrize("task", asm_params())
def test_task_bundle_and_prompt_are_consistent(task: Task) -> None:
    spec = AsmOptions.of_task(task)
    for name in ("func.c", "driver.c", "tests.txt", "baseline.s"):
        assert name in task.files, f"{task.id} lacks {name}"
    assert prompt_is_current(task.prompt, spec.function, task.files["func.c"], task.files["baseline.s"]), (
        f"{task.id}: the prompt does not show the current func.c/baseline.s; run python -m ecot.domains.asm.suite_builder"
    )
    assert f".globl\t{spec.function}" in task.files["baseline.s"]
    assert task.reference and spec.function in task.reference


@pytest.mark.parametrize("task", asm_params())
def test_baseline_and_unoptimized_c_pass(task: Task) -> None:
    skip_unless_tools("asm")
    fast = with_changes(task, {"speed": "off"})
    baseline = evaluate(fast, task.files["baseline.s"])
    assert baseline.label == PASS, describe(baseline)
    flags = ["-O0", "-S", "-fno-asynchronous-unwind-tables", "-fcf-protection=none", "-fno-pie", "-x", "c", "-", "-o", "-"]
    unoptimized = subprocess.run(["gcc", *flags], input=task.files["func.c"], capture_output=True, text=True, check=True).stdout
    outcome = evaluate(fast, unoptimized)
    assert outcome.label == PASS, describe(outcome)
