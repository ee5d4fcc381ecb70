import torch
import torch.nn as nn


class Model(nn.Module):
    """y = clamp(x * scale + shift, low, high) with constants fixed at construction."""

    def __init__(self, scale: float, shift: float, low: float, high: float):
        super().__init__()
        self.scale, self.shift, self.low, self.high = scale, shift, low, high

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x * self.scale + self.shift, min=self.low, max=self.high)


batch_size = 64
dim = 16000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [1.5, 0.25, -1.0, 2.0]
