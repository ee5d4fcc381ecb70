"""Reading RTL toolchain output: compile errors, testbench verdicts, Yosys and Verilator findings.

The verdict channel: before compiling, every string literal the *testbench* prints through
$display/$write/$strobe/$monitor is prefixed with a random per-evaluation tag. Only tagged lines
count as testbench output, so a design that prints "Mismatches: 0" or "PASS" itself is ignored.
Every `$finish`/`$stop` of the testbench first prints the tagged END_MARK, so the judge knows whether
the testbench ended the simulation itself or something else (the design's `$finish`) did.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import PurePosixPath

_PRINT_CALL = re.compile(r'(\$(?:display|write|strobe|monitor)[bho]?\s*\(\s*)"')
_MODULE_DECL = re.compile(r"^\s*module\s+([A-Za-z_][A-Za-z0-9_$]*)", re.MULTILINE)
_INSTANCE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_$]*)\s+(?:#\s*\(.*?\)\s*)?([A-Za-z_][A-Za-z0-9_$]*)\s*\(", re.MULTILINE)
_COMPILE_ERROR = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+): (?P<msg>.*)$")
_SYNTAX_HINTS = ("syntax error", "malformed", "invalid module item", "missing", "unexpected")
# One left-to-right pass over the source, so a `//` inside a string, a `"` inside a comment or a
# `(*` inside an escaped identifier is read the way the compiler reads it.
_TOKEN = re.compile(
    r'(?P<string>"(?:\\.|[^"\\\n])*")'
    r"|(?P<escaped>\\\S+)"
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<attribute>\(\*(?!\s*\)).*?\*\))",
    re.DOTALL,
)
_FINISH = re.compile(r"\$(?:finish|stop)\b(?:\s*\([^;]*?\))?\s*;")
END_MARK = "ECOT-TESTBENCH-END"

FAILURE_WORDS = re.compile(r"mismatch|error|fail|expected|wrong|incorrect", re.IGNORECASE)


def new_tag() -> str:
    return f"@ECOT{secrets.token_hex(8)}@"


def tag_testbench(source: str, tag: str) -> str:
    """Prefix the testbench's printed string literals with the secret tag, after making each of its
    `$finish`/`$stop` calls print END_MARK first (tagged like every other testbench line)."""
    marked = _map_code(source, lambda code: _FINISH.sub(lambda m: f'begin $display("{END_MARK}"); {m.group(0)} end', code))
    return _PRINT_CALL.sub(lambda m: f'{m.group(1)}"{tag}', marked)


def trusted_lines(output: str, tag: str) -> list[str]:
    """The testbench's own lines: text after the tag, wherever the tag appears in a line."""
    lines: list[str] = []
    for line in output.splitlines():
        if tag in line:
            lines.append("".join(line.split(tag)[1:]).strip())
    return lines


def split_end(lines: list[str]) -> tuple[list[str], bool]:
    """The testbench's lines without END_MARK, and whether its own $finish/$stop ended the run."""
    kept = [line for line in lines if line != END_MARK]
    return kept, len(kept) != len(lines)


def calls_finish(source: str) -> bool:
    """Whether the source (outside comments and strings) calls $finish or $stop anywhere."""
    return re.search(r"\$(?:finish|stop)\b", code_only(source)) is not None


def strip_tag(output: str, tag: str) -> str:
    return output.replace(tag, "")


def top_testbench_module(source: str) -> str | None:
    """The testbench module that no other module in the file instantiates (the simulation root)."""
    declared = _MODULE_DECL.findall(source)
    instantiated = {m.group(1) for m in _INSTANCE.finditer(source)}
    roots = [name for name in declared if name not in instantiated]
    return roots[-1] if roots else (declared[-1] if declared else None)


def declared_modules(source: str) -> list[str]:
    return _MODULE_DECL.findall(code_only(source))


_DOTTED_NAME = re.compile(r"[A-Za-z_$\\][\w$]*\s*\.\s*[A-Za-z_$\\]")


def may_reach_outside(source: str) -> bool:
    """Whether the design could name anything outside itself: a hierarchical (dotted) name, or
    macros/includes that could produce one. False is a guarantee; True only means "check it"."""
    code = code_only(source)
    return needs_preprocessor(code) or _DOTTED_NAME.search(code) is not None


# Directives the compiler itself reads; the preprocessor passes them through unchanged (`iverilog -E`).
_PASS_THROUGH = re.compile(r"`(?:timescale|default_nettype|resetall|celldefine|endcelldefine)(?![\w$])")


def needs_preprocessor(source: str) -> bool:
    """Whether the simulator's preprocessor could make the design it compiles differ from the text:
    any backtick, wherever it stands (comments too), that does not start a directive it passes through
    (`timescale, `default_nettype, `resetall, `celldefine, `endcelldefine). False is a guarantee: the
    text is what the simulator compiles, so the checkers may read it as it is."""
    return source.count("`") != len(_PASS_THROUGH.findall(source))


def code_only(source: str) -> str:
    """The source with comments and attributes blanked (newlines kept) and strings emptied."""
    return _TOKEN.sub(lambda m: {"string": '""', "escaped": m.group(0)}.get(m.lastgroup or "") or _blank(m), source)


def strip_for_checks(source: str) -> str:
    """The source without comments and attributes (newlines kept, so line numbers hold): the
    structural checks must read what the simulator compiled, not pragmas only they obey
    (`// synopsys translate_off`, `full_case`, `(* nolatches *)`, `(* blackbox *)`, lint_off)."""
    return _TOKEN.sub(lambda m: m.group(0) if m.lastgroup in ("string", "escaped") else _blank(m), source)


def _blank(match: re.Match[str]) -> str:
    return " " + "\n" * match.group(0).count("\n")


def _map_code(source: str, edit: Callable[[str], str]) -> str:
    """Apply `edit` to the code between strings, comments, attributes and escaped identifiers."""
    parts: list[str] = []
    index = 0
    for match in _TOKEN.finditer(source):
        parts += [edit(source[index : match.start()]), match.group(0)]
        index = match.end()
    return "".join([*parts, edit(source[index:])])


# System tasks that name host files, and `include: a literal path outside the work folder is refused
# before anything runs (a computed one meets the sandbox, which shows no host files).
_FILE_TASK = re.compile(
    r"(?:\$(?P<task>fopen[rwa]?|readmem[hb]|writemem[hb]|dumpfile|sdf_annotate)\s*\(\s*|`(?P<inc>include)\s*)"
    r'"(?P<path>[^"\n]*)"'
)


def outside_paths(source: str, name: str) -> list[str]:
    """`name:line: $fopen("/etc/shadow")` for every literal path that leaves the work folder."""
    text = strip_for_checks(source)
    found = []
    for match in _FILE_TASK.finditer(text):
        path = match.group("path")
        if path.startswith(("/", "~", "\\")) or ".." in PurePosixPath(path).parts:
            line = text.count("\n", 0, match.start()) + 1
            what = f"`include \"{path}\"" if match.group("inc") else f'${match.group("task")}("{path}")'
            found.append(f"{name}:{line}: {what}")
    return found


_LOAD_ERROR = re.compile(r"^(?P<where>\S+:\d+): Error: (?P<msg>.*)$", re.MULTILINE)


def vvp_load_errors(stdout: str, stderr: str) -> list[str]:
    """Errors vvp reports while loading the compiled program (before any of it runs), e.g. a system
    task it does not provide such as $system. Empty when the program ran."""
    if "Program not runnable" not in stdout + stderr:
        return []
    return [f"{m.group('where')}: {m.group('msg').strip()}" for m in _LOAD_ERROR.finditer(stderr)]


@dataclass(frozen=True)
class CompileVerdict:
    syntax: bool
    diagnostic: str


def classify_compile(log: str, renames: dict[str, str], task_modules: Collection[str] = ()) -> CompileVerdict:
    """Syntax errors come from the parser; everything else that stops iverilog is elaboration.
    `task_modules`: modules of the task's own (the testbench's, hidden ones) a design may not use."""
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
    if missing and not syntax and missing.group(1) in task_modules:
        first = (f"{first} (`{missing.group(1)}` is the task's own module, which a design may not instantiate: "
                 "write the logic itself)")
    elif missing and not syntax:
        first = f"{first} (the design must define module `{missing.group(1)}`)"
    return CompileVerdict(syntax=syntax, diagnostic=first or "iverilog failed without a message")


_SORRY = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+): sorry: (?P<msg>.*)$", re.MULTILINE)


def toolchain_limit(log: str, task_files: Collection[str]) -> str | None:
    """The simulator's own "sorry: ... not yet supported" on one of the task's files (not the design's):
    a construct it cannot handle in the task itself. The first such line, or None."""
    for match in _SORRY.finditer(log):
        if match.group("file") in task_files:
            return match.group(0).strip()
    return None


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
    failed = fail_pattern is not None and any(re.search(fail_pattern, line) for line in lines)
    if passed and not failed:
        return SimVerdict(True, "simulation passed: " + next(line for line in lines if re.search(pass_pattern, line)), metrics)
    if not lines:
        return SimVerdict(False, "the testbench printed nothing: simulation ended before any check ran", metrics)
    failing = [line for line in lines if fail_pattern is not None and re.search(fail_pattern, line)]
    culprit = next(iter(failing), None) or next((line for line in lines if FAILURE_WORDS.search(line)), None)
    if culprit is None:
        return SimVerdict(False, f"the testbench never reported success (last line: {lines[-1][:200]})", metrics)
    return SimVerdict(False, culprit[:300], metrics)


@dataclass(frozen=True)
class SynthFindings:
    started: bool  # Yosys got as far as reading the design
    parsed: bool  # ... and its frontend accepted it
    pass_error: bool  # a later pass (proc, check, ...) rejected it
    completed: bool  # every pass of the script ran ("End of script")
    problems: list[str]
    metrics: dict[str, int]
    first_error: str


_LATCH_CELL = re.compile(r"^\s+(\$_?(?:a?dlatch\w*|DLATCH\w*))\s+(\d+)\s*$", re.MULTILINE | re.IGNORECASE)


def read_yosys(log: str) -> SynthFindings:
    errors = [ln.strip() for ln in log.splitlines() if "ERROR:" in ln]
    problems: list[str] = []
    for match in re.finditer(r"Latch inferred for signal `\\?([^']+)'", log):
        problems.append(f"inferred latch for signal {match.group(1).replace(chr(92), '')}")
    if not problems:  # the cell count catches latches however they came about
        problems += [f"{count} latch cell(s) of type {cell} in the design" for cell, count in _LATCH_CELL.findall(log)]
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
        completed="End of script." in log and not errors,
        problems=list(dict.fromkeys(problems)),
        metrics=metrics,
        first_error=errors[0] if errors else "",
    )


def read_verilator(log: str) -> list[str]:
    """Verilator findings as 'file:line:col: message', errors first."""
    found = re.findall(r"^%(Error|Warning)(-[A-Z0-9_]+)?: (.*)$", log, re.MULTILINE)
    found.sort(key=lambda f: f[0] != "Error")
    return [f"{kind}{code}: {text.strip()}" for kind, code, text in found if not text.startswith("Exiting")]
