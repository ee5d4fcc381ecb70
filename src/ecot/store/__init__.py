"""The trajectory store: append-only, crash-safe, resumable SQLite with full provenance."""

from ecot.store.db import TrajectoryStore, check_run, require_store, run_key
from ecot.store.errors import DamagedStoreError, StoreBusyError, StoreError
from ecot.store.migrations import MIGRATIONS, Migration, apply_migrations

__all__ = [
    "MIGRATIONS", "DamagedStoreError", "Migration", "StoreBusyError", "StoreError", "TrajectoryStore",
    "apply_migrations", "check_run", "require_store", "run_key",
]
