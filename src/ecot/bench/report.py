"""`ecot bench report`: a benchmark run's scores as terminal tables and JSON.

The JSON holds every number the tables show, plus each task's metrics, so another tool (or
`ecot bench compare`) never has to re-read the store.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from ecot.bench.metrics import by_name
from ecot.bench.results import BenchRun
from ecot.bench.scores import OVERALL, group_scores, per_task
from ecot.core.trajectory import REAL

SHOWN_NOT_RUN = 8  # tasks listed by name under the tables
FLAGGED = "†"  # marks a group holding tasks the errata flag (weak or broken tests)


def build(run: BenchRun, contamination: dict[str, Any] | None = None, errata: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole report of one run as plain data; `errata` (task id -> erratum) adds to those the run recorded."""
    final = run.rounds
    groups = group_scores(run, final)
    by_round = {r: {g.group: g.scores["pass@1"].value for g in group_scores(run, r)} for r in range(final + 1)} if final else {}
    report = {
        "run": run.run_id,
        "label": run.label,
        "generator": run.config.get("generator", {}),
        "mode": run.bench.get("mode", "single"),
        "rounds": final,
        "samples": int(run.config.get("samples", 1)),
        "judged_by": run.environment,
        "real_scores": run.environment == REAL,
        "groups": [g.as_dict() for g in groups],
        "pass_at_1_by_round": {str(r): v for r, v in by_round.items()},
        "tasks": per_task(run, final),
        "contamination": contamination or {},
    }
    return with_errata(report, run, {**(run.bench.get("errata") or {}), **(errata or {})})


def with_errata(report: dict[str, Any], run: BenchRun, errata: dict[str, Any]) -> dict[str, Any]:
    """Flag the tasks an audit found weak or broken: their erratum in each task row, the flagged tasks in
    each group and at the top; they are scored, never silently."""
    flagged = {task_id: entry for task_id, entry in errata.items() if task_id in run.tasks}
    for task_id, row in report["tasks"].items():
        row["errata"] = flagged.get(task_id)
    for group in report["groups"]:
        group["flagged_tasks"] = sorted(t for t in flagged if group["group"] in (run.tasks[t].group, OVERALL))
    report["errata"] = flagged
    return report


def cell(score: dict[str, Any], unit: str) -> str:
    value = score.get("value")
    if value is None:
        return "[dim]" + ("n/a" if str(score.get("note", "")).startswith("n < k") else "unmeasured") + "[/dim]"
    low, high = score.get("ci95") or (None, None)
    text = _fmt(value, unit)
    if low is not None and high is not None and high > low:
        text += f" [dim][{_fmt(low, unit)}, {_fmt(high, unit)}][/dim]"
    return text


def _fmt(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "count":
        return f"{value:.2f}"
    return f"{value:.1f}"


def tables(report: dict[str, Any]) -> list[Table]:
    """The pass@k table, one table per domain and benchmark (as the paper's columns), and rounds (agentic)."""
    groups = report["groups"]
    found = [_table(f"run {report['run']} ({report['label']}): pass@k (%) [95% CI over tasks]",
                    groups, ["pass@1", "pass@5", "pass@10"], with_counts=True)]
    kinds: dict[tuple[str, str], tuple[list[str], list[dict[str, Any]]]] = {}
    for group in groups:
        for name in (n for n in group["metrics"] if not n.startswith("pass@")):
            names, members = kinds.setdefault((group["domain"], by_name(name, group["domain"]).source), ([], []))
            names += [] if name in names else [name]
            members += [] if group in members else [group]
    for (domain, source), (names, members) in kinds.items():
        units = {n: _unit(members, n) for n in names}
        shown = next(iter(units.values())) if len(set(units.values())) == 1 else ", ".join(f"{n} {u}" for n, u in units.items())
        found.append(_table(f"{domain}: {source} ({shown})", members, names))
    if report["pass_at_1_by_round"]:
        found.append(_rounds_table(report))
    return found


def _unit(groups: list[dict[str, Any]], name: str) -> str:
    unit = str(next(g["metrics"][name]["unit"] for g in groups if name in g["metrics"]))
    return {"score": "score 0-100", "count": "samples", "x": "x"}.get(unit, unit)


def _table(title: str, groups: list[dict[str, Any]], names: list[str], with_counts: bool = False) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("group", no_wrap=True)
    if with_counts:
        table.caption = "not run: tasks/samples not run here (not model failures)"
        for column in ("tasks", "samples", "not run"):
            table.add_column(column, justify="right")
    for name in names:
        table.add_column(name, justify="right", min_width=len(name))
    if any(group.get("flagged_tasks") for group in groups):
        table.caption = ((table.caption + "; ") if table.caption else "") + f"{FLAGGED}: holds tasks `ecot audit` flags (below)"
    for group in groups:
        name = group["group"] + (FLAGGED if group.get("flagged_tasks") else "")
        row = [f"[bold]{name}[/bold]" if group["group"] == OVERALL else name]
        if with_counts:
            skipped = group["not_run_here"]
            row += [str(group["tasks"]), str(group["samples"]),
                    f"{skipped['tasks']}/{skipped['samples']}" if skipped["tasks"] else "-"]
        row += [cell(group["metrics"][n], group["metrics"][n]["unit"]) if n in group["metrics"] else "" for n in names]
        table.add_row(*row)
    return table


def _rounds_table(report: dict[str, Any]) -> Table:
    rounds = report["pass_at_1_by_round"]
    table = Table(title="agentic: pass@1 (%) after each round of real feedback", title_justify="left")
    table.add_column("group", no_wrap=True)
    for r in rounds:
        table.add_column(f"round {r}", justify="right")
    for group in [g["group"] for g in report["groups"]]:
        values = [rounds[r].get(group) for r in rounds]
        table.add_row(group, *["-" if v is None else f"{v:.1f}" for v in values])
    return table


def notes(report: dict[str, Any]) -> list[str]:
    """Lines under the tables: how the run was judged, what was not run here, what is still pending."""
    lines = []
    if not report["real_scores"]:
        lines.append(f"[bold yellow]judged by the world model {report['judged_by']}: predicted scores, not real "
                     "ones; never compare them with runs judged by the toolchains[/bold yellow]")
    overall = next(g for g in report["groups"] if g["group"] == OVERALL)
    skipped = overall["not_run_here"]
    if skipped["tasks"]:
        lines.append(f"not run here (not model failures, left out of every score): {skipped['tasks']} tasks, "
                     f"{skipped['samples']} samples")
        for task, why in list(skipped["why"].items())[:SHOWN_NOT_RUN]:
            lines.append(f"  {task}: {why[:200]}")
        if skipped["tasks"] > SHOWN_NOT_RUN:
            lines.append(f"  ... and {skipped['tasks'] - SHOWN_NOT_RUN} more (--json lists them all)")
    errata = report.get("errata") or {}
    if errata:
        lines.append(f"[yellow]{FLAGGED} {len(errata)} tasks are flagged by `ecot audit` (scored, but their tests are weak or "
                     "their reference is broken; see the errata):[/yellow]")
        for task, entry in list(errata.items())[:SHOWN_NOT_RUN]:
            score = entry.get("score")
            shown = f" (mutation score {score:.0%})" if isinstance(score, int | float) else ""
            said = f"  {task}: {', '.join(entry.get('flags') or [])}{shown}: {str(entry.get('note', ''))[:200]}"
            lines.append(escape(said))  # an imported suite's text, printed with markup on
        if len(errata) > SHOWN_NOT_RUN:
            lines.append(f"  ... and {len(errata) - SHOWN_NOT_RUN} more (--json lists them all)")
    if overall["pending_samples"]:
        lines.append(f"[yellow]{overall['pending_samples']} samples are not finished: rerun `ecot bench run` with the "
                     "same arguments to resume; the scores above count finished samples only[/yellow]")
    overlap = report.get("contamination") or {}
    if overlap.get("tasks"):
        lines.append(f"[yellow]contamination: {len(overlap['tasks'])} of these tasks also appear in training runs of "
                     f"this store ({', '.join(overlap['tasks'][:5])}{' ...' if len(overlap['tasks']) > 5 else ''}); "
                     "`ecot export` leaves them out unless --allow-overlap[/yellow]")
    elif overlap:
        lines.append("contamination: no task of this run appears in a training run of this store")
    return lines
