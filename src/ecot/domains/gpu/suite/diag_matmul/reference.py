import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(a_ptr, b_ptr, out_ptr, n_rows, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    block = tl.program_id(axis=1)
    cols = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    scale = tl.load(a_ptr + row)
    b = tl.load(b_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, b * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        B = B.contiguous()
        n_rows, n_cols = B.shape
        out = torch.empty_like(B)
        row_scale_kernel[(n_rows, triton.cdiv(n_cols, 1024))](a, B, out, n_rows, n_cols, BLOCK_SIZE=1024)
        return out
