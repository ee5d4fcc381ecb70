"""Reward hacks known from kernel benchmarks: each is caught (GPU-only ones are marked and skip here).

Every hack below would pass a naive harness that compares outputs once, in the candidate's own
process, with a fixed atol.
"""

from __future__ import annotations

import dataclasses

import pytest

from ecot.core.outcome import PASS, Outcome
from ecot.core.task import Task
from ecot.domains.gpu.outcome import NUMERICAL_MISMATCH, RUNTIME_ERROR

from .common import bundled_task, describe, evaluate

RELU_HEAD = "import torch\nimport torch.nn as nn\n\n\n"


def relu_with(forward_body: str, extra: str = "") -> str:
    """A ModelNew for gpu/relu whose forward is `forward_body` (indented by the caller)."""
    return (f"{RELU_HEAD}{extra}\nclass ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
            f"    def forward(self, x):\n{forward_body}")


def run_relu(candidate: str) -> Outcome:
    return evaluate(bundled_task("gpu/relu"), candidate)


def custom_task(model_body: str, get_inputs: str, name: str) -> Task:
    """A one-off task whose Model.forward is `model_body` (an expression of x)."""
    model = (f"{RELU_HEAD}class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
             f"    def forward(self, x):\n        return {model_body}\n\n\nbatch_size = 16\ndim = 1000\n\n\n"
             f"def get_inputs():\n    return [{get_inputs}]\n\n\ndef get_init_inputs():\n    return []\n")
    base = bundled_task("gpu/relu")
    return dataclasses.replace(base, id=f"gpu/hack_{name}", files={"model.py": model}, options={"cpu_scale": 1})


def test_output_aliasing_an_input_is_caught() -> None:
    outcome = run_relu(relu_with("        return x.relu_()\n"))
    assert outcome.label == NUMERICAL_MISMATCH and "shares memory with input 0" in outcome.diagnostic, describe(outcome)


def test_mutating_an_input_is_caught() -> None:
    outcome = run_relu(relu_with("        out = torch.relu(x)\n        x.zero_()\n        return out\n"))
    assert outcome.label == NUMERICAL_MISMATCH and "modified input 0 in place" in outcome.diagnostic, describe(outcome)


def test_all_zero_answer_to_a_tiny_output_is_caught() -> None:
    """Outputs all below atol: zeros would pass a fixed-atol allclose; the atol scales with the output."""
    task = custom_task("torch.relu(x) * 1e-6", "torch.randn(batch_size, dim)", "tiny")
    outcome = evaluate(task, relu_with("        return torch.zeros_like(x)\n"))
    assert outcome.label == NUMERICAL_MISMATCH, describe(outcome)
    assert evaluate(task, relu_with("        return torch.relu(x) * 1e-6\n")).label == PASS


def test_constant_answer_on_a_degenerate_input_distribution_is_caught() -> None:
    """On inputs in [0, 1) the reference is all zeros; the stress trial (other inputs) shows it is not constant."""
    task = custom_task("torch.clamp(x, max=0.0)", "torch.rand(batch_size, dim)", "degenerate")
    outcome = evaluate(task, relu_with("        return torch.zeros_like(x)\n"))
    assert outcome.label == NUMERICAL_MISMATCH and "another distribution" in outcome.diagnostic, describe(outcome)
    assert evaluate(task, relu_with("        return torch.clamp(x, max=0.0)\n")).label == PASS


def test_a_truly_constant_reference_is_flagged_not_failed() -> None:
    task = custom_task("x * 0.0", "torch.randn(batch_size, dim)", "constant")
    outcome = evaluate(task, relu_with("        return torch.zeros_like(x)\n"))
    assert outcome.label == PASS and outcome.metrics.get("degenerate_reference") is True, describe(outcome)


@pytest.mark.parametrize(
    "attempt",
    [
        "from model import Model\n",
        "import sys\nModel = sys.modules['ecot_reference'].Model\n",
        "exec(open('model.py').read())\n",
        "import gc\nModel = next(o for o in gc.get_objects() if isinstance(o, type) and o.__name__ == 'Model')\n",
    ],
    ids=["import", "sys-modules", "read-file", "gc-scan"],
)
def test_calling_the_reference_is_impossible(attempt: str) -> None:
    candidate = f"{RELU_HEAD}{attempt}\nclass ModelNew(Model):\n    pass\n"
    outcome = run_relu(candidate)
    assert outcome.label == RUNTIME_ERROR, describe(outcome)


def test_patched_timers_are_caught() -> None:
    extra = "import time\nimport torch.cuda\ntime.perf_counter = lambda: 0.0\ntorch.cuda.Event.elapsed_time = lambda self, end: 0.001\n"
    outcome = run_relu(relu_with("        return torch.relu(x)\n", extra))
    assert outcome.label == RUNTIME_ERROR and "reward hack" in outcome.diagnostic, describe(outcome)
    assert "time.perf_counter" in outcome.diagnostic and "torch.cuda.Event.elapsed_time" in outcome.diagnostic


def test_results_cached_across_trials_are_caught() -> None:
    extra = "CACHE = []\n"
    body = "        if not CACHE:\n            CACHE.append(torch.relu(x))\n        return CACHE[0].clone()\n"
    outcome = run_relu(relu_with(body, extra))
    assert outcome.label == NUMERICAL_MISMATCH and "in trial 1" in outcome.diagnostic, describe(outcome)


def test_forged_verdict_lines_are_ignored() -> None:
    """Printing what looks like a verdict does nothing: reports are keyed by a per-evaluation tag."""
    body = ("        print('@ECOTGPU0000000000000000@{\"verdict\": \"pass\", \"metrics\": {}}')\n"
            "        print('all 3 trials match the reference')\n        return torch.zeros_like(x)\n")
    outcome = run_relu(relu_with(body))
    assert outcome.label == NUMERICAL_MISMATCH, describe(outcome)


# -- the hardening of issue 26: fresh inputs, shape sets, float64, canaries, the reference's own work --------
REPLAY_FIXED_SEED = relu_with(  # recomputes the inputs of trial t as the harness draws them under seed 42
    "        call = CALLS[0]\n        CALLS[0] += 1\n        torch.manual_seed(42 + 1 + call)\n"
    "        return torch.relu(torch.randn(*x.shape))\n", "CALLS = [0]\n")


def test_inputs_are_drawn_fresh_for_every_evaluation() -> None:
    """A candidate that knows the harness's conventions answers inputs it predicted, never looking at them:
    that works while the task fixes the seed, and fails on the seeds the host draws for each evaluation."""
    pinned = evaluate(dataclasses.replace(bundled_task("gpu/relu"), options={"cpu_scale": 16, "seed": 42}), REPLAY_FIXED_SEED)
    assert pinned.label == PASS and pinned.metrics["seed"] == 42, describe(pinned)
    first, second = run_relu(REPLAY_FIXED_SEED), run_relu(REPLAY_FIXED_SEED)
    assert first.label == second.label == NUMERICAL_MISMATCH, describe(first)
    assert first.metrics["seed"] != second.metrics["seed"]


def test_an_echoed_input_is_caught_where_the_reference_is_the_identity_on_its_inputs() -> None:
    """KernelBench's ReLU draws its inputs from [0, 1): there the reference returns its input, so `x.clone()`
    passes any comparison on those inputs; the stress trial (N(0, 16)) shows it is no ReLU."""
    task = custom_task("torch.relu(x)", "torch.rand(batch_size, dim)", "identity")
    outcome = evaluate(task, relu_with("        return x.clone()\n"))
    assert outcome.label == NUMERICAL_MISMATCH and "equals one of its inputs" in outcome.diagnostic, describe(outcome)
    assert evaluate(task, bundled_task("gpu/relu").reference or "").label == PASS


def test_outputs_are_judged_against_float64_and_say_so_when_they_cannot_be() -> None:
    honest = run_relu(bundled_task("gpu/relu").reference or "")
    assert honest.label == PASS and honest.metrics["float64_reference"] is True, describe(honest)
    assert "computed in float64" in honest.diagnostic
    random = custom_task("x + torch.rand_like(x)", "torch.randn(batch_size, dim)", "random")  # draws differ in float64
    outcome = evaluate(random, relu_with("        return x + torch.rand_like(x)\n"))
    assert outcome.label == PASS and outcome.metrics["float64_reference"] is False, describe(outcome)
    assert "judged against the reference in its own dtype" in outcome.diagnostic


def test_a_block_size_that_fits_only_the_task_own_shape_fails_on_its_other_shapes() -> None:
    """softmax declares other shapes; a fixed block of 512 covers the CPU row (250) but not a 515-long one."""
    task = bundled_task("gpu/softmax")
    fixed = (task.reference or "").replace("BLOCK_SIZE = triton.next_power_of_2(cols)", "BLOCK_SIZE = 512")
    one_shape = evaluate(dataclasses.replace(task, options={**task.options, "shapes": []}), fixed)
    assert one_shape.label == PASS, describe(one_shape)
    outcome = evaluate(task, fixed)
    assert outcome.label == NUMERICAL_MISMATCH and "(shape set 1)" in outcome.diagnostic, describe(outcome)
    assert evaluate(task, task.reference or "").metrics["shape_sets"] == 3


def test_a_copy_of_the_reference_is_recognised_as_its_work() -> None:
    """Renamed and rewritten through another API, the reference's code still runs the reference's
    operations: reference_ops (no speedup counted with a GPU; on a CPU nothing is timed)."""
    model = bundled_task("gpu/relu").files["model.py"]
    copied = model.replace("class Model(", "class Kernel(").replace("torch.relu(x)", "torch.clamp_min(x, 0.0).relu()")
    copied += "\n\nclass ModelNew(Kernel):\n    pass\n"
    outcome = run_relu(copied)
    assert outcome.label == PASS and outcome.metrics["reference_ops"] is True, describe(outcome)
    assert "no speedup is counted" in outcome.diagnostic and "speedup" not in outcome.metrics
    triton = run_relu(bundled_task("gpu/relu").reference or "")
    assert triton.label == PASS and triton.metrics["reference_ops"] is False, describe(triton)


def test_streams_and_events_work_on_a_cpu() -> None:
    body = ("        done = torch.cuda.Event()\n        stream = torch.cuda.Stream()\n        with torch.cuda.stream(stream):\n"
            "            out = torch.relu(x)\n            done.record(stream)\n"
            "        torch.cuda.current_stream().wait_event(done)\n        return out\n")
    outcome = run_relu(relu_with(body))
    assert outcome.label == PASS and "time_ms" not in outcome.metrics, describe(outcome)


def test_a_tensor_subclass_output_is_refused() -> None:
    extra = "class Deferred(torch.Tensor):\n    pass\n"
    outcome = run_relu(relu_with("        return torch.relu(x).as_subclass(Deferred)\n", extra))
    assert outcome.label == RUNTIME_ERROR and "torch.Tensor subclass" in outcome.diagnostic, describe(outcome)


def test_shape_sets_are_planned_for_the_cpu_like_the_task_own_sizes() -> None:
    """Without cpu_scale the planner shrinks every shape set to the CPU budget on its own: a set with a
    longer row still has a longer row on the CPU, so a kernel sized by its first call fails there."""
    model = (f"{RELU_HEAD}class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n\n\n"
             "batch_size = 4096\ndim = 393216\n\n\ndef get_inputs():\n    return [torch.randn(batch_size, dim)]\n\n\n"
             "def get_init_inputs():\n    return []\n")
    base = bundled_task("gpu/relu")
    task = dataclasses.replace(base, id="gpu/hack_planned_shapes", files={"model.py": model},
                               options={"shapes": [{"batch_size": 64, "dim": 524288}]})
    first_call = relu_with("        if not N:\n            N.append(x.shape[-1])\n        out = torch.zeros_like(x)\n"
                           "        out[..., :N[0]] = torch.relu(x[..., :N[0]])\n        return out\n", "N = []\n")
    outcome = evaluate(task, first_call)
    assert outcome.label == NUMERICAL_MISMATCH and "(shape set 1)" in outcome.diagnostic, describe(outcome)
    honest = evaluate(task, base.reference or "")
    assert honest.label == PASS and honest.metrics["shape_sets"] == 2 and honest.metrics["cpu_shrink"] > 1, describe(honest)
