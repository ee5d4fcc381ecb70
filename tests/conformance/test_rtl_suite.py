"""Shape of the bundled RTL suite: size, balance, and testbench conventions (no tools needed)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from ecot.core.task import Task

from .common import bundled_tasks

CATEGORIES = ("combinational", "arithmetic", "counters", "fsm", "memory", "datapath")
MIN_TASKS, MIN_PER_CATEGORY = 42, 6
# the conventions of a Verilog testbench; the cocotb tasks are checked in test_rtl_cocotb.py
RTL_TASKS = [pytest.param(task, id=task.id) for task in bundled_tasks("rtl") if task.option("testbench_kind") != "cocotb"]


def test_suite_is_large_and_balanced() -> None:
    tasks = bundled_tasks("rtl")
    assert len(tasks) >= MIN_TASKS
    counts = Counter(tag for task in tasks for tag in task.tags if tag in CATEGORIES)
    for category in CATEGORIES:
        assert counts[category] >= MIN_PER_CATEGORY, f"only {counts[category]} {category} tasks"
    for task in tasks:
        assert sum(tag in CATEGORIES for tag in task.tags) == 1, f"{task.id} needs exactly one category tag"


@pytest.mark.parametrize("task", RTL_TASKS)
def test_task_bundle_follows_conventions(task: Task) -> None:
    top = task.option("top")
    bench = task.files[task.option("testbench")]
    assert top and f"`{top}`" in task.prompt, "the prompt must name the module to write"
    assert re.search(rf"^\s*module\s+{top}\b", task.reference or "", re.M), "reference must define the top"
    # the reference is not in the bundle at evaluation time: the bench instantiates the candidate only
    assert not re.search(rf"^\s*module\s+{top}\b", bench, re.M)
    assert re.search(rf"^\s*{top}\s+dut\s*\(", bench, re.M)
    assert 'MISMATCH time=%0t signal=' in bench and "expected=%h got=%h" in bench
    assert '$display("Mismatches: %0d in %0d samples", errors, samples);' in bench
    assert "$finish" in bench and "!==" in bench
    # testbench internals stay unreachable: the module is renamed per run and holds no named scopes,
    # which Icarus would let a design reach with upward references
    assert "tb" in task.option("hidden_modules", [])
    assert re.search(r"^module tb;", bench, re.M)
    assert not re.search(r"begin\s*:|\btask\b|\bfunction\b|\bgenerate\b", bench)
    assert task.limits.wall_s <= 10 and task.limits.cpu_s <= 10
