"""The GPU mutation set: every operator finds sites in the bundled references, planted bugs break real
references with the label their kind implies, and the repair generator walks a task back to Pass."""

from __future__ import annotations

import asyncio

import pytest

from ecot.core.errors import ToolMissingError
from ecot.core.trajectory import Turn
from ecot.domains import get_backend as _get_backend
from ecot.domains.gpu.outcome import (
    COMPILATION_ERROR,
    MEMORY_FAULT,
    NUMERICAL_MISMATCH,
)
from ecot.generators.repair import RepairGenerator, RepairOptions
from ecot.mutators import MUTATORS
from ecot.mutators.base import make_applied
from ecot.tasks.suite import bundled_suite_path, load_suite


def get_backend(domain: str):
    """The backend, or a skip naming the missing package (torch, triton, numpy)."""
    try:
        return _get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"the gpu backend needs the missing tool '{err.tool}'")


MSET = MUTATORS.get("gpu")
TASKS = {t.id: t for t in load_suite(bundled_suite_path("gpu"))}


# A PyTorch-level solution, as KernelBench imports have: some operators only apply to such code.
TORCH_SOLUTION = """import torch
import torch.nn as nn



class ModelNew(nn.Module):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
"""


def test_every_operator_has_sites_in_the_bundled_suite() -> None:
    sources = [task.reference or "" for task in TASKS.values()] + [TORCH_SOLUTION]
    for mutation in MSET.mutations:
        assert any(mutation.sites(code) for code in sources), f"operator {mutation.kind} finds nothing"


def test_sites_skip_comments_and_strings() -> None:
    code = 'import triton\n# tl.load(x_ptr + offsets, mask=mask)\ns = "tl.atomic_add(p, v)"\n'
    assert all(not m.sites(code) for m in MSET.mutations if m.kind in ("missing_mask", "missing_atomic"))


@pytest.mark.parametrize(
    ("kind", "task_id", "label"),
    [
        ("missing_mask", "gpu/relu", MEMORY_FAULT),
        ("broadcast_index", "gpu/hinge_loss", MEMORY_FAULT),
        ("missing_atomic", "gpu/row_sum_split", NUMERICAL_MISMATCH),
        ("oversized_tile", "gpu/matmul", MEMORY_FAULT),
        ("wrong_grid", "gpu/silu", NUMERICAL_MISMATCH),
        ("inplace_output", "gpu/gelu_tanh", NUMERICAL_MISMATCH),
        ("missing_colon", "gpu/row_max", COMPILATION_ERROR),
    ],
)
def test_planted_bug_breaks_a_real_reference(kind: str, task_id: str, label: str) -> None:
    task = TASKS[task_id]
    mutation = MSET.by_kind(kind)
    sites = mutation.sites(task.reference or "")
    applied = make_applied(mutation, task.reference or "", sites[0])
    outcome = get_backend("gpu").run(task, applied.code)
    assert outcome.label == label, f"{kind}@{task_id}: {outcome.label}: {outcome.diagnostic}"


def test_design_plan_reads_the_reference() -> None:
    task = TASKS["gpu/attention"]
    plan = " ".join(MSET.describe(task.prompt, task.reference or ""))
    assert "flash_attention_kernel" in plan and "tl.dot" in plan and "Scaled dot-product attention" in plan


def test_clues_point_at_the_bug_kinds() -> None:
    assert MSET.clued_kinds("data race in kernel `k`") == {"missing_atomic"}
    assert "oversized_tile" in MSET.clued_kinds("out of resource: shared memory: kernel `k` requests 786432 B")
    assert "broadcast_index" in MSET.clued_kinds("illegal memory access in kernel `hinge_kernel`")


def test_repair_generator_reaches_pass_on_the_real_backend() -> None:
    """A small generate -> run -> append loop (like tests/test_repair.py), K = 4 corrections."""
    task = TASKS["gpu/hinge_loss"]
    generator = RepairGenerator(RepairOptions(seed=3, max_bugs=2, wrong_fix_rate=0.0))
    backend = get_backend("gpu")
    turns: list[Turn] = []
    while len(turns) < 5:
        gen = asyncio.run(generator.generate([], task, turns, 0))
        outcome = backend.run(task, gen.code or "")
        turns.append(Turn(len(turns), gen.reasoning, gen.code, gen.raw, outcome))
        if outcome.passed:
            break
    labels = [turn.outcome.label for turn in turns]
    assert labels[-1] == "Pass" and labels[0] != "Pass", labels
    assert turns[1].reasoning.startswith("The toolchain reported") or labels[0] in turns[1].reasoning
