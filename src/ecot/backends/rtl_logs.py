"""Reading RTL toolchain output: compile errors, testbench verdicts, Yosys and Verilator findings.

The verdict channel: before compiling, every string literal the *testbench* prints through
$display/$write/$strobe/$monitor is prefixed with a random per-evaluation tag. Only tagged lines
count as testbench output, so a design that prints "Mismatches: 0" or "PASS" itself is ignored.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

_PRINT_CALL = re.compile(r'(\$(?:display|write|strobe|monitor)[bho]?\s*\(\s*)"')
_MODULE_DECL = re.compile(r"^\s*module\s+([A-Za-z_][A-Za-z0-9_$]*)", re.MULTILINE)
_INSTANCE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_$]*)\s+(?:#\s*\(.*?\)\s*)?([A-Za-z_][A-Za-z0-9_$]*)\s*\(", re.M)
_COMPILE_ERROR = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+): (?P<msg>.*)$")
_SYNTAX_HINTS = ("syntax error", "malformed", "invalid module item", "missing", "unexpected")

FAILURE_WORDS = re.compile(r"mismatch|error|fail|expected|wrong|incorrect", re.IGNORECASE)


def new_tag() -> str:
    return f"@ECOT{secrets.token_hex(8)}@"


def tag_testbench(source: str, tag: str) -> str:
    """Prefix the testbench's printed string literals with the secret tag."""
    return _PRINT_CALL.sub(lambda m: f'{m.group(1)}"{tag}', source)


def trusted_lines(output: str, tag: str) -> list[str]:
    """The testbench's own lines: text after the tag, wherever the tag appears in a line."""
    lines: list[str] = []
    for line in output.splitlines():
        if tag in line:
            lines.append("".join(line.split(tag)[1:]).strip())
    return lines


def strip_tag(output: str, tag: str) -> str:
    return output.replace(tag, "")


def top_testbench_module(source: str) -> str | None:
    """The testbench module that no other module in the file instantiates (the simulation root)."""
    declared = _MODULE_DECL.findall(source)
    instantiated = {m.group(1) for m in _INSTANCE.finditer(source)}
    roots = [name for name in declared if name not in instantiated]
    return roots[-1] if roots else (declared[-1] if declared else None)


def declared_modules(source: str) -> list[str]:
    return _MODULE_DECL.findall(_strip_comments(source))


_DOTTED_NAME = re.compile(r"[A-Za-z_$\\][\w$]*\s*\.\s*[A-Za-z_$\\]")


def may_reach_outside(source: str) -> bool:
    """Whether the design could name anything outside itself: a hierarchical (dotted) name, or
    macros/includes that could produce one. False is a guarantee; True only means "check it"."""
    code = re.sub(r'"(?:\\.|[^"\\])*"', '""', _strip_comments(source))
    return "`" in code or _DOTTED_NAME.search(code) is not None


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", source)


@dataclass(frozen=True)
class CompileVerdict:
    syntax: bool
    diagnostic: str


def classify_compile(log: str, renames: dict[str, str]) -> CompileVerdict:
    """Syntax errors come from the parser; everything else that stops iverilog is elaboration."""
    for old, new in renames.items():
        log = log.replace(old, new)
    errors = [line.strip() for line in log.splitlines() if _COMPILE_ERROR.match(line.strip())]
    errors = [e for e in errors if "warning:" not in e.lower()] or errors
    first = errors[0] if errors else next((ln.strip() for ln in log.splitlines() if ln.strip()), "")
    lowered = log.lower()
    syntax = "syntax error" in lowered or any(
        h in first.lower() for h in _SYNTAX_HINTS
    ) and "elaboration" not in lowered
    missing = re.search(r"Unknown module type: (\S+)", log)
    if missing and not syntax:
        first = f"{first} (the design must define module `{missing.group(1)}`)"
    return CompileVerdict(syntax=syntax, diagnostic=first or "iverilog failed without a message")


@dataclass(frozen=True)
class SimVerdict:
    passed: bool
    diagnostic: str
    metrics: dict[str, int]


def judge_simulation(lines: list[str], pass_pattern: str, fail_pattern: str | None, count_pattern: str | None) -> SimVerdict:
    metrics: dict[str, int] = {}
    if count_pattern:
        for line in lines:
            match = re.search(count_pattern, line)
            if match:
                metrics = {k: int(v) for k, v in match.groupdict().items() if v is not None and v.isdigit()}
    passed = any(re.search(pass_pattern, line) for line in lines)
    failed = bool(fail_pattern) and any(re.search(fail_pattern, line) for line in lines)
    if passed and not failed:
        return SimVerdict(True, "simulation passed: " + next(l for l in lines if re.search(pass_pattern, l)), metrics)
    if not lines:
        return SimVerdict(False, "the testbench printed nothing: simulation ended before any check ran", metrics)
    culprit = next((line for line in lines if FAILURE_WORDS.search(line)), None)
    if culprit is None:
        return SimVerdict(False, f"the testbench never reported success (last line: {lines[-1][:200]})", metrics)
    return SimVerdict(False, culprit[:300], metrics)


@dataclass(frozen=True)
class SynthFindings:
    started: bool  # Yosys got as far as reading the design
    parsed: bool  # ... and its frontend accepted it
    pass_error: bool  # a later pass (proc, check, ...) rejected it
    problems: list[str]
    metrics: dict[str, int]
    first_error: str


def read_yosys(log: str) -> SynthFindings:
    errors = [ln.strip() for ln in log.splitlines() if "ERROR:" in ln]
    problems: list[str] = []
    for match in re.finditer(r"Latch inferred for signal `\\?([^']+)'", log):
        problems.append(f"inferred latch for signal {match.group(1).replace(chr(92), '')}")
    for match in re.finditer(r"found logic loop in module (\S+):\n((?:\s{4}.*\n?)+)", log):
        wires = re.findall(r"wire \\(\S+)", match.group(2))
        through = f" through {', '.join(dict.fromkeys(wires))}" if wires else ""
        problems.append(f"combinational loop in module {match.group(1).rstrip(':')}{through}")
    for match in re.finditer(r"multiple conflicting drivers for (\S+?):?$", log, re.MULTILINE):
        problems.append(f"multiple conflicting drivers for {match.group(1).replace(chr(92), '')}")
    cells = re.findall(r"Number of cells:\s+(\d+)", log)
    metrics = {"cells": int(cells[-1])} if cells else {}
    frontend_error = bool(errors) and re.match(r"^\S+:\d+: ERROR", errors[0]) is not None
    return SynthFindings(
        started="frontend" in log,
        parsed=not frontend_error,
        pass_error=bool(errors) and not frontend_error,
        problems=list(dict.fromkeys(problems)),
        metrics=metrics,
        first_error=errors[0] if errors else "",
    )


def read_verilator(log: str) -> list[str]:
    """Verilator findings as 'file:line:col: message', errors first."""
    found = re.findall(r"^%(Error|Warning)(-[A-Z0-9_]+)?: (.*)$", log, re.MULTILINE)
    found.sort(key=lambda f: f[0] != "Error")
    return [f"{kind}{code}: {text.strip()}" for kind, code, text in found if not text.startswith("Exiting")]
