import torch
import torch.nn as nn


class Model(nn.Module):
    """Scaled, causally masked softmax over attention scores (batch, heads, seq, seq)."""

    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        seq = scores.shape[-1]
        mask = torch.ones(seq, seq, dtype=torch.bool, device=scores.device).triu(1)
        return torch.softmax((scores * self.scale).masked_fill(mask, float("-inf")), dim=-1)


batch_size = 8
heads = 16
seq = 500


def get_inputs():
    return [torch.randn(batch_size, heads, seq, seq)]


def get_init_inputs():
    return [0.125]
