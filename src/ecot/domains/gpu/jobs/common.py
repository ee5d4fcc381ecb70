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
    """The task's seeded inputs, made on demand (they can be large on a GPU): `trials` trials on the
    first shape set (the task's own sizes, or their CPU plan), then one trial on each further shape set.
    A shape set overrides module-level size constants; the others keep the values the module has."""

    def __init__(self, module: types.ModuleType, seed: int, trials: int, shapes: list[dict[str, Any]] | None = None) -> None:
        self.module, self.seed, self.base = module, seed, trials
        self.shapes = list(shapes or [{}])
        self.trials = trials + len(self.shapes) - 1
        names = {name for shape in self.shapes for name in shape}
        self._loaded = {name: getattr(module, name) for name in names if hasattr(module, name)}

    def groups(self) -> list[tuple[int, list[int]]]:
        """(shape set, its trials): the model is built once per shape set (its init inputs may use the sizes)."""
        return [(0, list(range(self.base)))] + [(s, [self.base + s - 1]) for s in range(1, len(self.shapes))]

    def shape_of(self, trial: int) -> int:
        return 0 if trial < self.base else trial - self.base + 1

    def use(self, shape: int) -> None:
        for name, value in self._loaded.items():
            setattr(self.module, name, value)
        apply_sizes(self.module, self.shapes[shape])

    def init(self, shape: int = 0) -> list[Any]:
        import torch

        self.use(shape)
        torch.manual_seed(self.seed)
        return list(self.module.get_init_inputs())

    def trial(self, trial: int) -> list[Any]:
        import torch

        self.use(self.shape_of(trial))
        torch.manual_seed(self.seed + 1 + trial)
        return list(self.module.get_inputs())

    def stress(self) -> list[Any]:
        """Floating inputs redrawn from N(0, 4^2), keeping their layout: a reference that is constant, or
        equal to an input, on the task's own input distribution (everything clamps to zero on [0, 1)
        inputs, a ReLU of non-negative inputs) usually is not on this one."""
        import torch

        self.use(0)
        torch.manual_seed(self.seed + STRESS_SEED)
        generator = torch.Generator().manual_seed(self.seed + STRESS_SEED)
        values = list(self.module.get_inputs())
        return [torch.empty_like(v).copy_(torch.randn(v.shape, generator=generator) * 4)
                if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in values]


def module_constants(source: str) -> set[str]:
    """Names of the module-level integer constants (and tuples/lists of them) a source assigns: the sizes
    a task's `shapes` option may override."""
    import ast

    def literal(node: ast.expr) -> bool:
        if isinstance(node, (ast.Tuple, ast.List)):
            return bool(node.elts) and all(literal(e) for e in node.elts)
        return isinstance(node, ast.Constant) and type(node.value) is int

    found: set[str] = set()
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if value is not None and literal(value):
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


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


def settle(device: str) -> None:
    """With CUDA: wait for the work of every stream, so outputs are read after a side stream wrote them."""
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def as_outputs(result: Any) -> list[Any]:
    """A forward's result as a flat list (tensor, tuple/list of tensors, or Python numbers)."""
    import torch

    if isinstance(result, (tuple, list)):
        return [x for item in result for x in as_outputs(item)]
    if isinstance(result, (int, float, bool)) and not isinstance(result, torch.Tensor):
        return [torch.tensor(result)]
    return [result]


class NotPlainTensor(TypeError):
    """ModelNew returned a torch.Tensor subclass."""


def check_plain(outputs: list[Any]) -> None:
    """Outputs must be plain tensors (or parameters): a subclass can hold its work back until it is read,
    past the timer, or answer a comparison made in the candidate's process with anything it likes."""
    import torch

    for index, value in enumerate(outputs):
        if isinstance(value, torch.Tensor) and type(value) not in (torch.Tensor, torch.nn.Parameter):
            raise NotPlainTensor(f"output {index} of ModelNew is a `{type(value).__name__}`, a torch.Tensor subclass; "
                                 "outputs must be plain tensors (a subclass can defer its work past the timer)")


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
    """Make harmless CUDA calls work without a GPU: synchronize, the current device, streams and events
    (on a CPU everything already ran in order, so they do nothing and time nothing)."""
    import contextlib

    import torch

    class CpuEvent:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def record(self, stream: Any = None) -> None:
            pass

        def wait(self, stream: Any = None) -> None:
            pass

        def synchronize(self) -> None:
            pass

        def query(self) -> bool:
            return True

        def elapsed_time(self, end: Any) -> float:
            return 0.0

    class CpuStream(CpuEvent):
        def wait_stream(self, stream: Any) -> None:
            pass

        def wait_event(self, event: Any) -> None:
            pass

        def record_event(self, event: Any = None) -> Any:
            return event or CpuEvent()

    stand_ins: dict[str, Any] = {
        "synchronize": lambda *a, **k: None, "current_device": lambda: 0, "set_device": lambda *a, **k: None,
        "Stream": CpuStream, "Event": CpuEvent, "stream": lambda stream=None: contextlib.nullcontext(),
        "current_stream": lambda device=None: CpuStream(), "default_stream": lambda device=None: CpuStream(),
        "_sleep": lambda cycles: None,
    }
    for name, value in stand_ins.items():
        setattr(torch.cuda, name, value)
