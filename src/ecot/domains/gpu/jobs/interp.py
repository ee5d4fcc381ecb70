"""Inside the candidate job on a CPU: Triton's interpreter, instrumented.

`install()` (call it after `import triton` with TRITON_INTERPRET=1, before the candidate is imported):

- records every distinct kernel launch (kernel, argument types, constexprs, num_warps, num_stages)
  to a JSON-lines file, *before* the launch runs, so the compile job can build the same kernel for a
  CUDA target even when the launch then crashes or hangs;
- checks every load, store and atomic of an interpreted kernel against the buffers the launch was
  given: an address outside all of them is an illegal memory access (a GPU would fault or read
  garbage; the interpreter would read or corrupt host memory);
- finds data races between programs of one launch (a load of an element another program stored, a
  store to an element another program read, or two programs storing different values to one
  element, without atomics): the interpreter runs programs one after another, which hides them;
- makes `@triton.autotune` run its first config instead of benchmarking (there is nothing to time on
  a CPU) and records the other configs as alternatives for the resource check.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_RECORDED = 16  # distinct launch specs kept per evaluation


class KernelFault(RuntimeError):
    """An illegal access or a data race found while interpreting a kernel."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "illegal_access" | "data_race"


@dataclass
class _Buffer:
    name: str
    start: int
    end: int
    shadows: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # itemsize -> (writer, reader)


@dataclass
class Guard:
    """Bounds and race checking for the launch in progress."""

    races: bool = True
    fault: KernelFault | None = None
    kernel: str = ""
    buffers: list[_Buffer] = field(default_factory=list)
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    atomic_programs: set[int] = field(default_factory=set)

    def begin(self, kernel: str, named_args: dict[str, Any]) -> None:
        import torch

        seen: dict[int, _Buffer] = {}
        for name, value in named_args.items():
            if isinstance(value, torch.Tensor) and value.device.type == "cpu":
                storage = value.untyped_storage()
                ptr = storage.data_ptr()
                if ptr not in seen:
                    seen[ptr] = _Buffer(name, ptr, ptr + storage.nbytes())
        self.kernel = kernel
        self.buffers = sorted(seen.values(), key=lambda b: b.start)
        self.starts = np.array([b.start for b in self.buffers], dtype=np.uint64)
        self.atomic_programs = set()

    def end(self) -> None:
        self.buffers, self.starts = [], np.zeros(0, dtype=np.uint64)

    # -- checks --------------------------------------------------------------------------------
    def access(self, kind: str, ptrs: np.ndarray, mask: np.ndarray | None, itemsize: int) -> tuple[np.ndarray, np.ndarray]:
        """Active addresses of one access and the buffer each falls in; raises on an illegal one."""
        flat = np.asarray(ptrs, dtype=np.uint64).reshape(-1)
        if mask is not None:
            flat = flat[np.broadcast_to(np.asarray(mask, dtype=bool), np.shape(ptrs)).reshape(-1)]
        if not self.buffers or flat.size == 0:
            return flat, np.zeros(flat.size, dtype=np.int64)
        index = np.searchsorted(self.starts, flat, side="right").astype(np.int64) - 1
        ends = np.array([b.end for b in self.buffers], dtype=np.uint64)
        inside = (index >= 0) & (flat + np.uint64(itemsize) <= ends[np.maximum(index, 0)])
        if not inside.all():
            self._illegal(kind, flat, index, inside, itemsize)
        return flat, index

    def _illegal(self, kind: str, flat: np.ndarray, index: np.ndarray, inside: np.ndarray, itemsize: int) -> None:
        bad = int(np.argmin(inside))
        addr, near = int(flat[bad]), int(index[bad])
        count = int((~inside).sum())
        if near >= 0:
            buf = self.buffers[near]
            element = (addr - buf.start) // itemsize
            size = (buf.end - buf.start) // itemsize
            where = f"element {element} of `{buf.name}`, which holds {size} elements of {itemsize} bytes"
        else:
            first = self.buffers[0]
            where = f"{(first.start - addr) // itemsize} elements before `{first.name}`"
        message = (f"illegal memory access in kernel `{self.kernel}`: program {self._program()} {kind}s {count} "
                   f"address{'es' if count > 1 else ''} outside every buffer it was given (first: {where})")
        self._raise("illegal_access", message)

    def track(self, kind: str, flat: np.ndarray, index: np.ndarray, itemsize: int, changed: np.ndarray | None = None) -> None:
        """Race bookkeeping for a load ("load") or a plain store ("store")."""
        if not self.races or flat.size == 0:
            return
        pid = self._linear_program()
        for buf_no in np.unique(index):
            buf = self.buffers[int(buf_no)]
            sel = index == buf_no
            elems = ((flat[sel] - np.uint64(buf.start)) // np.uint64(itemsize)).astype(np.int64)
            writer, reader = self._shadow(buf, itemsize)
            if kind == "load":
                self._on_load(buf, elems, writer, reader, pid)
            else:
                self._on_store(buf, elems, writer, reader, pid, None if changed is None else changed[sel])

    def _on_load(self, buf: _Buffer, elems: np.ndarray, writer: np.ndarray, reader: np.ndarray, pid: int) -> None:
        others = writer[elems]
        conflict = (others >= 0) & (others != pid)
        if conflict.any() and pid not in self.atomic_programs:
            at = int(np.argmax(conflict))
            self._race(f"program {self._program()} loads element {int(elems[at])} of `{buf.name}`, which program "
                       f"{self._unlinear(int(others[at]))} stored in the same launch")
        seen = reader[elems]
        reader[elems] = np.where((seen == -1) | (seen == pid), pid, -2)

    def _on_store(self, buf: _Buffer, elems: np.ndarray, writer: np.ndarray, reader: np.ndarray, pid: int,
                  changed: np.ndarray | None) -> None:
        readers = reader[elems]
        read_by_other = (readers == -2) | ((readers >= 0) & (readers != pid))
        if read_by_other.any() and pid not in self.atomic_programs:
            at = int(np.argmax(read_by_other))
            who = "other programs" if readers[at] == -2 else f"program {self._unlinear(int(readers[at]))}"
            self._race(f"program {self._program()} stores element {int(elems[at])} of `{buf.name}`, which {who} "
                       "loaded in the same launch")
        writers = writer[elems]
        clash = (writers >= 0) & (writers != pid)
        if changed is not None:
            clash &= changed
        if clash.any():
            at = int(np.argmax(clash))
            self._race(f"programs {self._unlinear(int(writers[at]))} and {self._program()} both store element "
                       f"{int(elems[at])} of `{buf.name}` with different values")
        writer[elems] = pid

    def _shadow(self, buf: _Buffer, itemsize: int) -> tuple[np.ndarray, np.ndarray]:
        if itemsize not in buf.shadows:
            count = (buf.end - buf.start) // itemsize
            buf.shadows[itemsize] = (np.full(count, -1, dtype=np.int32), np.full(count, -1, dtype=np.int32))
        return buf.shadows[itemsize]

    def _race(self, what: str) -> None:
        message = (f"data race in kernel `{self.kernel}`: {what}; programs of one launch run in no fixed order on a "
                   "GPU, so passing values between them needs atomics (tl.atomic_add, ...) or a second launch")
        self._raise("data_race", message)

    def _raise(self, kind: str, message: str) -> None:
        self.fault = KernelFault(kind, message)
        raise self.fault

    # -- program ids -------------------------------------------------------------------------------
    @staticmethod
    def _builder() -> Any:
        from triton.runtime.interpreter import interpreter_builder

        return interpreter_builder

    def _program(self) -> tuple[int, ...]:
        return tuple(self._builder().grid_idx)

    def _linear_program(self) -> int:
        b = self._builder()
        x, y, z = b.grid_idx
        gx, gy, _ = b.grid_dim
        return int(x + gx * (y + gy * z))

    def _unlinear(self, pid: int) -> tuple[int, int, int]:
        gx, gy, _ = self._builder().grid_dim
        return (pid % gx, (pid // gx) % gy, pid // (gx * gy))


GUARD = Guard()
_autotune = threading.local()


def install(launch_log: str, races: bool = True) -> None:
    """Instrument the interpreter (see the module docstring)."""
    from triton.runtime import autotuner, interpreter

    GUARD.races = races
    recorder = _Recorder(launch_log)
    _patch_launch(interpreter.InterpretedFunction, recorder)
    _patch_memory(interpreter.InterpreterBuilder, interpreter)
    _patch_autotune(autotuner.Autotuner)


def _patch_launch(cls: Any, recorder: _Recorder) -> None:
    original = cls.run

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        if warmup:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        recorder.record(self.fn, self.arg_names, args, kwargs)
        named = dict(zip(self.arg_names, args))
        named.update({k: v for k, v in kwargs.items() if k in self.arg_names})
        GUARD.begin(self.fn.__name__, named)
        try:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        finally:
            GUARD.end()

    cls.run = run


def _patch_memory(cls: Any, interpreter: Any) -> None:
    load, store = cls.create_masked_load, cls.create_masked_store
    rmw, cas = cls.create_atomic_rmw, cls.create_atomic_cas

    def itemsize(ptrs: Any) -> int:
        return int(interpreter._get_np_dtype(ptrs.get_element_ty()).itemsize)

    def masked_load(self: Any, ptrs: Any, mask: Any, other: Any, cache: Any, volatile: Any) -> Any:
        size = itemsize(ptrs)
        flat, index = GUARD.access("load", ptrs.data, mask.data, size)
        GUARD.track("load", flat, index, size)
        return load(self, ptrs, mask, other, cache, volatile)

    def masked_store(self: Any, ptrs: Any, value: Any, mask: Any, cache: Any) -> Any:
        size = itemsize(ptrs)
        flat, index = GUARD.access("store", ptrs.data, mask.data, size)
        if GUARD.races and flat.size:
            old = interpreter._interpreter.load(ptrs.data, mask.data, np.zeros_like(value.data), value.data.dtype)
            active = np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data))
            changed = (np.asarray(old) != np.broadcast_to(value.data, np.shape(ptrs.data)))[active].reshape(-1)
            GUARD.track("store", flat, index, size, changed)
        return store(self, ptrs, value, mask, cache)

    def atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Any:
        GUARD.access("atomic", ptr.data, mask.data, itemsize(ptr))
        GUARD.atomic_programs.add(GUARD._linear_program())
        return rmw(self, op, ptr, val, mask, sem, scope)

    def atomic_cas(self: Any, ptr: Any, cmp: Any, val: Any, sem: Any, scope: Any) -> Any:
        GUARD.access("atomic", ptr.data, None, itemsize(ptr))
        GUARD.atomic_programs.add(GUARD._linear_program())
        return cas(self, ptr, cmp, val, sem, scope)

    cls.create_masked_load, cls.create_masked_store = masked_load, masked_store
    cls.create_atomic_rmw, cls.create_atomic_cas = atomic_rmw, atomic_cas


def _patch_autotune(cls: Any) -> None:
    original = cls.run

    def bench(self: Any, *args: Any, config: Any, **meta: Any) -> list[float]:
        rank = float(self.configs.index(config)) if config in self.configs else 0.0
        return [rank, rank, rank]

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        _autotune.configs = [_config_kwargs(c) for c in self.configs]
        try:
            return original(self, *args, **kwargs)
        finally:
            _autotune.configs = None

    cls._bench = bench
    cls.run = run


def _config_kwargs(config: Any) -> dict[str, Any]:
    return {k: _describe(v) for k, v in config.all_kwargs().items() if k in ("num_warps", "num_stages") or k in config.kwargs}


class _Recorder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.keys: set[str] = set()

    def record(self, fn: Any, arg_names: list[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if len(self.keys) >= MAX_RECORDED:
            return
        spec = {
            "module": getattr(fn, "__module__", ""),
            "name": fn.__name__,
            "qualname": getattr(fn, "__qualname__", fn.__name__),
            "args": [_describe(a) for a in args],
            "kwargs": {k: _describe(v) for k, v in kwargs.items()},
            "alternatives": getattr(_autotune, "configs", None) or [],
        }
        key = json.dumps({**spec, "args": [_spec_key(a) for a in spec["args"]]}, sort_keys=True, default=str)
        if key in self.keys:
            return
        self.keys.add(key)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(spec, default=str) + "\n")


def _describe(value: Any) -> dict[str, Any]:
    """A JSON description of one launch argument, enough to rebuild an equivalent one."""
    import torch

    if isinstance(value, torch.Tensor):
        return {"t": "tensor", "dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape),
                "stride": list(value.stride()), "offset": int(value.storage_offset()),
                "align16": value.data_ptr() % 16 == 0}
    if isinstance(value, bool) or value is None:
        return {"t": "const", "v": value}
    if isinstance(value, (int, float, str)):
        return {"t": type(value).__name__, "v": value}
    if isinstance(value, (tuple, list)):
        return {"t": "tuple", "v": [_describe(v) for v in value]}
    if hasattr(value, "value") and type(value).__name__ == "constexpr":
        return _describe(value.value)
    if type(value).__module__.startswith("triton.language") and hasattr(value, "name"):
        return {"t": "tl_dtype", "v": value.name}
    return {"t": "other", "repr": repr(value)[:80]}


def _spec_key(desc: dict[str, Any]) -> Any:
    """What Triton specializes a compiled kernel on: dtypes, alignment, ints that are 1 or multiples of 16."""
    if desc["t"] == "tensor":
        return ["tensor", desc["dtype"], desc["align16"]]
    if desc["t"] == "int":
        v = desc["v"]
        return ["int", v == 1, v % 16 == 0, abs(v) >= 2**31]
    if desc["t"] == "tuple":
        return ["tuple", [_spec_key(d) for d in desc["v"]]]
    return desc
