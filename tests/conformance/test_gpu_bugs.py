"""Planted GPU-kernel bugs: each mutation of a bundled Triton reference must earn its expected label.

Established on the CPU path (Triton's instrumented interpreter plus an sm_90 compile of every launch):
the paper's two GPU case studies are here, Figure 3's Hinge Loss broadcasting bug (an out-of-bounds read
of the per-row labels) and section 4.1's fused-attention tile that needs more shared memory than an SM has.
"""

from __future__ import annotations

import pytest

from ecot.core.outcome import TIMEOUT
from ecot.domains.gpu.outcome import COMPILATION_ERROR, MEMORY_FAULT, NUMERICAL_MISMATCH

from .common import BugCase, bug_params, compose, describe, replace_once, run_bug

GPU_BUGS: tuple[BugCase, ...] = (
    # wrong mask: the last, partial block reads past the end
    BugCase("gpu/relu", "missing_mask",
            replace_once("x = tl.load(x_ptr + offsets, mask=mask, other=0.0)", "x = tl.load(x_ptr + offsets)"), MEMORY_FAULT),
    BugCase("gpu/layer_norm", "off_by_one_mask", replace_once("mask = cols < n_cols", "mask = cols <= n_cols"), MEMORY_FAULT),
    # broadcasting / index bugs (Figure 3: labels of shape (batch, 1) read with the flat element index)
    BugCase("gpu/hinge_loss", "broadcast_index_hinge",
            replace_once("tl.load(targ_ptr + row,", "tl.load(targ_ptr + offsets,"), MEMORY_FAULT),
    BugCase("gpu/bias_add_2d", "broadcast_index_bias",
            replace_once("tl.load(bias_ptr + col,", "tl.load(bias_ptr + offsets,"), MEMORY_FAULT),
    BugCase("gpu/hinge_loss", "output_shape", replace_once("return (total / n).reshape(())", "return total / n"),
            NUMERICAL_MISMATCH),
    BugCase("gpu/matmul_bt", "wrong_stride",
            replace_once("B.stride(1), B.stride(0), C.stride(0)", "B.stride(0), B.stride(1), C.stride(0)"), MEMORY_FAULT),
    # wrong block size
    BugCase("gpu/softmax", "block_smaller_than_row",
            replace_once("BLOCK_SIZE = triton.next_power_of_2(cols)", "BLOCK_SIZE = 128"), NUMERICAL_MISMATCH),
    BugCase("gpu/softmax", "block_not_power_of_two",
            replace_once("BLOCK_SIZE = triton.next_power_of_2(cols)", "BLOCK_SIZE = cols"), COMPILATION_ERROR),
    BugCase("gpu/relu", "grid_rounds_down", replace_once("triton.cdiv(n, BLOCK_SIZE)", "n // BLOCK_SIZE"), NUMERICAL_MISMATCH),
    # missing synchronization between programs: a plain read-modify-write instead of an atomic
    BugCase("gpu/row_sum_split", "missing_atomic",
            replace_once("tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))",
                         "tl.store(out_ptr + row, tl.load(out_ptr + row) + tl.sum(acc, axis=0))"), NUMERICAL_MISMATCH),
    # dtype overflow: float16 accumulation of squares past 65504
    BugCase("gpu/sum_squares_fp16", "fp16_accumulator",
            compose(replace_once("acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)", "acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float16)"),
                    replace_once("other=0.0).to(tl.float32)", "other=0.0)")), NUMERICAL_MISMATCH),
    # oversized tiles (section 4.1): more shared memory than an sm_90 SM offers per block
    BugCase("gpu/attention", "oversized_attention_tile",
            compose(replace_once("BLOCK_M, BLOCK_N = 32, 32", "BLOCK_M, BLOCK_N = 128, 256"),
                    replace_once("num_warps=4, num_stages=2", "num_warps=8, num_stages=3")), MEMORY_FAULT),
    BugCase("gpu/matmul", "oversized_matmul_tile",
            replace_once("BLOCK_M=32, BLOCK_N=32, BLOCK_K=32", "BLOCK_M=256, BLOCK_N=256, BLOCK_K=128"), MEMORY_FAULT),
    # the compiler rejects what the interpreter would accept
    BugCase("gpu/cross_entropy", "wrong_reduction_axis",
            replace_once("tl.sum(tl.exp(x - top), axis=0)", "tl.sum(tl.exp(x - top), axis=1)"), COMPILATION_ERROR),
    BugCase("gpu/relu", "python_syntax", replace_once("def forward(self, x: torch.Tensor) -> torch.Tensor:",
                                                       "def forward(self, x: torch.Tensor) -> torch.Tensor"), COMPILATION_ERROR),
    BugCase("gpu/relu", "launch_never_ends", replace_once("grid = (triton.cdiv(n, BLOCK_SIZE),)", "grid = (n * 100000,)"),
            TIMEOUT, wall_s=4.0),
)

DIAGNOSTIC_WORDS = {
    "missing_mask": "illegal memory access",
    "broadcast_index_hinge": "element 64 of `targ_ptr`",
    "output_shape": "has shape (1,), the reference's is ()",
    "missing_atomic": "data race",
    "fp16_accumulator": "inf where the reference is finite",
    "oversized_attention_tile": "out of resource: shared memory",
    "oversized_matmul_tile": "sm_90",
    "block_not_power_of_two": "power of 2",
    "wrong_reduction_axis": "invalid axis 1",
    "grid_rounds_down": "(the end)",
}


@pytest.mark.parametrize("case", bug_params(GPU_BUGS))
def test_planted_gpu_bug_gets_its_label(case: BugCase) -> None:
    outcome = run_bug(case)
    assert outcome.label == case.expected_label, f"{case.name}: {describe(outcome)}"
    word = DIAGNOSTIC_WORDS.get(case.kind)
    assert word is None or word in outcome.diagnostic, f"{case.name}: {outcome.diagnostic}"


def test_oversized_tile_diagnostic_is_quantitative() -> None:
    case = next(c for c in GPU_BUGS if c.kind == "oversized_attention_tile")
    outcome = run_bug(case)
    assert outcome.metrics["resource"] == "shared memory" and outcome.metrics["limit"] == 232448
    assert outcome.metrics["required"] > outcome.metrics["limit"]
    assert f"over by {outcome.metrics['required'] - outcome.metrics['limit']} B" in outcome.diagnostic
