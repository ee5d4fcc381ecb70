import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_layer_norm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    offs = row * n_cols + cols
    h = tl.load(x_ptr + offs, mask=mask, other=0.0) + tl.load(r_ptr + offs, mask=mask, other=0.0)
    mean = tl.sum(h, axis=0) / n_cols
    centered = tl.where(mask, h - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + offs, centered * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        x, residual = x.contiguous(), residual.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        add_layer_norm_kernel[(rows,)](x, residual, self.norm.weight, self.norm.bias, out, cols, self.norm.eps,
                                       BLOCK_SIZE=triton.next_power_of_2(cols))
        return out
