"""Depth statistics of a trajectory store, per domain.

Over finished trajectories: pass rate, median and inter-quartile range of thinking and answer
length (characters of the folded samples), turns needed to pass, and the outcome-label
distribution per round. Then tokens (and cost, with --prices) of every stored turn, finished or not,
per run, domain and round, with the number of Truncated answers. Prints tables; --json writes the
numbers, --plot a Figure-6-style PNG.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, required=True, help="trajectory store (SQLite file)")
    parser.add_argument("--run", type=int, default=None, metavar="ID", help="one run only (default: all runs)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the statistics as JSON")
    parser.add_argument("--plot", type=Path, default=None, metavar="FILE.png", help="write a PNG figure")
    parser.add_argument("--prices", type=Path, default=None, metavar="FILE", help="price table (TOML, USD per million tokens per model) for the cost column")


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console

    from ecot.cli.common import check_file
    from ecot.core.errors import EcotError
    from ecot.export.stats import compute_stats, plot_stats, render_rounds, render_table, stats_json
    from ecot.run.usage import load_prices, render_usage, run_models, usage_totals
    from ecot.store import TrajectoryStore, check_run, require_store

    require_store(args.store)
    prices = load_prices(args.prices) if args.prices else None
    if args.plot and args.plot.suffix.lower() != ".png":  # matplotlib would add .png or reject the suffix
        raise EcotError(f"--plot writes a PNG image: give FILE.png, got {args.plot}")
    check_file(args.json, "--json")
    with TrajectoryStore(args.store) as store:
        check_run(store, args.run)
        runs = store.runs()
        stats = compute_stats(store.iter_trajectories(run_id=args.run, finished_only=True))
        usage = usage_totals(store.usage_rows(args.run), run_models(runs), prices)
        counts = store.counts(args.run)
    console = Console()
    console.print(f"runs: {', '.join(str(r['id']) for r in runs) or 'none'}" + (f" (showing run {args.run})" if args.run is not None else ""))
    if stats:
        console.print(render_table(stats))
        console.print(render_rounds(stats))
    else:
        console.print(_nothing_finished(counts), style="yellow", highlight=False)
    if usage.all.turns:
        console.print(render_usage(usage, "Tokens and cost (every stored turn; USD with --prices)"))
    if args.json:
        payload = {"store": str(args.store), "run_id": args.run, **stats_json(stats), "usage": usage.to_dict()}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {args.json}")
    if args.plot:
        console.print(f"wrote {plot_stats(stats, args.plot)}" if stats else f"no figure written to {args.plot}: nothing to draw")
    return 0


def _nothing_finished(counts: dict[str, int]) -> str:
    """Why the depth tables are missing: no trajectory at all, or none finished (a run stopped early)."""
    if not counts["trajectories"]:
        return "no trajectory in this store yet: `ecot synth --store ...` makes some"
    return (f"no finished trajectory: {counts['trajectories']} begun, {counts['turns']} turns stored, none finished "
            "(a run stopped early: rerunning its `ecot synth` command resumes it); the depth statistics need finished ones")
