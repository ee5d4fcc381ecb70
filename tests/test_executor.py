"""The executor interface on its default engine (the local process pool): real backends, real worker deaths."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ecot.executors.local import Executor, LocalPool, Work, WorkerLost, evaluation_work, make_executor, spin
from ecot.executors.work import Machine, default_workers
from ecot.tasks.suite import bundled_suite_path, load_suite

RTL_TOOLS = ("iverilog", "vvp", "yosys", "verilator")


def need_rtl_tools() -> None:
    for tool in RTL_TOOLS:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed")


def test_importing_the_default_engine_never_imports_ray() -> None:
    code = "import sys, ecot.executors.local, ecot.run.loop, ecot.cli.synth, ecot.cli.evaluate; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_evaluations_carry_the_domain_pool_and_toolchain_placement() -> None:
    task = load_suite(bundled_suite_path("rtl"))[0]
    work = evaluation_work(task, task.reference or "")
    assert work.pool == "backend:rtl"
    assert work.requires["toolchain:rtl"] > 0
    assert work.warmup is not None


def test_local_pool_evaluates_references_on_the_real_backend() -> None:
    need_rtl_tools()
    tasks = load_suite(bundled_suite_path("rtl"))[:3]

    async def main(pool: LocalPool) -> list:
        return await asyncio.gather(*(pool.evaluate(t, t.reference or "") for t in tasks))

    with make_executor(None, 2) as pool:
        assert pool.engine == "local"
        outcomes = asyncio.run(main(pool))
    assert [o.label for o in outcomes] == ["Pass"] * 3


def test_back_pressure_bounds_pending_work() -> None:
    async def main(pool: LocalPool) -> list:
        return await asyncio.gather(*(pool.submit(Work(spin, (0.05,))) for _ in range(12)))

    with LocalPool(2, max_pending=3) as pool:
        results = asyncio.run(main(pool))
        assert len(results) == 12
        assert pool.stats.peak_pending == 3 and pool.stats.completed == 12


def test_a_worker_killed_mid_task_is_replaced_and_the_task_resubmitted() -> None:
    with LocalPool(2) as pool:
        asyncio.run(pool.submit(Work(spin, (0.0,))))  # the workers exist now

        async def main() -> tuple[int, float]:
            running = asyncio.ensure_future(pool.submit(Work(spin, (1.0,))))
            await asyncio.sleep(0.4)
            for pid in list(pool._pool._processes):  # noqa: SLF001 - the test plays the OOM killer
                os.kill(pid, signal.SIGKILL)
            return await running

        start = time.monotonic()
        _, spent = asyncio.run(main())
        assert spent >= 1.0 and time.monotonic() - start >= 1.4  # it ran again from the start
        assert pool.stats.retried == 1
        assert asyncio.run(pool.submit(Work(spin, (0.0,))))[0] > 0  # the rebuilt pool serves


def test_a_task_that_kills_every_worker_raises_worker_lost_not_a_hang() -> None:
    with LocalPool(1, retries=1) as pool:
        with pytest.raises(WorkerLost):
            asyncio.run(pool.submit(Work(os._exit, (1,))))  # the worker dies on every attempt
        assert pool.stats.retried == 1


def test_placement_vocabulary_maps_to_ray_resources() -> None:
    from ecot.executors.ray_nodes import MARK, actor_options, demand, fits

    requires = {"gpu": 1, "memory_mb": 512, "toolchain:rtl": 1, "special": 2}
    options = actor_options(requires, toolchain_marks=True)
    assert options["num_cpus"] == 1 and options["num_gpus"] == 1 and options["memory"] == 512 * 2**20
    assert options["resources"] == {"toolchain:rtl": MARK, "special": 2.0}
    assert "toolchain:rtl" not in actor_options(requires, toolchain_marks=False)["resources"]  # homogeneous cluster
    need = demand(options)
    assert fits({"CPU": 4, "GPU": 1, "memory": 2**30, "toolchain:rtl": 1, "special": 2}, need)
    assert not fits({"CPU": 4, "memory": 2**30, "toolchain:rtl": 1, "special": 2}, need)  # no GPU there


def test_a_starved_pool_takes_over_an_idle_worker_on_a_node_that_fits() -> None:
    from ecot.executors.ray_pool import Actor, ActorPool, choose_victim

    def pool(key: str, *actors: Actor) -> ActorPool:
        return ActorPool(key, {}, None, 4, ready=list(actors))

    lone_busy = pool("lone", Actor("h1", 1, "n1", outstanding=1))
    two = pool("two", Actor("h2", 2, "n1", outstanding=1), Actor("h3", 3, "n2", outstanding=2))
    idle_elsewhere = pool("idle", Actor("h4", 4, "gpu-less", outstanding=0))
    starved = pool("starved")
    pools = [lone_busy, two, idle_elsewhere, starved]
    chosen = choose_victim(pools, starved, lambda node: node != "gpu-less")
    assert chosen is not None and chosen[1].pid == 2  # the least busy of a pool that keeps another worker
    idle_here = pool("idle2", Actor("h5", 5, "n2", outstanding=0))
    chosen = choose_victim([*pools, idle_here], starved, lambda node: node != "gpu-less")
    assert chosen is not None and chosen[1].pid == 5  # an idle worker goes first
    assert choose_victim([lone_busy, starved], starved, lambda node: True) is None  # a pool keeps its last busy worker


def test_the_local_pool_is_an_executor_and_make_executor_says_so() -> None:
    import inspect
    import typing

    assert typing.get_type_hints(make_executor)["return"] is Executor
    with make_executor(None, 1) as pool:
        assert isinstance(pool, Executor) and isinstance(pool, LocalPool)
    for name in ("submit", "evaluate", "close", "__enter__", "__exit__"):
        assert callable(getattr(LocalPool, name))
    ray_module = pytest.importorskip("ecot.executors.ray")
    for name, _ in inspect.getmembers(Executor, inspect.isfunction):
        if not name.startswith("_") or name in ("__enter__", "__exit__"):
            assert hasattr(ray_module.RayExecutor, name), name


@pytest.mark.parametrize(("cores", "memory_mb", "per_worker_mb", "expected"), [
    (8, 64_000.0, 1024, 8),  # cores bound
    (8, 3_000.0, 1024, 2),  # memory bound
    (8, 9_500.0, 3072, 3),  # a domain that declares more memory per worker
    (4, 100.0, 1024, 1),  # never fewer than one
    (6, None, 1024, 6),  # memory unknown: cores
])
def test_the_default_worker_count_follows_cores_and_memory(cores: int, memory_mb: float | None, per_worker_mb: float,
                                                          expected: int) -> None:
    machine = Machine(cores, memory_mb)
    assert machine.workers(per_worker_mb) == expected
    assert f"default {expected}" in machine.describe(expected, per_worker_mb)


def test_the_machine_here_has_cores_and_the_default_pool_uses_them() -> None:
    here = Machine.here()
    assert here.cores >= 1 and (here.memory_mb is None or here.memory_mb > 0)
    assert default_workers() == here.workers()


@pytest.mark.parametrize("flag", [[], ["--no-cache"]])
def test_eval_keeps_task_facts_unless_told_not_to(flag: list[str], tmp_path: Path) -> None:
    """`ecot eval` workers read and write the task cache; with --no-cache they measure and keep nothing."""
    env = {**os.environ, "ECOT_CACHE": str(tmp_path / "cache"), "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("ECOT_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "ecot", "eval", "--domain", "rtl", "--limit", "2", "--workers", "1",
                           "--quiet", *flag], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    kept = list((tmp_path / "cache" / "tasks").rglob("*.json"))
    assert (kept == []) == bool(flag), kept
