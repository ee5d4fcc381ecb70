"""The bundled python suite is well formed: valid options, tests with expected outputs for every
input, the three task shapes (function, stdin/stdout, and the benchmark-style check code), and prompts
that name the interface."""

from __future__ import annotations

from collections import Counter

import pytest

from ecot.core.task import Task
from ecot.domains.python.options import check_tests
from ecot.domains.python.spec import MISSING, PySpec, load_cases

from .common import bundled_tasks


def test_suite_size_and_shapes() -> None:
    tasks = bundled_tasks("python")
    assert len(tasks) >= 40
    modes = Counter(PySpec.of_task(t).mode for t in tasks)
    assert modes["function"] >= 25 and modes["stdio"] >= 10 and modes["check"] >= 2, modes
    assert any(PySpec.of_task(t).preamble for t in tasks), "one HumanEval-style check task with the prompt as its preamble"
    assert any("." in PySpec.of_task(t).entry_point for t in tasks), "one LeetCode-style Class.method task"
    limits = {t.limits for t in tasks}
    assert len(limits) == 1, "one set of limits keeps a single long-lived sandbox for the whole suite"


@pytest.mark.parametrize("task", [pytest.param(t, id=t.id) for t in bundled_tasks("python")])
def test_task_is_well_formed(task: Task) -> None:
    spec = PySpec.of_task(task)
    if spec.mode == "check":
        assert len(check_tests(task.files[spec.check])) >= 1
        assert spec.entry_point in task.prompt
        return
    cases = load_cases(task, spec)
    assert len(cases) >= 4, f"{task.id} needs at least 4 tests"
    assert all(case.output is not MISSING for case in cases), f"{task.id}: bundled tests carry their expected outputs"
    if spec.mode == "function":
        assert spec.entry_point.split(".")[-1] in task.prompt
    else:
        assert "standard input" in task.prompt
    assert "import numpy" not in (task.reference or ""), "tasks use the standard library only"
