"""Where backend work runs: a local pool of worker processes (default). Ray plugs in behind the same API.

Each worker keeps its backends warm (one instance per domain, see backends.get_backend). A worker
that dies mid-evaluation (a segfaulting toolchain, the OOM killer) breaks the pool; the pool is
rebuilt and the evaluation reported as Infra_Error so the loop retries it, never blaming the code.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from ecot.outcome import Outcome, infra_error
from ecot.task import Task


def evaluate(task: Task, code: str) -> Outcome:
    """Run one candidate on the task's real backend (in a worker process)."""
    from ecot.backends import get_backend

    return get_backend(task.domain).run(task, code)


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


class LocalPool:
    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # forkserver: workers do not inherit the event loop, sqlite handles or model weights
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("forkserver"))

    async def evaluate(self, task: Task, code: str) -> Outcome:
        loop = asyncio.get_running_loop()
        pool = self._pool
        try:
            return await loop.run_in_executor(pool, evaluate, task, code)
        except BrokenProcessPool:
            if self._pool is pool:
                pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            return infra_error("a backend worker process died during the evaluation; it was replaced")

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
