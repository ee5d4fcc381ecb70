"""Reading what the asm toolchain and the test harness say: assembler and linker errors, the
harness's @ECOT marker lines, callgrind totals, and the first output that differs."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

_AS_ERROR = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+): (?P<kind>Error|Warning|Fatal error): (?P<msg>.*)$", re.M)
_MARKER = re.compile(r"^@ECOT-(?P<kind>[A-Z]+)(?P<rest>.*)$", re.M)
_FIELD = re.compile(r"(\w+)=(\S+)")
_CALLGRIND_TOTAL = re.compile(r"^(?:summary|totals):\s*(\d+)\s*$", re.M)
_COST_LINE = re.compile(r"(?:[+-]?\d+|\*) (\d+)")
_UNNAMED_FN = re.compile(r"^c?fn=0x([0-9a-fA-F]+)\s*$", re.M)

# si_code values of SIGSEGV/SIGBUS/SIGFPE worth naming (see sigaction(2))
_SEGV_CODES = {1: "address not mapped", 2: "no permission for the access", 128: "general protection fault"}
_FPE_CODES = {1: "integer divide by zero", 2: "integer overflow (e.g. dividing the most negative value by -1)"}


def assembler_errors(log: str, filename: str) -> list[tuple[int, str]]:
    """(line, message) for each error the assembler reports in the candidate file, in order."""
    found = []
    for m in _AS_ERROR.finditer(log):
        if m.group("kind") != "Warning" and m.group("file").endswith(filename):
            found.append((int(m.group("line")), m.group("msg").strip()))
    return found


def assembly_diagnostic(log: str, filename: str) -> str:
    errors = assembler_errors(log, filename)
    if errors:
        line, msg = errors[0]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        return f"{filename}:{line}: {msg}{more}"
    first = next((ln.strip() for ln in log.splitlines() if ln.strip()), "")
    return first or "the assembler failed without a message"


def link_diagnostic(log: str, function: str) -> str:
    """The first linker error, with what it usually means for a hand-written function."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip() and "warning:" not in ln and "NOTE:" not in ln]
    undefined = re.search(r"undefined reference to `([^']+)'", log)
    if undefined:
        name = undefined.group(1)
        if name == function:
            return (f"undefined reference to `{function}`: the driver calls `{function}` but the assembly does "
                    f"not define it as a global symbol (`.globl {function}` and a `{function}:` label)")
        return f"undefined reference to `{name}`: the assembly uses a symbol that nothing defines"
    multiple = re.search(r"multiple definition of `([^']+)'", log)
    if multiple:
        return f"multiple definition of `{multiple.group(1)}`: the assembly defines a symbol the test driver already has"
    relocation = next((ln for ln in lines if "relocation" in ln), None)
    first = relocation or (lines[0] if lines else "the linker failed without a message")
    return re.sub(r"^/\S*/ld: ", "ld: ", first)


@dataclass(frozen=True)
class Marker:
    """One line the harness printed about an abnormal end (fault, timeout, ABI violation)."""

    kind: str  # SIGNAL, TIMEOUT, ABI, ALIGN, BADCASE
    fields: dict[str, str]

    def int(self, name: str, default: int = -1) -> int:
        try:
            return int(self.fields.get(name, ""), 0)
        except ValueError:
            return default


def markers(stderr: str) -> list[Marker]:
    return [Marker(m.group("kind"), dict(_FIELD.findall(m.group("rest")))) for m in _MARKER.finditer(stderr)]


def last_marker(stderr: str) -> Marker | None:
    """The harness exits right after printing a marker, so the last one is the one that counts."""
    found = markers(stderr)
    return found[-1] if found else None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_fault(marker: Marker) -> str:
    """'SIGSEGV (address not mapped) at address 0x0' and the like."""
    sig = marker.int("sig")
    name = signal_name(sig)
    code = marker.int("code")
    addr = marker.fields.get("addr", "?")
    if sig in (signal.SIGSEGV, signal.SIGBUS):
        what = _SEGV_CODES.get(code, "invalid memory access")
        if code == 128:
            return f"{name} ({what}: a misaligned SSE access, a non-canonical address or a privileged instruction)"
        return f"{name} ({what}) accessing address {addr}"
    if sig == signal.SIGFPE:
        return f"{name} ({_FPE_CODES.get(code, 'arithmetic exception')})"
    if sig == signal.SIGILL:
        return f"{name} (illegal instruction: bytes that are not a valid instruction, or an extension this CPU lacks)"
    return name


def callgrind_inclusive(text: str, function: str) -> int | None:
    """Instructions executed inside `function` and everything it called, summed over its blocks of
    an uncompressed callgrind file (its own cost lines plus the inclusive lines of its calls)."""
    total, inside, seen = 0, False, False
    for line in text.splitlines():
        if line.startswith("fn="):
            inside = line[3:].strip() == function
            seen = seen or inside
        elif inside:
            match = _COST_LINE.fullmatch(line.strip())
            if match:
                total += int(match.group(1))
    return total if seen else None


def foreign_code(text: str, ranges: list[tuple[int, int]]) -> int | None:
    """The first address of a function callgrind could not name (`fn=0x...`, uncompressed file) that
    lies outside the program's code: code made at run time. None if every one lies inside."""
    for match in _UNNAMED_FN.finditer(text):
        address = int(match.group(1), 16)
        if not any(start <= address < end for start, end in ranges):
            return address
    return None


def callgrind_total(text: str) -> int | None:
    """Instructions counted by callgrind (the `summary:` or `totals:` line of its output file)."""
    match = _CALLGRIND_TOTAL.search(text)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Difference:
    index: int  # first case whose output differs, or the first missing one
    expected: str
    got: str | None  # None: the program printed no line for this case


def first_difference(expected: list[str], got: list[str]) -> Difference | None:
    for index, want in enumerate(expected):
        if index >= len(got):
            return Difference(index, want, None)
        if got[index].rstrip() != want.rstrip():
            return Difference(index, want, got[index])
    if len(got) > len(expected):
        return Difference(len(expected), "(no more output)", got[len(expected)])
    return None


def output_lines(stdout: str) -> list[str]:
    lines = stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def clip(text: str, limit: int = 160) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."
