"""What `ecot synth` prints when it ends: trajectories per domain, tokens and cost, why it stopped, and its exit status."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table

    from ecot.run.loop import RunSummary
    from ecot.run.session import RunResult
    from ecot.run.usage import PriceTable
    from ecot.store import TrajectoryStore

EXIT_OK, EXIT_FAILED, EXIT_BUDGET = 0, 1, 3


def print_report(store: TrajectoryStore, result: RunResult, prices: PriceTable | None) -> None:
    from rich.text import Text

    from ecot.cli.common import console
    from ecot.run.usage import render_usage, run_models, usage_totals

    run_id, summary = result.run_id, result.summary
    console.print(summary_table(store, run_id, summary))
    totals = usage_totals(store.usage_rows(run_id), run_models(store.runs()), prices)
    if totals.all.turns:
        console.print(render_usage(totals, title=f"run {run_id}: tokens and cost (all invocations)"))
    if summary.stop is not None:  # the budget's numbers are the table's: both are the store's totals
        console.print(Text(summary.stop.line(), style="yellow"), soft_wrap=True)


def judge_line(name: str, stats: dict[str, Any], audit_rate: float) -> str:
    """What the world model of a run did, in words: its audits against real runs and its verified Passes."""
    line = (f"world model {name}: audited {stats.get('audits', 0)} of {stats.get('judged', 0)} world-model turns "
            f"(rate {audit_rate:g}; {stats.get('disagreements', 0)} disagreed); verified {stats.get('verified', 0)} "
            f"predicted Passes for real ({stats.get('verified_pass', 0)} confirmed)")
    real = {"below --min-confidence": stats.get("deferred", 0), "of a domain it has no data for": stats.get("unseen_domain", 0),
            "it failed on": stats.get("model_errors", 0)}
    ran = "; ".join(f"{count} {why}" for why, count in real.items() if count)
    return line + (f"; ran for real instead: {ran}" if ran else "")


def summary_table(store: TrajectoryStore, run_id: int, summary: RunSummary) -> Table:
    from rich.table import Table
    from rich.text import Text

    per_domain: dict[str, Counter[str]] = defaultdict(Counter)
    rounds: dict[str, list[int]] = defaultdict(list)
    for traj in store.iter_trajectories(run_id=run_id, finished_only=False):
        per_domain[traj.domain]["trajectories"] += 1
        per_domain[traj.domain]["passed"] += traj.passed
        per_domain[traj.domain]["turns"] += len(traj.turns)
        if traj.passed:
            rounds[traj.domain].append(len(traj.turns) - 1)
    statuses = ", ".join(f"{status}: {count}" for status, count in summary.statuses.most_common())
    table = Table(title=f"run {run_id}: this invocation added {summary.turns} turns ({statuses or 'no trajectory'})")
    for column in ("domain", "trajectories", "passed", "turns", "mean rounds to pass"):
        table.add_column(column)
    for domain, counts in sorted(per_domain.items()):
        done = rounds[domain]
        mean = f"{sum(done) / len(done):.2f}" if done else "-"
        table.add_row(domain, str(counts["trajectories"]), str(counts["passed"]), str(counts["turns"]), mean)
    captions = []
    if summary.generator_errors:
        captions.append(f"{len(summary.generator_errors)} generator errors (rerun to retry): {summary.generator_errors[0]}")
    if summary.harness_errors:  # the backend could not judge: a broken task bundle or toolchain, not the code
        captions.append(f"{len(summary.harness_errors)} trajectories ended by Infra_Error: {summary.harness_errors[0]}")
    if summary.crashes:  # ecot itself failed on these (a bug): the others went on, a rerun retries them
        captions.append(f"{len(summary.crashes)} trajectories ecot failed on (rerun to retry): {summary.crashes[0]}")
    table.caption = Text("\n".join(captions)) if captions else None  # they quote diagnostics: text, never markup
    return table


def exit_status(result: RunResult) -> int:
    """1 for errors (a generator, a harness, ecot itself, a lost endpoint), else 3 when a budget stopped the run, else 0."""
    summary = result.summary
    if summary.generator_errors or summary.harness_errors or summary.crashes or (summary.stop and not result.budget_hit):
        return EXIT_FAILED
    return EXIT_BUDGET if summary.stop else EXIT_OK
