"""Run ecot's hostile conformance suite on this machine: every attack class (taking over the judge,
forging its result channel, reading references, escaping the work dir, bombs, floods, ...) as hostile
candidates against every domain's real backend, in this machine's sandbox (kernel, bubblewrap) and
toolchains, through the same worker processes a synthesis run uses.

Each case is contained, forged (the attack earned a Pass), a leak (a host-side check found a file written
outside the job, a process that outlived it, a job that ran past its limit), uncontained (no Pass, but not
the label or log containment gives), an error, or not run (a tool is missing here). Known failures are
counted apart, with their reason. Each domain's positive control (its oracle with a harmless 'attack')
must Pass, or its row means nothing.

Exit status: 0 when every case ran and was contained (known failures aside); 1 when anything was forged,
leaked, not contained or could not be judged, or a control failed; 3 when nothing escaped but the audit is
incomplete (bubblewrap or a domain's tool is missing here).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports its implementation lazily; these are for the annotations
    from rich.table import Table

    from ecot.audit.hostile.report import AuditReport, CaseResult, ControlResult, DomainResult

# the table's count columns: tallies as CaseResult.tally names them ("other": uncontained and errors, listed below it)
COLUMNS = {"contained": ("contained",), "forged": ("forged",), "leaks": ("leak",), "other": ("uncontained", "error"),
           "known": ("known failure",)}
HEADERS = ("domain", "cases\nrun", *COLUMNS, "n/a", "time\n(s)", "notes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ecot.audit.hostile.suite import DOMAINS

    parser.add_argument("--domain", action="append", default=[], choices=DOMAINS, help="only these domains (repeatable; default: all)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the full report (every case's verdict) as JSON to FILE")
    parser.add_argument("--workers", type=int, default=None, metavar="N", help="worker processes judging cases side by side (default: all cores)")


def run(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ecot.audit.hostile.report import CaseResult
    from ecot.audit.hostile.runner import count_cases, plan, run_audit
    from ecot.audit.hostile.suite import DOMAINS
    from ecot.cli.common import check_file, console
    from ecot.executors.local import make_executor

    check_file(args.json, "--json")
    planned = [plan(domain) for domain in dict.fromkeys(args.domain or DOMAINS)]
    counted = dict.fromkeys(COLUMNS, 0)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.fields[tally]}"))
    with make_executor(None, args.workers) as pool, Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("hostile cases", total=count_cases(planned), tally="")

        def advance(result: CaseResult | ControlResult) -> None:
            for name, tallies in COLUMNS.items():
                counted[name] += isinstance(result, CaseResult) and result.tally in tallies
            shown = "  ".join(f"{name} {n}" for name, n in counted.items() if n or name in ("contained", "forged", "leaks"))
            progress.update(bar, advance=1, tally=shown)

        report = run_audit(planned, pool, advance)
    console.print(summary_table(report))
    _print_findings(report)
    if args.json:
        args.json.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return report.exit_status


def summary_table(report: AuditReport) -> Table:
    from rich import box
    from rich.table import Table

    caption = (f"{report.machine.system}, {report.machine.cpus} cores, sandbox: {report.isolation}; {report.workers} workers, "
               f"{report.seconds:.0f} s in all (a domain's time: its cases' evaluation time, summed over workers)")
    table = Table(title=f"ecot {report.ecot_version}: hostile conformance suite", caption=caption, box=box.SIMPLE_HEAD,
                  padding=(0, 0), collapse_padding=True, show_edge=False)
    for header in HEADERS:
        table.add_column(header, justify="left" if header in ("domain", "notes") else "right", no_wrap=header != "notes")
    for domain in report.domains:
        counts = (_cell(name, sum(domain.count(t) for t in tallies)) for name, tallies in COLUMNS.items())
        table.add_row(domain.domain, str(domain.ran), *counts, str(len(domain.not_applicable)), f"{domain.seconds:.0f}", _notes(domain))
    table.add_section()
    totals = (_cell(name, sum(report.total(t) for t in tallies)) for name, tallies in COLUMNS.items())
    table.add_row("all", str(sum(d.ran for d in report.domains)), *totals, str(sum(len(d.not_applicable) for d in report.domains)),
                  f"{sum(d.seconds for d in report.domains):.0f}", "", style="bold")
    return table


def _cell(column: str, count: int) -> str:
    """A count, in red when it counts escapes (yellow: known failures)."""
    if column == "contained" or count == 0:
        return f" {count}"
    return f" [yellow]{count}[/yellow]" if column.startswith("known") else f" [bold red]{count}[/bold red]"


def _notes(domain: DomainResult) -> str:
    from rich.markup import escape

    if domain.missing:
        return f"[yellow]not run here: {escape(domain.missing)}[/yellow]"
    if domain.broken:
        return "[bold red]its cases do not load (below)[/bold red]"
    notes = []
    if domain.control is not None and not domain.control.passed:
        notes.append(f"[bold red]control failed ({escape(str(domain.control.label))}): the counts mean nothing[/bold red]")
    not_run = len(domain.cases) - domain.ran
    if not_run:
        notes.append(f"[yellow]{not_run} not run here: {escape(', '.join(domain.tools_missing()))}[/yellow]")
    return "; ".join(notes)


def _print_findings(report: AuditReport) -> None:
    """Every case that is not contained, known failures with their reason, and what did not run here."""
    from ecot.cli.common import console

    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    failed = [r for d in report.domains for r in d.cases if r.failed]
    known = [r for d in report.domains for r in d.cases if r.tally == "known failure"]
    if failed:
        say(f"\nNot contained ({len(failed)}):")
        for result in failed:
            say(f"  {result.verdict.value.upper()} {result.domain} / {result.attack} / {result.case}: {result.detail}")
    for domain in report.domains:
        if domain.broken:
            say(f"\n{domain.domain}: its cases do not load: {domain.broken}")
        if domain.control is not None and not domain.control.passed:
            say(f"\n{domain.domain}: the control case {domain.control.case} did not Pass: {domain.control.detail}")
    if known:
        say(f"\nKnown failures ({len(known)}, not yet contained):")
        for result in known:
            say(f"  {result.domain} / {result.attack} / {result.case} ({result.verdict.value}, {result.label}): {result.known_failure}")
    missing = {d.domain: d.tools_missing() for d in report.domains if not d.complete}
    if missing:
        say("\nIncomplete: " + "; ".join(f"{name} needs {', '.join(tools)}" for name, tools in missing.items()))
    if not any(d.ran for d in report.domains):
        say("\nNo case ran here.")
    elif not any(d.failed for d in report.domains):
        say(f"\n0 forged, 0 leaks: every case that ran here was contained{' (known failures aside)' if known else ''}.")
