"""What the store raises: misuse, a damaged file, a store another process is writing."""

from __future__ import annotations

from ecot.core.errors import EcotError


class StoreError(EcotError):
    """Misuse of the store: an out-of-order or duplicate turn, an unknown trajectory or status."""


class DamagedStoreError(StoreError):
    """The store's file fails SQLite's structural check: ecot neither reads nor writes it."""


class StoreBusyError(StoreError):
    """Another process holds the store's writer lock."""
