"""Driver-side bookkeeping of the Ray engine's warm actors (no Ray import: plain data and rules).

A pool is the set of actors serving one kind of work (one domain's backend, one world model). It
grows on demand up to its size. A pool whose new actor cannot be placed because other pools hold
the resources is *starved*; after a grace period one actor of another pool, on a node that could host
the starved pool's worker, is retired: an idle one at once, a busy one after its queued calls drain
(and only from a pool that keeps another actor), so every pool in use gets at least one worker.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

GRACE_S = 2.0  # a new actor normally starts within this; longer means it waits for resources


class WorkerBody:
    """What runs inside each actor (wrapped with ray.remote by the engine)."""

    def __init__(self, warmup: tuple[Callable[..., Any], tuple[Any, ...]] | None) -> None:
        if warmup is not None:
            fn, args = warmup
            fn(*args)

    def ready(self) -> tuple[int, str]:
        import ray

        return os.getpid(), ray.get_runtime_context().get_node_id()

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        return fn(*args)

    def close(self) -> None:
        """Close this actor's backends (their warm interpreters) before the engine kills it."""
        from ecot.domains import close_backends

        close_backends()


@dataclass(eq=False)
class Actor:
    handle: Any
    pid: int
    node: str
    outstanding: int = 0  # calls submitted and not yet returned
    retiring: bool = False  # gets no new calls; killed once its queue drains


@dataclass(eq=False)
class Starting:
    handle: Any
    since: float = field(default_factory=time.monotonic)


@dataclass(eq=False)
class ActorPool:
    key: str
    options: dict[str, Any]  # Ray actor options (resources)
    warmup: tuple[Callable[..., Any], tuple[Any, ...]] | None
    size: int
    ready: list[Actor] = field(default_factory=list)
    starting: list[Starting] = field(default_factory=list)
    waiting: int = 0
    start_failures: int = 0
    failed: Exception | None = None
    last_rebalance: float = 0.0

    def active(self) -> list[Actor]:
        return [a for a in self.ready if not a.retiring]

    def pick(self, depth: int) -> Actor | None:
        free = [a for a in self.active() if a.outstanding < depth]
        return min(free, key=lambda a: a.outstanding) if free else None

    def should_grow(self) -> bool:
        idle = any(a.outstanding == 0 for a in self.active())
        total = len(self.active()) + len(self.starting)
        return not idle and total < self.size and len(self.starting) < self.waiting

    def starved_for(self) -> float:
        """Seconds this pool has waited for its first worker (0 when it has one or wants none)."""
        if self.waiting == 0 or self.active() or not self.starting:
            return 0.0
        return time.monotonic() - min(s.since for s in self.starting)

    def forget(self, handle: Any) -> bool:
        """Drop a starting handle; False when it was not (or no longer) starting."""
        kept = [s for s in self.starting if s.handle is not handle]
        found = len(kept) != len(self.starting)
        self.starting = kept
        return found


def choose_victim(pools: Iterable[ActorPool], starved: ActorPool, hosts: Callable[[str], bool]) -> tuple[ActorPool, Actor] | None:
    """The actor to retire for `starved`: on a node that can host it; idle first, then the biggest pool."""
    best: tuple[tuple[int, int], ActorPool, Actor] | None = None
    for pool in pools:
        if pool is starved:
            continue
        active = pool.active()
        for actor in active:
            if not hosts(actor.node) or (actor.outstanding and len(active) < 2):
                continue
            rank = (actor.outstanding, -len(active))
            if best is None or rank < best[0]:
                best = (rank, pool, actor)
    return None if best is None else (best[1], best[2])
