import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hinge_kernel(pred_ptr, targ_ptr, sum_ptr, n_elements, dim, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    pred = tl.load(pred_ptr + offsets, mask=mask, other=0.0)
    row = offsets // dim
    targ = tl.load(targ_ptr + row, mask=mask, other=0.0)
    loss = tl.where(mask, tl.maximum(1.0 - pred * targ, 0.0), 0.0)
    tl.atomic_add(sum_ptr, tl.sum(loss, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        predictions = predictions.contiguous()
        targets = targets.contiguous()
        n = predictions.numel()
        total = torch.zeros(1, device=predictions.device, dtype=torch.float32)
        hinge_kernel[(triton.cdiv(n, 1024),)](predictions, targets, total, n, predictions.shape[1], BLOCK_SIZE=1024)
        return (total / n).reshape(())
