import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_add_kernel(x_ptr, bias_ptr, out_ptr, n_elements, features, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    col = offsets % features
    b = tl.load(bias_ptr + col, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK_SIZE = 1024
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        bias_add_kernel[grid](x, self.bias, out, n, x.shape[1], BLOCK_SIZE=BLOCK_SIZE)
        return out
