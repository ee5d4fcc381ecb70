"""The seccomp program every bubblewrap sandbox gets (`bwrap --seccomp FD`): no kernel keyrings.

Keys live in keyrings that outlive the processes that made them: the user and user-session keyrings
of a uid last as long as its user namespace (every job of a long-lived sandbox shares one), the
session keyring is inherited from the host. A key one job adds would be there for the next, so
add_key, request_key and keyctl fail with EPERM for everything in a sandbox, in every ABI the
machine runs (x86_64 also runs i386 and x32 code). On a machine whose numbers we do not know, no
sandbox starts (RuntimeError) rather than one that leaves keyrings open.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager

X32_BIT = 0x40000000
# AUDIT_ARCH_* -> (add_key, request_key, keyctl) of that ABI
KEYRING_CALLS: dict[int, tuple[int, ...]] = {
    0xC000003E: (248, 249, 250, X32_BIT | 248, X32_BIT | 249, X32_BIT | 250),  # x86_64 and x32
    0x40000003: (286, 287, 288),  # i386
    0xC00000B7: (217, 218, 219),  # aarch64
    0x40000028: (309, 310, 311),  # arm
    0xC00000F3: (217, 218, 219),  # riscv64
}
NATIVE = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7, "riscv64": 0xC00000F3}
_LD_W_ABS, _JEQ, _RET = 0x20, 0x15, 0x06
_ALLOW, _DENY = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def no_keyrings_program(machine: str) -> bytes:
    """The BPF program (struct sock_filter[]) refusing the keyring calls of every ABI above."""
    if machine not in NATIVE:
        raise RuntimeError(f"no seccomp numbers for {machine}: kernel keyrings cannot be closed to jobs here")
    ops = [_op(_LD_W_ABS, 4)]  # seccomp_data.arch
    for arch, numbers in KEYRING_CALLS.items():
        ops.append(_op(_JEQ, arch, 0, 2 * len(numbers) + 2))  # not this ABI: on to the next block
        ops.append(_op(_LD_W_ABS, 0))  # seccomp_data.nr
        for number in numbers:
            ops += [_op(_JEQ, number, 0, 1), _op(_RET, _DENY)]
        ops.append(_op(_RET, _ALLOW))
    ops.append(_op(_RET, _ALLOW))
    return b"".join(ops)


@contextmanager
def no_keyrings_fd() -> Iterator[int]:
    """A descriptor to read the program from once (a pipe holding it), for `bwrap --seccomp FD`; pass
    it to the bwrap process (pass_fds) and let the context close it after the process started."""
    program = no_keyrings_program(os.uname().machine)
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, program)  # a few hundred bytes: far below a pipe's capacity
    finally:
        os.close(write_fd)
    try:
        yield read_fd
    finally:
        os.close(read_fd)


def with_seccomp(bwrap_args: list[str], fd: int) -> list[str]:
    """A bubblewrap command line (starting with bwrap) that loads the program from fd."""
    return [bwrap_args[0], "--seccomp", str(fd), *bwrap_args[1:]]
