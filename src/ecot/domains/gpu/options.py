"""The GPU backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/gpu.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, field_validator

from ecot.domains.base import DomainOptions, OptionProblem
from ecot.domains.gpu.jobs import limits as gpu_limits
from ecot.domains.gpu.jobs.common import module_constants

MAX_SHAPES = 8
SizeValue = Annotated[int, Field(ge=1)] | list[Annotated[int, Field(ge=1)]]


class GpuOptions(DomainOptions):
    model_file: str = Field("model.py", description="bundle file with the reference Model, get_inputs, get_init_inputs")
    seed: int | None = Field(None, ge=0, lt=1 << 62, description="pins the torch seed of models and inputs (reproducing a "
                             "failure); default: a fresh seed drawn on the host for every evaluation")
    trials: int = Field(3, ge=1, description="correctness trials, each on fresh inputs (plus one stress trial)")
    shapes: list[dict[str, SizeValue]] = Field(
        default_factory=list, max_length=MAX_SHAPES,
        description="more shape sets, each overriding size constants of model.py (at the task's sizes); one trial each")
    atol: float | None = Field(None, description="overrides the dtype defaults (float32 1e-4, float16/bfloat16 1e-2)")
    rtol: float | None = Field(None, description="relative tolerance; overrides the dtype default like atol")
    scale_atol: StrictBool = Field(True, description="atol * min(1, max|reference|): tiny outputs cannot be matched by zeros")
    cpu_scale: int | None = Field(None, ge=1, description="size constants are divided by this on the CPU (default: fit the budget)")
    cpu_sizes: dict[str, Any] = Field(default_factory=dict, description="explicit CPU values for named constants")
    cpu_max_elements: int = Field(1 << 18, description="budget of the automatic CPU scale: input + output elements ...")
    cpu_max_flops: int = Field(1 << 28, description="... and forward FLOPs")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="where jobs run; auto: CUDA when the machine has a GPU")
    target: str = Field(gpu_limits.DEFAULT_ARCH, description="CUDA architecture of the resource check")
    resource_check: StrictBool = Field(True, description="compile Triton kernels for `target` on the CPU path")
    race_check: StrictBool = Field(True, description="report data races between programs of one Triton launch")
    max_kernels: int = Field(8, description="distinct launches compiled for the resource check")
    compile_wall_s: float = Field(120.0, gt=0, description="wall limit of the resource check's compile job, seconds")
    timing: StrictBool = Field(True, description="with CUDA: time candidate, reference and torch.compile'd reference")
    timing_trials: int = Field(20, ge=1, description="timed runs of each program")
    warmup: int = Field(3, ge=0, description="untimed runs before timing")
    flush_l2: StrictBool = Field(True, description="flush the L2 cache before each timed run")
    compare_compile: StrictBool = Field(True, description="also time torch.compile of the reference")
    threads: int = Field(1, description="torch threads per job on the CPU")

    @field_validator("target")
    @classmethod
    def _known_arch(cls, target: str) -> str:
        gpu_limits.arch(target)
        return target

    def check_bundle(self, files: Mapping[str, str]) -> None:
        if self.model_file not in files:
            raise OptionProblem("model_file", f"the bundle has no {self.model_file} (the reference Model)")
        if not self.shapes:
            return
        try:
            known = module_constants(files[self.model_file])
        except SyntaxError as err:
            raise OptionProblem("shapes", f"{self.model_file} cannot be parsed for its size constants: {err.msg} "
                                f"(line {err.lineno})") from None
        for index, shape in enumerate(self.shapes):
            if not shape:
                raise OptionProblem("shapes", f"shape set {index} names no size constant")
            unknown = sorted(set(shape) - known)
            if unknown:
                raise OptionProblem("shapes", f"shape set {index} names {', '.join(unknown)}, not module-level "
                                    f"constants of {self.model_file} (those are: {', '.join(sorted(known)) or 'none'})")

    def tolerance_text(self) -> str:
        if self.atol is None and self.rtol is None:
            return "dtype defaults"
        return f"atol {self.atol}, rtol {self.rtol}"
