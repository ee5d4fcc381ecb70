import torch
import torch.nn as nn


class Model(nn.Module):
    """SwiGLU gate: the input's last dimension holds [a | b]; returns silu(a) * b."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=-1)
        return torch.nn.functional.silu(a) * b


batch_size = 256
hidden = 4000


def get_inputs():
    return [torch.randn(batch_size, 2 * hidden)]


def get_init_inputs():
    return []
