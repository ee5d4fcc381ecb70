"""The Ray engine: warm actors per pool (one pool per domain's backend), placed by declared resources.

Each pool is a set of long-lived actors created with the resources its work requires (CPU, GPU,
memory, the node's toolchain mark; see ecot.executors.ray_nodes), so GPU work only lands on GPU nodes
and a domain's evaluations only on nodes with its toolchain. An actor warms its backend once and then
serves calls one at a time; up to `depth` calls are queued per actor so the RPC hides behind the work.
Pools grow on demand up to `workers` actors; a pool that cannot get its first worker because others
hold the resources takes one over (see ecot.executors.ray_pool), so every pool in use gets a share.

Faults: a call whose actor dies (process killed, node lost) is resubmitted to another actor, up to
`retries` times; the dead actor is replaced. The driver alone writes the store, after a result comes
back, so a resubmitted evaluation never adds a second turn. Back-pressure: at most `max_pending` calls
are submitted and not yet returned.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.executors.ray_pool import (
    GRACE_S,
    Actor,
    ActorPool,
    Starting,
    WorkerBody,
    choose_victim,
)
from ecot.executors.work import (
    ExecutorStats,
    PendingGate,
    Work,
    WorkerLost,
    evaluate_on,
)

log = logging.getLogger(__name__)
CLOSE_S = 15.0  # how long the actors may take to close their backends when the executor closes

START_FAILURES = 3  # consecutive failed actor starts before a pool gives up
POLL_S = 0.5  # how often a starved pool looks for a worker to take over


class RayExecutor:
    engine = "ray"

    def __init__(
        self,
        address: str = "local",
        workers: int | None = None,
        max_pending: int | None = None,
        retries: int = 2,
        depth: int = 2,
        init_options: dict[str, Any] | None = None,
    ) -> None:
        import ray

        from ecot.executors import ray_nodes as nodes

        self._ray, self._nodes = ray, nodes
        self._owns = nodes.connect(ray, address, workers, init_options or {})
        self.address = address
        self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.retries, self.depth = retries, depth
        self.stats = ExecutorStats()
        self.gate = PendingGate(max_pending or 2 * depth * self.workers, self.stats)
        self._toolchain_marks = nodes.declares_toolchains(ray)
        if not self._toolchain_marks:
            log.warning("no Ray node declares toolchain resources: assuming every node has every toolchain")
        self._actor_class = ray.remote(WorkerBody)
        self._pools: dict[str, ActorPool] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cond: asyncio.Condition | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._lost: tuple[type[BaseException], ...] = _lost_errors(ray)

    # -- the interface -------------------------------------------------------------------------------
    async def submit(self, work: Work) -> Any:
        pool = self._pool(work)
        last: BaseException | None = None
        async with self.gate.slot():
            for attempt in range(self.retries + 1):
                actor = await self._acquire(pool)
                try:
                    result = await _wait(actor.handle.call.remote(work.fn, work.args))
                except self._lost as err:
                    last = err
                    await self._drop(pool, actor)
                    if attempt < self.retries:
                        self.stats.retried += 1
                        log.info("worker %d of pool %s lost (%s); resubmitting", actor.pid, pool.key, type(err).__name__)
                    continue
                except self._ray.exceptions.RayTaskError as err:
                    await self._release(pool, actor)
                    raise err.as_instanceof_cause() from None
                await self._release(pool, actor)
                return result
        raise WorkerLost(f"pool {pool.key}: the worker died on each of {self.retries + 1} attempts ({type(last).__name__})")

    async def evaluate(self, task: Task, code: str) -> Outcome:
        return await evaluate_on(self, task, code)

    def warm(self, domains: Iterable[str]) -> None:
        """Nothing ahead: an actor is started with its pool's warm-up (Work.warmup) when work first needs it."""

    def placements(self) -> dict[str, list[tuple[int, str]]]:
        """(pid, node id) of every ready actor, per pool."""
        return {key: [(a.pid, a.node) for a in pool.ready] for key, pool in self._pools.items()}

    def close(self) -> None:
        ready = [a.handle for pool in self._pools.values() for a in pool.ready]
        self._close_backends(ready)
        for pool in self._pools.values():
            for handle in [a.handle for a in pool.ready] + [s.handle for s in pool.starting]:
                self._kill(handle)
        self._pools.clear()
        if self._owns:
            self._ray.shutdown()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- pools and actors ------------------------------------------------------------------------------
    def _pool(self, work: Work) -> ActorPool:
        pool = self._pools.get(work.pool)
        if pool is None:
            options = self._nodes.actor_options(work.requires, self._toolchain_marks)
            self._nodes.check_feasible(self._ray, work.pool, options)
            options.update(max_restarts=0, max_task_retries=0)  # this engine replaces and resubmits itself
            pool = self._pools[work.pool] = ActorPool(work.pool, options, work.warmup, self.workers)
        return pool

    def _condition(self) -> asyncio.Condition:
        """One condition per event loop; a new loop (a later asyncio.run) starts clean bookkeeping."""
        loop = asyncio.get_running_loop()
        if self._cond is None or self._loop is not loop:
            self._loop, self._cond = loop, asyncio.Condition()
            for pool in self._pools.values():
                pool.waiting = 0
                for actor in pool.ready:
                    actor.outstanding = 0
                for starting in pool.starting:  # their readiness waits died with the old loop
                    self._watch(pool, starting.handle)
        return self._cond

    async def _acquire(self, pool: ActorPool) -> Actor:
        cond = self._condition()
        async with cond:
            pool.waiting += 1
            try:
                while True:
                    if pool.failed is not None:
                        raise pool.failed
                    if pool.should_grow():
                        self._start_actor(pool)
                    actor = pool.pick(self.depth)
                    if actor is not None:
                        actor.outstanding += 1
                        return actor
                    if pool.starved_for() > GRACE_S:
                        self._rebalance(pool)
                    try:  # a starved pool wakes up now and then to look for a worker to take over
                        await asyncio.wait_for(cond.wait(), POLL_S if pool.starting else None)
                    except TimeoutError:
                        pass
            finally:
                pool.waiting -= 1

    def _start_actor(self, pool: ActorPool) -> None:
        handle = self._actor_class.options(**pool.options).remote(pool.warmup)
        pool.starting.append(Starting(handle))
        self._watch(pool, handle)

    def _watch(self, pool: ActorPool, handle: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._await_ready(pool, handle))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _await_ready(self, pool: ActorPool, handle: Any) -> None:
        try:
            pid, node = await _wait(handle.ready.remote())
            error: BaseException | None = None
        except Exception as err:  # noqa: BLE001 - a failed start is counted, then reported to callers
            error = err
        cond = self._condition()
        async with cond:
            if not pool.forget(handle):
                return  # already counted
            if error is None:
                pool.start_failures = 0
                pool.ready.append(Actor(handle, pid, node))
            else:
                self._kill(handle)
                pool.start_failures += 1
                log.warning("a worker of pool %s failed to start: %s", pool.key, error)
                if pool.start_failures >= START_FAILURES:
                    pool.failed = EcotError(f"workers of pool '{pool.key}' fail to start: {error}")
            cond.notify_all()

    async def _release(self, pool: ActorPool, actor: Actor) -> None:
        cond = self._condition()
        async with cond:
            actor.outstanding -= 1
            if actor.retiring and actor.outstanding == 0:
                self._retire(pool, actor)
            cond.notify_all()

    async def _drop(self, pool: ActorPool, actor: Actor) -> None:
        cond = self._condition()
        async with cond:
            self._retire(pool, actor)
            cond.notify_all()

    def _rebalance(self, starved: ActorPool) -> None:
        """Retire one actor of another pool, on a node that can host `starved`'s worker."""
        now = time.monotonic()
        if now - starved.last_rebalance < GRACE_S or any(a.retiring for p in self._pools.values() for a in p.ready):
            return  # one at a time, and time for the freed resources to start the starved pool's worker
        starved.last_rebalance = now
        need = self._nodes.demand(starved.options)
        hosts = {n["NodeID"] for n in self._nodes.alive_nodes(self._ray) if self._nodes.fits(n.get("Resources", {}), need)}
        chosen = choose_victim(self._pools.values(), starved, hosts.__contains__)
        if chosen is None:
            return
        pool, actor = chosen
        actor.retiring = True
        self.stats.rebalanced += 1
        log.info("retiring worker %d of pool %s so pool %s gets one", actor.pid, pool.key, starved.key)
        if actor.outstanding == 0:
            self._retire(pool, actor)

    def _retire(self, pool: ActorPool, actor: Actor) -> None:
        if actor in pool.ready:
            pool.ready.remove(actor)
        self._kill(actor.handle)

    def _close_backends(self, handles: list[Any]) -> None:
        """Let the actors close their backends (a kill skips every exit hook), waiting a bounded time."""
        try:
            refs = [handle.close.remote() for handle in handles]
            if refs:
                self._ray.wait(refs, num_returns=len(refs), timeout=CLOSE_S)
        except Exception:  # noqa: BLE001 - an actor already gone, or the cluster going away: kill anyway
            pass

    def _kill(self, handle: Any) -> None:
        try:
            self._ray.kill(handle, no_restart=True)
        except Exception:  # noqa: BLE001 - already dead, or the cluster is going away
            pass


async def _wait(ref: Any) -> Any:
    # ObjectRef.future() works for both a cluster connection and Ray Client
    return await asyncio.wrap_future(ref.future())


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Errors that mean the worker (not the work) failed."""
    errors = ray.exceptions
    names = ("RayActorError", "WorkerCrashedError", "NodeDiedError", "ObjectLostError", "OwnerDiedError", "LocalRayletDiedError")
    return tuple(getattr(errors, name) for name in names if hasattr(errors, name))
