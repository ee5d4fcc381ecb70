"""The benchmark metrics against hand-computed values: pass@k by its combinatorial definition, the RTL
family on constructed verdicts, and whole reports built from verdicts recorded in a real store (GPU
timings from a CUDA run through fast_p, asm speedups, CAD IoU, firmware, Fix%, not run here)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ecot.bench import report
from ecot.bench.results import load_run
from ecot.bench.run import BenchSettings, bench_config
from ecot.bench.scores import bootstrap
from ecot.core.outcome import Outcome, infra_error
from ecot.core.scoring import pass_at_k
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.domains.gpu.outcome import speed_metrics
from ecot.domains.rtl import metrics as rtl_metrics
from ecot.generators.repair import RepairGenerator
from ecot.store import TrajectoryStore


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    """The share of k-subsets of n samples (c correct) holding a correct one."""
    subsets = list(itertools.combinations([i < c for i in range(n)], k))
    return sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize(("n", "c", "k"), [(6, 1, 5), (10, 3, 5), (10, 0, 1), (7, 7, 5), (12, 2, 10), (5, 2, 1)])
def test_pass_at_k_is_the_unbiased_estimator(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(n, c, k))


def test_pass_at_k_hand_values_and_too_few_samples() -> None:
    assert pass_at_k(6, 1, 5) == pytest.approx(5 / 6)  # 1 - C(5,5)/C(6,5)
    assert pass_at_k(10, 2, 5) == pytest.approx(1 - 56 / 252)  # 1 - C(8,5)/C(10,5)
    assert pass_at_k(4, 4, 5) is None  # n < k: undefined, never guessed


def sim(mismatches: int, samples: int) -> Outcome:
    return Outcome("Simulation_Mismatch", "x", metrics={"mismatches": mismatches, "samples": samples})


def test_rtl_metrics_of_one_task() -> None:
    verdicts = [Outcome("Pass", "ok", metrics={"mismatches": 0, "samples": 8}), sim(2, 8), sim(6, 8),
                Outcome("Syntax_Error", "x"), Outcome("No_Code", "x"),
                Outcome("Timeout", "x", metrics={"stage": "compile"}), Outcome("Synthesis_Error", "latch")]
    values = {m.name: m.fn(verdicts) for m in rtl_metrics.METRICS}
    assert values["syn@1"] == pytest.approx(100 * 4 / 7)  # Pass, two mismatches, Synthesis_Error compiled
    assert values["func@1"] == pytest.approx(100 / 7)
    assert values["func@5"] == pytest.approx(100 * (1 - 6 / 21))  # 1 - C(6,5)/C(7,5)
    assert values["veriscope"] == pytest.approx((100 + 50 + 50 + 50) / 7)
    assert values["archx_n"] == 4
    assert values["archx_t"] == 100
    assert rtl_metrics.archx_t([sim(2, 8), sim(6, 8), Outcome("Syntax_Error", "x")]) == pytest.approx(75.0)


def test_bootstrap_interval_is_seeded_and_holds_the_mean() -> None:
    values = [0.0, 100.0, 50.0, 100.0, 0.0, 25.0]
    low, high = bootstrap(values)
    assert bootstrap(values) == (low, high)
    assert low < sum(values) / len(values) < high
    assert bootstrap([42.0]) == (42.0, 42.0)


# -- reports from verdicts recorded in a store -----------------------------------------------------
GPU_TIMING = {"median_ms": 0.5, "mean_ms": 0.52, "min_ms": 0.49, "std_ms": 0.01, "trials": 20}  # as the CUDA job reports


def near(expected: float) -> Any:
    """Report values are rounded to 4 decimals."""
    return pytest.approx(expected, abs=1e-3)


def gpu_pass(ref_ms: float) -> Outcome:
    """A Pass as the GPU backend reports it on a CUDA device: speed metrics from the two timing reports."""
    verdict = {"reference_timing": {**GPU_TIMING, "median_ms": ref_ms}, "compile_timing": {**GPU_TIMING, "median_ms": ref_ms}}
    return Outcome("Pass", "all trials match", metrics={"device": "cuda", **speed_metrics(GPU_TIMING, verdict)})


def record(tmp_path: Path, verdicts: dict[Task, list[Outcome]]) -> Any:
    """A benchmark run whose samples got these verdicts (one turn each), read back as a report."""
    store = TrajectoryStore(tmp_path / "b.db", writer=True)
    tasks = list(verdicts)
    settings = BenchSettings(samples=max(map(len, verdicts.values())))
    config, identity = bench_config(tasks, RepairGenerator(), settings)
    config["bench"]["not_run_here"] = {}
    run_id = store.begin_run(config, identity)
    for task, outcomes in verdicts.items():
        for sample, outcome in enumerate(outcomes):
            traj = store.trajectory(run_id, task.id, task.domain, sample, [{"role": "user", "content": task.prompt}], {})
            store.append_turn(traj, Turn(0, "", "code", "code", outcome))
            store.finish(traj, "passed" if outcome.passed else "error" if outcome.is_infra else "failed")
    built = report.build(load_run(store, run_id))
    store.close()
    return {g["group"]: g for g in built["groups"]}, built


def value(groups: dict[str, Any], group: str, metric: str) -> float | None:
    return groups[group]["metrics"][metric]["value"]


def test_recorded_gpu_timings_give_fast_p_and_cpu_runs_leave_speed_unmeasured(tmp_path: Path) -> None:
    t = [Task(f"gpu/k{i}", "gpu", f"kernel {i}") for i in range(3)]
    slow, fast = gpu_pass(0.4), gpu_pass(0.9)  # speedups 0.8x and 1.8x over eager PyTorch
    groups, _ = record(tmp_path, {t[0]: [fast, slow], t[1]: [slow, Outcome("Numerical_Mismatch", "x")],
                                  t[2]: [Outcome("Runtime_Error", "x"), Outcome("Runtime_Error", "x")]})
    assert fast.metrics["speedup"] == near(1.8)
    assert value(groups, "gpu", "correct") == near((100 + 50 + 0) / 3)
    assert value(groups, "gpu", "fast_1") == near((50 + 0 + 0) / 3)
    assert value(groups, "gpu", "fast_1.5") == near((50 + 0 + 0) / 3)
    assert value(groups, "gpu", "fast_2") == 0.0
    cpu = Outcome("Pass", "all trials match", metrics={"device": "cpu", "cpu_shrink": 4})
    groups, built = record(tmp_path / "cpu", {t[0]: [cpu], t[1]: [Outcome("Runtime_Error", "x")]})
    assert value(groups, "gpu", "correct") == 50.0
    assert value(groups, "gpu", "fast_1") is None
    assert "unmeasured" in groups["gpu"]["metrics"]["fast_1"]["note"]
    assert "unmeasured" in rendered(built)


def rendered(built: dict[str, Any]) -> str:
    console = Console(file=io.StringIO(), width=200)
    for table in report.tables(built):
        console.print(table)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_asm_cad_firmware_repair_and_not_run_here_from_recorded_verdicts(tmp_path: Path) -> None:
    asm = [Task(f"asm/f{i}", "asm", f"f{i}") for i in range(2)]
    cad = [Task(f"cad/p{i}", "cad", f"p{i}") for i in range(2)]
    fw, py = Task("firmware/blink", "firmware", "blink"), Task("python/two_sum", "python", "two sum")
    fix = Task("repair/rtl/adder.b0", "rtl", "fix it", tags=("repair", "repair-of:rtl/adder"))
    ok = Outcome("Pass", "ok")
    verdicts = {
        asm[0]: [Outcome("Pass", "ok", metrics={"speedup": 1.5}), Outcome("Output_Mismatch", "x")],
        asm[1]: [Outcome("Pass", "ok", metrics={"speedup": 3.0}), infra_error("valgrind crashed")],
        cad[0]: [Outcome("Pass", "ok", metrics={"iou": 0.999}), Outcome("Shape_Mismatch", "x", metrics={"iou": 0.5})],
        cad[1]: [Outcome("Geometry_Error", "x"), Outcome("Syntax_Error", "x")],
        fw: [ok, Outcome("Hard_Fault", "x")],
        py: [ok, Outcome("Wrong_Answer", "x")],
        fix: [ok, Outcome("Simulation_Mismatch", "x")],
    }
    groups, built = record(tmp_path, verdicts)
    assert value(groups, "asm", "acc") == near((50 + 100) / 2)  # the Infra_Error sample is not counted
    assert value(groups, "asm", "spd") == near(((1.5 + 1.0) / 2 + 3.0) / 2)
    assert groups["asm"]["not_run_here"]["samples"] == 1 and groups["asm"]["samples"] == 3
    assert value(groups, "cad", "comp") == near((100 + 0) / 2)
    assert value(groups, "cad", "iou") == near((100 * (0.999 + 0.5) / 2 + 0) / 2)
    assert value(groups, "firmware", "main") == 50.0
    assert value(groups, "python", "pass@1") == 50.0
    assert value(groups, "repair/rtl", "fix") == 50.0 and "veriscope" not in groups["repair/rtl"]["metrics"]
    assert value(groups, "overall", "pass@1") == near((50 + 100 + 50 + 0 + 50 + 50 + 50) / 7)
    assert built["tasks"]["asm/f1"]["not_run_here"] == 1
    score = groups["overall"]["metrics"]["pass@1"]
    assert score["ci95"][0] <= score["value"] <= score["ci95"][1]
