"""The GPU backend's per-task options (task.toml [options]), validated with clear errors."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from ecot.domains.gpu.jobs import limits as gpu_limits


@dataclass(frozen=True)
class GpuOptions:
    model_file: str = "model.py"  # bundle file with the reference Model, get_inputs, get_init_inputs
    seed: int = 42
    trials: int = 3  # correctness trials, each on fresh inputs (plus one stress trial)
    atol: float | None = None  # overrides the dtype defaults (float32 1e-4, float16/bfloat16 1e-2)
    rtol: float | None = None
    scale_atol: bool = True  # atol * min(1, max|reference|): tiny outputs cannot be matched by zeros
    cpu_scale: int | None = None  # size constants are divided by this on the CPU (default: chosen to fit the budget)
    cpu_sizes: dict[str, Any] = field(default_factory=dict)  # explicit CPU values for named constants
    cpu_max_elements: int = 1 << 18  # budget of the automatic CPU scale: input + output elements ...
    cpu_max_flops: int = 1 << 28  # ... and forward FLOPs
    device: str = "auto"  # auto | cpu | cuda
    target: str = gpu_limits.DEFAULT_ARCH  # CUDA architecture of the resource check
    resource_check: bool = True  # compile Triton kernels for `target` on the CPU path
    race_check: bool = True  # report data races between programs of one Triton launch
    max_kernels: int = 8  # distinct launches compiled for the resource check
    compile_wall_s: float = 120.0
    timing: bool = True  # with CUDA: time candidate, reference and torch.compile'd reference
    timing_trials: int = 20
    warmup: int = 3
    flush_l2: bool = True
    compare_compile: bool = True
    threads: int = 1  # torch threads per job on the CPU

    @classmethod
    def from_task(cls, options: Mapping[str, Any], task_id: str) -> GpuOptions:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(f"task {task_id}: unknown gpu option(s) {', '.join(unknown)} (known: {', '.join(known)})")
        values: dict[str, Any] = {}
        for name, value in options.items():
            values[name] = _coerce(task_id, name, value, getattr(cls(), name))
        made = cls(**values)
        made.check(task_id)
        return made

    def check(self, task_id: str) -> None:
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"task {task_id}: option device must be auto, cpu or cuda, not {self.device!r}")
        if self.trials < 1 or (self.cpu_scale is not None and self.cpu_scale < 1):
            raise ValueError(f"task {task_id}: options trials and cpu_scale must be at least 1")
        gpu_limits.arch(self.target)

    def tolerance_text(self) -> str:
        if self.atol is None and self.rtol is None:
            return "dtype defaults"
        return f"atol {self.atol}, rtol {self.rtol}"


def _coerce(task_id: str, name: str, value: Any, default: Any) -> Any:
    if name in ("atol", "rtol"):
        return float(value)
    if name == "cpu_scale":
        return int(value)
    if name == "cpu_sizes":
        if not isinstance(value, Mapping):
            raise ValueError(f"task {task_id}: option cpu_sizes must be a table of constant = value")
        return dict(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"task {task_id}: option {name} must be true or false")
        return value
    try:
        return type(default)(value)
    except (TypeError, ValueError):
        raise ValueError(f"task {task_id}: option {name} must be a {type(default).__name__}, not {value!r}") from None
