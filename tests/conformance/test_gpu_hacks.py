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
