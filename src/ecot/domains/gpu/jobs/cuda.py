"""Inline CUDA candidates (`torch.utils.cpp_extension.load_inline`).

With a GPU, load_inline builds and runs them for real. Without one, the candidate job records the
CUDA sources and stops (`NeedsGpu`), and the host compiles their *device code* with nvcc for the
target (`--cubin -Xptxas -v`): kernel syntax and type errors, and ptxas' registers, spills and static
shared memory per kernel. Host functions that use the PyTorch C++ API are blanked out first (line
numbers are kept): compiling them would need the PyTorch headers, about a minute per candidate.
Errors that only the blanked host context could resolve make the check inconclusive, never a
Compilation_Error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

DEVICE_WORDS = re.compile(r"__global__|__device__|__constant__|__shared__|__host__")
TORCH_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:torch|ATen|c10|pybind11|Python)\b[^\n]*', re.M)
TORCH_NAMES = re.compile(r"\b(at|c10|torch|pybind11|py)::|\b(TORCH|AT|C10)_[A-Z_]+\b")


class NeedsGpu(RuntimeError):
    """load_inline on a machine without CUDA: the sources were recorded for the nvcc check."""


def intercept_load_inline(record_path: str) -> None:
    """In the candidate job without a GPU: load_inline records its sources, then raises NeedsGpu."""
    from torch.utils import cpp_extension

    def load_inline(name: str, cpp_sources: Any = (), cuda_sources: Any = (), *args: Any, **kwargs: Any) -> Any:
        entry = {"name": name, "cpp": _joined(cpp_sources), "cuda": _joined(cuda_sources or kwargs.get("cuda_sources", ()))}
        with open(record_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
        raise NeedsGpu(f"load_inline('{name}') needs a CUDA GPU to build and run")

    cpp_extension.load_inline = load_inline


def _joined(sources: Any) -> str:
    if isinstance(sources, str):
        return sources
    return "\n".join(str(s) for s in sources or ())


# -- host side ---------------------------------------------------------------------------------------
@dataclass
class DeviceCode:
    text: str  # the source with host-only parts blanked (same line numbers)
    kernels: int  # __global__ functions kept
    dropped_names: set[str] = field(default_factory=set)


def device_code(source: str) -> DeviceCode:
    """Keep preprocessor lines (but PyTorch includes), type definitions and every declaration that
    mentions a CUDA qualifier; blank the rest (host functions) keeping line breaks."""
    text = TORCH_INCLUDE.sub(lambda m: " " * len(m.group(0)), source)
    masked = _mask(text)
    out = list(text)
    dropped: set[str] = set()
    for start, end in _top_level(masked):
        chunk = masked[start:end]
        if DEVICE_WORDS.search(chunk) or not (_is_function(chunk) or TORCH_NAMES.search(chunk)):
            continue
        name = re.search(r"(\w+)\s*\([^;{]*\)\s*(?:const\s*)?\{", chunk)
        if name:
            dropped.add(name.group(1))
        for i in range(start, end):
            if out[i] != "\n":
                out[i] = " "
    kept = "".join(out)
    return DeviceCode(kept, len(re.findall(r"__global__", _mask(kept))), dropped)


def _mask(text: str) -> str:
    """Comments and string/char literals blanked (same length), so braces inside them do not count."""
    pattern = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _top_level(masked: str) -> list[tuple[int, int]]:
    """Spans of top-level declarations (ending in `;` or a closing `}` at depth 0), preprocessor
    lines excluded; namespace bodies are entered."""
    spans: list[tuple[int, int]] = []
    depth, start, i = 0, 0, 0
    namespace_depths: list[int] = []
    while i < len(masked):
        char = masked[i]
        if char == "#" and masked[start:i].strip() == "" and depth == len(namespace_depths):
            i = masked.find("\n", i)
            i = len(masked) if i < 0 else i
            start = i + 1
        elif char == "{":
            header = masked[start:i]
            if depth == len(namespace_depths) and re.search(r"\bnamespace\b[^;]*$|extern\s*$", header):
                namespace_depths.append(depth)
                start = i + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if namespace_depths and depth == namespace_depths[-1]:
                namespace_depths.pop()
                start = i + 1
            elif depth == len(namespace_depths):
                end = i + 1
                if masked[end:].lstrip().startswith(";"):
                    end = masked.index(";", end) + 1
                spans.append((start, end))
                i, start = end - 1, end
        elif char == ";" and depth == len(namespace_depths):
            spans.append((start, i + 1))
            start = i + 1
        i += 1
    return [s for s in spans if masked[s[0] : s[1]].strip()]


def _is_function(chunk: str) -> bool:
    head = chunk.split("{", 1)[0]
    return "{" in chunk and "(" in head and not re.search(r"\b(struct|class|union|enum)\b", head)


def shared_overflow(log: str) -> tuple[str, int, int] | None:
    """(kernel, bytes used, bytes allowed) when ptxas refuses a kernel's static shared memory."""
    m = re.search(r"Entry function '([^']+)' uses too much shared data \((0x[0-9a-fA-F]+) bytes, (0x[0-9a-fA-F]+) max\)", log)
    return (m.group(1), int(m.group(2), 16), int(m.group(3), 16)) if m else None


def first_error(log: str) -> str:
    for line in log.splitlines():
        if re.search(r"\berror\b", line):
            return line.strip()
    return next((ln.strip() for ln in log.splitlines() if ln.strip()), "nvcc failed without a message")


def inconclusive(log: str, code: DeviceCode) -> bool:
    """Whether nvcc's errors only concern what the blanking removed (the PyTorch API, host helpers)."""
    errors = [ln for ln in log.splitlines() if re.search(r"\berror\b", ln)]
    if not errors:
        return False
    for line in errors:
        undefined = re.search(r'identifier "([^"]+)" is undefined|"([^"]+)" has not been declared', line)
        name = undefined and (undefined.group(1) or undefined.group(2))
        if TORCH_NAMES.search(line) or (name and (name in code.dropped_names or TORCH_NAMES.search(name + "::"))):
            continue
        if re.search(r"scalar_t|at::|c10::|Half|BFloat16", line):
            continue
        return False
    return True
