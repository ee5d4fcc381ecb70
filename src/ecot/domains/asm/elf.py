"""What the host checks in the ELF files of an asm evaluation, read as bytes (nothing is run).

A linked test program may run under callgrind only if nothing in it can switch callgrind off:
- valgrind's client requests (CALLGRIND_STOP_INSTRUMENTATION, TOGGLE_COLLECT, ZERO_STATS,
  DUMP_STATS, VALGRIND_NON_SIMD_CALL*, ...) all start with a fixed 16-byte "special instruction"
  preamble that valgrind's decoder looks for at any address it translates. Its bytes must appear
  nowhere in the file: the scan covers every byte, so instruction boundaries, sections split at
  link time and preambles built by relocations (all resolved in a static program) cannot hide one.
- Code written at run time cannot be scanned, so the program must not be able to make any where
  its own code lies: no segment both writable and executable, no executable stack, and a static
  program without an interpreter, whose entry point is the harness's. The system-call filter
  (asm_seccomp.py) allows new executable memory only far above the program, and the host rejects
  a callgrind count with cost outside `code_ranges` (asm_logs.foreign_code).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ecot.domains.asm.domain import AsmLabel

# rolq $3,%rdi; rolq $13,%rdi; rolq $61,%rdi; rolq $51,%rdi (valgrind.h, amd64)
PREAMBLE = bytes.fromhex("48c1c703 48c1c70d 48c1c73d 48c1c733")
PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_GNU_STACK = 1, 2, 3, 0x6474E551
PF_X, PF_W = 1, 2
FORBIDDEN_CODE = AsmLabel.FORBIDDEN_CODE.value  # the outcome label of a program with something that could switch counting off
SHT_SYMTAB, SHN_UNDEF, STB_GLOBAL = 2, 0, 1


@dataclass(frozen=True)
class Segment:
    kind: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int


@dataclass(frozen=True)
class Problem:
    """Why a linked program may not run: what was found, why that matters, and the address of the
    code it is in (None when it is not in code, or in no part of the file that is loaded)."""

    what: str
    why: str = ""
    address: int | None = None


def _header(data: bytes) -> tuple[int, int, int, int, int, int]:
    """(e_type, e_machine, e_phoff, e_shoff, e_phnum, e_shnum) of an ELF64 little-endian file."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 32)
    e_phnum, _, e_shnum = struct.unpack_from("<HHH", data, 56)
    return e_type, e_machine, e_phoff, e_shoff, e_phnum, e_shnum


def segments(data: bytes) -> list[Segment]:
    _, _, phoff, _, phnum, _ = _header(data)
    found = []
    for index in range(phnum):
        kind, flags, offset, vaddr, _, filesz, memsz = struct.unpack_from("<IIQQQQQ", data, phoff + 56 * index)
        found.append(Segment(kind, flags, offset, vaddr, filesz, memsz))
    return found


def address_of(data: bytes, file_offset: int) -> int | None:
    """The virtual address a file offset is loaded at (None if no segment loads it)."""
    for seg in segments(data):
        if seg.kind == PT_LOAD and seg.offset <= file_offset < seg.offset + seg.filesz:
            return seg.vaddr + file_offset - seg.offset
    return None


def code_ranges(data: bytes) -> list[tuple[int, int]]:
    """[start, end) of the program's executable segments: where all the code it may run lies."""
    return [(s.vaddr, s.vaddr + s.memsz) for s in segments(data) if s.kind == PT_LOAD and s.flags & PF_X]


def check_program(data: bytes) -> Problem | None:
    """The first reason this statically linked test program may not run, or None."""
    try:
        e_type, machine, *_ = _header(data)
        found = segments(data)
    except (ValueError, struct.error):
        return Problem("the linked program is not a readable ELF file")
    if e_type != 2 or machine != 62:  # ET_EXEC, EM_X86_64
        return Problem("the linked program is not an x86-64 executable")
    at = data.find(PREAMBLE)
    if at >= 0:
        return Problem("valgrind's client-request preamble (rolq $3, $13, $61, $51 of %rdi)",
                       "client requests can switch the instruction count off", address_of(data, at))
    kinds = {seg.kind for seg in found}
    if kinds & {PT_INTERP, PT_DYNAMIC}:
        return Problem("a dynamic section or program interpreter", "the test program must be linked statically")
    writable_code = next((s for s in found if s.kind == PT_LOAD and s.flags & PF_W and s.flags & PF_X), None)
    if writable_code is not None:
        return Problem(f"a segment that is both writable and executable at {writable_code.vaddr:#x} (a section with "
                       "flags \"awx\"?)", "code written there at run time could switch the instruction count off")
    stack = [s for s in found if s.kind == PT_GNU_STACK]
    if not stack or stack[0].flags & PF_X:
        return Problem("an executable stack", "code written there at run time could switch the instruction count off")
    return None


def strong_undefined(obj: bytes) -> set[str]:
    """Names of the global (not weak) symbols a relocatable object uses but does not define."""
    _, _, _, shoff, _, shnum = _header(obj)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + 64 * i) for i in range(shnum)]
    names: set[str] = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != SHT_SYMTAB or not entsize:
            continue
        strtab = sections[link]
        for start in range(offset, offset + size, entsize):
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", obj, start)
            if st_shndx == SHN_UNDEF and st_info >> 4 == STB_GLOBAL and st_name:
                begin = strtab[4] + st_name
                names.add(obj[begin:obj.index(b"\0", begin)].decode())
    return names
