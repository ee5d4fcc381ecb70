"""Backends have a lifecycle: prepare() starts their warm processes, close() stops them (no process
is left behind), and a closed backend can be prepared again; the owners call both."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from ecot import domains
from ecot.core.outcome import PASS, Outcome
from ecot.core.task import Task
from ecot.domains.base import Backend
from ecot.executors.local import LocalPool, Work
from ecot.sandbox.warm import WarmPython


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")  # a zombie is gone too


class WarmToyBackend(Backend):
    """A backend whose warm state is one interpreter, like cad's and gpu's."""

    domain = "warmtoy"

    def __init__(self) -> None:
        self.warm = WarmPython(("json",))
        self.prepared = self.closed = 0

    def prepare(self) -> None:
        self.prepared += 1
        self.warm.start()

    def close(self) -> None:
        self.closed += 1
        self.warm.close()

    def evaluate(self, task: Task, options: object, candidate: str) -> Outcome:
        return Outcome(PASS, "")


def test_a_backend_is_a_context_manager_and_can_be_prepared_again() -> None:
    backend = WarmToyBackend()
    with backend:
        first = backend.warm.pid
        assert first is not None and alive(first)
    assert not alive(first)
    with backend:
        second = backend.warm.pid
        assert second is not None and second != first and alive(second)
    assert not alive(second) and (backend.prepared, backend.closed) == (2, 2)


def test_get_backend_prepares_and_close_backends_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(domains.BACKENDS._loaded, "warmtoy", WarmToyBackend)
    backend = domains.get_backend("warmtoy")
    assert isinstance(backend, WarmToyBackend) and backend.prepared == 1
    assert domains.get_backend("warmtoy") is backend  # one per process, prepared once
    pid = backend.warm.pid
    assert pid is not None and alive(pid)
    domains.close_backends()
    assert backend.closed == 1 and not alive(pid)
    again = domains.get_backend("warmtoy")
    assert again is not backend and again.prepared == 1 and again.warm.pid is not None
    domains.close_backends()




def test_cad_close_stops_its_warm_interpreter() -> None:
    pytest.importorskip("cadquery")
    from ecot.domains.cad.backend import CadBackend

    backend = CadBackend()
    backend.prepare()
    first = backend.runner().pid
    assert first is not None and alive(first)
    backend.close()
    assert not alive(first)
    backend.prepare()
    second = backend.runner().pid
    assert second is not None and second != first and alive(second)
    backend.close()
    assert not alive(second)


class MarkingBackend(WarmToyBackend):
    """Leaves a file when closed, so a test can see that a worker process closed it."""

    domain = "marking"
    marker = ""

    def close(self) -> None:
        super().close()
        Path(self.marker).write_text("closed", encoding="utf-8")


def open_marking_backend(marker: str) -> int:
    """Runs in a pool worker: get (and so prepare) a backend there; the worker's pid."""
    MarkingBackend.marker = marker
    domains.BACKENDS._loaded["marking"] = MarkingBackend
    backend = domains.get_backend("marking")
    assert backend.warm.pid is not None
    return os.getpid()


def test_a_local_worker_closes_its_backends_when_the_pool_closes(tmp_path: Path) -> None:
    marker = tmp_path / "closed"
    pool = LocalPool(workers=1)
    try:
        worker = asyncio.run(pool.submit(Work(open_marking_backend, (str(marker),))))
        assert worker != os.getpid() and not marker.exists()
    finally:
        pool.close()
    assert marker.read_text(encoding="utf-8") == "closed"


def test_a_ray_actor_body_closes_its_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot.executors.ray_pool import WorkerBody

    monkeypatch.setitem(domains.BACKENDS._loaded, "warmtoy", WarmToyBackend)
    body = WorkerBody(None)
    backend = body.call(domains.get_backend, ("warmtoy",))
    pid = backend.warm.pid
    assert pid is not None and alive(pid)
    body.close()
    assert backend.closed == 1 and not alive(pid)


@pytest.mark.parametrize("fails", [False, True])
def test_a_cli_command_closes_the_backends_it_used(monkeypatch: pytest.MonkeyPatch, fails: bool) -> None:
    import argparse

    from ecot.cli.main import _run_command
    from ecot.core.errors import EcotError

    monkeypatch.setitem(domains.BACKENDS._loaded, "warmtoy", WarmToyBackend)
    used: list[WarmToyBackend] = []

    def command(args: argparse.Namespace) -> int:
        backend = domains.get_backend("warmtoy")
        assert isinstance(backend, WarmToyBackend)
        used.append(backend)
        if fails:
            raise EcotError("the command failed after starting its backend")
        return 0

    assert _run_command(argparse.Namespace(_run=command)) == (2 if fails else 0)
    pid = used[0].warm.pid
    assert used[0].closed == 1 and (pid is None or not alive(pid))


class SlowToyBackend(Backend):
    """Prepares until the test lets it go, like cad or gpu importing their libraries."""

    domain = "slowtoy"
    started = threading.Event()
    release = threading.Event()
    instances = 0

    def __init__(self) -> None:
        type(self).instances += 1

    def prepare(self) -> None:
        self.started.set()
        assert self.release.wait(10)

    def evaluate(self, task: Task, options: object, candidate: str) -> Outcome:
        return Outcome(PASS, "")


def test_one_domain_preparing_does_not_hold_up_another(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(domains.BACKENDS._loaded, "slowtoy", SlowToyBackend)
    monkeypatch.setitem(domains.BACKENDS._loaded, "warmtoy", WarmToyBackend)
    got: list[Backend] = []
    slow = [threading.Thread(target=lambda: got.append(domains.get_backend("slowtoy"))) for _ in range(2)]
    try:
        for thread in slow:
            thread.start()
        assert SlowToyBackend.started.wait(10)
        fast = domains.get_backend("warmtoy")  # returns while slowtoy is still preparing
        assert isinstance(fast, WarmToyBackend) and not got
    finally:
        SlowToyBackend.release.set()
        for thread in slow:
            thread.join(10)
        domains.close_backends()
    assert len(got) == 2 and got[0] is got[1] and SlowToyBackend.instances == 1  # prepared once for both callers
