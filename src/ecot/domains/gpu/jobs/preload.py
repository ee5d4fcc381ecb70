"""Imported once by the GPU domain's warm Python (see gpu_runner), before any job is forked.

It imports what every job needs and pays PyTorch's one-time lazy initialisation of meta kernels and
the FLOP counter (about 1.5 s) here instead of in every fork. Everything runs on the meta device: no
CPU thread pool and no CUDA context may exist in a process that forks.

Triton is preloaded too, in interpreter mode: PyTorch's meta kernels import it anyway, and
`@triton.jit` decides at decoration time, from TRITON_INTERPRET, whether a kernel (and every function
of triton.language's standard library) is interpreted or compiled. So TRITON_INTERPRET=1 is set before
anything imports Triton: the candidate job (the one that runs kernels on the CPU) finds an interpreter
ready. The compile job, which needs the real compiler, drops Triton's Python modules and imports them
again without the variable (gpu_compile.fresh_triton, 0.2 s; the compiled extension is reused).
This module is only used on machines without a GPU; with one, the warm Python preloads torch alone.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import numpy  # noqa: F401 - the Triton interpreter and torch.save/load use it
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode


def _warm_meta() -> None:
    with torch.device("meta"), torch.no_grad(), FlopCounterMode(display=False):
        x = torch.randn(4, 8, 8, 8)
        weight = torch.randn(8, 8, 3, 3)
        y = F.conv2d(x, weight, padding=1)
        y = F.softmax(y.reshape(4, -1) @ torch.randn(512, 16), dim=-1)
        F.layer_norm(y, (16,)).sum()


_warm_meta()

from triton.runtime.cache import triton_key  # noqa: E402 - Triton is imported by now (interpreter mode)

# The hash of Triton's own files that every compile's cache key starts with: 1.5 s to compute, so once
# here rather than in every compile job (gpu_compile.fresh_triton hands it to the re-imported Triton).
TRITON_KEY = triton_key()
