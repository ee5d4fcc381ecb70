"""The Ray engine on a real multi-node Ray cluster started inside the test (all nodes on this machine).

Nodes: a head with no CPU for work; two nodes that declare the RTL toolchain; one that does not but
offers a GPU (as Ray accounts it) and a custom resource. The synthesis loop runs the bundled RTL suite with the deterministic
`repair` generator; its store must equal the local pool's, also when a worker process is killed
mid-task and when a node is lost mid-task.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import signal
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ecot.executors.local import LocalPool, Work, spin
from ecot.generators.repair import RepairGenerator
from ecot.run.loop import LoopSettings, RealEnvironment, SynthesisLoop
from ecot.store import TrajectoryStore
from ecot.tasks.suite import bundled_suite_path, load_suite

ray = pytest.importorskip("ray", reason="ray not installed")
from ray.cluster_utils import Cluster  # noqa: E402

from ecot.executors.ray import RayExecutor  # noqa: E402
from ecot.executors.ray_nodes import PlacementError  # noqa: E402

pytestmark = pytest.mark.slow

for _tool in ("iverilog", "vvp", "yosys", "verilator"):
    if shutil.which(_tool) is None:
        pytest.skip(f"{_tool} not installed", allow_module_level=True)

SMALL = dict(object_store_memory=80 * 2**20)
FAST_FAILURE_DETECTION = {"health_check_period_ms": 500, "health_check_failure_threshold": 3, "health_check_initial_delay_ms": 0}
TASKS = load_suite(bundled_suite_path("rtl"))[:8]


class RayTestCluster:
    def __init__(self) -> None:
        head = dict(num_cpus=0, include_dashboard=False, _system_config=FAST_FAILURE_DETECTION, **SMALL)
        self.cluster = Cluster(initialize_head=True, head_node_args=head)
        self.rtl_nodes = [self.add(resources={"toolchain:rtl": 1}) for _ in range(2)]
        self.other = self.add(resources={"special": 1}, num_gpus=1)  # a GPU node, as Ray accounts it
        ray.init(address=self.cluster.address, include_dashboard=False, log_to_driver=False)
        self.cluster.wait_for_nodes()

    def add(self, **args: Any) -> Any:
        return self.cluster.add_node(num_cpus=1, **SMALL, **args)

    def close(self) -> None:
        ray.shutdown()
        self.cluster.shutdown()


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayTestCluster]:
    made = RayTestCluster()
    try:
        yield made
    finally:
        made.close()


def synth(executor: Any, store_path: Path, during: Callable[[], Awaitable[None]] | None = None) -> list[tuple]:
    """Run the loop over TASKS on `executor`; `during` runs alongside (the fault injector)."""
    store = TrajectoryStore(store_path)
    loop = SynthesisLoop(RepairGenerator(), RealEnvironment(executor), store, LoopSettings())
    run_id = store.begin_run({"test": store_path.name})

    async def main() -> Any:
        side = asyncio.ensure_future(during()) if during else None
        summary = await loop.run(run_id, TASKS)
        if side is not None:
            side.cancel()
        return summary

    summary = asyncio.run(main())
    store.close()
    assert summary.statuses["passed"] == len(TASKS), summary.statuses
    return stored_turns(store_path)


def stored_turns(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT t.task_id, t.sample, u.idx, u.label, u.code FROM turns u JOIN trajectories t ON u.trajectory_id = t.id"
        ).fetchall()
    return sorted((task, sample, idx, label, hashlib.sha256((code or "").encode()).hexdigest()) for task, sample, idx, label, code in rows)


@pytest.fixture(scope="module")
def reference_turns(tmp_path_factory: pytest.TempPathFactory) -> list[tuple]:
    with LocalPool(2) as pool:
        turns = synth(pool, tmp_path_factory.mktemp("local") / "local.db")
    assert len(turns) > len(TASKS)  # the repair generator needs corrections: a multi-turn run
    return turns


def busy_actor(executor: RayExecutor, nodes: set[str] | None = None) -> Any:
    pool = executor._pools.get("backend:rtl")  # noqa: SLF001 - the test picks its victim
    for actor in pool.ready if pool else []:
        if actor.outstanding > 0 and (nodes is None or actor.node in nodes):
            return actor
    return None


def fill_rtl_pool(executor: RayExecutor, workers: int) -> None:
    """Evaluate until the pool has all its workers, so a run starts with every node busy."""
    task = TASKS[0]

    async def burst() -> None:
        await asyncio.gather(*(executor.evaluate(task, task.reference or "") for _ in range(workers)))

    deadline = time.monotonic() + 60
    while len(executor.placements().get("backend:rtl", [])) < workers and time.monotonic() < deadline:
        asyncio.run(burst())


def test_same_store_as_the_local_pool_and_placed_on_toolchain_nodes(cluster: RayTestCluster, reference_turns: list[tuple], tmp_path: Path) -> None:
    with RayExecutor(cluster.cluster.address, workers=2) as executor:
        assert synth(executor, tmp_path / "ray.db") == reference_turns
        placed = {node for _, node in executor.placements()["backend:rtl"]}
        assert placed and placed <= {n.node_id for n in cluster.rtl_nodes}
        pid, _ = asyncio.run(executor.submit(Work(spin, (0.0,), pool="special", requires={"special": 1})))
        assert executor.placements()["special"] == [(pid, cluster.other.node_id)]
        pid, _ = asyncio.run(executor.submit(Work(spin, (0.0,), pool="gpu", requires={"gpu": 1})))
        assert executor.placements()["gpu"] == [(pid, cluster.other.node_id)]
        with pytest.raises(PlacementError, match="GPU"):
            asyncio.run(executor.submit(Work(spin, (0.0,), pool="gpus", requires={"gpu": 2})))


def test_worker_killed_mid_task_is_retried_and_each_turn_stored_once(cluster: RayTestCluster, reference_turns: list[tuple], tmp_path: Path) -> None:
    with RayExecutor(cluster.cluster.address, workers=2) as executor:

        async def kill_busy_workers() -> None:
            kills = 0
            while kills < 3 and executor.stats.retried < 2:
                actor = busy_actor(executor)
                if actor is None:
                    await asyncio.sleep(0.01)
                    continue
                os.kill(actor.pid, signal.SIGKILL)
                kills += 1
                await asyncio.sleep(0.3)

        assert synth(executor, tmp_path / "killed.db", kill_busy_workers) == reference_turns
        assert executor.stats.retried >= 1


def test_a_precise_kill_reruns_the_task_on_a_fresh_worker(cluster: RayTestCluster) -> None:
    with RayExecutor(cluster.cluster.address, workers=1) as executor:
        first, _ = asyncio.run(executor.submit(Work(spin, (0.0,), pool="kill")))

        async def main() -> tuple[int, float]:
            running = asyncio.ensure_future(executor.submit(Work(spin, (1.0,), pool="kill")))
            await asyncio.sleep(0.3)
            os.kill(first, signal.SIGKILL)
            return await running

        pid, spent = asyncio.run(main())
        assert pid != first and spent >= 1.0 and executor.stats.retried == 1


def test_a_pool_keeps_growing_across_event_loops(cluster: RayTestCluster) -> None:
    noop = Work(spin, (0.0,), pool="loops")

    async def burst(executor: RayExecutor) -> None:
        await asyncio.gather(*(executor.submit(noop) for _ in range(4)))

    with RayExecutor(cluster.cluster.address, workers=2) as executor:
        deadline = time.monotonic() + 30
        while len(executor.placements().get("loops", [])) < 2 and time.monotonic() < deadline:
            asyncio.run(burst(executor))  # each run is a new event loop; starting workers are kept
        assert len(executor.placements()["loops"]) == 2


def test_node_lost_mid_task_is_retried_elsewhere(cluster: RayTestCluster) -> None:
    victim = cluster.add(resources={"toolchain:rtl": 1})
    cluster.cluster.wait_for_nodes()
    rtl_only = {"toolchain:rtl": 1}
    with RayExecutor(cluster.cluster.address, workers=3, depth=1) as executor:
        noop, slow = (Work(spin, (s,), pool="nodes", requires=rtl_only) for s in (0.0, 2.0))

        async def burst() -> None:
            await asyncio.gather(*(executor.submit(noop) for _ in range(3)))

        deadline = time.monotonic() + 60
        while len(executor.placements().get("nodes", [])) < 3 and time.monotonic() < deadline:
            asyncio.run(burst())
        on_victim = [pid for pid, node in executor.placements()["nodes"] if node == victim.node_id]
        assert on_victim, "no worker started on the node to be removed"

        async def main() -> list[tuple[int, float]]:
            running = asyncio.gather(*(executor.submit(slow) for _ in range(3)))  # one on every node
            await asyncio.sleep(0.5)
            await asyncio.to_thread(cluster.cluster.remove_node, victim, False)
            return await running

        results = asyncio.run(main())
        assert len(results) == 3 and all(spent >= 2.0 for _, spent in results)
        assert on_victim[0] not in {pid for pid, _ in results}  # its task finished on another node
        assert executor.stats.retried == 1


def test_node_lost_during_synthesis_keeps_each_turn_once(cluster: RayTestCluster, reference_turns: list[tuple], tmp_path: Path) -> None:
    victim = cluster.add(resources={"toolchain:rtl": 1})
    cluster.cluster.wait_for_nodes()
    removed: list[float] = []
    with RayExecutor(cluster.cluster.address, workers=3, depth=1) as executor:
        fill_rtl_pool(executor, 3)  # one worker on each toolchain node, the victim included
        assert victim.node_id in {node for _, node in executor.placements()["backend:rtl"]}

        async def remove_node_when_busy() -> None:
            while busy_actor(executor, {victim.node_id}) is None:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(cluster.cluster.remove_node, victim, False)
            removed.append(time.monotonic())

        assert synth(executor, tmp_path / "node.db", remove_node_when_busy) == reference_turns
        assert removed, "the node was removed only after the run ended"


def test_back_pressure_and_pools_sharing_a_full_cluster(cluster: RayTestCluster) -> None:
    with RayExecutor(cluster.cluster.address, workers=3, max_pending=4) as executor:

        async def main() -> list:
            work = [Work(spin, (0.2,), pool=name) for name in ("a", "b") for _ in range(6)]
            return await asyncio.wait_for(asyncio.gather(*(executor.submit(w) for w in work)), timeout=60)

        assert len(asyncio.run(main())) == 12
        assert executor.stats.peak_pending == 4 and executor.stats.completed == 12
        assert executor.stats.rebalanced >= 1  # pool b got a worker from pool a's share
        assert {'a', 'b'} <= set(executor.placements())
