"""Write a static HTML report of a trajectory store: an overview (runs, pass rate per domain and round,
labels per round, depth statistics, tokens and cost, world-model audits), a filterable table of every
trajectory, and one page per trajectory (prompt, each turn's code and diff, verdict, log, metrics,
execution trace, a preview where the domain draws one, the folded ECoT sample). World-model fidelity reports (fidelity.json of `ecot icwm
eval`) and benchmark reports (bench.json) get their own pages; by default they are looked for below
the store's folder (icwm/ and bench/).

The report opens from the file system and fetches nothing. Rerunning on a grown store rewrites only
what changed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecot.core.errors import EcotError

if TYPE_CHECKING:
    from ecot.core.task import Task


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, default=Path("out/ecot.db"), help="trajectory store (default out/ecot.db)")
    parser.add_argument("--out", type=Path, help="report folder (default: report/ next to the store)")
    parser.add_argument("--run", type=int, metavar="ID", help="one run only (default: every run)")
    parser.add_argument("--prices", type=Path, metavar="FILE", help="price table (TOML, USD per million tokens per model) for the cost column")
    parser.add_argument("--fidelity", type=Path, action="append", default=[], metavar="PATH", help="fidelity.json of `ecot icwm eval`, or a folder holding some (repeatable; default: below <store folder>/icwm)")
    parser.add_argument("--bench", type=Path, action="append", default=[], metavar="PATH", help="bench.json of `ecot bench`, or a folder holding some (repeatable; default: below <store folder>/bench)")
    parser.add_argument("--previews", "--cad-previews", dest="previews", type=int, default=0, metavar="N", help="draw the last attempt next to the reference for at most N trajectories of domains that have a preview (CAD: the solids; seconds each; kept for reruns; default 0; --cad-previews: its older name, kept for compatibility)")
    parser.add_argument("--suite", action="append", default=[], help="suite holding the tasks, for --previews (default: the bundled suites of the domains that have a preview)")
    parser.add_argument("--jobs", type=int, metavar="N", help="processes rendering trajectory pages (default: one per core but one, at most 8)")


def run(args: argparse.Namespace) -> int:
    from ecot.cli.common import console
    from ecot.report import ReportOptions, build_report
    from ecot.report.pages import default_jobs
    from ecot.run.usage import load_prices

    if args.previews < 0:
        raise EcotError(f"--previews must be >= 0, got {args.previews}")
    if args.jobs is not None and args.jobs < 1:
        raise EcotError(f"--jobs must be >= 1, got {args.jobs}")
    out = args.out if args.out is not None else args.store.parent / "report"
    options = ReportOptions(
        store=args.store, out=out, run_id=args.run, prices=load_prices(args.prices) if args.prices else None,
        fidelity=list(args.fidelity), bench=list(args.bench), previews=args.previews,
        tasks=_preview_tasks(args.suite) if args.previews else {}, jobs=args.jobs or default_jobs(),
        warn=lambda text: console.print(f"[yellow]{text}[/yellow]"),
    )
    with _progress(console) as progress:
        options.progress = progress
        result = build_report(options)
    counts = result.counts
    console.print(
        f"{result.trajectories} trajectories; files: {counts.written} written, {counts.unchanged + counts.kept} unchanged, "
        f"{counts.removed} removed ({result.seconds:.1f} s)" + (f"; {result.previews} previews" if result.previews else ""),
        markup=False,
    )
    print(f"report: {result.index} (open {result.index.resolve().as_uri()})")
    return 0


def _preview_tasks(suites: list[str]) -> dict[str, Task]:
    """The tasks previews are drawn for: the given suites', else the bundled suites of the domains with a preview."""
    from ecot.cli.common import load_tasks
    from ecot.core.domain import find_domain
    from ecot.tasks.suite import bundled_domains

    if suites:
        return {t.id: t for t in load_tasks(suites)}
    drawn = [name for name in bundled_domains() if (found := find_domain(name)) is not None and found.preview]
    return {t.id: t for t in load_tasks([], drawn)} if drawn else {}


class _progress:
    """A bar on a terminal; elsewhere one line every EVERY seconds (logs of long reports show movement)."""

    EVERY = 10.0

    def __init__(self, console: Any) -> None:
        self.console = console
        self.bar: Any = None
        self.task: Any = None
        self.last = time.monotonic()

    def __enter__(self) -> Callable[[int, int], None]:
        if self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("trajectory pages"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                console=self.console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task("pages", total=None)
        return self.update

    def update(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)
        elif time.monotonic() - self.last >= self.EVERY:
            self.last = time.monotonic()
            self.console.print(f"trajectory pages: {done}/{total}", markup=False)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
