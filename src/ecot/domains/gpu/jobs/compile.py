"""Inside the compile job: build the candidate's Triton kernels for a CUDA target without a GPU.

Triton's real compiler (frontend, MLIR passes, LLVM, ptxas) runs for an explicit `GPUTarget`
through a stand-in driver that only names the target, so nothing touches a device. Each launch
the candidate job recorded (see gpu_interp) is rebuilt with the same argument types, constexprs,
num_warps and num_stages; the compiled kernel's dynamic shared memory, registers, stack and spill
stores are compared with the target's per-block limits (gpu_limits).

Result per launch: {"kernel", "config", "usage": {...}} or {"error": "compile", "message"} for a
kernel the real compiler rejects, or {"skipped": reason}.
"""

from __future__ import annotations

import contextlib
import io
import traceback
from typing import Any

from ecot.domains.gpu.jobs import limits as gpu_limits

TORCH_DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")


def fresh_triton() -> None:
    """Re-import Triton's Python modules in compiler mode (the warm Python preloaded the interpreter
    mode); its compiled extension (triton._C) stays loaded and is reused."""
    import os
    import sys

    old_cache = sys.modules.get("triton.runtime.cache")
    key = old_cache.triton_key() if old_cache is not None else None  # computed once in the warm Python
    os.environ.pop("TRITON_INTERPRET", None)
    for name in [m for m in sys.modules if (m == "triton" or m.startswith("triton.")) and not m.startswith("triton._C")]:
        del sys.modules[name]
    import triton.runtime.cache

    if key is not None:
        triton.runtime.cache.triton_key = lambda: key  # the same files, so the same hash


class OfflineDriver:
    """The part of Triton's driver interface that compiling (warmup=True) uses: the target only."""

    def __init__(self, capability: int) -> None:
        from triton.backends.compiler import GPUTarget

        self.target = GPUTarget("cuda", capability, 32)

    def get_current_target(self) -> Any:
        return self.target

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: int | None = None) -> int:
        return 0


class SharedOverflow(Exception):
    """The kernel already needs more shared memory than the target has once it is allocated: the rest
    (LLVM, PTX, ptxas: tens of seconds for huge tiles) is skipped."""

    def __init__(self, shared: int) -> None:
        super().__init__(f"needs {shared} B of shared memory")
        self.shared = shared


def _stop_on_overflow(limit: int) -> Any:
    """A Triton stage hook: after the TritonGPU stage, allocate shared memory on a copy of the module
    (the first passes of the LLVM stage) and stop when it does not fit."""

    def hook(*args: Any) -> Any:
        if not args:  # Triton asks for the hook's part of its cache key
            return "ecot-shared-guard", str(limit)
        backend, stages, options, _language, capability = args
        make_ttgir = stages["ttgir"]

        def ttgir(src: Any, metadata: dict[str, Any]) -> Any:
            module = make_ttgir(src, metadata)
            shared = _probe_shared(module, backend, options, capability)
            if shared is not None and shared > limit:
                raise SharedOverflow(shared)
            return module

        stages["ttgir"] = ttgir

    return hook


def _probe_shared(module: Any, backend: Any, options: Any, capability: int) -> int | None:
    """Shared memory the module will allocate, or None when the probe cannot tell (then the normal
    compile decides)."""
    import os
    import tempfile

    try:
        from triton._C.libtriton import ir, nvidia, passes
        from triton.backends.nvidia.compiler import get_ptx_version_from_options

        with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as handle:
            handle.write(module.str())
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        try:
            copy = ir.parse_mlir_module(handle.name, context)
        finally:
            os.unlink(handle.name)
        manager = ir.pass_manager(context)
        passes.ttgpuir.add_combine_tensor_select_and_if(manager)
        passes.ttgpuir.add_allocate_warp_groups(manager, False)
        passes.convert.add_scf_to_cf(manager)
        passes.gluon.add_inliner(manager)
        nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(manager, capability, get_ptx_version_from_options(options, capability))
        manager.run(copy, "ecot_shared_probe")
        shared: int | None = copy.get_int_attr("ttg.shared")  # Triton's IR bindings are untyped
        return shared
    except Exception:  # noqa: BLE001 - a probe only; another Triton version may differ
        return None


@contextlib.contextmanager
def offline_target(capability: int, shared_limit: int) -> Any:
    from triton import knobs
    from triton.runtime import driver

    previous = driver._active
    driver.set_active(OfflineDriver(capability))
    knobs.nvidia.dump_ptxas_log = True
    knobs.runtime.add_stages_inspection_hook = _stop_on_overflow(shared_limit)
    try:
        yield
    finally:
        driver._active = previous
        knobs.nvidia.dump_ptxas_log = False
        knobs.runtime.add_stages_inspection_hook = None


def find_kernel(module: Any, spec: dict[str, Any]) -> Any:
    """The JITFunction behind a recorded launch (unwrapping autotune / heuristics wrappers)."""
    from triton.runtime.jit import JITFunction

    target: Any = module
    for part in spec["qualname"].split("."):
        if part == "<locals>":
            return None
        target = getattr(target, part, None)
        if target is None:
            return None
    while not isinstance(target, JITFunction) and hasattr(target, "fn"):
        target = target.fn
    return target if isinstance(target, JITFunction) else None


def rebuild(desc: dict[str, Any]) -> Any:
    """An argument equivalent to the recorded one for compilation purposes."""
    import torch
    import triton.language as tl

    kind = desc["t"]
    if kind == "tensor":
        dtype = getattr(torch, desc["dtype"])
        base = torch.empty(2, dtype=dtype)
        return base if desc.get("align16", True) else base[1:]
    if kind in ("int", "float", "str", "const"):
        return desc["v"]
    if kind == "tuple":
        return tuple(rebuild(d) for d in desc["v"])
    if kind == "tl_dtype":
        return getattr(tl, desc["v"])
    raise ValueError(f"cannot rebuild a launch argument ({desc.get('repr', kind)})")


def config_text(jit: Any, spec: dict[str, Any], kwargs: dict[str, Any]) -> str:
    """`BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3` for the diagnostic."""
    params = [p.name for p in jit.params]
    named = dict(zip(params, spec["args"]))
    parts = [f"{p.name}={named[p.name]['v']}" for p in jit.params if p.is_constexpr and p.name in named and "v" in named[p.name]]
    parts += [f"{k}={v}" for k, v in kwargs.items() if not isinstance(v, (list, tuple, dict))]
    return ", ".join(parts)


def compile_one(jit: Any, spec: dict[str, Any], kwargs_desc: dict[str, Any], capability: int) -> dict[str, Any]:
    args = [rebuild(d) for d in spec["args"]]
    kwargs = {k: rebuild(d) for k, d in kwargs_desc.items()}
    kwargs.setdefault("num_warps", 4)
    config = config_text(jit, spec, kwargs)
    log = io.StringIO()
    try:
        with contextlib.redirect_stdout(log):
            kernel = jit.run(*args, grid=(1,), warmup=True, **kwargs)
    except SharedOverflow as over:
        usage = gpu_limits.Usage(kernel=spec["name"], config=config, dynamic_shared=over.shared,
                                 threads=int(kwargs["num_warps"]) * 32)
        return {"kernel": spec["name"], "config": config, "usage": usage.__dict__}
    except Exception as err:  # noqa: BLE001 - sorted below: the kernel's fault, or the harness's
        if not _candidate_fault(err):
            return {"kernel": spec["name"], "skipped": f"the compiler failed ({type(err).__name__}: {str(err)[:200]})"}
        return {"kernel": spec["name"], "config": config, "error": "compile", "message": compile_message(err, jit)}
    ptxas = gpu_limits.read_ptxas(log.getvalue())
    regs = max((u.registers for u in ptxas), default=0)
    usage = gpu_limits.Usage(
        kernel=spec["name"],
        config=config,
        dynamic_shared=int(kernel.metadata.shared),
        registers=regs,
        stack=max((u.stack for u in ptxas), default=0),
        spill_stores=max((u.spill_stores for u in ptxas), default=-1),
        threads=int(kernel.metadata.num_warps) * 32,
    )
    return {"kernel": spec["name"], "config": config, "usage": usage.__dict__}


def compile_message(err: BaseException, jit: Any = None) -> str:
    """`<what is wrong> (candidate line N: <code>)` for Triton's compile errors, whose own text is a source
    excerpt with a caret and the reason last (or only in the chained cause)."""
    node = getattr(err, "node", None)
    if type(err).__name__ not in ("CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"):
        return "".join(traceback.format_exception_only(type(err), err)).strip()[-3000:]
    reason = ""
    cause: BaseException | None = err
    while cause is not None and not reason:  # the reason may sit in a chained (stdlib-level) error
        if hasattr(cause, "error_message"):
            reason = (cause.error_message or "").strip()
        else:
            reason = f"{type(cause).__name__}: {cause}".strip()
        cause = cause.__cause__
    lineno = getattr(node, "lineno", None)
    src = getattr(err, "src", None) or ""
    if not lineno or not src:
        return (reason or str(err))[-3000:]
    code = src.split("\n")[lineno - 1].strip() if lineno <= len(src.split("\n")) else ""
    return f"{reason or 'rejected'} (candidate line {_file_line(jit, lineno)}: {code})"[-3000:]


def _file_line(jit: Any, lineno: int) -> int | str:
    """A line of the kernel (1 = its `def`) as a line of the candidate's file."""
    import inspect

    try:
        lines, start = inspect.getsourcelines(jit.fn)
    except (OSError, TypeError, AttributeError):
        return f"{lineno} of the kernel"
    offset = next((i for i, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)
    return start + offset + lineno - 1


def _candidate_fault(err: BaseException) -> bool:
    """Triton's frontend errors and MLIR/LLVM/ptxas failures are the kernel's; I/O and the like are not."""
    if type(err).__name__ in ("CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"):
        return True
    if isinstance(err, (OSError, ImportError, MemoryError)):
        return False
    return isinstance(err, (RuntimeError, ValueError, TypeError, AssertionError, IndexError, KeyError))


def compile_launches(module: Any, specs: list[dict[str, Any]], arch: gpu_limits.Arch) -> list[dict[str, Any]]:
    """Compile each recorded launch; an autotuned launch falls back to its other configs the way
    Triton's autotuner skips configs that run out of resources."""
    results: list[dict[str, Any]] = []
    with offline_target(arch.capability, arch.shared_optin):
        for spec in specs:
            jit = find_kernel(module, spec)
            if jit is None:
                results.append({"kernel": spec["name"], "skipped": "the kernel is not reachable by name at module level"})
                continue
            try:
                results.append(_with_alternatives(jit, spec, arch))
            except ValueError as err:
                results.append({"kernel": spec["name"], "skipped": str(err)})
    return results


def _with_alternatives(jit: Any, spec: dict[str, Any], arch: gpu_limits.Arch) -> dict[str, Any]:
    first = compile_one(jit, spec, spec["kwargs"], arch.capability)
    if "usage" not in first or not spec.get("alternatives"):
        return first
    if gpu_limits.check(gpu_limits.Usage(**first["usage"]), arch) is None:
        return first
    for alternative in spec["alternatives"]:
        kwargs = {**spec["kwargs"], **alternative}
        other = compile_one(jit, spec, kwargs, arch.capability)
        if "usage" in other and gpu_limits.check(gpu_limits.Usage(**other["usage"]), arch) is None:
            other["note"] = f"the autotuner skips config ({first['config']}), which runs out of resources"
            return other
    return first
