import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean cross-entropy of logits (batch, classes) against integer class targets (batch,)."""

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(logits, targets)


batch_size = 4096
num_classes = 1000


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
