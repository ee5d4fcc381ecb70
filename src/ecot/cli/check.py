"""Run one candidate file against one task and print the outcome (label, diagnostic, metrics).

TASK is a task folder, a suite (folder or .jsonl, with --task-id), or a bundled task id such as
rtl/updown_counter8. Use --reference to evaluate the task's own reference solution instead of a file.
While a resident checker runs (`ecot checker start`), the check is judged there, with the same output and
exit status and without this process's start-up cost; ECOT_CHECKER=off checks here regardless.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ecot.core.errors import EcotError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", help="task folder, suite path, or bundled task id")
    parser.add_argument("candidate", nargs="?", help="file with the candidate code")
    parser.add_argument("--task-id", help="which task of a multi-task suite")
    parser.add_argument("--reference", action="store_true", help="evaluate the task's reference solution")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument("--log", action="store_true", help="also print the full (truncated) log")


def late_operands(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """FILE given after an option (`ecot check SUITE --task-id ID FILE`) is still the candidate;
    returns what is left unrecognized."""
    if args.candidate is None and extra and not extra[0].startswith("-"):
        args.candidate = extra[0]
        return extra[1:]
    return extra


def run(args: argparse.Namespace) -> int:
    from ecot.cli.common import find_task, outcome_json, print_outcome
    from ecot.domains import get_backend

    task = find_task(args.task, args.task_id)
    if args.reference:
        if task.reference is None:
            raise EcotError(f"task {task.id} has no reference solution")
        code = task.reference
    elif args.candidate:
        path = Path(args.candidate)
        if not path.is_file():
            raise EcotError(f"candidate file {path} does not exist or is not a file")
        code = path.read_text(encoding="utf-8", errors="replace")
    else:
        raise EcotError("give a candidate file, or --reference")
    backend = get_backend(task.domain)
    overlap, backend.overlap = backend.overlap, True  # one candidate at a time: the other cores are free for it
    try:
        outcome = backend.run(task, code)
    finally:
        backend.overlap = overlap  # the backend is shared with whatever this process judges next
    if args.json:
        print(outcome_json(task, outcome))
    else:
        print_outcome(task, outcome)
        if args.log:
            print(outcome.log)
    return 0 if outcome.passed else 1
