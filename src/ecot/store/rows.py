"""How rows of the store's tables map to ecot objects, and the SQL fragments that read them."""

from __future__ import annotations

import json
import sqlite3

from ecot.core.outcome import TRUNCATED, Outcome
from ecot.core.trajectory import Turn

TURN_COLUMNS = (
    "idx, reasoning, code, raw, label, diagnostic, log, metrics, tool_versions, wall_s, "
    "observation_source, usage, gen_s, finish_reason, reasoning_content"
)


def _token_sum(key: str) -> str:
    return f"COALESCE(SUM(json_extract(u.usage, '$.{key}')), 0) AS {key}"


USAGE_SUMS = ", ".join(
    [
        "COUNT(*) AS turns",
        f"COALESCE(SUM(u.label = '{TRUNCATED}'), 0) AS truncated",
        *(_token_sum(key) for key in ("prompt_tokens", "completion_tokens", "reasoning_tokens")),
        "COALESCE(SUM(COALESCE(json_extract(u.usage, '$.total_tokens'), "
        "COALESCE(json_extract(u.usage, '$.prompt_tokens'), 0) + COALESCE(json_extract(u.usage, '$.completion_tokens'), 0))), 0) "
        "AS total_tokens",
    ]
)

TRAJ_SELECT = (
    "SELECT t.*, r.code_version, r.ecot_version FROM trajectories t JOIN runs r ON r.id = t.run_id"
)


def turn_from_row(row: sqlite3.Row) -> Turn:
    outcome = Outcome(
        label=row["label"],
        diagnostic=row["diagnostic"],
        log=row["log"],
        metrics=json.loads(row["metrics"]),
        tool_versions=json.loads(row["tool_versions"]),
        wall_s=float(row["wall_s"]),
    )
    return Turn(
        index=int(row["idx"]),
        reasoning=row["reasoning"],
        code=row["code"],
        raw=row["raw"],
        outcome=outcome,
        observation_source=row["observation_source"],
        usage=json.loads(row["usage"]),
        gen_s=float(row["gen_s"]),
        finish_reason=row["finish_reason"],
        reasoning_content=row["reasoning_content"],
    )
