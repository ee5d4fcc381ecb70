import torch
import torch.nn as nn


class Model(nn.Module):
    """Hinge loss for a batch of predictions (batch, dim) against per-sample labels (batch, 1) in {-1, +1}:
    mean(clamp(1 - predictions * targets, min=0)); each label applies to its whole row."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


batch_size = 1024
dim = 4000


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randint(0, 2, (batch_size, 1)).float() * 2 - 1]


def get_init_inputs():
    return []
