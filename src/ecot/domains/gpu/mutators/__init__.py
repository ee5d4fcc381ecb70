"""The GPU-kernel mutation set: mistakes people and models make writing Triton (and PyTorch) kernels,
what each GPU outcome label implies for a repair, and a first-person plan read off a reference."""

from __future__ import annotations

import re
from collections.abc import Callable

from ecot.domains.gpu.mutators import ops
from ecot.mutators.base import Category, LabelEvidence, Mutation, MutationSet, Site, Source

_ORDER: tuple[Category, ...] = ("semantic", "structural", "timing", "syntax")


def _py(find: Callable[[Source], list[Site]]) -> Callable[[Source], list[Site]]:
    """Operators search Python-masked text (comments and strings blanked), whatever Source they get."""
    return lambda src: find(Source(src.text, ops.PY_MASK))


MUTATIONS: tuple[Mutation, ...] = (
    Mutation("missing_colon", "syntax", _py(ops.missing_colon),
             "Python needs the colon to open the block; without it the module does not even import.",
             "`for start in range(0, n_cols, BLOCK_SIZE):` -> `... BLOCK_SIZE)`"),
    Mutation("unbalanced_paren", "syntax", _py(ops.unbalanced_paren),
             "An unclosed call swallows the following lines into its argument list.",
             "`tl.load(x_ptr + offsets, mask=mask)` -> `tl.load(x_ptr + offsets, mask=mask`"),
    Mutation("missing_mask", "structural", _py(ops.missing_mask),
             "Without the mask the last, partial block reads or writes past the end of the tensor: an illegal access on a GPU.",
             "`tl.load(x_ptr + offsets, mask=mask, other=0.0)` -> `tl.load(x_ptr + offsets)`"),
    Mutation("wrong_stride", "structural", _py(ops.wrong_stride),
             "The kernel walks memory with the strides it is given; the other dimension's stride sends rows and "
             "columns to the wrong places.",
             "`B.stride(1), B.stride(0)` -> `B.stride(0), B.stride(1)`"),
    Mutation("oversized_tile", "structural", _py(ops.oversized_tile),
             "Each pipeline stage keeps its own copy of the A and B tiles in shared memory, so large tiles exceed what one SM offers.",
             "`BLOCK_M=32, BLOCK_N=32, BLOCK_K=32` -> `BLOCK_M=256, BLOCK_N=256, BLOCK_K=128`"),
    Mutation("non_pow2_block", "structural", _py(ops.non_pow2_block),
             "tl.arange only accepts power-of-two extents, so the block size has to be rounded up and masked.",
             "`triton.next_power_of_2(cols)` -> `cols`"),
    Mutation("wrong_dtype", "structural", _py(ops.wrong_dtype),
             "float16 holds at most 65504 and keeps about three significant digits: sums overflow to inf or drift.",
             "`tl.zeros((BLOCK,), dtype=tl.float32)` -> `dtype=tl.float16`"),
    Mutation("missing_atomic", "timing", _py(ops.missing_atomic),
             "Programs of one launch run in any order; a plain load-add-store loses the updates of programs that interleave.",
             "`tl.atomic_add(out_ptr + row, s)` -> `tl.store(out_ptr + row, tl.load(out_ptr + row) + s)`"),
    Mutation("broadcast_index", "semantic", _py(ops.broadcast_index),
             "The operand has one value per row (or column), so it must be read at the row (column) index, not at the flat element index.",
             "`tl.load(targ_ptr + row)` -> `tl.load(targ_ptr + offsets)` (the Hinge Loss bug of Figure 3)"),
    Mutation("wrong_reduction_dim", "semantic", _py(ops.wrong_reduction_dim),
             "Reducing along the other axis computes a different quantity, or a differently shaped one.",
             "`tl.sum(x, axis=0)` -> `tl.sum(x, axis=1)`, `dim=1` -> `dim=0`"),
    Mutation("drop_keepdim", "semantic", _py(ops.drop_keepdim),
             "Without keepdim the reduced tensor loses its singleton axis and broadcasts against the wrong dimension.",
             "`x.mean(dim=-1, keepdim=True)` -> `x.mean(dim=-1)`"),
    Mutation("off_by_one_bounds", "semantic", _py(ops.off_by_one_bounds),
             "With `<=` the bound admits one element past the end.",
             "`mask = offsets < n_elements` -> `mask = offsets <= n_elements`"),
    Mutation("wrong_grid", "semantic", _py(ops.wrong_grid),
             "Floor division drops the last partial block, so its elements are never computed.",
             "`triton.cdiv(n, BLOCK_SIZE)` -> `n // BLOCK_SIZE`"),
    Mutation("inplace_output", "semantic", _py(ops.inplace_output),
             "Writing the result into the input corrupts the caller's tensor and returns an alias of it.",
             "`out = torch.empty_like(x)` -> `out = x`"),
    Mutation("wrong_op", "semantic", _py(ops.wrong_op),
             "A neighbouring operation computes something close but different.",
             "`tl.maximum(x, 0.0)` -> `tl.minimum(x, 0.0)`, `torch.sum` -> `torch.mean`"),
)


def _suspects(*first: Category) -> tuple[Category, ...]:
    return tuple(dict.fromkeys((*first, *_ORDER)))


EVIDENCE: dict[str, LabelEvidence] = {
    "Compilation_Error": LabelEvidence(
        "Nothing ran: Python or Triton's compiler rejected the code at the line it names, so the mistake is in "
        "the text or in what the kernel asks of the compiler (block shapes, types).", _suspects("syntax", "structural")),
    "Memory_Fault": LabelEvidence(
        "A kernel touched memory outside the buffers it was given, or asked for more shared memory, registers or "
        "threads than the GPU provides: a mask, an index, a stride or a tile size is wrong.",
        _suspects("structural", "semantic")),
    "Numerical_Mismatch": LabelEvidence(
        "The kernels ran, but the values differ from the reference: the arithmetic, the indexing, the reduction "
        "axis, the precision or the coordination between programs is off.", _suspects("semantic", "timing", "structural")),
    "Runtime_Error": LabelEvidence(
        "Python raised while building or running ModelNew, before any value could be compared.",
        _suspects("structural", "semantic")),
    "Timeout": LabelEvidence(
        "ModelNew never finished: a loop bound or a grid is far larger than it should be.", _suspects("semantic", "structural")),
}
DEFAULT_EVIDENCE = LabelEvidence("ModelNew did not pass its checks.", _suspects("semantic", "structural"))

CLUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"illegal memory access", ("missing_mask", "broadcast_index", "off_by_one_bounds", "wrong_stride")),
    (r"out of resource: (shared memory|registers|threads)", ("oversized_tile",)),
    (r"data race", ("missing_atomic",)),
    (r"power of 2|power of two", ("non_pow2_block",)),
    (r"inf where the reference is finite|has dtype|overflow", ("wrong_dtype",)),
    (r"shares memory with input|modified input", ("inplace_output",)),
    (r"SyntaxError|never closed|expected ':'|invalid syntax", ("missing_colon", "unbalanced_paren")),
    (r"an unintended broadcast|has shape|axis \S+ is out of bounds|invalid axis", ("drop_keepdim", "wrong_reduction_dim")),
    (r"\(the end\)", ("wrong_grid", "off_by_one_bounds")),
)


def describe(prompt: str, reference: str) -> list[str]:
    """A first-person plan: what Model computes, the kernels of the reference and how they are launched."""
    src = Source(reference, ops.PY_MASK)
    doc = re.search(r'class Model\(nn\.Module\):\s*"""(.+?)"""', prompt, re.S)
    plan = [f"I need a ModelNew that computes the same thing as Model: {ops.clip(doc.group(1), 200).rstrip('.')}."
            if doc else "I need a ModelNew whose forward matches the reference Model exactly."]
    kernels = re.findall(r"@triton\.jit\s*\ndef\s+(\w+)\(([^)]*)\)", reference)
    for name, params in kernels[:3]:
        plan.append(f"I'll write a Triton kernel `{name}` taking ({ops.clip(params, 120)}).")
    plan.extend(_approach(src))
    plan.append("Let me write it out.")
    return plan


def _approach(src: Source) -> list[str]:
    text = src.masked
    ideas = [
        (r"program_id\(axis=2\)|program_id\(2\)", "The third grid axis walks the batch."),
        (r"tl\.dot", "Each program computes one output tile, looping over K with tl.dot and a float32 accumulator."),
        (r"program_id\(axis=1\)|program_id\(1\)", "A 2D grid splits the work along a second axis."),
        (r"for start in range", "Each program loops over its row in blocks, so rows of any length work."),
        (r"tl\.atomic_add", "Partial results from different programs are combined with tl.atomic_add into a zeroed buffer."),
        (r"mask\s*=", "Every load and store is masked so the ragged last block stays inside the tensors."),
        (r"next_power_of_2", "The block size is the row length rounded up to a power of two, as tl.arange requires."),
        (r"tl\.float32", "Accumulation happens in float32."),
    ]
    return [sentence for pattern, sentence in ideas if re.search(pattern, text)]


GPU_MUTATIONS = MutationSet(
    artifact="kernel",
    domain="gpu",
    mutations=MUTATIONS,
    evidence=EVIDENCE,
    default_evidence=DEFAULT_EVIDENCE,
    describe=describe,
    names=lambda code: set(re.findall(rf"\b({ops.IDENT})\s*=", Source(code, ops.PY_MASK).masked)),
    # Indexing and masking mistakes dominate kernel bugs; a syntax error hides every other bug behind it.
    weights={"syntax": 0.4, "structural": 1.25, "timing": 0.75, "semantic": 1.25},
    clues=CLUES,
)
