"""What audits share: bundled tasks by id, changed copies of a task, and host-side checks of what a
hostile job may have left on the host (files outside its work dir, processes that outlived it)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from functools import cache
from pathlib import Path
from typing import Any

from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.domains import taskcache
from ecot.tasks.suite import bundled_suite_path, load_suite


# -- bundled tasks ------------------------------------------------------------------------------
@cache
def bundled_tasks(domain: str) -> tuple[Task, ...]:
    return tuple(load_suite(bundled_suite_path(domain)))


def bundled_task(task_id: str) -> Task:
    domain = task_id.split("/", 1)[0]
    for task in bundled_tasks(domain):
        if task.id == task_id:
            return task
    raise KeyError(f"no bundled task {task_id!r} in domain {domain!r}")


def with_changes(task: Task, options: Mapping[str, Any] | None = None, wall_s: float | None = None) -> Task:
    """A copy of task with extra options and/or a shorter wall limit (for candidates that hang)."""
    if options:
        task = dataclasses.replace(task, options={**task.options, **options})
    if wall_s is not None:
        task = dataclasses.replace(task, limits=task.limits.scaled(wall_s=wall_s, cpu_s=min(task.limits.cpu_s, wall_s + 1)))
    return task


def describe(outcome: Outcome) -> str:
    """What a failing check should show: label, diagnostic and the tail of the log."""
    return f"{outcome.label}: {outcome.diagnostic}\n--- log tail ---\n{outcome.log[-1500:]}"


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


def task_cache_files(name: str) -> tuple[Path, ...]:
    """Files a hostile candidate tries to plant in the host's task cache (ecot.domains.taskcache), where a
    forged reference profile would outlive the run: an entry of each kind the backends read, and one beside."""
    root = taskcache.root()
    return (root / "python-reference" / "00" / f"{name}.json", root / "rtl-reference" / "00" / f"{name}.json",
            root / f"{name}.json")


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


def no_process_left(marker: str, grace_s: float = 3.0) -> Callable[[], AbstractContextManager[None]]:
    """A host check: no process whose command line holds `marker` is alive `grace_s` after the case's run."""

    @contextlib.contextmanager
    def check() -> Iterator[None]:
        yield
        deadline = time.monotonic() + grace_s
        while processes_matching(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = processes_matching(marker)
        assert left == [], f"processes of the job outlived it: {left}"

    return check


def within(seconds: float) -> Callable[[], AbstractContextManager[None]]:
    """A host check: the case's run (hostile candidate and `then`) ends within `seconds`."""

    @contextlib.contextmanager
    def check() -> Iterator[None]:
        start = time.monotonic()
        yield
        assert time.monotonic() - start < seconds, f"took {time.monotonic() - start:.1f} s, more than {seconds} s"

    return check
