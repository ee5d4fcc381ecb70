"""No kernel object a job creates outlives it (issue 26): the next job in the same long-lived sandbox,
warm interpreter or worker finds none, and the host's memory is not left holding them."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
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
    from ecot.audit.hostile.pykernel import IN_SYSV_SHM, caesar_cached
    from ecot.tasks.suite import bundled_suite_path, load_suite

    case = caesar_cached("pool", IN_SYSV_SHM)
    task = next(t for t in load_suite(bundled_suite_path("python")) if t.id == case.task_id)
    assert case.then is not None

    async def both(pool: LocalPool) -> list[str]:
        return [(await pool.evaluate(task, code)).label for code in (case.candidate, case.then)]

    with LocalPool(1) as pool:
        labels = asyncio.run(both(pool))
    assert labels == ["Pass", "Wrong_Answer"]


def test_a_server_without_fresh_namespaces_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a sandbox cannot have namespaces of its own, its jobs run in one-shot sandboxes instead."""
    from ecot.sandbox.server import SandboxServer, server_for

    server = server_for(LIMITS)
    assert server.fresh  # this machine gives sandboxes namespaces of their own
    monkeypatch.setattr(server, "fresh", False)

    def refuse(jobs: Any) -> Any:
        raise AssertionError("a job was sent to a server that shares kernel objects between jobs")

    monkeypatch.setattr(SandboxServer, "run", refuse)
    assert planted(served(PLANT).stdout)["sysv_shm"] >= 0
    assert probed(served(PROBE).stdout) == {"found": [], "fds": []}


def test_a_warm_interpreter_without_fresh_namespaces_is_restarted_after_each_job() -> None:
    runner = WarmPython(("json",))
    try:
        with sandbox.workdir() as work:
            runner.run(work, "pass", LIMITS)
            first = runner.pid
            assert first is not None and runner._fresh
            runner._fresh = False  # what a sandbox without namespaces of its own says when it starts
            runner.run(work, "pass", LIMITS)
            assert runner.pid is None  # stopped: the next job gets a new interpreter
            runner.run(work, "pass", LIMITS)
            assert runner.pid not in (None, first)
    finally:
        runner.close()


def test_a_trusted_process_that_cannot_renew_its_ipc_namespace_asks_to_retire() -> None:
    """renew_ipc without the capability to unshare (an unprivileged process outside any namespace of
    its own): the reply asks the host to retire the sandbox instead of running the next job in it."""
    drop = "import os; os.setgroups([]); os.setgid(65534); os.setuid(65534); " if os.geteuid() == 0 else ""
    code = f"{drop}from ecot.sandboxed.supervisor import renew_ipc; reply = {{}}; renew_ipc(reply); print(reply)"
    src = str(Path(sandbox.__file__).resolve().parents[2])
    done = subprocess.run([PYTHON, "-I", "-c", f"import sys; sys.path.insert(0, {src!r}); {code}"], capture_output=True,
                          text=True, timeout=30, cwd="/")
    assert "no fresh IPC namespace for the next job" in done.stdout, done.stdout + done.stderr


def test_no_sandbox_starts_where_the_keyring_calls_are_unknown() -> None:
    from ecot.sandbox.seccomp import no_keyrings_program

    with pytest.raises(RuntimeError, match="keyrings cannot be closed"):
        no_keyrings_program("sparc64")
    assert len(no_keyrings_program("x86_64")) % 8 == 0  # whole sock_filter instructions


# keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0) through the i386 ABI (int 0x80, call 288) from
# 64-bit code: the same kernel keyrings, reached by other system-call numbers.
I386_KEYCTL = """
import ctypes, mmap
code = bytes([0x53, 0xB8, 0x20, 0x01, 0x00, 0x00, 0x31, 0xDB, 0xB9, 0xFC, 0xFF, 0xFF, 0xFF, 0x31, 0xD2, 0xCD, 0x80,
              0x5B, 0xC3])  # push rbx; mov eax, 288; xor ebx, ebx; mov ecx, -4; xor edx, edx; int 0x80; pop rbx; ret
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
print(ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))())
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the i386 ABI exists on x86_64 only")
@pytest.mark.parametrize("where", RUNNERS)
def test_keyrings_stay_closed_to_i386_system_calls(where: str) -> None:
    result = RUNNERS[where](I386_KEYCTL)
    # -1 is -EPERM; a kernel without the i386 ABI ends the job with SIGSEGV, which is as closed
    assert result.stdout.strip() == "-1" or result.signal == 11, result.output
