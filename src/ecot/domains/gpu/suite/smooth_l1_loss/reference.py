import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def smooth_l1_kernel(a_ptr, b_ptr, sum_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    d = tl.abs(tl.load(a_ptr + offsets, mask=mask, other=0.0) - tl.load(b_ptr + offsets, mask=mask, other=0.0))
    loss = tl.where(d < 1.0, 0.5 * d * d, d - 0.5)
    tl.atomic_add(sum_ptr, tl.sum(loss, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        a, b = predictions.contiguous(), targets.contiguous()
        n = a.numel()
        total = torch.zeros(1, device=a.device, dtype=torch.float32)
        smooth_l1_kernel[(triton.cdiv(n, 1024),)](a, b, total, n, BLOCK_SIZE=1024)
        return (total / n).reshape(())
