import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum of squares of each row of a half-precision matrix, accumulated and returned in float32."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x.float() ** 2, dim=1)


batch_size = 128
dim = 8000


def get_inputs():
    return [(torch.randn(batch_size, dim) * 12).half()]


def get_init_inputs():
    return []
