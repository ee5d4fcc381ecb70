"""No kernel object a job creates outlives it (issue 26): the next job in the same long-lived sandbox,
warm interpreter or worker finds none, and the host's memory is not left holding them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from ecot import sandbox
from ecot.core.task import Limits
from ecot.executors.local import LocalPool
from ecot.sandbox.warm import WarmPython
from kernel_objects import MEGABYTES, PLANT, PROBE, planted, probed, shmem_kb

LIMITS = Limits(wall_s=20, cpu_s=10, memory_mb=512, output_kb=256, file_mb=64, procs=16, disk_mb=32)
PYTHON = "/usr/bin/python3"
WARM = WarmPython(("json",))  # started by the first job, stopped by its safety net when the tests end


@pytest.fixture(autouse=True)
def _isolated() -> None:
    if not sandbox.bwrap_available():
        pytest.skip("needs the missing (or disabled) tool 'bwrap': without it jobs share the host's kernel state")


def served(code: str, **options: Any) -> sandbox.ExecResult:
    with sandbox.workdir() as work:
        return sandbox.run([PYTHON, "-S", "-c", code], work, LIMITS, **options)


def warm(code: str) -> sandbox.ExecResult:
    with sandbox.workdir() as work:
        return WARM.run(work, code, LIMITS)


RUNNERS: dict[str, Callable[[str], sandbox.ExecResult]] = {
    "served": served,  # the supervisor of a long-lived sandbox (resident checker, pool workers, Ray actors)
    "served_with_proc": lambda code: served(code, proc_fs=True),
    "one_shot": lambda code: served(code, ro_paths=("/usr",)),  # a sandbox of its own per step
    "warm": warm,  # a fork of a warm interpreter (cad, gpu)
}


@pytest.mark.parametrize("where", RUNNERS)
def test_the_next_job_finds_no_kernel_object_of_the_last(where: str) -> None:
    run = RUNNERS[where]
    plant = run(PLANT)
    made = planted(plant.stdout)
    # the objects a job may make were really made: finding none afterwards proves they are gone
    assert made["sysv_shm"] >= 0 and made["sysv_sem"] >= 0 and made["sysv_msg"] == 0 and made["posix_mq"] == 0, plant.output
    probe = run(PROBE)
    assert probed(probe.stdout) == {"found": [], "fds": []}, probe.output


@pytest.mark.parametrize("where", RUNNERS)
def test_kernel_keyrings_are_closed_to_jobs(where: str) -> None:
    made = planted(RUNNERS[where](PLANT).stdout)
    assert {name: made[name] for name in made if name.startswith("key_")} == dict.fromkeys(
        [name for name in made if name.startswith("key_")], -1)


def test_twenty_jobs_leave_the_hosts_shared_memory_as_it_was() -> None:
    """Each job leaves a touched SysV segment of MEGABYTES behind; while the sandboxes live on, none of
    that memory may stay resident (Shmem counts SysV segments and tmpfs pages)."""
    served("pass")
    warm("pass")
    before = shmem_kb()
    for index in range(20):
        result = (served if index % 2 else warm)(PLANT)
        assert planted(result.stdout)["sysv_shm"] >= 0, result.output
    left = shmem_kb() - before
    deadline = time.monotonic() + 10  # a dead namespace is freed by a kernel worker, a moment later
    while left > 50 * 1024 and time.monotonic() < deadline:
        time.sleep(0.2)
        left = shmem_kb() - before
    assert left <= 50 * 1024, f"{left / 1024:.0f} MB of shared memory stayed resident after 20 jobs of {MEGABYTES} MB"


def test_a_pool_worker_keeps_nothing_between_evaluations() -> None:
    """The python domain in a worker of the local pool: a right candidate caches its answers in SysV
    shared memory, and a candidate that only reads them must not pass in the same worker."""
    from conformance.hostile.python import IN_SYSV_SHM, caesar_cached
    from ecot.tasks.suite import bundled_suite_path, load_suite

    case = caesar_cached("pool", IN_SYSV_SHM)
    task = next(t for t in load_suite(bundled_suite_path("python")) if t.id == case.task_id)
    assert case.then is not None

    async def both(pool: LocalPool) -> list[str]:
        return [(await pool.evaluate(task, code)).label for code in (case.candidate, case.then)]

    with LocalPool(1) as pool:
        labels = asyncio.run(both(pool))
    assert labels == ["Pass", "Wrong_Answer"]
