import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, targets_ptr, losses_ptr, n_classes, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_classes
    x = tl.load(logits_ptr + row * n_classes + cols, mask=mask, other=float("-inf"))
    top = tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(x - top), axis=0)) + top
    target = tl.load(targets_ptr + row)
    picked = tl.load(logits_ptr + row * n_classes + target)
    tl.store(losses_ptr + row, lse - picked)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = logits.contiguous()
        rows, classes = logits.shape
        losses = torch.empty(rows, device=logits.device, dtype=torch.float32)
        cross_entropy_kernel[(rows,)](logits, targets, losses, classes, BLOCK_SIZE=triton.next_power_of_2(classes))
        return losses.mean()
