"""The gpu domain's descriptor: Triton/PyTorch kernels judged against a reference model."""

from __future__ import annotations

from pathlib import Path

from ecot.core.domain import Domain, KindedLabel, LabelKind
from ecot.domains.gpu.hints import HINTS


class GpuLabel(KindedLabel):
    COMPILATION_ERROR = "Compilation_Error", LabelKind.BUILD
    RUNTIME_ERROR = "Runtime_Error", LabelKind.RUNTIME
    MEMORY_FAULT = "Memory_Fault", LabelKind.RUNTIME
    NUMERICAL_MISMATCH = "Numerical_Mismatch", LabelKind.WRONG


DOMAIN = Domain(
    name="gpu",
    language="python",
    fences=("python", "py", "cuda", "cpp"),
    suffix=".py",
    comment="#",
    labels=GpuLabel,
    backend="ecot.domains.gpu.backend:GpuBackend",
    options="ecot.domains.gpu.options:GpuOptions",
    mutators="ecot.domains.gpu.mutators:GPU_MUTATIONS",
    hints=HINTS,
    instructions=Path(__file__).parent / "prompts.toml",
    metrics="ecot.domains.gpu.metrics:METRICS",
)
