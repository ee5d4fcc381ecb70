"""Noticing a damaged store before anything reads or writes it, and naming SQLite errors honestly.

SQLite keeps no checksums, so a garbled page is noticed only when a query walks into it; until then
ecot would read around it and append to it, spreading the damage. Every open therefore runs
`PRAGMA quick_check` first: it walks every b-tree page (tables, indexes, overflow chains, freelist)
and checks each page's structure and each record's format, reading the file once. It skips only
what `integrity_check` adds (index entries versus table rows, UNIQUE), which costs several times
more; measured figures are in docs/store-and-export.md. Damage that lands after the open
(SQLITE_CORRUPT from a later query) is reported by `describe` the same way.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ecot.store.errors import DamagedStoreError, StoreError

DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
REPORTED = 3  # problems named in the message; quick_check stops collecting after this many


def check_pages(conn: sqlite3.Connection, path: Path) -> None:
    """Raise DamagedStoreError unless `PRAGMA quick_check` finds every page well formed."""
    try:
        rows = [str(r[0]) for r in conn.execute(f"PRAGMA quick_check({REPORTED})").fetchall()]
    except sqlite3.DatabaseError as err:
        if getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:  # random bytes, not a damaged store
            raise StoreError(f"{path} is not a readable trajectory store: {err}") from None
        # The damage is so bad that the check itself cannot walk the file.
        raise DamagedStoreError(damaged(path, str(err), at_open=True)) from None
    if rows != ["ok"]:
        raise DamagedStoreError(damaged(path, "; ".join(rows), at_open=True))


def damaged(path: Path, detail: str, at_open: bool = False) -> str:
    done = "nothing was read or written" if at_open else "stopped at the damaged page"
    return (
        f"the trajectory store {path} is damaged ({detail}); {done}. "
        f"Restore it from a copy, or salvage it with `sqlite3 {path} .recover`"
    )


def is_damage(err: sqlite3.Error) -> bool:
    """SQLITE_CORRUPT / SQLITE_NOTADB, or text that is not UTF-8 (a garbled record, decoded by Python)."""
    code = getattr(err, "sqlite_errorcode", None)
    return code in DAMAGE_CODES or (code is None and "Could not decode to UTF-8" in str(err))


def describe(err: sqlite3.Error, path: Path | str) -> str:
    """One line for an SQLite error that escaped the store: damage, a lock held too long, or other."""
    first = str(err).splitlines()[0] if str(err) else type(err).__name__
    if is_damage(err):
        return damaged(Path(path), first)
    if getattr(err, "sqlite_errorcode", None) in BUSY_CODES:
        return f"the trajectory store {path} stayed locked by another process for too long ({first})"
    return f"the trajectory store {path} failed: {first}"
