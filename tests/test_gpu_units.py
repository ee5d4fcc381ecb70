"""Units of the GPU backend that need no sandbox: comparison, limits, ptxas logs, CUDA device-code
extraction, options, fast_p and the size helpers."""

from __future__ import annotations

import types

import pytest

torch = pytest.importorskip("torch")

from ecot.core.scoring import fast_p  # noqa: E402
from ecot.domains.gpu.jobs import canary  # noqa: E402
from ecot.domains.gpu.jobs import compare as cmp  # noqa: E402
from ecot.domains.gpu.jobs import cuda as gpu_cuda  # noqa: E402
from ecot.domains.gpu.jobs import limits as gpu_limits  # noqa: E402
from ecot.domains.gpu.jobs.common import Inputs, module_constants, scaled_sizes, size_constants  # noqa: E402
from ecot.domains.gpu.jobs.timing import summarize  # noqa: E402
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
    assert cmp.input_independent([[torch.ones(3)], [torch.ones(3)]]) and not cmp.input_independent([[torch.ones(3)], [torch.zeros(3)]])
    pristine = [torch.ones(4)]
    assert cmp.mutated_inputs(pristine, [torch.ones(4)], [torch.zeros(4)]) is not None
    assert cmp.mutated_inputs(pristine, [torch.zeros(4)], [torch.zeros(4)]) is None  # the reference does it too


def test_float64_values_judge_when_given() -> None:
    """A candidate within tolerance of the reference's float32 output, but not of the float64 values."""
    truth = torch.linspace(1, 2, 50, dtype=torch.float64)
    ref = (truth + 8e-5).float()  # the reference's own output, itself off by 0.8 atol
    cand = ref + 8e-5  # off by 0.8 atol from it, 1.6 atol from the truth
    assert cmp.compare_outputs([ref], [cand], 1e-4, 0.0) is None
    found = cmp.compare_outputs([ref], [cand], 1e-4, 0.0, values=[truth])
    assert found is not None and "mismatches in 50 of 50" in found.diagnostic
    assert cmp.compare_outputs([ref], [ref.clone()], 1e-4, 0.0, values=[truth]) is None


def test_canaries_for_outputs_that_pass_a_loose_tolerance() -> None:
    x = torch.linspace(-1, 1, 64)
    ref = torch.relu(x) + 1e-3
    assert "is constant (0.5 everywhere)" in canary.output_hack(ref, ref.double(), torch.full((64,), 0.5))
    assert "is all zeros" in canary.output_hack(torch.tensor(0.25), torch.tensor(0.25, dtype=torch.float64), torch.tensor(0.0))
    # a candidate identical to the reference is never flagged, whatever the reference does
    for same in (torch.full((64,), 2.0), torch.zeros(64), x.clone(), ref):
        assert canary.output_hack(same, same.double(), same.clone()) is None
    # nor is a reference that varies by rounding only, nor an integer output
    wobble = torch.full((64,), 1.0) + torch.arange(64) * 1e-9
    assert canary.output_hack(wobble, wobble.double(), torch.ones(64)) is None
    assert canary.output_hack(torch.arange(64), torch.arange(64), torch.zeros(64, dtype=torch.int64)) is None


def test_reference_runs_float64_echoes_and_operations() -> None:
    """The verdict job's reference runs, in this process: float64 values, the echo canary, the trace."""
    from ecot.domains.gpu.jobs import reference as gpu_reference

    module = types.ModuleType("m")
    exec("import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n"
         "        return torch.relu(x) + 1e-3, x * 1.0\nrows = 4\ndef get_inputs():\n    return [torch.randn(rows, 8)]\n"
         "def get_init_inputs():\n    return []\n", module.__dict__)
    inputs = Inputs(module, seed=3, trials=2)
    echoing = {t: [inputs.trial(t)[0].clone(), inputs.trial(t)[0].clone()] for t in range(2)}
    runs = gpu_reference.run(module, inputs, 3, "cpu", gpu_reference.Tolerance(None, None), echoing)
    assert runs.echoed == [[(0, 0)], [(0, 0)]]  # output 1 is the input in the reference too
    assert runs.values(0)[0].dtype == torch.float64 and not runs.fallbacks
    assert [key.split("|")[0] for key in runs.ops] == ["aten.relu.default", "aten.add.Tensor", "aten.mul.Tensor"]
    assert runs.echoes and runs.stress is not None and not runs.degenerate  # an output equals an input: stress runs


def test_a_result_cached_from_an_earlier_call_is_named() -> None:
    first, second = torch.ones(8), torch.full((8,), 2.0)
    text = canary.cached(1, {0: [first]}, {0: [first], 1: [second]}, [first.clone()])
    assert text is not None and "is the one ModelNew returned in trial 0" in text
    assert canary.cached(1, {0: [first]}, {0: [first], 1: [first]}, [first.clone()]) is None  # so does the reference


def test_operation_trace_and_coverage() -> None:
    x = torch.randn(4, 6)
    with canary.op_trace() as ref:
        torch.relu(x)
    with canary.op_trace() as copied:
        torch.nn.functional.relu(x.view(4, 6))  # another API, an extra view: still all of the reference's work
    with canary.op_trace() as other:
        torch.clamp(x, min=0)
    with canary.op_trace() as narrower:
        torch.relu(x.double())  # the same op on other dtypes is other work
    assert list(ref.counts) == ["aten.relu.default|(4, 6):float32:(6, 1)"]
    assert canary.covers(copied.counts, ref.counts)
    assert not canary.covers(other.counts, ref.counts) and not canary.covers(narrower.counts, ref.counts)
    assert not canary.covers(copied.counts, {}) and not canary.covers(None, ref.counts)


def test_inputs_per_shape_set() -> None:
    module = types.ModuleType("m")
    exec("import torch\nrows = 4\ndim = 10\ndef get_inputs():\n    return [torch.randn(rows, dim)]\n"
         "def get_init_inputs():\n    return [dim]\n", module.__dict__)
    inputs = Inputs(module, seed=5, trials=2, shapes=[{"dim": 8}, {"rows": 1}, {"rows": 2, "dim": 3}])
    assert inputs.trials == 4 and inputs.groups() == [(0, [0, 1]), (1, [2]), (2, [3])]
    assert [inputs.init(s) for s in range(3)] == [[8], [10], [3]]  # a set overrides what it names only
    assert [tuple(inputs.trial(t)[0].shape) for t in range(4)] == [(4, 8), (4, 8), (1, 10), (2, 3)]
    assert torch.equal(inputs.trial(1)[0], inputs.trial(1)[0]) and not torch.equal(inputs.trial(0)[0], inputs.trial(1)[0])
    assert tuple(inputs.stress()[0].shape) == (4, 8)


def test_module_constants() -> None:
    source = "import torch\nbatch_size = 16\ndim: int = 4000\nshape = (3, 4)\nscale = 0.5\nname = 'x'\nlater = dim * 2\n"
    assert module_constants(source) == {"batch_size", "dim", "shape"}


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


def test_timing_refuses_a_tensor_subclass(monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot.domains.gpu.jobs import timing as gpu_timing
    from ecot.domains.gpu.jobs.common import NotPlainTensor, patch_cuda_helpers

    class Deferred(torch.Tensor):
        pass

    for name in ("Event", "synchronize", "Stream", "stream", "current_stream", "default_stream", "current_device",
                 "set_device", "_sleep"):
        monkeypatch.setattr(torch.cuda, name, getattr(torch.cuda, name))  # restored after the stand-ins below
    patch_cuda_helpers()
    timer = gpu_timing.Timer()
    monkeypatch.setattr(timer, "flush", lambda: None)
    sets = [[torch.ones(4)]]
    timer.measure(lambda x: x * 2, sets, warmup=0, trials=2)
    with pytest.raises(NotPlainTensor, match="torch.Tensor subclass"):
        timer.measure(lambda x: (x * 2).as_subclass(Deferred), sets, warmup=0, trials=2)


def test_tamper_check_sees_the_harness_own_references(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rebinding what the harness bound (its clock, its tamper check, the Timer's functions) is seen, as is
    replacing a public timer; untouched, nothing is reported."""
    from ecot.domains.gpu.jobs import timing as gpu_timing

    class Timer:  # the attributes the check watches on a real Timer (which needs CUDA to build)
        event = elapsed = record = wait = sync = plain = staticmethod(lambda *a: None)

    timer = Timer()
    snapshot = gpu_timing.timer_snapshot(timer)
    check = gpu_timing.tampered  # bound before the candidate runs, as the candidate job does
    assert check(snapshot, timer) == []
    monkeypatch.setattr(gpu_timing, "_perf_counter", lambda: 0.0)
    monkeypatch.setattr(gpu_timing, "tampered", lambda *a, **k: [])
    monkeypatch.setattr(timer, "elapsed", lambda start, end: 0.001)
    monkeypatch.setattr(torch.cuda.Event, "elapsed_time", lambda self, end: 0.001)
    assert set(check(snapshot, timer)) == {"the harness's _perf_counter", "the harness's tampered",
                                           "the harness's timer.elapsed", "torch.cuda.Event.elapsed_time"}


def test_shape_sets_and_seed_options() -> None:
    from ecot.domains.base import build_options

    model = "import torch\nbatch_size = 16\ndim = 4000\ndef get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n"
    opts = build_options(GpuOptions, {"shapes": [{"dim": 4100}, {"batch_size": 1, "dim": [3]}]}, {"model.py": model})
    assert isinstance(opts, GpuOptions) and opts.seed is None and len(opts.shapes) == 2
    for bad, match in (({"shapes": [{"dims": 4100}]}, "names dims, not module-level constants"),
                       ({"shapes": [{}]}, "names no size constant"), ({"shapes": [{"dim": 0}]}, "greater than"),
                       ({"seed": -1}, "greater than")):
        with pytest.raises(ValueError, match=match):
            build_options(GpuOptions, bad, {"model.py": model})
    with pytest.raises(ValueError, match="cannot be parsed"):
        build_options(GpuOptions, {"shapes": [{"dim": 1}]}, {"model.py": "def broken(:\n"})
