import torch
import torch.nn as nn


class Model(nn.Module):
    """diag(a) @ B, i.e. row i of B scaled by a[i]."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.diag(a) @ B


N = 2048
M = 3000


def get_inputs():
    return [torch.randn(N), torch.randn(N, M)]


def get_init_inputs():
    return []
