"""Running firmware in QEMU (netduinoplus2: an STM32F405) and collecting what it left behind.

Everything QEMU writes for the judge (the semihosting report, the -d unimp trace with QEMU's log of
every MMIO write, the USART outputs, the ELF) lives in a folder with a random name inside the work
dir. The firmware can open host files through semihosting, but only by name and it cannot list
folders, so it can reach none of them; `arg=` hides the ELF path from SYS_GET_CMDLINE, and QEMU's seccomp sandbox
(`-sandbox ... spawn=deny`) stops SYS_SYSTEM from running host commands (QEMU dies with SIGSYS).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ecot import sandbox
from ecot.domains.firmware.clock import WRITE_EVENT

ICOUNT = "shift=3,align=off,sleep=off"  # deterministic: 8 ns of simulated time per instruction
QEMU_SANDBOX = "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"
USARTS = ("USART1", "USART2", "USART3", None, None, "USART6")  # QEMU's serial order for this SoC
TRACE_READ_LIMIT = 48 * 1024 * 1024
_API_PREFIX = re.compile(r"__ecot_[0-9a-f]{16}_")


@dataclass(frozen=True)
class RunFolder:
    """The private output folder of one run, named so the firmware cannot guess it."""

    name: str

    @classmethod
    def new(cls) -> RunFolder:
        return cls(f"run_{secrets.token_hex(16)}")

    @property
    def elf(self) -> str:
        return f"{self.name}/firmware.elf"

    def path(self, leaf: str) -> str:
        return f"{self.name}/{leaf}"

    @property
    def objects(self) -> tuple[str, str]:
        return self.path("runtime.o"), self.path("harness.o")


def qemu_argv(folder: RunFolder) -> list[str]:
    argv = [
        "qemu-system-arm", "-M", "netduinoplus2", "-display", "none", "-monitor", "none", "-nodefaults",
        "-sandbox", QEMU_SANDBOX, "-icount", ICOUNT, "-accel", "tcg,tb-size=64",
        "-chardev", f"file,id=semihost,path={folder.path('semihost')}",
        "-semihosting-config", "enable=on,target=native,chardev=semihost,arg=firmware",
        "-d", "unimp,guest_errors", "-D", folder.path("trace"),
        "-trace", WRITE_EVENT,  # every MMIO write into the same log: how the judge watches the harness's clock
    ]
    for index, port in enumerate(USARTS):
        if port is None:
            argv += ["-serial", "null"]
        else:
            argv += ["-chardev", f"file,id=u{index},path={folder.path(port.lower())}", "-serial", f"chardev:u{index}"]
    return argv + ["-kernel", folder.elf]


def prepare(work: Path, folder: RunFolder) -> None:
    (work / folder.name).mkdir()


@dataclass
class Artifacts:
    semihost: str = ""
    trace: str = ""
    serial: dict[str, bytes] = field(default_factory=dict)
    trace_bytes: int = 0  # bytes of the trace read (at most TRACE_READ_LIMIT)


def collect(work: Path, folder: RunFolder) -> Artifacts:
    """What QEMU wrote for the judge, read without following links (a guest can rename and remove files
    by name through semihosting, so the judge never trusts what a name points to)."""

    def read(leaf: str, limit: int) -> bytes:
        return sandbox.read_job_file(work, folder.path(leaf), limit) or b""

    found = Artifacts(semihost=read("semihost", 4 * 1024 * 1024).decode("latin-1"))
    trace = read("trace", TRACE_READ_LIMIT)
    found.trace, found.trace_bytes = trace.decode("latin-1"), len(trace)
    for port in filter(None, USARTS):
        data = read(port.lower(), 1024 * 1024)
        if data:
            found.serial[port] = data
    return found


def addr2line_step(folder: RunFolder, addresses: list[int]) -> sandbox.Step:
    return sandbox.Step(["arm-none-eabi-addr2line", "-f", "-e", folder.elf, *(f"0x{a:08x}" for a in addresses)])


def parse_addr2line(output: str, addresses: list[int]) -> dict[int, str]:
    """address -> `name (file.c:12)`; addresses without debug information map to nothing."""
    lines = output.splitlines()
    found: dict[int, str] = {}
    for index, addr in enumerate(addresses):
        if 2 * index + 1 >= len(lines):
            break
        func, where = lines[2 * index].strip(), lines[2 * index + 1].strip()
        if func == "??":
            continue
        file_line = where.rsplit("/", 1)[-1].split(" ")[0]
        func = _API_PREFIX.sub("", func)  # the per-process API prefix never leaves the backend
        found[addr] = f"in {func} at {file_line}" if not file_line.startswith("?") else f"in {func}"
    return found
