"""Imported once by the GPU domain's warm Python on machines with an NVIDIA GPU (see gpu_runner).

Triton is imported in compiler mode (kernels run on the device there) and the hash of its own files,
which starts every compile's cache key (1.5 s), is computed here once for all forks. Nothing touches
CUDA: a process that forks must not hold a CUDA context.
"""

from __future__ import annotations

import numpy  # noqa: F401
import torch  # noqa: F401
from triton.runtime.cache import triton_key

TRITON_KEY = triton_key()  # lru_cached inside Triton: forks reuse it
