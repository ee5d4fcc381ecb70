"""Convert a public benchmark layout into an ecot task suite.

FORMAT is an importer's name (`ecot import --help` lists each with one line; docs/importers.md).
OUT becomes a suite folder (one task.toml folder per task) or, with --jsonl, one JSONL file. An
existing non-empty OUT is only replaced with --force, and only when it holds nothing but a previous
suite (and its errata). Files and rows an importer leaves out are named with the reason. Example:

    ecot import rtllm ../shared/data/rtllm suites/rtllm

Then a quick audit of the imported tasks runs (unless --no-audit): each reference twice and a few
mutants per task (`ecot audit OUT` runs the full one); its summary is printed and the tasks it flags
(weak or broken tests) are written as the suite's errata (OUT/errata.json, or <name>.errata.json
beside a JSONL suite), which `ecot bench` reads.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from ecot.audit.defaults import IMPORT_BUDGET_S, IMPORT_MUTANTS
from ecot.core.errors import EcotError

if TYPE_CHECKING:
    from ecot.core.task import Task
    from ecot.importers import Skipped


SHOWN_SKIPS = 10  # names printed per reason; the rest are counted


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ecot.importers import IMPORTERS, describe

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    width = max(len(name) for name in IMPORTERS.names())
    parser.epilog = "formats:\n" + "\n".join(f"  {name:<{width}}  {describe(name)}" for name in IMPORTERS.names())
    parser.add_argument("format", metavar="FORMAT", help="source layout: one of the formats below, or a plug-in's name")
    parser.add_argument("source", metavar="SOURCE", type=Path,
                        help="the benchmark's folder (or one JSONL file for python-jsonl, humaneval, mbpp and cvdp)")
    parser.add_argument("out", metavar="OUT", type=Path, help="suite folder to create (a JSONL file with --jsonl)")
    parser.add_argument("--jsonl", action="store_true", help="write one JSONL file instead of a suite folder")
    parser.add_argument("--force", action="store_true", help="replace an existing OUT that holds a previous suite")
    parser.add_argument("--strict-checks", action="store_true",
                        help="RTL: fail designs on ecot's structural checks (latches, loops, multiple drivers) even where "
                             "the benchmark's own harness does not apply them (sets synth = \"check\")")
    parser.add_argument("--audit", action=argparse.BooleanOptionalAction, default=True,
                        help="audit the imported tasks and write their errata beside the suite (default: on)")
    parser.add_argument("--audit-mutants", type=int, default=IMPORT_MUTANTS, metavar="N",
                        help=f"mutants per task in that audit (default {IMPORT_MUTANTS}; `ecot audit` runs more)")
    parser.add_argument("--audit-budget", type=float, default=IMPORT_BUDGET_S, metavar="S",
                        help=f"the audit starts no task after S seconds (default {IMPORT_BUDGET_S:g}; 0: no limit)")
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes of the audit (default: all cores)")


def run(args: argparse.Namespace) -> int:
    from ecot.importers import PROBLEM_TAGS, import_tasks
    from ecot.tasks.suite import write_jsonl

    if args.jsonl and args.out.is_dir():
        raise EcotError(f"{args.out} is a folder; --jsonl writes one file (give a path such as {args.out / 'suite.jsonl'})")
    if args.audit_mutants < 0 or args.audit_budget < 0:
        raise EcotError("--audit-mutants and --audit-budget must be >= 0")
    skips: list[Skipped] = []
    tasks = import_tasks(args.format, args.source, skips)  # import everything before touching OUT
    if args.strict_checks:
        tasks = [_strict(task) for task in tasks]
    _clear_target(args.out, args.force)
    if args.jsonl:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_jsonl(tasks, args.out)
    else:
        _write_folders(tasks, args.out)
    print(f"imported {len(tasks)} {args.format} tasks from {args.source} into {args.out}")
    for tag in PROBLEM_TAGS:
        flagged = [task.id for task in tasks if tag in task.tags]
        if flagged:
            print(f"  {len(flagged)} tagged {tag!r}: {', '.join(flagged)}")
    _print_skips(skips)
    if args.audit:
        _audit(tasks, args)
    return 0


def _print_skips(skips: list[Skipped]) -> None:
    """What the importer left out, grouped by reason."""
    by_reason: dict[str, list[str]] = {}
    for skip in skips:
        by_reason.setdefault(skip.reason, []).append(skip.where)
    for reason, names in by_reason.items():
        more = f", and {len(names) - SHOWN_SKIPS} more" if len(names) > SHOWN_SKIPS else ""
        print(f"  skipped {len(names)} ({reason}): {', '.join(names[:SHOWN_SKIPS])}{more}")


def _audit(tasks: list[Task], args: argparse.Namespace) -> None:
    """The quick audit of what was imported: its summary, and the errata beside the suite."""
    from ecot.audit.defaults import IMPORT_RUNS
    from ecot.audit.errata import errata_path, from_audit, write_errata
    from ecot.audit.verdicts import AuditSettings
    from ecot.cli.audit_suite import audit, print_brief

    settings = AuditSettings(mutants=args.audit_mutants, runs=IMPORT_RUNS, budget_s=args.audit_budget or None)
    report = audit(tasks, [str(args.out)], settings, args.workers)
    errata = from_audit(report)
    path = errata_path(args.out)
    write_errata(errata, path)
    print(f"audit ({IMPORT_RUNS} runs of each reference, up to {settings.mutants} mutants per task, {report.seconds:.0f} s): "
          f"{len(errata.tasks)} of {errata.audited} tasks flagged, written to {path} (`ecot audit {args.out}` runs the full audit)")
    print_brief(report)
    late = sum(1 for t in report.tasks if t.skipped and t.skipped.startswith("not started"))
    if late:
        print(f"  {late} tasks were not audited within --audit-budget {args.audit_budget:g} s: `ecot audit {args.out}` audits them")


def _strict(task: Task) -> Task:
    from dataclasses import replace

    if task.domain != "rtl":
        return task
    return replace(task, options={**task.options, "synth": "check"})


def _write_folders(tasks: list[Task], out: Path) -> None:
    from ecot.tasks.suite import write_task_dir

    for task in tasks:
        if ".." in Path(task.id).parts:
            raise EcotError(f"task id {task.id!r} would be written outside {out}")
    out.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        write_task_dir(task, out / task.id, reference_name=_reference_name(task))


def _reference_name(task: Task) -> str:
    """reference.<the domain's source suffix> (.sv for SystemVerilog bundles); never a bundle file's name."""
    from ecot.core.domain import get_domain

    name = f"reference{get_domain(task.domain).source_suffix(task.files)}"
    while name in task.files:
        name = f"_{name}"
    return name


def _clear_target(out: Path, force: bool) -> None:
    from ecot.audit.errata import errata_path

    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if not force:
        raise EcotError(f"{out} already exists and is not empty (use --force to replace it)")
    if out.is_file():
        if not _is_jsonl_suite(out):
            raise EcotError(f"refusing to replace {out}: it is not an ecot JSONL suite; remove it yourself")
        out.unlink()
        errata_path(out).unlink(missing_ok=True)  # the previous suite's errata
        return
    stray = _non_suite_file(out)
    if stray is not None:
        raise EcotError(f"refusing to replace {out}: {stray} is not part of an ecot suite; remove it yourself")
    shutil.rmtree(out)


def _is_jsonl_suite(path: Path) -> bool:
    from ecot.core.errors import TaskFormatError
    from ecot.tasks.suite import load_suite

    try:
        return bool(load_suite(path))
    except TaskFormatError:
        return False


def _non_suite_file(folder: Path) -> Path | None:
    """A file under `folder` outside every task folder and not its errata (so --force never deletes unrelated data)."""
    from ecot.audit.errata import errata_path
    from ecot.tasks.suite import TASK_FILE

    task_dirs = {path.parent for path in folder.rglob(TASK_FILE)}
    for path in folder.rglob("*"):
        if path.is_file() and path != errata_path(folder) and not any(parent in task_dirs for parent in path.parents):
            return path
    return None
