"""Per-architecture limits of NVIDIA GPUs, and the judgement of one kernel's resource use against them.

Pure standard library: used on the host and inside the sandboxed compile job. The numbers are the
per-block limits the CUDA driver enforces at launch (what Triton compares against when it raises
`OutOfResources`): the opt-in dynamic shared memory per block, 48 KiB of static shared memory,
64 Ki 32-bit registers per block, at most 255 registers per thread and 1024 threads per block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

STATIC_SHARED_LIMIT = 48 * 1024
REGISTERS_PER_BLOCK = 64 * 1024
MAX_REGISTERS_PER_THREAD = 255
MAX_THREADS_PER_BLOCK = 1024
REGISTER_ALLOCATION_UNIT = 256  # registers are handed out per warp in chunks of 256


@dataclass(frozen=True)
class Arch:
    name: str  # e.g. "sm_90"
    capability: int  # e.g. 90
    shared_optin: int  # bytes of shared memory one block may use (dynamic, with the opt-in)
    example: str  # a GPU of this architecture, for diagnostics


ARCHS: dict[str, Arch] = {
    a.name: a
    for a in (
        Arch("sm_70", 70, 98304, "V100"),
        Arch("sm_75", 75, 65536, "T4"),
        Arch("sm_80", 80, 166912, "A100"),
        Arch("sm_86", 86, 101376, "RTX 3090"),
        Arch("sm_89", 89, 101376, "L4 / RTX 4090"),
        Arch("sm_90", 90, 232448, "H100"),
        Arch("sm_100", 100, 232448, "B200"),
        Arch("sm_120", 120, 101376, "RTX 5090"),
    )
}
DEFAULT_ARCH = "sm_90"


def arch(name: str) -> Arch:
    """The architecture named `sm_90`, `90` or `sm90`; a clear error for unknown ones."""
    digits = re.sub(r"^sm_?", "", str(name).strip().lower())
    key = f"sm_{digits}"
    if key not in ARCHS:
        raise ValueError(f"unknown GPU architecture {name!r} (known: {', '.join(ARCHS)})")
    return ARCHS[key]


def max_threads_for(registers: int) -> int:
    """Threads per block the register file allows at this many registers per thread."""
    if registers <= 0:
        return MAX_THREADS_PER_BLOCK
    per_warp = -(-registers * 32 // REGISTER_ALLOCATION_UNIT) * REGISTER_ALLOCATION_UNIT
    return min(MAX_THREADS_PER_BLOCK, (REGISTERS_PER_BLOCK // per_warp) * 32)


@dataclass(frozen=True)
class Usage:
    """What one compiled kernel asks for at launch."""

    kernel: str
    config: str = ""  # e.g. "BLOCK_M=128, BLOCK_N=128, num_warps=8, num_stages=3"
    dynamic_shared: int = 0
    static_shared: int = 0
    registers: int = 0
    stack: int = 0  # bytes of local memory per thread (register spills, local arrays)
    spill_stores: int = -1  # from ptxas -v, when known
    threads: int = 0  # threads per block when the launch fixes it (Triton: num_warps * 32)

    def metrics(self, prefix: str = "") -> dict[str, int | float | str | bool]:  # an outcome's metric values
        found = {
            "shared_bytes": self.dynamic_shared + self.static_shared,
            "registers": self.registers,
            "stack_bytes": self.stack,
        }
        if self.spill_stores >= 0:
            found["spill_stores"] = self.spill_stores
        return {f"{prefix}{k}": v for k, v in found.items()}


@dataclass(frozen=True)
class Overflow:
    resource: str  # "shared memory", "static shared memory", "registers", "threads"
    required: int
    limit: int
    diagnostic: str
    notes: list[str] = field(default_factory=list)


def check(usage: Usage, target: Arch) -> Overflow | None:
    """The first limit of `target` that the kernel exceeds, with a quantitative diagnostic."""
    where = f"kernel `{usage.kernel}`" + (f" ({usage.config})" if usage.config else "")
    if usage.dynamic_shared > target.shared_optin:
        return _overflow("shared memory", usage.dynamic_shared, target.shared_optin, where, target,
                         "Reduce the tile sizes or num_stages (each pipeline stage keeps its own copy of the tiles).")
    if usage.static_shared > STATIC_SHARED_LIMIT:
        return _overflow("static shared memory", usage.static_shared, STATIC_SHARED_LIMIT, where, target,
                         "Static __shared__ arrays are capped at 48 KiB; use dynamic shared memory with the opt-in, or smaller tiles.")
    if usage.registers > MAX_REGISTERS_PER_THREAD:
        return _overflow("registers", usage.registers, MAX_REGISTERS_PER_THREAD, where, target, "")
    if usage.threads > MAX_THREADS_PER_BLOCK:
        hint = "A block has at most 1024 threads (num_warps <= 32)."
        return _overflow("threads", usage.threads, MAX_THREADS_PER_BLOCK, where, target, hint)
    if usage.threads and usage.threads > max_threads_for(usage.registers):
        allowed = max_threads_for(usage.registers)
        hint = (f"At {usage.registers} registers per thread the register file holds only {allowed} threads per block; "
                "use fewer warps or smaller tiles.")
        return _overflow("threads", usage.threads, allowed, where, target, hint)
    return None


def _overflow(resource: str, required: int, limit: int, where: str, target: Arch, hint: str) -> Overflow:
    over = required - limit
    unit = " B" if "shared" in resource else ""
    text = (
        f"out of resource: {resource}: {where} requests {required}{unit}, "
        f"the {target.name} ({target.example}) limit per block is {limit}{unit}: over by {over}{unit} "
        f"({100.0 * over / max(limit, 1):.1f}%)"
    )
    return Overflow(resource, required, limit, f"{text}. {hint}".strip())


def spill_note(usage: Usage) -> str:
    """A warning (not a failure) when the kernel spills registers to local memory."""
    if usage.spill_stores > 0:
        return f"kernel `{usage.kernel}` spills registers ({usage.spill_stores} bytes of spill stores per thread)"
    if usage.stack > 0:
        return f"kernel `{usage.kernel}` uses {usage.stack} bytes of local memory per thread (register spills or local arrays)"
    return ""


_PTXAS_ENTRY = re.compile(r"Compiling entry function '(?P<name>[^']+)'")
_PTXAS_SPILL = re.compile(r"(?P<stack>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores")
_PTXAS_USED = re.compile(r"Used (?P<regs>\d+) registers(?:.*?(?P<smem>\d+) bytes smem)?")


def read_ptxas(log: str) -> list[Usage]:
    """Per-kernel usage from `ptxas -v` (nvcc -Xptxas -v) output."""
    found: list[Usage] = []
    name, stack, stores = "", 0, -1
    for line in log.splitlines():
        if m := _PTXAS_ENTRY.search(line):
            name, stack, stores = demangle(m.group("name")), 0, -1
        elif m := _PTXAS_SPILL.search(line):
            stack, stores = int(m.group("stack")), int(m.group("stores"))
        elif (m := _PTXAS_USED.search(line)) and name:
            smem = int(m.group("smem") or 0)
            found.append(Usage(name, registers=int(m.group("regs")), static_shared=smem, stack=stack, spill_stores=stores))
            name = ""
    return found


def demangle(symbol: str) -> str:
    """`_Z12hinge_kernelPKfS0_Pfii` -> `hinge_kernel` (enough of the Itanium scheme for a diagnostic)."""
    m = re.match(r"_Z(\d+)", symbol)
    if not m:
        return symbol
    length = int(m.group(1))
    start = m.end()
    return symbol[start : start + length] or symbol
