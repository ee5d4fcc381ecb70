"""One writing process per store: an advisory lock on the store file itself.

`flock` on the database file (SQLite's own locks are POSIX record locks, which flock never touches
on Linux) is released by the kernel when its holder exits, however it exits: a SIGKILLed `ecot synth`
leaves no stale lock and needs no lock file. A second writer learns the holder's pid from
/proc/locks, so its error can name the process to wait for.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from ecot.store.errors import StoreBusyError

PROC_LOCKS = Path("/proc/locks")


class WriterLock:
    """Held from acquire() until release() (or the process ends)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            raise StoreBusyError(busy_message(self.path, holder_pid(self.path))) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the flock
            self._fd = None


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
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2148495 0 EOF"; lines with "->" are waiters, not holders.
        fields = line.split()
        if len(fields) >= 6 and "->" not in fields and fields[1] == "FLOCK" and fields[5] == device:
            return int(fields[4]) if fields[4].isdigit() else None
    return None
