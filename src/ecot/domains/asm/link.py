"""Linking asm test programs: statically, with the harness's entry point first, and fast.

Every test program (candidate and baseline, for the cases, the instruction count and the wall-time
benchmark) is one static executable whose ELF entry point is the harness's `ecot_entry`, which
installs the system-call filter before anything else runs (asm_seccomp.py). A static program has
no dynamic loader: no IFUNC resolver, constructor or interposed libc function of the candidate
can run before that entry.

`gcc -static` would spend most of its time searching libc.a. So the libc members a task's driver
needs are linked once per process into one relocatable object (`ld -r -u SYMBOL ...`), and each
program is linked by `ld` itself from the start files, the driver, the candidate, the guard, that
object (which holds crt1.o too) and the archives (for anything else the candidate calls): about
30 ms instead of 100+.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from ecot import sandbox
from ecot.core.task import Limits
from ecot.domains.asm.elf import strong_undefined

ENTRY_FILE = "crt1.o"  # _start, and the non-PIE _dl_relocate_static_pie libc.a would otherwise bring its own of
START_FILES = ("crti.o", "crtbeginT.o")  # the order of these and END_FILES frames .init, .fini and .eh_frame
END_FILES = ("crtend.o", "crtn.o")
ARCHIVES = ("libgcc.a", "libgcc_eh.a", "libc.a")
ENTRY = "ecot_entry"
LIBS = "libs.o"
_lock = threading.Lock()


@dataclass(frozen=True)
class Toolchain:
    """Absolute paths of the start files and archives `gcc -static` would use."""

    paths: dict[str, str]

    def entry(self) -> str:
        return self.paths[ENTRY_FILE]

    def start(self) -> list[str]:
        return [self.paths[name] for name in START_FILES]

    def end(self) -> list[str]:
        return [self.paths[name] for name in END_FILES]

    def archives(self) -> list[str]:
        return ["--start-group", *(self.paths[name] for name in ARCHIVES), "--end-group"]


_toolchain: list[Toolchain] = []
_libs: dict[frozenset[str], bytes] = {}


def toolchain(limits: Limits) -> Toolchain:
    """Asked of gcc once per process (in the sandbox, like every tool run)."""
    with _lock:
        if not _toolchain:
            names = (ENTRY_FILE, *START_FILES, *END_FILES, *ARCHIVES)
            script = "; ".join(f"gcc -print-file-name={name}" for name in names)
            with sandbox.workdir("ecot-asm-tools-") as work:
                result = sandbox.run(["sh", "-c", script], work, limits)
            paths = result.stdout.split()
            if not result.ok or len(paths) != len(names) or not all(p.startswith("/") for p in paths):
                raise RuntimeError(f"gcc does not name its static start files and archives: {result.output[-1500:]}")
            _toolchain.append(Toolchain(dict(zip(names, paths))))
        return _toolchain[0]


def link_argv(tools: Toolchain, objects: list[str], output: str) -> list[str]:
    """`ld` for one static test program; LIBS must be in the work dir beside the objects."""
    return ["ld", "-static", "-m", "elf_x86_64", "-z", "noexecstack", "-e", ENTRY, "-o", output,
            *tools.start(), *objects, LIBS, *tools.archives(), *tools.end()]


def libs_object(tools: Toolchain, objects: list[bytes], function: str, limits: Limits) -> bytes:
    """crt1.o and the libc members the start files and these trusted objects need, linked into one
    object. The candidate's function is left out: were it a libc name, libc's copy would clash."""
    files = (tools.entry(), *tools.start(), *tools.end())
    wanted = set().union(*(strong_undefined(Path(p).read_bytes()) for p in files))
    wanted |= set().union(*(strong_undefined(obj) for obj in objects))
    key = frozenset(wanted - {function})
    with _lock:
        if key in _libs:
            return _libs[key]
    argv = ["ld", "-r", "-m", "elf_x86_64", "-o", LIBS, *(f"-u{name}" for name in sorted(key)), tools.entry(),
            *tools.archives()]
    with sandbox.workdir("ecot-asm-libs-") as work:
        result = sandbox.run(argv, work, limits)
        data = sandbox.read_job_file(work, LIBS, 64 << 20) if result.ok else None
    if data is None:
        raise RuntimeError(f"ld -r could not collect the libc members the driver needs: {result.output[-1500:]}")
    with _lock:
        if len(_libs) > 16:
            _libs.clear()
        _libs[key] = data
    return data
