import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def split_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, CHUNK: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    chunk = tl.program_id(axis=1)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(chunk * CHUNK, chunk * CHUNK + CHUNK, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        acc += tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.zeros(rows, device=x.device, dtype=torch.float32)
        CHUNK = 4096
        grid = (rows, triton.cdiv(cols, CHUNK))
        split_sum_kernel[grid](x, out, cols, x.stride(0), CHUNK=CHUNK, BLOCK_SIZE=1024)
        return out
