"""`ecot bench compare RUN_A RUN_B`: two benchmark runs side by side, and the difference per task.

Each group's metric is shown for A and for B (each over its own tasks, with its 95% interval) and as
the paired difference B - A over the tasks both runs scored, with a 95% bootstrap interval of that
mean difference (resampling tasks, so the interval reflects which tasks were drawn, not the noise
of one model alone). Runs judged differently (toolchains vs a world model) are never compared.
Beside the scores, what each model's answers look like (ecot.bench.answers: label mix, share with
code, share that builds, length), which tells two models apart when both score 0.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table

from ecot.bench import metrics as M
from ecot.bench.answers import answer_stats
from ecot.bench.answers import table as answers_table
from ecot.bench.report import cell
from ecot.bench.results import BenchRun
from ecot.bench.scores import OVERALL, bootstrap, group_scores
from ecot.core.errors import EcotError

HEADLINE = "pass@1"  # the per-task difference the table lists
SHOWN_TASKS = 20


def build(a: BenchRun, b: BenchRun) -> dict[str, Any]:
    if a.environment != b.environment:
        raise EcotError(f"run {a.run_id} was judged by {a.environment} and run {b.run_id} by {b.environment}: "
                        "world-model scores are never compared with real ones")
    scores_a = {g.group: g for g in group_scores(a, a.rounds)}
    scores_b = {g.group: g for g in group_scores(b, b.rounds)}
    tasks_a, tasks_b = _task_values(a), _task_values(b)
    common = sorted(set(tasks_a) & set(tasks_b))
    groups = []
    for name in [g for g in scores_a if g in scores_b]:
        ga, gb = scores_a[name], scores_b[name]
        members = common if name == OVERALL else [t for t in common if a.tasks[t].group == name]
        rows = {}
        for metric in [m for m in ga.scores if m in gb.scores]:
            rows[metric] = {"unit": ga.units[metric], "a": ga.scores[metric].as_dict(), "b": gb.scores[metric].as_dict(),
                            "difference": _difference(tasks_a, tasks_b, members, metric)}
        groups.append({"group": name, "domain": ga.domain, "paired_tasks": len(members), "metrics": rows})
    return {
        "a": {"run": a.run_id, "label": a.label, "judged_by": a.environment, "tasks": len(a.tasks)},
        "b": {"run": b.run_id, "label": b.label, "judged_by": b.environment, "tasks": len(b.tasks)},
        "only_in_a": sorted(set(a.tasks) - set(b.tasks)),
        "only_in_b": sorted(set(b.tasks) - set(a.tasks)),
        "groups": groups,
        "tasks": {t: {"a": tasks_a[t], "b": tasks_b[t]} for t in common},
        "answers": {"a": answer_stats(a), "b": answer_stats(b)},  # signal where both score 0
    }


def _task_values(run: BenchRun) -> dict[str, dict[str, float | None]]:
    """task -> metric -> value, for the tasks with a judged sample at the run's last round."""
    rounds = run.at_round(run.rounds)
    found = {}
    for task_id, info in run.tasks.items():
        judged = rounds[task_id].judged
        if judged:
            found[task_id] = {m.name: m.fn(judged) for m in M.metrics_for(info.domain, info.repair)}
    return found


def _difference(tasks_a: dict[str, dict[str, float | None]], tasks_b: dict[str, dict[str, float | None]],
                members: list[str], metric: str) -> dict[str, Any]:
    pairs = [(tasks_a[t].get(metric), tasks_b[t].get(metric)) for t in members]
    diffs = [vb - va for va, vb in pairs if va is not None and vb is not None]
    if not diffs:
        return {"value": None, "ci95": [None, None], "tasks": 0}
    low, high = bootstrap(diffs)
    return {"value": round(sum(diffs) / len(diffs), 4), "ci95": [round(low, 4), round(high, 4)], "tasks": len(diffs)}


def per_task_rows(report: dict[str, Any], metric: str = HEADLINE) -> list[tuple[str, float, float, float]]:
    """(task, A, B, B - A) for the tasks whose `metric` differs, largest difference first."""
    rows = []
    for task, pair in report["tasks"].items():
        va, vb = pair["a"].get(metric), pair["b"].get(metric)
        if va is not None and vb is not None and abs(vb - va) > 1e-9:
            rows.append((task, va, vb, vb - va))
    return sorted(rows, key=lambda row: (-abs(row[3]), row[0]))


def tables(report: dict[str, Any], all_tasks: bool = False) -> list[RenderableType]:
    a, b = report["a"], report["b"]
    summary = Table(title=f"A = run {a['run']} ({a['label']})  vs  B = run {b['run']} ({b['label']}): B - A "
                    "paired over the tasks both scored [95% CI]", title_justify="left")
    for column in ("group", "metric", "A", "B", "B - A", "tasks"):
        summary.add_column(column, justify="left" if column in ("group", "metric") else "right", no_wrap=column == "group")
    for group in report["groups"]:
        for metric, row in group["metrics"].items():
            diff = row["difference"]
            shown = cell({**diff, "value": diff["value"]}, row["unit"]) if diff["value"] is not None else "-"
            if diff["value"] is not None and diff["value"] > 0:
                shown = f"[green]+{shown}[/green]"
            summary.add_row(group["group"], metric, cell(row["a"], row["unit"]), cell(row["b"], row["unit"]), shown,
                            str(diff["tasks"]))
    rows = per_task_rows(report)
    shapes = answers_table("what the answers look like, whatever they scored",
                           [(f"A ({a['label']})", report["answers"]["a"]), (f"B ({b['label']})", report["answers"]["b"])])
    if not rows:
        return [summary, f"per task: {HEADLINE} is the same for A and B on all {len(report['tasks'])} tasks both scored", shapes]
    tasks = Table(title=f"per task: {HEADLINE} (%) where A and B differ ({len(rows)} of {len(report['tasks'])} tasks)",
                  title_justify="left")
    for column in ("task", "A", "B", "B - A"):
        tasks.add_column(column, justify="left" if column == "task" else "right", overflow="fold")
    for task, va, vb, diff in rows if all_tasks else rows[:SHOWN_TASKS]:
        colour = "green" if diff > 0 else "red"
        tasks.add_row(task, f"{va:.1f}", f"{vb:.1f}", f"[{colour}]{diff:+.1f}[/{colour}]")
    if not all_tasks and len(rows) > SHOWN_TASKS:
        tasks.caption = f"{len(rows) - SHOWN_TASKS} more: --all-tasks or --json"
    return [summary, tasks, shapes]
