"""The overview page's numbers, all taken from the modules that compute them for the CLI: runs from the
store, depth statistics from `ecot.export.stats` (what `ecot stats` prints and plots), tokens and cost from
`ecot.run.usage`, world-model audits from `ecot.icwm.fidelity.audit_summary`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ecot.export.stats import ALL, DomainStats, Spread
from ecot.run.usage import Tokens, UsageTotals

RUN_KEYS_SHOWN = ("environment", "samples", "max_rounds", "audit_rate", "min_confidence")


@dataclass
class RunView:
    id: int
    generator: str
    model: str
    options: str
    settings: list[tuple[str, str]]
    tasks: int
    created_at: str
    code_version: str
    ecot_version: str
    trajectories: int = 0
    finished: int = 0
    passed: int = 0
    first_started: str = ""
    last_finished: str = ""
    last_invocation: str = ""  # how the last `ecot synth`/`bench run` of it ended: done, or why it stopped early


@dataclass
class DomainRow:
    domain: str
    finished: int
    passed: int
    pass_rate: float
    thinking: Spread | None
    answer: Spread | None
    turns: Spread | None
    pass_by_round: list[float]  # share of finished trajectories passed within round r (0 = first attempt)
    turns_histogram: dict[int, int]


@dataclass
class UsageRow:
    name: str
    tokens: Tokens
    section: str


@dataclass
class Overview:
    counts: dict[str, int]
    runs: list[RunView]
    domains: list[DomainRow]
    rounds: int  # columns of the per-round tables
    labels_per_round: list[tuple[str, list[int]]]  # label -> count in each round (all domains)
    usage: list[UsageRow]
    usage_reasoning: bool
    audits: dict[str, Any] = field(default_factory=dict)
    disagreements: list[dict[str, Any]] = field(default_factory=list)


def run_views(runs: Sequence[Mapping[str, Any]], activity: Mapping[int, Mapping[str, Any]],
              invocations: Sequence[Mapping[str, Any]] = ()) -> list[RunView]:
    last = {int(row["run_id"]): row for row in invocations}  # oldest first: the last one wins
    views = []
    for run in runs:
        config: dict[str, Any] = run.get("config") or {}
        found = config.get("generator")
        generator: dict[str, Any] = found if isinstance(found, dict) else {}
        options = {k: v for k, v in generator.items() if k not in ("generator", "model")}
        view = RunView(
            id=int(run["id"]),
            generator=str(generator.get("generator", "-")),
            model=str(generator.get("model") or "-"),
            options=json.dumps(options, sort_keys=True, ensure_ascii=False, default=str) if options else "",
            settings=[(k, str(config[k])) for k in RUN_KEYS_SHOWN if k in config],
            tasks=len(config.get("tasks") or []),
            created_at=str(run.get("created_at", "")),
            code_version=str(run.get("code_version", "")),
            ecot_version=str(run.get("ecot_version", "")),
        )
        found = activity.get(view.id, {})
        for key in ("trajectories", "finished", "passed"):
            setattr(view, key, int(found.get(key) or 0))
        view.first_started = str(found.get("first_started") or "")
        view.last_finished = str(found.get("last_finished") or "")
        view.last_invocation = _ended(last.get(view.id))
        views.append(view)
    return views


def _ended(invocation: Mapping[str, Any] | None) -> str:
    """How an invocation ended, in words: what it added, and why it stopped early and what a rerun does."""
    if invocation is None:
        return ""
    added = f"added {invocation['turns']} turns, {invocation['tokens']:,} tokens"
    if not invocation.get("stop_kind"):
        return f"{added}; did all its work"
    return f"{added}; stopped early ({invocation['stop_kind']}): {invocation['stop_detail']}; {invocation['rerun']}"


def domain_rows(stats: Mapping[str, DomainStats]) -> tuple[list[DomainRow], int]:
    """One row per domain (then `all`), and how many rounds the per-round columns span."""
    rounds = max((len(s.labels_per_round) for s in stats.values()), default=0)
    rows = []
    for name, s in stats.items():
        histogram: dict[int, int] = {}
        for turns in s.turns_to_pass:
            histogram[turns] = histogram.get(turns, 0) + 1
        within, by_round = 0, []
        for round_index in range(rounds):  # passing at round r takes r + 1 turns
            within += histogram.get(round_index + 1, 0)
            by_round.append(within / s.finished if s.finished else 0.0)
        rows.append(DomainRow(
            name, s.finished, s.passed, s.pass_rate, Spread.of(s.thinking_chars), Spread.of(s.answer_chars),
            Spread.of(s.turns_to_pass), by_round, dict(sorted(histogram.items())),
        ))
    return rows, rounds


def labels_per_round(stats: Mapping[str, DomainStats]) -> list[tuple[str, list[int]]]:
    """Label -> count per round over all domains, Pass first (the order of `ecot stats --plot`)."""
    overall = stats.get(ALL)
    rounds = overall.labels_per_round if overall else []
    labels = sorted({label for counter in rounds for label in counter}, key=lambda name: (name != "Pass", name))
    return [(label, [counter.get(label, 0) for counter in rounds]) for label in labels]


def usage_rows(totals: UsageTotals) -> list[UsageRow]:
    """The sections of `ecot stats`' token table: all, per run (when several), per domain, per round."""
    rows = [UsageRow("all", totals.all, "all")]
    if len(totals.runs) > 1:
        rows += [UsageRow(f"run {k}", v, "run") for k, v in sorted(totals.runs.items())]
    rows += [UsageRow(k, v, "domain") for k, v in sorted(totals.domains.items())]
    rows += [UsageRow(f"round {k}", v, "round") for k, v in sorted(totals.rounds.items())]
    return rows


def disagreements(audits: Sequence[Mapping[str, Any]], ids: Mapping[tuple[int, str, int], int]) -> list[dict[str, Any]]:
    """Audits whose real verdict differs from the world model's, with the trajectory page they belong to."""
    rows = []
    for audit in audits:
        if audit["agree"]:
            continue
        key = (int(audit["run_id"]), str(audit["task_id"]), int(audit["sample"]))
        rows.append({
            "trajectory": ids.get(key), "task_id": audit["task_id"], "domain": audit["domain"], "sample": audit["sample"],
            "round": audit["idx"], "predicted": audit["predicted_label"], "real": audit["real_label"],
            "world_model": audit["world_model"],
            "diagnostic": str((audit.get("real_outcome") or {}).get("diagnostic", "")),
        })
    return rows
