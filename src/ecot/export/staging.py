"""Crash-safe export files: the whole corpus appears at once, or not at all.

While an export writes, its files are unnamed (`O_TMPFILE`): a SIGKILL at that point, which no
program can intercept, leaves nothing at all in the output folder, because the kernel frees unnamed
files with their last descriptor. Where the file system has no unnamed files, they are written in
a hidden staging folder `.ecot-export.<pid>.<random>` inside the output folder instead.

The commit links every file into the staging folder, writes a `COMMIT` list of their names there,
and only then renames them over the previous files (the card, README.md, last) and drops the files
of an earlier export that this one does not write. A kill before `COMMIT` exists leaves the previous
corpus untouched; a kill during the renames leaves a complete, durable new corpus half moved in,
which the next export into that folder finishes moving before it starts (roll-forward), so the
folder never stays a mix of two exports. The next export also removes any other leftover.

One export at a time writes a folder: each holds an advisory lock on the folder itself, released
by the kernel however its holder exits; a second export is refused with the first one's pid.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

from ecot.core.errors import EcotError
from ecot.store.writer import holder_pid

CARD = "README.md"
MANIFEST = "COMMIT"
OWNED = re.compile(r"^(train|validation)\.(jsonl|parquet)$|^raw\.jsonl$|^README\.md$")
STAGING = re.compile(r"^\.ecot-export\.(\d+)\.[A-Za-z0-9_]+$")
OLD_TEMP = re.compile(r"^\.(train\.jsonl|train\.parquet|raw\.jsonl)\..+\.tmp$")  # left by older ecot versions
USE_UNNAMED = True  # False forces the staging-folder path (file systems without O_TMPFILE; tests)


class ExportBusyError(EcotError):
    """Another export is writing the same output folder."""


class Staging:
    """The files of one export: open them, then commit (all appear) or abort (none do)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._lock = lock_folder(self.out_dir)
        self.folder: Path | None = None
        self.files: dict[str, BinaryIO] = {}
        self.committed = False  # COMMIT is written: from then on the folder only ever rolls forward
        try:
            recover(self.out_dir, locked=self._lock is not None)
        except BaseException:
            self.release()
            raise
        self.unnamed = USE_UNNAMED and unnamed_files_work(self.out_dir)

    def open(self, name: str) -> BinaryIO:
        """A new binary file that becomes `out_dir/name` at commit."""
        if self.unnamed:
            fd = os.open(self.out_dir, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o666)
            handle: BinaryIO = os.fdopen(fd, "w+b")
        else:
            handle = open(self._staging_folder() / name, "w+b")  # noqa: SIM115 -- held in self.files until commit
        self.files[name] = handle
        return handle

    def text(self, name: str, content: str) -> None:
        self.open(name).write(content.encode("utf-8"))

    def commit(self) -> list[Path]:
        """Name every file in the staging folder, mark the export complete, move it into place."""
        folder = self._staging_folder()
        for name, handle in self.files.items():
            handle.flush()
            os.fsync(handle.fileno())
            if self.unnamed:
                name_unnamed(handle, folder / name)
            handle.close()
        names = sorted(self.files)
        _write_manifest(folder, names)
        self.committed = True
        install(folder, self.out_dir, names)
        self.release()
        return [self.out_dir / name for name in names]

    def abort(self) -> None:
        for handle in self.files.values():
            handle.close()
        if self.folder is not None and not self.committed:
            shutil.rmtree(self.folder, ignore_errors=True)
        # A failed install (renames half done) keeps its folder: the next export finishes the move.
        self.release()

    def release(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _staging_folder(self) -> Path:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix=f".ecot-export.{os.getpid()}.", dir=self.out_dir))
        return self.folder


def install(folder: Path, out_dir: Path, names: list[str]) -> None:
    """Move the listed files of a complete staging folder into place, then remove the folder.

    Idempotent: a name already moved (by a killed commit) is skipped, so recovery can run it again."""
    for stale in out_dir.iterdir():
        if OWNED.match(stale.name) and stale.name not in names and stale.is_file():
            stale.unlink()
    for name in [n for n in names if n != CARD] + [n for n in names if n == CARD]:  # the card describes the rest
        if (folder / name).exists():
            os.replace(folder / name, out_dir / name)
    _fsync_dir(out_dir)
    shutil.rmtree(folder, ignore_errors=True)  # the COMMIT list goes last, with its folder


def recover(out_dir: Path, locked: bool) -> list[Path]:
    """Finish the commit of a killed export that had written its COMMIT list; remove every other leftover.

    Holding the folder's lock, every staging folder is a dead export's; without it (a file system
    with no flock), only those whose process is gone are touched."""
    handled = []
    for entry in sorted(out_dir.iterdir()):
        staging = STAGING.match(entry.name)
        if staging and entry.is_dir() and (locked or not _alive(int(staging.group(1)))):
            names = _read_manifest(entry)
            if names is not None:
                install(entry, out_dir, names)
            shutil.rmtree(entry, ignore_errors=True)
            handled.append(entry)
        elif OLD_TEMP.match(entry.name) and entry.is_file():
            entry.unlink(missing_ok=True)
            handled.append(entry)
    return handled


def lock_folder(out_dir: Path) -> int | None:
    """An exclusive flock on the folder (its descriptor), or None where the file system has no flock."""
    fd = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            pid = holder_pid(out_dir)
            who = f"another ecot export (pid {pid})" if pid is not None else "another ecot export"
            raise ExportBusyError(f"{who} is writing to {out_dir}; wait for it to finish, or export elsewhere") from None
        return None
    return fd


def unnamed_files_work(folder: Path) -> bool:
    try:
        os.close(os.open(folder, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o666))
    except (OSError, AttributeError):  # EOPNOTSUPP, EISDIR on old kernels; no O_TMPFILE off Linux
        return False
    return True


def name_unnamed(handle: BinaryIO, target: Path) -> None:
    """Give an O_TMPFILE file a name: link it (no copy) where the kernel lets us, else copy it."""
    fd = handle.fileno()
    try:
        os.link(f"/proc/self/fd/{fd}", target, follow_symlinks=True)  # open(2)'s documented way
        return
    except OSError:
        pass
    if _linkat_empty_path(fd, target):  # root, or Linux >= 6.10 for one's own descriptor
        return
    handle.seek(0)
    with open(target, "wb") as copy:
        shutil.copyfileobj(handle, copy, 1 << 20)
        copy.flush()
        os.fsync(copy.fileno())


def _linkat_empty_path(fd: int, target: Path) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        at_fdcwd, at_empty_path = -100, 0x1000
        return int(libc.linkat(fd, b"", at_fdcwd, os.fsencode(target), at_empty_path)) == 0
    except (OSError, AttributeError):
        return False


def _write_manifest(folder: Path, names: list[str]) -> None:
    """The commit point: written in one write and made durable after every file it lists."""
    _fsync_dir(folder)
    fd = os.open(folder / MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, json.dumps(names).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(folder)


def _read_manifest(folder: Path) -> list[str] | None:
    try:
        names = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # no COMMIT: the export never finished writing, so its files are dropped
    if not isinstance(names, list) or not all(isinstance(n, str) and OWNED.match(n) for n in names):
        return None
    return names


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # a folder named with our pid is a leftover of an earlier process that had it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
