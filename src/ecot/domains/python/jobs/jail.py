"""The walls between the python harness (the judge) and the candidate's process (standard library only).

Copied into the sandbox as `ecot_jail.py`. `protect_judge()` runs in the harness before its first fork:
a non-dumpable process cannot be ptraced, nor its /proc files (memory, descriptors) opened, by another
process of the same user. `confine()` runs in each forked child before any candidate code: it keeps
only stdin, stdout, stderr and its pipes to the judge, dies with the judge, and installs a seccomp filter under
which the child can start threads but never a process (fork, vfork, clone without CLONE_THREAD),
nor ptrace or read another process's memory. A process the candidate started would compute outside
the CPU clock the judge reads, and could outlive the test.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import resource
import signal
import struct
from typing import Any

REPLY_FD, GO_FD = 3, 4  # the child's ends of its reply pipe and (function mode) its go-ahead pipe

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 1, 4, 22, 38
SECCOMP_MODE_FILTER = 2
CLONE_THREAD = 0x00010000
CLONE3 = 435  # the same number on every architecture; refused with ENOSYS so glibc falls back to clone
# architecture: (AUDIT_ARCH, clone, syscalls refused outright: fork, vfork, ptrace, process_vm_readv/writev, pidfd_getfd)
ARCHES: dict[str, tuple[int, int, tuple[int, ...]]] = {
    "x86_64": (0xC000003E, 56, (57, 58, 101, 310, 311, 438)),
    "aarch64": (0xC00000B7, 220, (117, 270, 271, 438)),
}
X32_BIT = 0x40000000  # x86_64's x32 ABI: other numbers for the same calls, refused
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _KILL, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_EPERM, _ENOSYS = 1, 38

_libc = ctypes.CDLL(None, use_errno=True)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def protect_judge() -> None:
    """Make this process non-dumpable (before any fork: the children inherit it, which does no harm)."""
    if _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def no_process_filter(machine: str) -> bytes | None:
    """The seccomp BPF program for this architecture, or None where we do not know its numbers."""
    if machine not in ARCHES:
        return None
    arch, clone, refused = ARCHES[machine]
    ops = [_op(_LD_W_ABS, 4), _op(_JEQ, arch, 1, 0), _op(_RET, _KILL), _op(_LD_W_ABS, 0)]
    if machine == "x86_64":
        ops += [_op(_JGE, X32_BIT, 0, 1), _op(_RET, _ERRNO | _EPERM)]
    for number in refused:
        ops += [_op(_JEQ, number, 0, 1), _op(_RET, _ERRNO | _EPERM)]
    ops += [_op(_JEQ, CLONE3, 0, 1), _op(_RET, _ERRNO | _ENOSYS)]
    # clone: allowed only with CLONE_THREAD (flags are argument 0; its low word sits at offset 16)
    ops += [_op(_JEQ, clone, 0, 3), _op(_LD_W_ABS, 16), _op(_JSET, CLONE_THREAD, 1, 0), _op(_RET, _ERRNO | _EPERM)]
    ops.append(_op(_RET, _ALLOW))
    return b"".join(ops)


_filter: list[tuple[Any, _Program]] = []  # (buffer, program), built once in the judge for every child


def prepare() -> None:
    """Build the seccomp program once, before the first fork."""
    program = no_process_filter(os.uname().machine)
    if program is not None and not _filter:
        buffer = ctypes.create_string_buffer(program, len(program))
        _filter.append((buffer, _Program(len(program) // 8, ctypes.addressof(buffer))))


def _forbid_processes() -> None:
    if _filter and _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 \
            and _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(_filter[0][1]), 0, 0) == 0:
        return
    # no filter here: no new tasks at all (threads count against RLIMIT_NPROC too)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def confine(pipes: dict[int, int], judge: int) -> None:
    """In a freshly forked child: its descriptors (pipes: wanted number -> current one), the
    parent-death signal, its own process group, the filter."""
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1):  # the judge's stdout is the verdict channel: gone from here before anything else
        os.dup2(null, target)
    high = {target: fcntl.fcntl(fd, fcntl.F_DUPFD, 16) for target, fd in pipes.items()}  # out of the way first
    for target, fd in high.items():
        os.dup2(fd, target)
    os.closerange(max(pipes, default=2) + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    if _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != judge:
        os._exit(70)
    os.setpgid(0, 0)
    _forbid_processes()
