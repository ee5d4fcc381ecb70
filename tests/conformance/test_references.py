"""Every bundled task of every domain: its reference solution must pass on the real toolchain."""

from __future__ import annotations

import pytest

from ecot.core.outcome import PASS
from ecot.core.task import Task
from ecot.tasks.suite import bundled_domains

from .common import all_bundled_params, bundled_tasks, describe, evaluate


def test_every_domain_bundles_tasks() -> None:
    for domain in bundled_domains():
        tasks = bundled_tasks(domain)
        assert tasks, f"bundled domain {domain} has no tasks"
        for task in tasks:
            assert task.domain == domain, f"{task.id} sits in suites/{domain} but says domain {task.domain}"
            assert task.id.startswith(f"{domain}/"), f"{task.id} should be namespaced as {domain}/<name>"
            assert task.reference, f"{task.id} has no reference solution"


@pytest.mark.parametrize("task", all_bundled_params())
def test_reference_passes(task: Task) -> None:
    assert task.reference is not None
    outcome = evaluate(task, task.reference)
    assert outcome.label == PASS, f"{task.id}: {describe(outcome)}"
