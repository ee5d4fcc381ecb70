import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def group_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, group_size, channels_per_group, length, num_groups, eps,
                      BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)  # one program per (sample, group)
    group = pid % num_groups
    base = pid * group_size
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    acc_sq = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, group_size, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + base + offs, mask=offs < group_size, other=0.0)
        acc += x
        acc_sq += x * x
    mean = tl.sum(acc, axis=0) / group_size
    var = tl.sum(acc_sq, axis=0) / group_size - mean * mean
    rstd = tl.rsqrt(var + eps)
    for start in range(0, group_size, BLOCK_SIZE):
        offs = start + tl.arange(0, BLOCK_SIZE)
        mask = offs < group_size
        channel = group * channels_per_group + offs // length
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + channel, mask=mask, other=0.0)
        b = tl.load(b_ptr + channel, mask=mask, other=0.0)
        tl.store(out_ptr + base + offs, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_groups: int, channels: int):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, channels, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, channels, length = x.shape
        groups = self.norm.num_groups
        per_group = channels // groups
        out = torch.empty_like(x)
        group_norm_kernel[(batch * groups,)](x, self.norm.weight, self.norm.bias, out, per_group * length, per_group,
                                             length, groups, self.norm.eps, BLOCK_SIZE=1024)
        return out
