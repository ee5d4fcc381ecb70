import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_argmax_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    best = tl.full((BLOCK_SIZE,), float("-inf"), dtype=tl.float32)
    where = tl.zeros((BLOCK_SIZE,), dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=float("-inf"))
        better = x > best
        best = tl.where(better, x, best)
        where = tl.where(better, cols, where)
    top = tl.max(best, axis=0)
    first = tl.min(tl.where(best == top, where, n_cols), axis=0)
    tl.store(out_ptr + row, first.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty(rows, device=x.device, dtype=torch.int64)
        row_argmax_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK_SIZE=1024)
        return out
