"""Shared pieces of the sandboxed GPU-domain jobs (they run inside a fork of the warm Python).

A job reads its parameters from the read-once feed `job.json`, reports through one stdout line that
starts with the per-evaluation tag, and exchanges tensors through files in its work dir. Inputs are a
pure function of (reference source, sizes, seed): the inputs job and the verdict job build them the
same way, so the verdict never trusts a file the candidate could have touched.
"""

from __future__ import annotations

import json
import os
import sys
import types
from collections.abc import Callable
from typing import Any

STRESS_SEED = 1000  # the stress trial's inputs: another seed and another distribution
FORWARD_SEED = 10_000  # re-seeded before every forward, so dropout and friends agree between jobs
MIN_SCALED = 16  # module-level ints below this are not sizes (kernel sizes, dims, strides, groups...)


def read_job() -> dict[str, Any]:
    """The job's parameters; also points Triton's and load_inline's caches at the job's own work dir."""
    os.environ["TRITON_HOME"] = os.getcwd()
    os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(os.getcwd(), "torch_extensions")
    with open("job.json", encoding="utf-8") as handle:
        job: dict[str, Any] = json.load(handle)
    return job


def emit(tag: str, payload: dict[str, Any]) -> None:
    """The job's one trusted report line."""
    sys.stdout.write(f"\n{tag}{json.dumps(payload, default=str)}\n")
    sys.stdout.flush()


def load_module(source: str, filename: str, name: str) -> types.ModuleType:
    """Execute source as a real module (Triton and inspect need a file name and sys.modules entry)."""
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


# -- sizes ------------------------------------------------------------------------------------------
def size_constants(namespace: dict[str, Any]) -> dict[str, Any]:
    """Module-level ints >= MIN_SCALED, and tuples/lists of ints: the sizes a scale factor divides."""
    found: dict[str, Any] = {}
    for key, value in namespace.items():
        if key.startswith("_") or isinstance(value, bool):
            continue
        if isinstance(value, int) and value >= MIN_SCALED:
            found[key] = value
        elif (
            isinstance(value, (tuple, list))
            and value
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            and any(v >= MIN_SCALED for v in value)
        ):
            found[key] = list(value)
    return found


def scaled_sizes(constants: dict[str, Any], factor: int) -> dict[str, Any]:
    def shrink(v: int) -> int:
        return max(1, v // factor) if v >= MIN_SCALED else v

    return {k: ([shrink(x) for x in v] if isinstance(v, list) else shrink(v)) for k, v in constants.items()}


def apply_sizes(module: types.ModuleType, sizes: dict[str, Any]) -> None:
    for key, value in sizes.items():
        original = getattr(module, key, None)
        setattr(module, key, tuple(value) if isinstance(original, tuple) else value)


# -- inputs ------------------------------------------------------------------------------------------
class Inputs:
    """The task's seeded inputs at its current sizes, made on demand (they can be large on a GPU)."""

    def __init__(self, module: types.ModuleType, seed: int, trials: int) -> None:
        self.module, self.seed, self.trials = module, seed, trials

    def init(self) -> list[Any]:
        import torch

        torch.manual_seed(self.seed)
        return list(self.module.get_init_inputs())

    def trial(self, trial: int) -> list[Any]:
        import torch

        torch.manual_seed(self.seed + 1 + trial)
        return list(self.module.get_inputs())

    def stress(self) -> list[Any]:
        """Floating inputs redrawn from N(0, 4^2): a reference that is constant on the task's own input
        distribution (e.g. everything clamps to zero on [0, 1) inputs) usually is not on this one."""
        import torch

        torch.manual_seed(self.seed + STRESS_SEED)
        generator = torch.Generator().manual_seed(self.seed + STRESS_SEED)
        values = list(self.module.get_inputs())
        return [(torch.randn(v.shape, generator=generator) * 4).to(v.dtype)
                if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in values]


def without_class(source: str, name: str = "Model") -> str:
    """The source with the top-level class `name` blanked out (same line numbers): the candidate's
    process gets the input helpers and size constants of model.py, but never the reference model."""
    import ast

    lines = source.splitlines(keepends=True)
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            for index in range(first - 1, node.end_lineno or node.lineno):
                lines[index] = "\n"
    return "".join(lines)


def to_device(values: list[Any], device: str) -> list[Any]:
    import torch

    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]


def build_model(cls: Callable[..., Any], init: list[Any], seed: int, device: str) -> Any:
    """Construct on the CPU under the seed (so parameters agree across jobs), then move."""
    import torch

    torch.manual_seed(seed)
    model = cls(*init)
    return model.to(device) if hasattr(model, "to") else model


def forward(model: Any, inputs: list[Any], seed: int, trial: int) -> Any:
    import torch

    torch.manual_seed(seed + FORWARD_SEED + trial)
    with torch.no_grad():
        return model(*inputs)


def as_outputs(result: Any) -> list[Any]:
    """A forward's result as a flat list (tensor, tuple/list of tensors, or Python numbers)."""
    import torch

    if isinstance(result, (tuple, list)):
        return [x for item in result for x in as_outputs(item)]
    if isinstance(result, (int, float, bool)) and not isinstance(result, torch.Tensor):
        return [torch.tensor(result)]
    return [result]


def aliases(outputs: list[Any], inputs: list[Any]) -> list[list[int]]:
    """(output, input) index pairs whose tensors share memory."""
    import torch

    def span(t: torch.Tensor) -> tuple[int, int]:
        start = t.untyped_storage().data_ptr()
        return start, start + t.untyped_storage().nbytes()

    pairs = []
    for i, out in enumerate(outputs):
        for j, inp in enumerate(inputs):
            if isinstance(out, torch.Tensor) and isinstance(inp, torch.Tensor) and out.device == inp.device:
                (a, b), (c, d) = span(out), span(inp)
                if a < d and c < b and out.numel() and inp.numel():
                    pairs.append([i, j])
    return pairs


def cpu_copies(values: list[Any]) -> list[Any]:
    import torch

    return [v.detach().to("cpu").clone() if isinstance(v, torch.Tensor) else v for v in values]


# -- running GPU-written code on a CPU -------------------------------------------------------------
def cuda_as_cpu() -> Any:
    """A TorchFunctionMode that runs CUDA-addressed tensor code on the CPU (no GPU here): device
    arguments naming CUDA become the CPU and `.cuda()` is the identity. Kernel code written for a GPU
    (`torch.empty(..., device="cuda")`, `x.cuda()`) then runs under Triton's interpreter."""
    import torch
    from torch.overrides import TorchFunctionMode

    def fix(value: Any) -> Any:
        if isinstance(value, torch.device) and value.type == "cuda":
            return torch.device("cpu")
        if isinstance(value, str) and value.split(":")[0] == "cuda":
            return "cpu"
        return value

    class CudaAsCpu(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
            kwargs = dict(kwargs or {})
            name = getattr(func, "__name__", "")
            if name == "cuda":
                return args[0]
            if "device" in kwargs:
                kwargs["device"] = fix(kwargs["device"])
            if name == "to":
                args = tuple(fix(a) for a in args)
            return func(*args, **kwargs)

    return CudaAsCpu()


def patch_cuda_helpers() -> None:
    """Make harmless CUDA calls (synchronize, current stream, device count) work without a GPU."""
    import torch

    torch.cuda.synchronize = lambda *a, **k: None
    torch.cuda.current_device = lambda: 0
    torch.cuda.set_device = lambda *a, **k: None
