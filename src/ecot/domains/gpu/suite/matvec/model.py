import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix-vector product: (M, K) @ (K, 1) -> (M, 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, x)


M = 2048
K = 16000


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, 1)]


def get_init_inputs():
    return []
