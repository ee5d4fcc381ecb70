"""Where backend work runs: one executor interface, two engines.

- `LocalPool` (default): worker processes on this machine, no Ray needed.
- `RayExecutor` (ecot.executors.ray): warm actors on a Ray cluster, placed by declared resources.

Both run `Work`: a module-level function plus its arguments, tagged with a *pool* (work that shares
warm state, e.g. one domain's backend) and what it *requires* (see PLACEMENT_KEYS). The synthesis loop
(through RealEnvironment) and `ecot eval` submit through this interface; so can world-model prediction
(`submit(Work(predict_fn, ..., pool="icwm:<name>", requires={"gpu": 1}))`).

Both engines bound the evaluations submitted and not yet returned (`max_pending`): the driver's memory
stays flat however many trajectories are in flight. A worker that dies mid-task (a segfaulting
toolchain, the OOM killer, a lost node) is replaced and the task resubmitted, up to `retries` times;
only then is the evaluation reported as Infra_Error, which the loop never blames on the code. The store
is written by the driver alone, after a result comes back, so a resubmitted task never adds a turn.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.executors.work import (
    CPU,
    GPU,
    MEMORY_MB,
    PLACEMENT_KEYS,
    TOOLCHAIN,
    Executor,
    ExecutorStats,
    Machine,
    PendingGate,
    Work,
    WorkerLost,
    backend_requires,
    default_workers,
    evaluate,
    evaluate_on,
    evaluation_work,
    lost_outcome,
    spin,
    warm_backend,
    worker_ready,
    worker_started,
)

# The shared vocabulary stays importable from here, where callers have always found it.
__all__ = [
    "CPU",
    "Executor",
    "ExecutorStats",
    "GPU",
    "LocalPool",
    "MEMORY_MB",
    "PLACEMENT_KEYS",
    "PendingGate",
    "TOOLCHAIN",
    "Work",
    "WorkerLost",
    "backend_requires",
    "default_workers",
    "evaluate",
    "evaluation_work",
    "lost_outcome",
    "make_executor",
    "spin",
    "warm_backend",
]


FORKSERVER_PRELOAD = ("__main__", "ecot.executors.work", "ecot.domains")  # __main__: functions a script defines


# -- the local engine --------------------------------------------------------------------------------
class LocalPool:
    """Worker processes on this machine; each keeps its backends warm (one instance per domain).

    Pools, requirements and warm-ups of `Work` matter only on a cluster: here every worker serves
    every pool, and warm state lives in per-process caches (backends.get_backend)."""

    engine = "local"

    def __init__(self, workers: int | None = None, max_pending: int | None = None, retries: int = 2) -> None:
        self.workers = workers or default_workers()
        self.retries = retries
        self.stats = ExecutorStats()
        self.gate = PendingGate(max_pending or 4 * self.workers, self.stats)
        self._pool = self._new_pool()
        self._ahead([(worker_ready, ())] * self.workers)  # the workers start while the caller loads its tasks

    def warm(self, domains: Iterable[str]) -> None:
        """Load these domains' backends in every worker before the first task (their warm state, e.g. a
        sandbox or an interpreter, starts then); nothing waits for it."""
        self._ahead([(warm_backend, (domain,)) for _ in range(self.workers) for domain in sorted(set(domains))])

    def _ahead(self, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> None:
        """Submit calls whose results nobody reads, from a thread: starting a worker blocks the submitter."""
        pool = self._pool

        def submit() -> None:
            try:
                for fn, args in calls:
                    pool.submit(fn, *args)
            except (RuntimeError, BrokenProcessPool):  # the pool was closed or lost meanwhile: nothing to warm
                pass

        threading.Thread(target=submit, name="ecot-pool-warm-up", daemon=True).start()

    def _new_pool(self) -> ProcessPoolExecutor:
        # forkserver: workers do not inherit the event loop, sqlite handles or model weights; what every
        # worker imports is imported once, by the fork server, before it forks them
        context = get_context("forkserver")
        context.set_forkserver_preload(list(FORKSERVER_PRELOAD))
        spare = self.workers < Machine.here().cores  # the cores no worker uses are the evaluations' to share
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=worker_started, initargs=(spare,))

    async def submit(self, work: Work) -> Any:
        loop = asyncio.get_running_loop()
        async with self.gate.slot():
            for attempt in range(self.retries + 1):
                pool = self._pool
                try:
                    return await loop.run_in_executor(pool, work.fn, *work.args)
                except BrokenProcessPool:
                    # one dead worker breaks the whole pool: every task in it is resubmitted
                    if self._pool is pool:
                        pool.shutdown(wait=False, cancel_futures=True)
                        self._pool = self._new_pool()
                    if attempt < self.retries:
                        self.stats.retried += 1
            raise WorkerLost(f"a worker process died on each of {self.retries + 1} attempts")

    async def evaluate(self, task: Task, code: str) -> Outcome:
        return await evaluate_on(self, task, code)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_executor(ray_address: str | None = None, workers: int | None = None, max_pending: int | None = None) -> Executor:
    """The local pool, or (with an address: "local", "auto", "ray://host:port", "host:port") Ray."""
    # None means the default; 0 must not silently mean it too.
    for flag, value in (("--workers", workers), ("--max-pending", max_pending)):
        if value is not None and value < 1:
            raise EcotError(f"{flag} must be >= 1, got {value}")
    if not ray_address:
        return LocalPool(workers, max_pending)
    from ecot.executors.ray import RayExecutor  # imports ray only now

    return RayExecutor(ray_address, workers=workers, max_pending=max_pending)
