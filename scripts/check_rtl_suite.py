#!/usr/bin/env python
"""Check the bundled RTL suite: every reference passes, every testbench kills simple mutants.

Usage: .venv/bin/python scripts/check_rtl_suite.py [--jobs N] [--per-op N] [--lint] [TASK_NAME ...]

For each task the reference must evaluate to Pass (with synth = "strict", so Yosys reads it too); then mechanical mutants of the reference (operator
swaps, constant tweaks, inverted conditions, blocking assignments...) must NOT pass. A task whose
testbench kills fewer than --min-killed mutants is reported as weak and the script exits non-zero.
Surviving mutants are listed so a person can judge whether they are equivalent or the bench is blind.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.tasks.suite import bundled_suite_path, load_suite

MUTANT_WALL_S = 3.0

# (name, pattern, replacement): each occurrence of the pattern gives one mutant.
OPERATORS: tuple[tuple[str, str, str], ...] = (
    ("and->or", r"(?<![&|])&(?![&|])", "|"),
    ("or->and", r"(?<![&|])\|(?![&|])", "&"),
    ("xor->or", r"(?<![~^])\^(?!~)", "|"),
    ("plus->minus", r"(?<=\s)\+(?=\s)", "-"),
    ("minus->plus", r"(?<=\s)-(?=\s)", "+"),
    ("eq->ne", r"==", "!="),
    ("lt->le", r"(?<![<])<(?![<=])", "<="),
    ("const+1", r"(?<='d)(\d+)", "__INC__"),
    ("bit 1->0", r"1'b1", "1'b0"),
    ("bit 0->1", r"1'b0", "1'b1"),
    ("negate if", r"\bif\s*\(", "if (!"),
    ("reset high->low", r"\bif\s*\(\s*rst\b", "if (!rst"),
    ("drop ~", r"~(?=[\w(])", ""),
    ("shl->shr", r"<<", ">>"),
    ("shr->shl", r">>", "<<"),
    ("gt->ge", r"(?<![>-])>(?![>=])", ">="),
    ("sized literal", r"\b\d+'[bhd][0-9a-fA-F_]+\b", "__LIT__"),
    ("drop nb-assign", r"(?<![\w\]])[A-Za-z_]\w*(\[[^\]]*\])*\s*<=(?=\s)[^;]*;", ";"),
)

# Operators applied to every occurrence at once: one blocking assignment alone is often equivalent.
WHOLE_FILE_OPERATORS: tuple[tuple[str, str, str], ...] = (
    ("all nb->blocking", r"(?<![<>=!])<=(?=\s)", "="),
)


@dataclass
class TaskReport:
    task_id: str
    reference_label: str = ""
    reference_note: str = ""
    killed: int = 0
    survivors: list[str] = field(default_factory=list)
    lint: str = ""
    seconds: float = 0.0


def strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", source)


def mutants(source: str, per_op: int) -> list[tuple[str, str]]:
    """(description, mutated text) for the first per_op occurrences of each operator."""
    body = strip_comments(source)
    found: list[tuple[str, str]] = []
    for name, pattern, repl in OPERATORS:
        for index, match in enumerate(re.finditer(pattern, body)):
            if index >= per_op:
                break
            new = _replacement(match, repl)
            text = body[: match.start()] + new + body[match.end():]
            line = body.count("\n", 0, match.start()) + 1
            found.append((f"{name} at line {line}", text))
    for name, pattern, repl in WHOLE_FILE_OPERATORS:
        text = re.sub(pattern, repl, body)
        if text != body:
            found.append((name, text))
    return found


def _replacement(match: re.Match[str], repl: str) -> str:
    if repl == "__INC__":
        return str(int(match.group(1)) + 1)
    if repl == "__LIT__":  # change the last digit of a sized literal, staying inside its base
        text = match.group(0)
        base = text.split("'")[1][0]
        digits = {"b": "01", "d": "0123456789", "h": "0123456789abcdef"}[base]
        last = text[-1].lower()
        return text[:-1] + digits[(digits.index(last) + 1) % len(digits)] if last in digits else text
    return repl


def check_task(task: Task, per_op: int, lint: bool) -> TaskReport:
    backend = get_backend("rtl")
    report = TaskReport(task.id)
    start = time.monotonic()
    assert task.reference is not None
    # strict: the reference must also be readable by Yosys, not merely simulate
    outcome = backend.run(replace(task, options={**task.options, "synth": "strict"}), task.reference)
    report.reference_label = outcome.label
    report.reference_note = outcome.diagnostic[:200]
    if lint:
        linted = backend.run(replace(task, options={**task.options, "lint": True}), task.reference)
        report.lint = "clean" if linted.passed else f"{linted.label}: {linted.diagnostic[:160]}"
    quick = replace(task, limits=task.limits.scaled(wall_s=MUTANT_WALL_S))  # mutants may hang
    for description, text in mutants(task.reference, per_op):
        if backend.run(quick, text).passed:
            report.survivors.append(description)
        else:
            report.killed += 1
    report.seconds = time.monotonic() - start
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="task folder names to check (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="evaluations run in parallel")
    parser.add_argument("--per-op", type=int, default=2, help="occurrences mutated per operator")
    parser.add_argument("--min-killed", type=int, default=2, help="mutants each bench must kill")
    parser.add_argument("--lint", action="store_true", help="also report Verilator lint of each reference")
    args = parser.parse_args(argv)

    tasks = load_suite(bundled_suite_path("rtl"))
    if args.names:
        tasks = [t for t in tasks if t.id.split("/", 1)[1] in set(args.names)]
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        reports = list(pool.map(lambda t: check_task(t, args.per_op, args.lint), tasks))
    return summarize(reports, args.min_killed, time.monotonic() - start)


def summarize(reports: list[TaskReport], min_killed: int, seconds: float) -> int:
    failures = 0
    for r in reports:
        ok = r.reference_label == "Pass" and r.killed >= min_killed
        failures += not ok
        status = "ok  " if ok else "FAIL"
        print(f"{status} {r.task_id:28s} ref={r.reference_label:20s} killed={r.killed:3d} "
              f"survived={len(r.survivors):2d} {r.seconds:5.1f}s" + (f" lint={r.lint}" if r.lint else ""))
        if r.reference_label != "Pass":
            print(f"     reference: {r.reference_note}")
        for s in r.survivors:
            print(f"     survivor: {s}")
    passed = sum(r.reference_label == "Pass" for r in reports)
    killed = sum(r.killed for r in reports)
    total = killed + sum(len(r.survivors) for r in reports)
    print(f"\nreferences passing: {passed}/{len(reports)}; mutants killed: {killed}/{total}; "
          f"tasks failing checks: {failures}; {seconds:.1f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
