"""Start long-lived sandboxes so that they live as long as the process, whichever thread asks.

bubblewrap's --die-with-parent (PR_SET_PDEATHSIG) fires when the *thread* that forked it exits, not
the process: a sandbox server or warm interpreter started from a pool thread would die as soon as the
pool retired that thread, and be restarted (or lost mid-job) later. So every long-lived sandbox not
started by the main thread is started by a spawner thread kept for the process's life (a few of them,
so that sandboxes asked for at once start at once).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
SPAWNERS = 4
_lock = threading.Lock()
_spawner: tuple[int, ThreadPoolExecutor] | None = None  # (pid, pool): a forked child makes its own


def outliving_threads(start: Callable[[], T]) -> T:
    """start() run on a thread that lives as long as the process (this one, if it is the main thread)."""
    if threading.current_thread() is threading.main_thread():
        return start()
    return _pool().submit(start).result()


def in_background(start: Callable[[], object]) -> None:
    """start() on a short-lived thread of its own, its outcome ignored (a warm-up: whoever needs what it
    starts later waits for it or starts it anew). What it starts that must outlive it goes through
    outliving_threads."""
    threading.Thread(target=_quietly, args=(start,), name="ecot-warm-up", daemon=True).start()


def _quietly(start: Callable[[], object]) -> None:
    try:
        start()
    except Exception:  # noqa: BLE001 - a warm-up that fails leaves the work to the first job, which reports it
        pass


def _pool() -> ThreadPoolExecutor:
    global _spawner
    with _lock:
        if _spawner is None or _spawner[0] != os.getpid():
            _spawner = (os.getpid(), ThreadPoolExecutor(max_workers=SPAWNERS, thread_name_prefix="ecot-sandbox-spawner"))
        return _spawner[1]
