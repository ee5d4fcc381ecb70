"""The GPU path on a real NVIDIA GPU: device execution, CUDA-event timing with L2 flushes, speedups over
eager PyTorch and torch.compile, fast_p, and the timing hacks only a GPU can show. Marked `gpu`: each
test skips cleanly on machines without CUDA."""

from __future__ import annotations

import dataclasses

import pytest

from ecot.core.errors import ToolMissingError
from ecot.core.outcome import PASS, Outcome
from ecot.core.scoring import fast_p
from ecot.core.task import Task
from ecot.domains import get_backend as _get_backend
from ecot.domains.gpu.outcome import (
    COMPILATION_ERROR,
    MEMORY_FAULT,
    NUMERICAL_MISMATCH,
    RUNTIME_ERROR,
)
from ecot.domains.gpu.runner import gpu_device_nodes
from ecot.tasks.suite import bundled_suite_path, load_suite


def get_backend(domain: str):
    """The backend, or a skip naming the missing package (torch, triton, numpy)."""
    try:
        return _get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"the gpu backend needs the missing tool '{err.tool}'")


pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def _needs_cuda() -> None:
    torch = pytest.importorskip("torch")
    if not gpu_device_nodes() or not torch.cuda.is_available():
        pytest.skip("needs an NVIDIA GPU with CUDA (no /dev/nvidia* device or torch without CUDA)")


def task(name: str, **options: object) -> Task:
    found = next(t for t in load_suite(bundled_suite_path("gpu")) if t.id == f"gpu/{name}")
    return dataclasses.replace(found, options={**found.options, "device": "cuda", "timing_trials": 10, **options})


def run(t: Task, candidate: str) -> Outcome:
    return get_backend("gpu").run(t, candidate)


@pytest.mark.parametrize("name", ["relu", "softmax", "layer_norm", "matmul", "attention", "hinge_loss"])
def test_reference_passes_on_the_device_with_speedups(name: str) -> None:
    t = task(name)
    outcome = run(t, t.reference or "")
    assert outcome.label == PASS, outcome.diagnostic
    assert outcome.metrics["device"] == "cuda"
    assert outcome.metrics["time_ms"] > 0 and outcome.metrics["ref_time_ms"] > 0 and outcome.metrics["speedup"] > 0
    assert "speedup_vs_compile" in outcome.metrics or "torch.compile" in outcome.log


def test_fast_p_over_device_outcomes() -> None:
    results = []
    for name in ("relu", "row_sum", "softmax"):
        t = task(name, compare_compile=False)
        outcome = run(t, t.reference or "")
        results.append((outcome.passed, outcome.metrics.get("speedup")))
    assert fast_p(results, 0.0) == 1.0
    assert 0.0 <= fast_p(results, 1.0) <= 1.0


def test_out_of_bounds_read_faults_on_the_device() -> None:
    t = task("hinge_loss", timing=False)
    bad = (t.reference or "").replace("tl.load(targ_ptr + row,", "tl.load(targ_ptr + offsets * 4096,")
    outcome = run(t, bad)
    assert outcome.label in (MEMORY_FAULT, NUMERICAL_MISMATCH), outcome.diagnostic


def test_oversized_tile_is_out_of_resources_on_the_device() -> None:
    t = task("attention", timing=False)
    bad = (t.reference or "").replace("BLOCK_M, BLOCK_N = 32, 32", "BLOCK_M, BLOCK_N = 128, 256").replace(
        "num_warps=4, num_stages=2", "num_warps=8, num_stages=3")
    outcome = run(t, bad)
    assert outcome.label == MEMORY_FAULT and "shared memory" in outcome.diagnostic, outcome.diagnostic


def test_work_hidden_on_a_side_stream_is_timed() -> None:
    """A candidate that sleeps on a second stream: the device-wide synchronize before the end event
    puts that work inside the measured interval."""
    t = task("relu", compare_compile=False)
    side = ("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
            "        s = torch.cuda.Stream()\n        with torch.cuda.stream(s):\n            torch.cuda._sleep(20_000_000)\n"
            "        return torch.relu(x)\n")
    outcome = run(t, side)
    assert outcome.label == PASS, outcome.diagnostic
    assert outcome.metrics["time_ms"] > 1.0, outcome.metrics  # 20 M cycles is several milliseconds


def test_work_returned_before_its_side_stream_ran_is_timed_and_correct() -> None:
    """The whole forward queued on a second stream behind a sleep: outputs are read after a device-wide
    synchronize (so they are right) and the sleep ends inside the measured interval."""
    t = task("relu", compare_compile=False)
    side = ("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
            "        s = torch.cuda.Stream()\n        with torch.cuda.stream(s):\n            torch.cuda._sleep(20_000_000)\n"
            "            out = torch.relu(x)\n        return out\n")
    outcome = run(t, side)
    assert outcome.label == PASS, outcome.diagnostic
    assert outcome.metrics["time_ms"] > 1.0, outcome.metrics


def test_a_copy_of_the_reference_gets_no_speedup() -> None:
    """fast_p never counts the reference's own work as faster, however the noise of two timings falls."""
    t = task("relu", compare_compile=False)
    copied = t.files["model.py"].replace("class Model(", "class ModelNew(").replace("torch.relu(x)", "torch.nn.functional.relu(x)")
    outcome = run(t, copied)
    assert outcome.label == PASS and outcome.metrics["reference_ops"] is True, outcome.diagnostic
    assert outcome.metrics["speedup"] <= 1.0 and outcome.metrics["measured_speedup"] > 0, outcome.metrics
    assert fast_p([(outcome.passed, outcome.metrics["speedup"])], 1.0) == 0.0
    triton = run(t, t.reference or "")
    assert triton.label == PASS and triton.metrics["reference_ops"] is False and "measured_speedup" not in triton.metrics


def test_shape_sets_and_float64_on_the_device() -> None:
    t = task("softmax", compare_compile=False)
    outcome = run(t, t.reference or "")
    assert outcome.label == PASS and outcome.metrics["shape_sets"] == 3, outcome.diagnostic
    assert outcome.metrics["float64_reference"] is True, outcome.diagnostic


def test_timing_hacks_inside_the_candidate_process_are_refused() -> None:
    """A tensor subclass returned from the timed calls, and the harness's own timer references rebound."""
    t = task("relu", compare_compile=False)
    head = "import torch\nimport torch.nn as nn\n\n"
    lazy = (f"{head}class Deferred(torch.Tensor):\n    pass\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
            "        return torch.relu(x).as_subclass(Deferred)\n")
    rebound = (f"{head}import gc\nimport ecot.domains.gpu.jobs.timing as _timing\n_timing.tampered = lambda *a, **k: []\n"
               "for _obj in gc.get_objects():\n    if type(_obj).__name__ == 'Timer' and hasattr(_obj, 'elapsed'):\n"
               "        _obj.elapsed = lambda start, end: 0.001\n\n"
               "class ModelNew(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n")
    refused = run(t, lazy)
    assert refused.label == RUNTIME_ERROR and "torch.Tensor subclass" in refused.diagnostic, refused.diagnostic
    caught = run(t, rebound)
    assert caught.label == RUNTIME_ERROR and "the harness's timer.elapsed" in caught.diagnostic, caught.diagnostic


def test_results_cached_across_timing_runs_are_caught() -> None:
    t = task("relu", compare_compile=False)
    cached = ("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def __init__(self):\n"
              "        super().__init__()\n        self.seen = {}\n\n    def forward(self, x):\n"
              "        key = x.data_ptr()\n        if key not in self.seen:\n            self.seen[key] = torch.relu(x)\n"
              "        return self.seen[key]\n")
    outcome = run(t, cached)
    # caught by a correctness trial when the allocator reuses an address, else by the timed-output check
    assert outcome.label == NUMERICAL_MISMATCH, outcome.diagnostic


def test_inline_cuda_builds_and_runs() -> None:
    t = task("relu", compare_compile=False)
    source = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline


cuda = """
__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
ext = load_inline("ecot_relu", cpp_sources="torch::Tensor relu(torch::Tensor x);", cuda_sources=cuda, functions=["relu"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu(x.contiguous())
'''
    t = dataclasses.replace(t, limits=t.limits.scaled(wall_s=600, cpu_s=600))
    outcome = run(t, source)
    assert outcome.label == PASS, outcome.diagnostic
    broken = run(t, source.replace("y[i] = x[i]", "y[i] = x[i"))
    assert broken.label == COMPILATION_ERROR, broken.diagnostic
