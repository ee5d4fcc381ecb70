"""One writing process per store: an advisory lock on the store file itself.

`flock` on the database file (SQLite's own locks are POSIX record locks, which flock never touches
on Linux) is released by the kernel when its holder exits, however it exits: a SIGKILLed `ecot synth`
leaves no stale lock and needs no lock file. A second writer learns the holder's pid from
/proc/locks, so its error can name the process to wait for.

The descriptor that carries the flock is never closed: closing any descriptor of a file drops every
POSIX lock the process holds on it, including the SHARED lock each SQLite connection keeps on a
WAL-mode database, which would let another process checkpoint or remove the WAL under it. Release
unlocks instead, and a later writer of the same file reuses the descriptor.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ecot.store.errors import StoreBusyError

PROC_LOCKS = Path("/proc/locks")
_DESCRIPTORS: dict[tuple[int, int], int] = {}  # (device, inode) -> a descriptor open for the process's life
_HELD: set[tuple[int, int]] = set()  # files whose writer lock this process holds


class WriterLock:
    """Held from acquire() until release() (or the process ends)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._key: tuple[int, int] | None = None

    def acquire(self) -> None:
        key, fd = _descriptor(self.path)
        if key in _HELD:  # flock would not refuse a second lock through the same descriptor
            raise StoreBusyError(busy_message(self.path, os.getpid()))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreBusyError(busy_message(self.path, holder_pid(self.path))) from None
        _HELD.add(key)
        self._key = key

    def release(self) -> None:
        if self._key is not None:
            fcntl.flock(_DESCRIPTORS[self._key], fcntl.LOCK_UN)
            _HELD.discard(self._key)
            self._key = None


def _descriptor(path: Path) -> tuple[tuple[int, int], int]:
    """This process's descriptor of `path` (opened once; a new file at a reused inode gets a new one)."""
    stat = os.stat(path)
    key = (stat.st_dev, stat.st_ino)
    fd = _DESCRIPTORS.get(key)
    if fd is not None and os.fstat(fd).st_nlink > 0:
        return key, fd
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    opened = os.fstat(fd)
    key = (opened.st_dev, opened.st_ino)  # the file opened, should it have been replaced since the stat
    _DESCRIPTORS[key] = fd  # an earlier one of a deleted file stays open: closing it is what must not happen
    return key, fd


def busy_message(path: Path, pid: int | None) -> str:
    who = f"another ecot process (pid {pid})" if pid is not None else "another ecot process"
    return (
        f"{who} is writing to the trajectory store {path}; one process writes a store at a time. "
        "Wait for it to finish (rerunning the same command then resumes), or stop it first"
    )


def holder_pid(path: Path) -> int | None:
    """The pid holding an exclusive flock on `path`, from /proc/locks (None where that is unavailable)."""
    try:
        stat = os.stat(path)
        table = PROC_LOCKS.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    for line in table.splitlines():
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2148495 0 EOF"; waiters show "->" and are not holders.
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
            return int(fields[4]) if fields[4].isdigit() else None
    return None
