"""Units of the GPU backend that need no sandbox: comparison, limits, ptxas logs, CUDA device-code
extraction, options, fast_p and the size helpers."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from ecot.domains.gpu.jobs import compare as cmp  # noqa: E402
from ecot.domains.gpu.jobs import cuda as gpu_cuda  # noqa: E402
from ecot.domains.gpu.jobs import limits as gpu_limits  # noqa: E402
from ecot.domains.gpu.jobs.common import scaled_sizes, size_constants  # noqa: E402
from ecot.domains.gpu.jobs.timing import fast_p, summarize  # noqa: E402
from ecot.domains.gpu.options import GpuOptions  # noqa: E402


# -- comparison ------------------------------------------------------------------------------------------
def test_dtype_aware_tolerances() -> None:
    assert cmp.tolerance(torch.float32) == (1e-4, 1e-4)
    assert cmp.tolerance(torch.float16) == (1e-2, 1e-2) == cmp.tolerance(torch.bfloat16)
    assert cmp.tolerance(torch.int64) == (0.0, 0.0)
    assert cmp.tolerance(torch.float32, atol=1e-2) == (1e-2, 1e-4)


def test_first_mismatch_names_output_shape_errors_and_place() -> None:
    ref = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    cand = ref.clone()
    cand[:, 3] += 1.0
    found = cmp.compare_outputs([ref, ref], [ref, cand], None, None, label="in trial 2")
    assert found is not None
    text = found.diagnostic
    assert text.startswith("output 1 in trial 2 (shape (3, 4)) mismatches in 3 of 12 elements")
    assert "max abs error 1" in text and "first at index [0, 3]: expected 3, got 4" in text
    assert "only indices 3..3 of dim 1 (size 4) (the end)" in text
    assert found.metrics["mismatched"] == 3 and found.metrics["max_abs_err"] == 1.0


def test_shape_count_dtype_and_broadcast_mismatches() -> None:
    ref = torch.zeros(8)
    assert "returned 2 output(s)" in cmp.compare_outputs([ref], [ref, ref], None, None).diagnostic
    broadcast = cmp.compare_outputs([ref], [torch.zeros(8, 8)], None, None).diagnostic
    assert "has shape (8, 8), the reference's is (8,)" in broadcast and "unintended broadcast" in broadcast
    assert "has dtype float16" in cmp.compare_outputs([ref], [ref.half()], None, None).diagnostic


def test_nan_matches_nan_and_inf_is_reported() -> None:
    ref = torch.tensor([1.0, float("nan"), 3.0])
    assert cmp.compare_outputs([ref], [ref.clone()], None, None) is None
    bad = cmp.compare_outputs([ref], [torch.tensor([1.0, float("nan"), float("inf")])], None, None)
    assert bad is not None and "inf where the reference is finite" in bad.diagnostic


def test_atol_scales_with_small_outputs() -> None:
    ref = torch.full((100,), 1e-6) * torch.linspace(0.5, 1.5, 100)
    assert cmp.compare_outputs([ref], [torch.zeros(100)], None, None) is not None
    assert cmp.compare_outputs([ref], [torch.zeros(100)], None, None, scale_atol=False) is None


def test_hack_checks() -> None:
    varying = torch.linspace(-1, 1, 50)
    assert cmp.constant_hack([varying], [torch.zeros(50)], None, None) is not None
    assert cmp.constant_hack([torch.zeros(50)], [torch.zeros(50)], None, None) is None
    assert cmp.input_independent([[torch.ones(3)], [torch.ones(3)]]) and not cmp.input_independent([[torch.ones(3)], [torch.zeros(3)]])
    pristine = [torch.ones(4)]
    assert cmp.mutated_inputs(pristine, [torch.ones(4)], [torch.zeros(4)]) is not None
    assert cmp.mutated_inputs(pristine, [torch.zeros(4)], [torch.zeros(4)]) is None  # the reference does it too


# -- limits and ptxas ------------------------------------------------------------------------------------
def test_shared_memory_overflow_is_quantitative() -> None:
    usage = gpu_limits.Usage("attn_fwd", "BLOCK_M=128, BLOCK_N=128", dynamic_shared=262144, registers=128, threads=256)
    found = gpu_limits.check(usage, gpu_limits.arch("sm_90"))
    assert found is not None and found.resource == "shared memory"
    assert "requests 262144 B" in found.diagnostic and "over by 29696 B" in found.diagnostic
    assert gpu_limits.check(usage, gpu_limits.arch("sm_80")).limit == 166912


def test_register_and_thread_limits() -> None:
    assert gpu_limits.max_threads_for(255) == 256 and gpu_limits.max_threads_for(32) == 1024
    many = gpu_limits.Usage("k", registers=200, threads=512)
    assert gpu_limits.check(many, gpu_limits.arch("90")).resource == "threads"
    assert gpu_limits.check(gpu_limits.Usage("k", static_shared=65536), gpu_limits.arch("sm90")).resource == "static shared memory"
    with pytest.raises(ValueError, match="unknown GPU architecture"):
        gpu_limits.arch("sm_42")


def test_read_ptxas_log() -> None:
    log = """ptxas info    : Compiling entry function '_Z12hinge_kernelPKfS0_Pfii' for 'sm_90'
ptxas info    : Function properties for _Z12hinge_kernelPKfS0_Pfii
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 14 registers, used 0 barriers, 1024 bytes smem
"""
    (usage,) = gpu_limits.read_ptxas(log)
    assert (usage.kernel, usage.registers, usage.static_shared, usage.stack, usage.spill_stores) == ("hinge_kernel", 14, 1024, 8, 4)
    assert "spills registers" in gpu_limits.spill_note(usage)


# -- inline CUDA ----------------------------------------------------------------------------------------
CUDA_SOURCE = """#include <torch/extension.h>
#define THREADS 256
__device__ float relu(float x) { return x > 0.f ? x : 0.f; }
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * THREADS + threadIdx.x; if (i < n) y[i] = relu(x[i]); }
torch::Tensor run(torch::Tensor x) {
    auto y = torch::empty_like(x);
    k<<<(x.numel() + THREADS - 1) / THREADS, THREADS>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""


def test_device_code_keeps_kernels_and_line_numbers() -> None:
    code = gpu_cuda.device_code(CUDA_SOURCE)
    assert code.kernels == 1 and "run" in code.dropped_names
    assert code.text.count("\n") == CUDA_SOURCE.count("\n")
    assert "torch::" not in code.text and "__global__ void k" in code.text and "#define THREADS" in code.text


def test_inconclusive_nvcc_errors_are_not_the_candidates() -> None:
    code = gpu_cuda.device_code(CUDA_SOURCE)
    assert gpu_cuda.inconclusive('kernels.cu(4): error: identifier "at::Half" is undefined', code)
    assert not gpu_cuda.inconclusive('kernels.cu(4): error: expected a ";"', code)


# -- options, metrics, sizes ---------------------------------------------------------------------------
def test_options_are_validated() -> None:
    opts = GpuOptions.model_validate({"cpu_scale": 8, "atol": "0.01", "target": "sm_80"})
    assert opts.cpu_scale == 8 and opts.atol == 0.01 and opts.target == "sm_80"
    for bad, match in (({"cpu_sclae": 8}, "extra"), ({"device": "tpu"}, "device"), ({"target": "sm_1"}, "architecture"),
                       ({"trials": 0}, "trials")):
        with pytest.raises(ValueError, match=match):
            GpuOptions.model_validate(bad)


def test_fast_p_and_summaries() -> None:
    results = [(True, 2.0), (True, 0.5), (False, 3.0), (True, None)]
    assert fast_p(results, 0.0) == 0.75 and fast_p(results, 1.0) == 0.25 and fast_p([], 1.0) == 0.0
    assert summarize([1.0, 2.0, 3.0])["median_ms"] == 2.0


def test_size_constants_and_scaling() -> None:
    namespace = {"batch_size": 128, "dim": 4000, "kernel_size": 3, "shape": (64, 3, 224), "flag": True, "_hidden": 99}
    found = size_constants(namespace)
    assert found == {"batch_size": 128, "dim": 4000, "shape": [64, 3, 224]}
    assert scaled_sizes(found, 16) == {"batch_size": 8, "dim": 250, "shape": [4, 3, 14]}


def test_timing_loop_refills_inputs_and_flushes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The timing loop on its own (CUDA events stood in for by a clock: nothing CUDA runs here)."""
    from ecot.domains.gpu.jobs import timing as gpu_timing

    class Event:
        def __init__(self, enable_timing: bool = False) -> None:
            self.at = 0.0

        def record(self) -> None:
            self.at = gpu_timing._perf_counter()

        def synchronize(self) -> None:
            pass

        def elapsed_time(self, end: Event) -> float:
            return (end.at - self.at) * 1000.0

    monkeypatch.setattr(torch.cuda, "Event", Event)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    timer = gpu_timing.Timer()
    flushes: list[int] = []
    monkeypatch.setattr(timer, "flush", lambda: flushes.append(1))
    seen: list[float] = []
    sets = [[torch.full((4,), float(i))] for i in range(3)]
    stats, out = timer.measure(lambda x: seen.append(float(x[0])) or x * 2, sets, warmup=2, trials=5)
    assert seen == [0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 1.0]  # warm-up on set 0, then the sets in turn
    assert len(flushes) == 5 and stats["trials"] == 5 and stats["last_trial"] == 1
    assert float(out[0]) == 2.0 and stats["forged_intervals"] == 0 and stats["min_ms"] >= 0
