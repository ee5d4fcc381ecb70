import torch
import torch.nn as nn


class Model(nn.Module):
    """Batched matrix multiply: C[b] = A[b] @ B[b]."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch = 64
M = 200
K = 300
N = 250


def get_inputs():
    return [torch.randn(batch, M, K), torch.randn(batch, K, N)]


def get_init_inputs():
    return []
