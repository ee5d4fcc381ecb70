"""What executors run and share: the unit of work, the placement vocabulary, the executor interface,
the evaluation work functions (run inside workers) and the back-pressure gate.

Both engines (ecot.executors.local, ecot.executors.ray) import this module; it imports neither.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome, infra_error
from ecot.core.task import Task

# The placement vocabulary of Backend.requires and Work.requires (amounts per running task):
#   "cpu": 2            CPU cores (default 1)
#   "gpu": 1            GPUs (GPU work lands only on GPU nodes)
#   "memory_mb": 4096   memory reserved for the worker
#   "toolchain:<name>"  the node has that toolchain (a presence mark: any amount > 0 means "needed")
#   any other name      a custom resource that nodes declare (`ray start --resources`)
# Every evaluation implicitly requires "toolchain:<its domain>".
CPU, GPU, MEMORY_MB, TOOLCHAIN = "cpu", "gpu", "memory_mb", "toolchain:"
PLACEMENT_KEYS = (CPU, GPU, MEMORY_MB)


class WorkerLost(EcotError):
    """Every attempt at a task lost its worker (process killed, node gone)."""


@dataclass(frozen=True)
class Work:
    """One unit of work: fn(*args) in a worker. fn must be importable (module-level) and pure:
    it may run more than once when a worker dies mid-task."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    pool: str = "default"  # work sharing warm state; Ray keeps one set of actors per pool
    requires: Mapping[str, float] = field(default_factory=dict)
    warmup: tuple[Callable[..., Any], tuple[Any, ...]] | None = None  # run once per new worker


@dataclass
class ExecutorStats:
    submitted: int = 0
    completed: int = 0
    retried: int = 0  # tasks resubmitted after their worker died
    peak_pending: int = 0  # most tasks submitted and not yet returned at one moment
    rebalanced: int = 0  # Ray: warm workers retired to give a pool with none its share


@runtime_checkable
class Executor(Protocol):
    """Where evaluations and other work run: the local pool or Ray. Callers hold executors as this type."""

    engine: str  # "local" or "ray"
    workers: int
    stats: ExecutorStats

    async def submit(self, work: Work) -> Any: ...
    async def evaluate(self, task: Task, code: str) -> Outcome: ...
    def warm(self, domains: Iterable[str]) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...


# -- work functions (run inside workers) -----------------------------------------------------------
def evaluate(task: Task, code: str) -> Outcome:
    """Run one candidate on the task's real backend (in a worker process)."""
    from ecot.domains import get_backend

    return get_backend(task.domain).run(task, code)


def warm_backend(domain: str) -> None:
    """Start a worker with its backend checked and loaded, so the first task pays nothing."""
    from ecot.domains import get_backend

    get_backend(domain)


def worker_ready() -> None:
    """Nothing but what every evaluation imports first: a new worker is started and loaded with it."""
    import ecot.domains  # noqa: F401 - the registry of backends, imported before the first task arrives


def worker_started(spare_cores: bool = False) -> None:
    """Runs first in each local worker process: its backends are closed when the worker exits. Pool
    workers leave through multiprocessing, which runs its finalizers but not atexit hooks; this one
    runs before the sandbox servers' (priority 10), whose shared folder the warm interpreters use.
    spare_cores: the pool has fewer workers than the machine has cores, so backends may run one
    evaluation's independent steps side by side (Backend.overlap: rtl runs Yosys beside the simulation)."""
    from multiprocessing import util

    if spare_cores:
        from ecot.domains.base import Backend

        Backend.overlap = True

    util.Finalize(None, close_worker_backends, exitpriority=20)


def close_worker_backends() -> None:
    from ecot.domains import close_backends

    close_backends()


def spin(seconds: float, busy: bool = False) -> tuple[int, float]:
    """Synthetic work of a fixed duration (benchmarks, health checks): returns (pid, seconds spent)."""
    start = time.perf_counter()
    if busy:
        while time.perf_counter() - start < seconds:
            pass
    elif seconds > 0:
        time.sleep(seconds)
    return os.getpid(), time.perf_counter() - start


def backend_requires(domain: str) -> dict[str, float]:
    from ecot.domains import BACKENDS

    return {f"{TOOLCHAIN}{domain}": 1.0, **BACKENDS.get(domain).requires}


def evaluation_work(task: Task, code: str) -> Work:
    domain = task.domain
    return Work(evaluate, (task, code), f"backend:{domain}", backend_requires(domain), (warm_backend, (domain,)))


def lost_outcome(err: Exception) -> Outcome:
    return infra_error(f"the backend worker was lost on every attempt: {err}")


async def evaluate_on(executor: Executor, task: Task, code: str) -> Outcome:
    """One candidate on its task's backend through either engine; a worker lost on every try is Infra_Error."""
    try:
        outcome: Outcome = await executor.submit(evaluation_work(task, code))
        return outcome
    except WorkerLost as err:
        return lost_outcome(err)


# -- shared machinery --------------------------------------------------------------------------------
WORKER_MEMORY_MB = 1024  # what one worker may hold at its peak (warm backends and a running job), unless a domain says more


@dataclass(frozen=True)
class Machine:
    """What this machine lends to workers: cores (those this process may run on) and memory available now."""

    cores: int
    memory_mb: float | None  # None when unknown

    @classmethod
    def here(cls) -> Machine:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
        return cls(max(1, cores), _available_memory_mb())

    def workers(self, per_worker_mb: float = WORKER_MEMORY_MB) -> int:
        """One worker per core, at most one per `per_worker_mb` of available memory, at least one."""
        by_memory = int(self.memory_mb // per_worker_mb) if self.memory_mb is not None else self.cores
        return max(1, min(self.cores, by_memory))

    def describe(self, workers: int, per_worker_mb: float = WORKER_MEMORY_MB) -> str:
        """'2 workers (2 cores, 21.9 GiB free; default 2: one per core)'."""
        memory = f", {self.memory_mb / 1024:.1f} GiB free" if self.memory_mb is not None else ""
        limit = self.workers(per_worker_mb)
        bound = "one per core" if limit == self.cores else f"{per_worker_mb / 1024:g} GiB each"
        return f"{workers} worker{'s' if workers != 1 else ''} ({self.cores} cores{memory}; default {limit}: {bound})"


def _available_memory_mb() -> float | None:
    """MemAvailable, or less where a cgroup (a container) caps this process's memory."""
    found: float | None = None
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    try:
        cap, used = (Path("/sys/fs/cgroup") / name for name in ("memory.max", "memory.current"))
        text = cap.read_text().strip()
        if text != "max":
            room = (int(text) - int(used.read_text())) / 2**20
            found = room if found is None else min(found, room)
    except (OSError, ValueError):
        pass
    return found


def default_workers(per_worker_mb: float = WORKER_MEMORY_MB) -> int:
    """Workers this machine runs side by side by default: one per core, fewer where memory is short."""
    return Machine.here().workers(per_worker_mb)


def worker_memory_mb(domains: Iterable[str]) -> float:
    """The memory one worker needs for these domains: the most any of their backends declares."""
    from ecot.domains import BACKENDS

    declared = [float(BACKENDS.get(d).requires.get(MEMORY_MB, 0)) for d in domains]
    return max([WORKER_MEMORY_MB, *declared])


class PendingGate:
    """At most `limit` tasks submitted and not yet returned (back-pressure on the driver).

    Usable from successive event loops (each asyncio.run gets a fresh semaphore)."""

    def __init__(self, limit: int, stats: ExecutorStats) -> None:
        if limit < 1:
            raise EcotError("max_pending must be >= 1")
        self.limit = limit
        self.stats = stats
        self.pending = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sem: asyncio.Semaphore | None = None

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._loop is not loop:
            self._loop, self._sem = loop, asyncio.Semaphore(self.limit)
        return self._sem

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with self._semaphore():
            self.pending += 1
            self.stats.submitted += 1
            self.stats.peak_pending = max(self.stats.peak_pending, self.pending)
            try:
                yield
            finally:
                self.pending -= 1
        self.stats.completed += 1
