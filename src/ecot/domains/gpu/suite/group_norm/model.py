import torch
import torch.nn as nn


class Model(nn.Module):
    """GroupNorm over (batch, channels, length) inputs with a learned per-channel affine."""

    def __init__(self, num_groups: int, channels: int):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, channels, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


batch_size = 32
channels = 64
num_groups = 8
length = 1024


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [num_groups, channels]
