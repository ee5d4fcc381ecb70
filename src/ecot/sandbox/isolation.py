"""Low-level pieces of the sandbox: bubblewrap mount arguments, throw-away uids, process bookkeeping,
warnings about weaker isolation (said once per process)."""

from __future__ import annotations

import functools
import itertools
import logging
import os
import shutil
import signal
import stat
import tempfile
import threading
from pathlib import Path

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
_SYSTEM_RO = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin")
_ETC_RO = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_UID_BASE, _UID_SPAN = 200_000, 50_000
TMP_BYTES = 256 * 1024 * 1024
_uid_counter = itertools.count()


def ro_system_args() -> list[str]:
    args: list[str] = []
    for path in (*_SYSTEM_RO, *_ETC_RO):
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


# After all mounts: the sandbox's own root and /dev become read-only, so nothing a job writes outside
# its work dir, /tmp and /dev/shm can persist (e.g. an /etc/ld.so.preload planted for later jobs).
READ_ONLY_REST = ("--remount-ro", "/dev", "--remount-ro", "/")


def private_mounts() -> list[str]:
    size = str(TMP_BYTES)
    return ["--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp"]


def source_mounts() -> list[str]:
    """bubblewrap arguments for the folder holding the ecot package, read-only, so trusted code in a
    sandbox can import it, with the bundled suites (references, tests) covered by an empty folder."""
    package = Path(__file__).resolve().parents[1]
    src = str(package.parent)
    args = ["--ro-bind", src, src]
    for suite in sorted(package.glob("domains/*/suite")):
        args += ["--tmpfs", str(suite), "--remount-ro", str(suite)]
    return args


MEMORY_ROOT = "/dev/shm"
MEMORY_ROOT_FREE = 2 << 30  # what the memory file system must have free to hold work folders


def work_root() -> Path:
    """Where work folders are made: ECOT_WORK_ROOT, else the system's temporary folder when it is a
    memory file system, else /dev/shm when that is one with room to spare, else the temporary folder.
    Every job's folder is made, written, copied in and out of the sandbox and removed: on a disk's
    file system (ext4: about 2.6 ms per file made and removed) that costs more than a small job."""
    explicit = os.environ.get("ECOT_WORK_ROOT")
    return Path(explicit) if explicit else _default_work_root()


@functools.cache
def _default_work_root() -> Path:
    temporary = Path(tempfile.gettempdir())
    if _file_system(temporary) == "tmpfs":
        return temporary
    memory = Path(MEMORY_ROOT)
    try:
        usable = os.access(memory, os.W_OK | os.X_OK) and _file_system(memory) == "tmpfs"
        roomy = usable and shutil.disk_usage(memory).free >= MEMORY_ROOT_FREE
    except OSError:
        roomy = False
    return memory if roomy else temporary


def _file_system(path: Path) -> str | None:
    """The type of the file system holding path, from /proc/self/mounts (None if unknown)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            table = [line.split()[1:3] for line in mounts if len(line.split()) >= 3]
    except OSError:
        return None
    where = os.path.realpath(path)
    found = [(point, kind) for point, kind in table if where == point or where.startswith(point.rstrip("/") + "/")]
    return max(found, key=lambda entry: len(entry[0]))[1] if found else None


def sandbox_uid() -> int | None:
    """As root, each sandbox gets its own unprivileged uid."""
    if os.geteuid() != 0:
        return None
    return _UID_BASE + (os.getpid() * 131 + next(_uid_counter)) % _UID_SPAN


def chown_tree(root: Path, uid: int) -> None:
    os.chown(root, uid, uid)
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _owner(path: Path) -> int | None:
    try:
        return path.stat().st_uid
    except OSError:
        return None


def user_process_count() -> int:
    uid = os.getuid()
    return sum(1 for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) == uid)


def kill_uid(uid: int) -> None:
    """Without a PID namespace, end every process left under the run's private uid."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _owner(entry) == uid:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def read_job_file(work: Path, relpath: str, max_bytes: int) -> bytes | None:
    """The bytes of a file a job produced, or None when it is missing, not a regular file, or reached
    through a link. Every component is opened relative to the work dir without following links, so a
    job that swaps in a symlink between our check and our open can only make us read nothing."""
    parts = Path(relpath).parts
    if not parts or Path(relpath).is_absolute() or any(p in ("..", ".") for p in parts):
        raise ValueError(f"not a plain relative path inside a work dir: {relpath!r}")
    opened: list[int] = []
    try:
        fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        opened.append(fd)
        for folder in parts[:-1]:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            opened.append(fd)
        # O_NONBLOCK: a FIFO planted under the expected name must not hang us
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fd)
        opened.append(fd)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], max_bytes
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        for fd in opened:
            os.close(fd)


_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(log: logging.Logger, message: str) -> None:
    """Log a warning about this machine's isolation the first time this process meets it."""
    with _warned_lock:
        if message in _warned:
            return
        _warned.add(message)
    log.warning(message)
