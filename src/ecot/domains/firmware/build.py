"""Building firmware: the platform files, the cached trusted objects, compile and link commands,
and what their error logs mean.

The runtime (reporting, peripheral model, fault trap, startup) is compiled once per process, the
task's harness once per task; both use harness API names with a random per-process prefix, and the
runtime refers to the report tag through two link-time symbols with random names. So the secret
value only enters at link time (--defsym), and a candidate object, compiled on its own without the
API header, can neither call the API nor name the tag.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.task import Task
from ecot.domains.firmware.options import FirmwareOptions

SUPPORT_DIR = Path(__file__).resolve().parent / "jobs"  # the platform: what runs beside a candidate on the board
PLATFORM_FILES = ("stm32f4.h", "link.ld")  # the candidate builds against these
TRUSTED_SOURCES = ("ecot_runtime.c", "ecot_periph.c", "ecot_trap.c", "ecot_startup.c")  # one unit, in this order
ARCH = ("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=soft")
WARNINGS = (
    "-Wall",
    # what GCC 14 makes errors by default; GCC 12 only warns and then links code that cannot work
    "-Werror=implicit-function-declaration",
    "-Werror=implicit-int",
    "-Werror=int-conversion",
    "-Werror=incompatible-pointer-types",
)
CFLAGS = (*ARCH, "-std=gnu11", "-g", "-ffunction-sections", "-fdata-sections", *WARNINGS)
TRUSTED_FLAGS = ("-O2", "-ffreestanding", "-fno-builtin", "-fno-tree-loop-distribute-patterns")


def platform_files() -> dict[str, str]:
    return {name: (SUPPORT_DIR / name).read_text(encoding="utf-8") for name in PLATFORM_FILES}


def candidate_visible_files(task: Task, settings: FirmwareOptions) -> dict[str, str]:
    """What the candidate compiles against: the platform and the task's headers (never the harness
    or the expectations)."""
    own = {n: t for n, t in task.files.items() if n.endswith(".h") or n in PLATFORM_FILES}  # a task may override
    return {**platform_files(), **own}


@dataclass(frozen=True)
class Trusted:
    """The runtime object (once per process) plus one task's harness object."""

    runtime: bytes
    harness: bytes
    tag_symbols: tuple[str, str]


@dataclass(frozen=True)
class _Runtime:
    obj: bytes
    prefix: str  # ECOT_PREFIX: the harness API's names are random per process
    tag_symbols: tuple[str, str]


_runtime: dict[str, _Runtime] = {}
_harnesses: dict[str, bytes] = {}
_cache_lock = threading.Lock()
CACHE_LIMIT = 256


def _support(names: tuple[str, ...]) -> dict[str, str]:
    return {name: (SUPPORT_DIR / name).read_text(encoding="utf-8") for name in names}


def trusted_object(task: Task, settings: FirmwareOptions) -> Trusted | str:
    """The compiled runtime and this task's harness (both cached), or the compiler's log on failure."""
    runtime = _runtime_object(task)
    if isinstance(runtime, str):
        return runtime
    task_files = {n: t for n, t in task.files.items() if n != settings.expect}
    if settings.harness not in task_files:
        return f"task {task.id}: harness file {settings.harness!r} is not in the bundle"
    key = hashlib.sha256(repr((runtime.prefix, settings.harness, sorted(task_files.items()))).encode()).hexdigest()
    with _cache_lock:
        harness = _harnesses.get(key)
    if harness is None:
        made = _compile(task, {**task_files}, settings.harness, "harness.o", runtime.prefix, ["-include", "ecot_harness.h"])
        if isinstance(made, str):
            return made
        harness = made
        with _cache_lock:
            if len(_harnesses) >= CACHE_LIMIT:
                _harnesses.pop(next(iter(_harnesses)))
            _harnesses[key] = harness
    return Trusted(runtime.obj, harness, runtime.tag_symbols)


def _runtime_object(task: Task) -> _Runtime | str:
    sources = _support(TRUSTED_SOURCES)
    key = hashlib.sha256(repr(sorted(sources.items())).encode()).hexdigest()
    with _cache_lock:
        if key in _runtime:
            return _runtime[key]
    prefix = f"__ecot_{secrets.token_hex(8)}"
    symbols = (f"{prefix}_tag_hi", f"{prefix}_tag_lo")
    unit = "".join(f'#include "{n}"\n' for n in TRUSTED_SOURCES)
    defines = [f"-DECOT_TAG_HI_SYM={symbols[0]}", f"-DECOT_TAG_LO_SYM={symbols[1]}"]
    made = _compile(task, {**sources, "ecot_runtime_unit.c": unit}, "ecot_runtime_unit.c", "runtime.o", prefix, defines)
    if isinstance(made, str):
        return made
    runtime = _Runtime(made, prefix, symbols)
    with _cache_lock:
        _runtime[key] = runtime
    return runtime


def _compile(task: Task, files: dict[str, str], source: str, output: str, prefix: str, extra: list[str]) -> bytes | str:
    """Compile trusted code in its own sandbox; the object's bytes, or the compiler's log."""
    with sandbox.workdir("ecot-fw-rt-") as work:
        sandbox.write_files(work, {**platform_files(), **_support(("ecot_harness.h",)), **files})
        argv = ["arm-none-eabi-gcc", *CFLAGS, *TRUSTED_FLAGS, f"-DECOT_PREFIX={prefix}", *extra, "-I.", "-c", source, "-o", output]
        result = sandbox.run(argv, work, task.limits)
        if result.returncode != 0:
            return strip_dirs(result.output) or f"compiling {source} failed (exit {result.returncode})"
        return (work / output).read_bytes()


def compile_argv(settings: FirmwareOptions) -> list[str]:
    return ["arm-none-eabi-gcc", *CFLAGS, settings.opt, *settings.cflags, "-I.", "-c", settings.source_file, "-o", "candidate.o"]


def link_argv(settings: FirmwareOptions, trusted: Trusted, tag: tuple[int, int], elf: str, objects: tuple[str, str]) -> list[str]:
    """objects: where the runtime and harness objects lie (in the run folder, out of the compile step's sight)."""
    hi, lo = trusted.tag_symbols
    return [
        "arm-none-eabi-gcc", *ARCH, "-nostartfiles", "-specs=nano.specs", "-specs=rdimon.specs",
        "-Wl,--gc-sections", "-Wl,--print-memory-usage", "-T", "link.ld",
        f"-Wl,--defsym=__stack_size={settings.stack_size}", f"-Wl,--defsym=__heap_size={settings.heap_size}",
        f"-Wl,--defsym=__ecot_budget_us={settings.budget_us}", f"-Wl,--defsym=__ecot_max_accesses={settings.max_accesses}",
        f"-Wl,--defsym={hi}=0x{tag[0]:08x}", f"-Wl,--defsym={lo}=0x{tag[1]:08x}",
        *objects, "candidate.o", "-o", elf,
    ]


# -- logs -------------------------------------------------------------------------------------------
_GCC_ERROR = re.compile(r"^(?P<where>[^\s:]+:\d+(?::\d+)?): (?:fatal )?error: (?P<msg>.+)$", re.MULTILINE)
_OVERFLOW = re.compile(r"region [`'](?P<region>\w+)' overflowed by (?P<bytes>\d+) bytes")
_NOT_FIT = re.compile(r"section [`'](?P<section>[\w.]+)' will not fit in region [`'](?P<region>\w+)'")
_UNDEFINED = re.compile(r"(?:(?P<where>[^\s:]+:\d+):\s*)?undefined reference to [`'](?P<sym>[^`']+)'")
_MULTIPLE = re.compile(r"multiple definition of [`'](?P<sym>[^`']+)'")
_USAGE = re.compile(r"^\s*(?P<region>FLASH|RAM):\s+(?P<used>\d+)\s*(?P<unit>B|KB|MB)", re.MULTILINE)


_MACRO_NOTE = re.compile(r"^(?P<where>[^\s:]+:\d+(?::\d+)?): note: in expansion of macro '(?P<macro>\w+)'", re.MULTILINE)
_DIRS = re.compile(r"(?:/[\w.+-]+)+/(?=[\w.+-]+:\d+)")
_PREFIX = re.compile(r"__ecot_[0-9a-f]{16}_")


def strip_dirs(log: str) -> str:
    """`/tmp/ecot-fw-x/harness.c:6` -> `harness.c:6`, and the random API prefix removed: work-dir paths
    mean nothing to a reader, and the prefix must never reach a candidate (it names the tag symbols)."""
    return _PREFIX.sub("", _DIRS.sub("", log))


def compile_diagnostic(log: str, settings: FirmwareOptions) -> str:
    """The first error, located in the candidate's file when it comes from a macro expanded there."""
    log = strip_dirs(log)
    match = _GCC_ERROR.search(log)
    if match is None:
        lines = [ln for ln in log.splitlines() if ln.strip()]
        return lines[-1][:300] if lines else f"{settings.source_file} did not compile"
    where, message = match.group("where"), match.group("msg").strip()
    if not where.startswith(settings.source_file):
        note = _MACRO_NOTE.search(log, match.end())
        if note and note.group("where").startswith(settings.source_file):
            return f"{note.group('where')}: error: {message} (in the expansion of macro {note.group('macro')} from {where})"
    return f"{where}: error: {message}"


def link_diagnostic(log: str) -> tuple[str, dict[str, Any]]:
    """What went wrong at link time, and metrics (bytes over for a memory overflow)."""
    log = strip_dirs(log)
    over = _OVERFLOW.search(log)
    if over:
        region, count = over.group("region"), int(over.group("bytes"))
        size = "128 KiB of SRAM" if region == "RAM" else "1 MiB of flash"
        section = _NOT_FIT.search(log)
        which = f" (section {section.group('section')} does not fit)" if section else ""
        message = f"{region} overflowed by {count} bytes{which}: the program needs more than the {size}"
        return message, {"overflow_bytes": count, "region": region}
    undefined = _UNDEFINED.search(log)
    if undefined:
        sym, where = undefined.group("sym"), undefined.group("where")
        at = f"{where}: " if where else ""
        caller = " (the harness calls it)" if where and not where.startswith("candidate") and "harness" in where else ""
        return f"{at}undefined reference to `{sym}`{caller}: nothing defines it (misspelled, missing, or declared static?)", {}
    multiple = _MULTIPLE.search(log)
    if multiple:
        sym = multiple.group("sym")
        return f"multiple definition of `{sym}`: it is defined twice or clashes with the platform", {}
    lines = [ln for ln in log.splitlines() if "error" in ln.lower() or ": " in ln]
    return (lines[0][:300] if lines else "link failed"), {}


def memory_usage(log: str) -> dict[str, int]:
    scale = {"B": 1, "KB": 1024, "MB": 1024 * 1024}
    return {f"{m.group('region').lower()}_bytes": int(m.group("used")) * scale[m.group("unit")] for m in _USAGE.finditer(log)}
