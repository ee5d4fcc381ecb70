"""Versioned schema migrations for the trajectory store.

Each migration is a named, ordered list of statements applied in one transaction together with
its `schema_version` row, so a crash mid-migration leaves the schema at the previous version.
Never edit a released migration: append a new one.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "initial",
        (
            """CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                run_key TEXT NOT NULL UNIQUE,
                config TEXT NOT NULL,
                created_at TEXT NOT NULL,
                ecot_version TEXT NOT NULL,
                code_version TEXT NOT NULL
            )""",
            """CREATE TABLE trajectories (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs(id),
                task_id TEXT NOT NULL,
                domain TEXT NOT NULL,
                sample INTEGER NOT NULL,
                prompt_messages TEXT NOT NULL,
                provenance TEXT NOT NULL,
                status TEXT CHECK (status IN ('passed', 'failed', 'error')),
                started_at TEXT NOT NULL,
                finished_at TEXT,
                UNIQUE (run_id, task_id, sample)
            )""",
            """CREATE TABLE turns (
                id INTEGER PRIMARY KEY,
                trajectory_id INTEGER NOT NULL REFERENCES trajectories(id),
                idx INTEGER NOT NULL CHECK (idx >= 0),
                reasoning TEXT NOT NULL,
                code TEXT,
                raw TEXT NOT NULL,
                label TEXT NOT NULL,
                diagnostic TEXT NOT NULL,
                log TEXT NOT NULL,
                metrics TEXT NOT NULL,
                tool_versions TEXT NOT NULL,
                wall_s REAL NOT NULL,
                observation_source TEXT NOT NULL,
                usage TEXT NOT NULL,
                gen_s REAL NOT NULL,
                created_at TEXT NOT NULL,
                UNIQUE (trajectory_id, idx)
            )""",
        ),
    ),
    Migration(
        2,
        "audits",
        (
            # One row per real-execution spot check of a world-model observation.
            """CREATE TABLE audits (
                id INTEGER PRIMARY KEY,
                turn_id INTEGER NOT NULL REFERENCES turns(id),
                world_model TEXT NOT NULL,
                real_label TEXT NOT NULL,
                predicted_label TEXT NOT NULL,
                agree INTEGER NOT NULL CHECK (agree IN (0, 1)),
                real_outcome TEXT NOT NULL,
                created_at TEXT NOT NULL
            )""",
            "CREATE INDEX audits_turn ON audits(turn_id)",
        ),
    ),
    Migration(
        3,
        "lookup_indexes",
        (
            "CREATE INDEX trajectories_run_domain ON trajectories(run_id, domain)",
            "CREATE INDEX turns_label ON turns(label)",
        ),
    ),
    Migration(
        4,
        "turn_finish_reason",
        (
            # Why the endpoint stopped ("length": cut off by max_tokens) and its separate reasoning field;
            # NULL for turns stored before this migration and for generators that report neither.
            "ALTER TABLE turns ADD COLUMN finish_reason TEXT",
            "ALTER TABLE turns ADD COLUMN reasoning_content TEXT",
        ),
    ),
    Migration(
        5,
        "invocations",
        (
            # One row per call of synthesize/benchmark on a run (a command, or a rerun of it): what it
            # added, and why it stopped early (budget, endpoint, interrupted) with what a rerun does;
            # stop_kind is NULL when it did all its work.
            """CREATE TABLE invocations (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs(id),
                started_at TEXT NOT NULL,
                ended_at TEXT NOT NULL,
                turns INTEGER NOT NULL,
                tokens INTEGER NOT NULL,
                stop_kind TEXT,
                stop_detail TEXT,
                rerun TEXT
            )""",
            "CREATE INDEX invocations_run ON invocations(run_id)",
        ),
    ),
)


def current_version(conn: sqlite3.Connection) -> int:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def apply_migrations(conn: sqlite3.Connection, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[str]:
    """Apply pending migrations in order; return the names applied. `conn` must be in autocommit mode."""
    _check_order(migrations)
    applied: list[str] = []
    for migration in migrations:
        # Re-read inside the write lock so two processes opening one store cannot both apply it.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if migration.version <= current_version(conn):
                conn.execute("COMMIT")
                continue
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, datetime.now(UTC).isoformat()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(migration.name)
    return applied


def _check_order(migrations: tuple[Migration, ...]) -> None:
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migration versions must be 1..n in order, got {versions}")
