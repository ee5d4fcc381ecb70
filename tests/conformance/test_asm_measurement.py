"""How the asm backend keeps its measurements out of the candidate's reach: the system-call filter's
policy, the host's checks of the linked program and of callgrind's output, and honest counts left
exactly as they were. (The attacks themselves are in ecot/audit/hostile/asm.py.)"""

from __future__ import annotations

import shutil
import struct

import pytest

from ecot.audit.hostile import asmattacks
from ecot.core.outcome import PASS
from ecot.domains.asm import elf as asm_elf
from ecot.domains.asm import logs as asm_logs
from ecot.domains.asm import seccomp as asm_seccomp
from ecot.domains.asm.backend import FORBIDDEN_CODE, AsmBackend
from ecot.domains.asm.options import AsmOptions

from .common import bundled_task, describe, evaluate, skip_unless_tools, with_changes

ALLOW, DENY, KILL = asm_seccomp.RET_ALLOW, asm_seccomp.RET_DENY, asm_seccomp.RET_KILL
NR = asm_seccomp.NR
HIGH = 0x10_0200_0000  # where valgrind grows its own memory
O_WRONLY, O_RDWR, O_CREAT, O_TRUNC = 0o1, 0o2, 0o100, 0o1000

ALLOWED_CALLS = [
    ("write", (1, 0, 10)), ("read", (0, 0, 10)), ("exit_group", (0,)), ("brk", (0,)), ("munmap", (0, 4096)),
    ("mmap", (0, 4096, 3, 0x22)), ("mprotect", (0x4A2000, 16384, 1)), ("mmap", (HIGH, 4096, 7, 0x32)),
    ("open", (0, O_WRONLY | O_TRUNC)), ("arch_prctl", (0x1002, 0)), ("prlimit64", (0, 3, 0, 1)),
    ("mremap", (0, 4096, 8192, 1)), ("getpid", ()), ("rt_sigtimedwait", (0, 0, 0, 8)),
]
DENIED_CALLS = [
    ("fork", 57, ()), ("vfork", 58, ()), ("clone", 56, (0x11,)), ("clone3", 435, ()), ("execve", 59, ()),
    ("openat", 257, (0, 0, O_WRONLY | O_TRUNC)), ("open O_RDONLY", 2, (0, 0)), ("open O_RDWR", 2, (0, O_RDWR)),
    ("open O_CREAT", 2, (0, O_CREAT | O_WRONLY | O_TRUNC)), ("mmap RWX low", 9, (0, 4096, 7, 0x22)),
    ("mmap RX file", 9, (0, 4096, 5, 0x2, 3, 0)), ("mprotect RX low", 10, (0x401000, 4096, 5)),
    ("mremap to an address", 25, (0, 4096, 4096, 3, HIGH)), ("lseek", 8, (3, 0x401000, 0)), ("pwrite64", 18, ()),
    ("kill", 62, (1, 9)), ("tgkill", 234, ()), ("ptrace", 101, (16, 1)), ("socket", 41, (2, 1, 0)),
    ("prctl", 157, (22, 2)), ("seccomp", 317, ()), ("io_uring_setup", 425, ()), ("memfd_create", 319, ()),
    ("symlink", 88, ()), ("rename", 82, ()), ("unlink", 87, ()), ("fchmod", 91, ()), ("ftruncate", 77, ()),
    ("prlimit64 set", 302, (0, 1, 0x7FFC0000, 0)), ("arch_prctl vdso", 158, (0x2001, 0)), ("x32 write", 0x40000001, ()),
]


@pytest.mark.parametrize(("name", "args"), ALLOWED_CALLS, ids=[f"{n}{a}" for n, a in ALLOWED_CALLS])
def test_filter_allows_what_libc_the_harness_and_valgrind_need(name: str, args: tuple[int, ...]) -> None:
    assert asm_seccomp.decide(NR[name], args) == ALLOW


@pytest.mark.parametrize(("name", "nr", "args"), DENIED_CALLS, ids=[d[0] for d in DENIED_CALLS])
def test_filter_denies_everything_else(name: str, nr: int, args: tuple[int, ...]) -> None:
    assert asm_seccomp.decide(nr, args) == DENY


def test_filter_kills_another_system_call_abi() -> None:
    assert asm_seccomp.decide(NR["write"], (1,), arch=0x40000003) == KILL  # int $0x80 (i386)


def test_the_harness_header_carries_the_filter_and_the_entry_point() -> None:
    from ecot.domains.asm.driver import HARNESS_H

    rows = [line.strip().rstrip(",") for line in HARNESS_H.splitlines() if line.strip().startswith("{0x")]
    assert rows == [f"{{0x{c:02x}, {jt}, {jf}, 0x{k:08x}u}}" for c, jt, jf, k in asm_seccomp.assemble()]
    assert "ecot_entry:" in HARNESS_H and "jmp _start" in HARNESS_H


# -- the checks of the linked program --------------------------------------------------------------
@pytest.fixture(scope="module")
def baseline() -> bytes:
    task = bundled_task("asm/popcount64")
    backend = skip_unless_tools("asm")
    assert isinstance(backend, AsmBackend)
    return backend.prepared(task, AsmOptions.of_task(task)).base_prog


def _patched(program: bytes, kind: int, flags: int, new_kind: int | None = None) -> bytes:
    """A copy whose first program header of type `kind` has new flags (and type)."""
    data = bytearray(program)
    phoff = struct.unpack_from("<Q", data, 32)[0]
    for index, seg in enumerate(asm_elf.segments(program)):
        if seg.kind == kind:
            struct.pack_into("<II", data, phoff + 56 * index, kind if new_kind is None else new_kind, flags)
            return bytes(data)
    raise AssertionError(f"no program header of type {kind:#x}")


def _problem(program: bytes) -> str:
    problem = asm_elf.check_program(program)
    return problem.what if problem is not None else "no problem"


def test_the_baseline_program_is_clean_static_and_starts_at_the_filter(baseline: bytes) -> None:
    assert asm_elf.check_program(baseline) is None
    entry = struct.unpack_from("<Q", baseline, 24)[0]
    assert any(start <= entry < end for start, end in asm_elf.code_ranges(baseline))
    assert asm_elf.PREAMBLE not in baseline


def test_a_preamble_anywhere_is_found_with_its_address(baseline: bytes) -> None:
    start, _ = asm_elf.code_ranges(baseline)[0]
    seg = next(s for s in asm_elf.segments(baseline) if s.vaddr == start)
    at = seg.offset + 64
    patched = baseline[:at] + asm_elf.PREAMBLE + baseline[at + 16:]
    problem = asm_elf.check_program(patched)
    assert problem is not None and "client-request preamble" in problem.what
    assert problem.address == start + 64
    tail = baseline + asm_elf.PREAMBLE  # past every segment: still refused, without an address
    problem = asm_elf.check_program(tail)
    assert problem is not None and problem.address is None


def test_writable_code_an_executable_stack_and_an_interpreter_are_refused(baseline: bytes) -> None:
    rwx = asm_elf.PF_X | asm_elf.PF_W | 4
    assert "writable and executable" in _problem(_patched(baseline, asm_elf.PT_LOAD, rwx))
    assert "executable stack" in _problem(_patched(baseline, asm_elf.PT_GNU_STACK, rwx))
    assert "interpreter" in _problem(_patched(baseline, asm_elf.PT_GNU_STACK, 4, asm_elf.PT_INTERP))
    assert "not a readable ELF" in _problem(b"#!/bin/sh\n")


def test_foreign_code_in_callgrind_output_is_found() -> None:
    ranges = [(0x401000, 0x480000)]
    legit = "ob=???\nfn=0x0000000000401000\n0 6\nfn=main\n0 9\ncfn=0x0000000000478c28\ncalls=1 0\n0 3\n"
    assert asm_logs.foreign_code(legit, ranges) is None
    made = legit + "ob=???\nfn=0x0000001010000000\n0 3\n"
    assert asm_logs.foreign_code(made, ranges) == 0x10_1000_0000


# -- real runs -------------------------------------------------------------------------------------
def needs_valgrind() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("instruction counts need the missing tool 'valgrind'")


# right only if the filter is in force: fork, creating a file and executable memory all refused,
# while an allowed call still works
FILTER_PROBE = asmattacks.oracle(
    "    static int checked, ok;\n    if (!checked) {\n        checked = 1;\n"
    "        long forked = syscall(SYS_fork), made = open(\"probe.txt\", O_CREAT | O_WRONLY, 0600);\n"
    "        long exec = syscall(SYS_mmap, 0, 4096, 7, 0x22, -1, 0);\n"
    "        ok = forked == -1 && made == -1 && exec == -1 && syscall(SYS_getpid) > 0;\n    }\n"
    "    escaped = ok;\n")


@pytest.mark.parametrize("speed", ["off", "callgrind"])
def test_the_filter_holds_natively_and_under_callgrind(speed: str) -> None:
    if speed == "callgrind":
        needs_valgrind()
    outcome = evaluate(with_changes(bundled_task("asm/popcount64"), {"speed": speed}), FILTER_PROBE.result())
    assert outcome.label == PASS, describe(outcome)
    if speed == "callgrind":
        assert int(outcome.metrics["instructions"]) > 0, outcome.metrics


def test_the_baseline_as_a_candidate_counts_exactly_the_baseline() -> None:
    """Candidate and baseline programs are counted alike (same path lengths, same start-up)."""
    needs_valgrind()
    task = with_changes(bundled_task("asm/gcd"), {"speed": "callgrind"})
    outcome = evaluate(task, task.files["baseline.s"])
    assert outcome.label == PASS, describe(outcome)
    assert outcome.metrics["instructions"] == outcome.metrics["baseline_instructions"], outcome.metrics
    assert float(outcome.metrics["speedup"]) == 1.0


def test_a_client_request_is_refused_naming_its_line() -> None:
    outcome = evaluate(with_changes(bundled_task("asm/popcount64"), {"speed": "off"}), asmattacks.around_slow("toggle"))
    assert outcome.label == FORBIDDEN_CODE, describe(outcome)
    assert "client-request preamble" in outcome.diagnostic and "solution.s:" in outcome.diagnostic, outcome.diagnostic
    assert "it was not run" in outcome.diagnostic


def test_the_hostile_suite_spells_the_label_as_the_backend_does() -> None:
    from ecot.audit.hostile import asm as hostile_asm

    assert hostile_asm.FORBIDDEN_CODE == FORBIDDEN_CODE
    assert FORBIDDEN_CODE in AsmBackend.all_labels()
