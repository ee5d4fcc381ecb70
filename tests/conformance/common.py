"""Shared helpers for the backend conformance suite.

Every domain backend is held to the same three promises, each with its own case files:
reference solution -> Pass (test_references.py), each planted bug -> its expected label
(test_<domain>_bugs.py), hostile candidates contained and labelled (test_<domain>_hostile.py).
Everything runs on the real toolchain; a missing tool skips with its name.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from ecot import sandbox
from ecot.core.errors import ToolMissingError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.domains.base import Backend
from ecot.tasks.suite import bundled_domains, bundled_suite_path, load_suite

Mutation = Callable[[str], str]


# -- bundled tasks ------------------------------------------------------------------------------
# Task suites kept with the tests, found by the first part of their ids as a domain's bundled suite is
# (tests/fixtures/cocotb: rtl tasks with cocotb testbenches, ids cocotb/<name>).
FIXTURE_SUITES = {"cocotb": Path(__file__).parents[1] / "fixtures" / "cocotb"}


@cache
def bundled_tasks(domain: str) -> tuple[Task, ...]:
    return tuple(load_suite(FIXTURE_SUITES.get(domain) or bundled_suite_path(domain)))


def bundled_task(task_id: str) -> Task:
    domain = task_id.split("/", 1)[0]
    for task in bundled_tasks(domain):
        if task.id == task_id:
            return task
    raise KeyError(f"no bundled task {task_id!r} in domain {domain!r}")


def all_bundled_params() -> list[Any]:
    """One pytest parameter per bundled task of every domain, named by task id."""
    return [pytest.param(task, id=task.id) for domain in bundled_domains() for task in bundled_tasks(domain)]


def skip_unless_tools(domain: str) -> Backend:
    """The domain's backend, or a skip naming the tool that is missing."""
    try:
        return get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"{domain} backend needs the missing tool '{err.tool}': {err}")


def skip_unless_isolated() -> None:
    """Hostile-candidate tests promise containment, which only the bubblewrap sandbox gives."""
    if not sandbox.bwrap_available():
        pytest.skip("containment needs the missing (or disabled) tool 'bwrap'; only rlimits apply")


def with_changes(task: Task, options: Mapping[str, Any] | None = None, wall_s: float | None = None) -> Task:
    """A copy of task with extra options and/or a shorter wall limit (for bugs that hang)."""
    if options:
        task = dataclasses.replace(task, options={**task.options, **options})
    if wall_s is not None:
        task = dataclasses.replace(task, limits=task.limits.scaled(wall_s=wall_s, cpu_s=min(task.limits.cpu_s, wall_s + 1)))
    return task


def evaluate(task: Task, candidate: str) -> Outcome:
    """Run a candidate and check the label belongs to the backend's label set."""
    backend = skip_unless_tools(task.domain)
    outcome = backend.run(task, candidate)
    assert outcome.label in backend.all_labels(), f"{task.id}: unknown label {outcome.label!r}"
    return outcome


def describe(outcome: Outcome) -> str:
    """What a failing assertion should show: label, diagnostic and the tail of the log."""
    return f"{outcome.label}: {outcome.diagnostic}\n--- log tail ---\n{outcome.log[-1500:]}"


# -- planted bugs ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class BugCase:
    """A planted bug: a mutation of a bundled task's reference and the label it must earn."""

    task_id: str
    kind: str
    mutate: Mutation
    expected_label: str
    options: Mapping[str, Any] = field(default_factory=dict)
    wall_s: float | None = None  # shorter limit for bugs that hang, so the suite stays fast

    @property
    def name(self) -> str:
        return f"{self.kind}@{self.task_id}"

    def task(self) -> Task:
        return with_changes(bundled_task(self.task_id), self.options, self.wall_s)


def mutated_code(case: BugCase, task: Task) -> str:
    """Apply the mutation; a mutation that changes nothing would test nothing."""
    assert task.reference is not None, f"{task.id} has no reference to mutate"
    code = case.mutate(task.reference)
    assert code != task.reference, f"mutation {case.kind} left {task.id} unchanged"
    return code


def run_bug(case: BugCase) -> Outcome:
    task = case.task()
    return evaluate(task, mutated_code(case, task))


def bug_params(cases: Iterable[BugCase]) -> list[Any]:
    return [pytest.param(case, id=case.name) for case in cases]


# -- mutation builders (each fails loudly when the reference no longer has the text it edits) ----
def replace_once(old: str, new: str) -> Mutation:
    def mutate(source: str) -> str:
        assert source.count(old) >= 1, f"mutation target not found: {old!r}"
        return source.replace(old, new, 1)

    return mutate


def replace_all(old: str, new: str) -> Mutation:
    def mutate(source: str) -> str:
        assert old in source, f"mutation target not found: {old!r}"
        return source.replace(old, new)

    return mutate


def regex_sub(pattern: str, repl: str, count: int = 0) -> Mutation:
    def mutate(source: str) -> str:
        result, n = re.subn(pattern, repl, source, count=count)
        assert n, f"mutation pattern not found: {pattern!r}"
        return result

    return mutate


def insert_before_endmodule(text: str) -> Mutation:
    """Add module items at the end of the (last) module."""

    def mutate(source: str) -> str:
        head, sep, tail = source.rpartition("endmodule")
        assert sep, "no endmodule in the reference"
        return f"{head}{text.rstrip()}\n{sep}{tail}"

    return mutate


def compose(*mutations: Mutation) -> Mutation:
    def mutate(source: str) -> str:
        for step in mutations:
            source = step(source)
        return source

    return mutate


# -- host-side containment checks ---------------------------------------------------------------
def unique_marker(prefix: str = "ecotconf") -> str:
    """A name no other process on the machine uses, to find our own leftovers."""
    return f"{prefix}{secrets.token_hex(6)}"


def processes_matching(marker: str) -> list[str]:
    """Command lines of live processes containing marker (zombies have empty command lines)."""
    found: list[str] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(f"{entry.name}: {cmdline.strip()}")
    return found


@contextlib.contextmanager
def files_stay_absent(paths: Iterable[Path]) -> Iterator[None]:
    """Files a hostile candidate tries to create outside its work dir: absent before and after."""
    paths = tuple(paths)
    leftovers = [p for p in paths if p.exists()]
    assert not leftovers, f"remove leftovers of an earlier run first: {leftovers}"
    yield
    created = [p for p in paths if p.exists()]
    for path in created:
        path.unlink()
    assert not created, f"a candidate created files outside its work dir: {created}"
