"""Inline CUDA candidates on a machine without a GPU: nvcc compiles their device code for sm_90, which
catches compile errors and oversized static shared memory; a clean build is an honest Infra_Error
(nothing can run it here), never a Pass."""

from __future__ import annotations

import shutil

import pytest

from ecot.core.errors import ToolMissingError
from ecot.core.outcome import INFRA_ERROR, Outcome
from ecot.domains import get_backend as _get_backend
from ecot.domains.gpu.outcome import COMPILATION_ERROR, MEMORY_FAULT
from ecot.domains.gpu.runner import gpu_device_nodes
from ecot.tasks.suite import bundled_suite_path, load_suite
from require_tools import skip_gpu_only


def get_backend(domain: str):
    """The backend, or a skip naming the missing package (torch, triton, numpy)."""
    try:
        return _get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"the gpu backend needs the missing tool '{err.tool}'")


TEMPLATE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline


cuda_source = """
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* y, int n) {{
    __shared__ float tile[{tile}];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.f;
    __syncthreads();
    if (i < n) y[i] = tile[threadIdx.x] > 0.f ? tile[threadIdx.x] : 0.f{end}
}}

torch::Tensor relu(torch::Tensor x) {{
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}}
"""

ext = load_inline("ecot_relu", cpp_sources="torch::Tensor relu(torch::Tensor x);", cuda_sources=cuda_source,
                  functions=["relu"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu(x.contiguous())
'''


@pytest.fixture(scope="module", autouse=True)
def _cpu_with_nvcc() -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("the CUDA compile check needs the missing tool 'nvcc'")
    if gpu_device_nodes():
        skip_gpu_only("this machine has a GPU: load_inline builds for real there (tests/test_gpu_device.py)")


def run(tile: int = 256, end: str = ";") -> Outcome:
    task = next(t for t in load_suite(bundled_suite_path("gpu")) if t.id == "gpu/relu")
    return get_backend("gpu").run(task, TEMPLATE.format(tile=tile, end=end))


def test_clean_cuda_compiles_but_cannot_pass_without_a_gpu() -> None:
    outcome = run()
    assert outcome.label == INFRA_ERROR, outcome.diagnostic
    assert "compiles for sm_90" in outcome.diagnostic and "relu_kernel" in outcome.diagnostic


def test_cuda_syntax_error_is_a_compilation_error() -> None:
    outcome = run(end="")
    assert outcome.label == COMPILATION_ERROR and "error" in outcome.diagnostic, outcome.diagnostic
    assert "cuda_sources" in outcome.diagnostic


def test_static_shared_memory_overflow_is_a_memory_fault() -> None:
    outcome = run(tile=64 * 1024)
    assert outcome.label == MEMORY_FAULT, outcome.diagnostic
    assert "static shared memory" in outcome.diagnostic and "262144" in outcome.diagnostic
