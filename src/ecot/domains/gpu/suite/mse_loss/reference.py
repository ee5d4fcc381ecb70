import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def squared_error_kernel(a_ptr, b_ptr, partial_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    d = tl.load(a_ptr + offsets, mask=mask, other=0.0) - tl.load(b_ptr + offsets, mask=mask, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(d * d, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        a, b = predictions.contiguous(), targets.contiguous()
        n = a.numel()
        blocks = triton.cdiv(n, 1024)
        partial = torch.empty(blocks, device=a.device, dtype=torch.float32)
        squared_error_kernel[(blocks,)](a, b, partial, n, BLOCK_SIZE=1024)
        return partial.sum() / n
