"""Namespaces and a size-limited private work dir for each sandboxed job (standard library only).

Runs inside bubblewrap, in the trusted processes that start jobs (the supervisor, the warm
interpreter's per-job parent). Such a process enters a user and mount namespace of its own, keeping
its ids, which lets it mount without any privilege outside the sandbox. Every job then works in a
fresh tmpfs of a fixed size mounted over the shared work root:

- the job cannot fill the host's disk (the tmpfs is full first), nor see any other job's folder;
- nothing the job creates reaches the host but regular files and folders, copied back by the trusted
  side after every process of the job has ended: no link, pipe or late rewrite can race a host read.
"""

from __future__ import annotations

import ctypes
import os
import stat
from typing import Any

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x10000000, 0x08000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_REC, MS_PRIVATE = 0x1, 0x2, 0x4, 0x20, 0x4000, 0x40000
MNT_DETACH = 0x2
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
INODES_PER_MB = 64  # a tmpfs also caps its file count, so a flood of empty files is bounded too
COPY_CHUNK = 1 << 20

_libc: Any = None


def libc() -> Any:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _call(name: str, *args: Any) -> None:
    if getattr(libc(), name)(*args) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{name}: {os.strerror(code)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def non_dumpable() -> None:
    """Nothing with our uid may ptrace us or open our /proc/<pid>/mem (the trusted side calls this)."""
    _call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)


def enter_namespaces() -> None:
    """A user and mount namespace of our own, with the same ids, and with them an IPC namespace (see
    fresh_ipc) and a network namespace whose only interface, the loopback, stays down: jobs have no
    network at all, so no socket state (a port in TIME_WAIT) can outlive the processes of a job.

    Must run single-threaded, with /proc mounted (the id maps are written there)."""
    uid, gid = os.geteuid(), os.getegid()
    _call("unshare", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
    _call("mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)


def fresh_ipc() -> None:
    """Move into a new, empty IPC namespace (after enter_namespaces): the jobs started from now on find
    no SysV segment, semaphore or message queue and no POSIX message queue of an earlier job, and the
    old namespace, with everything in it, is destroyed once its last process has ended."""
    _call("unshare", CLONE_NEWIPC)


def mount_tmpfs(path: str, size_mb: int, readonly: bool = False) -> None:
    options = f"size={max(size_mb, 1)}m,nr_inodes={max(size_mb, 16) * INODES_PER_MB},mode=0755"
    flags = MS_NOSUID | MS_NODEV | (MS_RDONLY if readonly else 0)
    _call("mount", b"tmpfs", path.encode(), b"tmpfs", flags, options.encode())


def hide(path: str, links: dict[str, str] | None = None) -> None:
    """Cover path with a read-only tmpfs (a job without caps cannot take it off), empty but for `links`
    (a path under it -> the target of a symbolic link made there before it turns read-only)."""
    if not links:
        mount_tmpfs(path, 1, readonly=True)
        return
    mount_tmpfs(path, 1)
    for name, target in links.items():
        where = os.path.join(path, name)
        os.makedirs(os.path.dirname(where), exist_ok=True)
        os.symlink(target, where)
    _call("mount", b"tmpfs", path.encode(), b"tmpfs", MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def drop_privileges() -> None:
    """Give up the capabilities the new user namespace granted, for good (the job runs without)."""

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3, all zero
    _call("capset", ctypes.byref(header), ctypes.byref(data))
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


class PrivateRoot:
    """A fresh tmpfs of size_mb mounted over root, the folder holding every job's folder: while mounted,
    jobs see only the folder of the request at hand, copied in from the host, and can write no more
    than size_mb. Mounted once (an unmount costs milliseconds), emptied after every request."""

    def __init__(self, root: str, size_mb: int) -> None:
        self.root, self.size_mb = root, size_mb
        self.host_root = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)  # before it is hidden
        mount_tmpfs(root, size_mb)

    def enter(self, cwd: str, size_mb: int | None = None) -> int:
        """Copy the host's folder for cwd into the tmpfs (resized to size_mb first, if given); returns a
        descriptor of the host's folder."""
        if size_mb is not None and size_mb != self.size_mb:
            _call("mount", b"tmpfs", self.root.encode(), b"tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV,
                  f"size={max(size_mb, 1)}m,nr_inodes={max(size_mb, 16) * INODES_PER_MB}".encode())
            self.size_mb = size_mb
        relative = os.path.relpath(cwd, self.root)
        if relative.startswith(".."):
            raise ValueError(f"{cwd} is not under {self.root}")
        host = os.open(relative, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=self.host_root)
        try:
            os.makedirs(cwd, mode=0o755)
            inside = os.open(cwd, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                copy_tree(host, inside)
            finally:
                os.close(inside)
        except BaseException:
            os.close(host)
            raise
        return host

    def publish(self, cwd: str, host: int) -> None:
        """Make the host folder hold what the job left: regular files and folders only."""
        inside = os.open(cwd, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            empty_tree(host)
            copy_tree(inside, host)
        finally:
            os.close(inside)

    def clear(self) -> None:
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            empty_tree(fd)
        finally:
            os.close(fd)


def copy_tree(src: int, dst: int) -> None:
    """Copy regular files (with their permission bits) and folders from one open folder to another,
    never following a link; anything else (links, pipes, sockets) is left behind."""
    for entry in os.scandir(src):
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            os.mkdir(entry.name, 0o700, dir_fd=dst)
            sub_src = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=src)
            sub_dst = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dst)
            try:
                copy_tree(sub_src, sub_dst)
            finally:
                os.close(sub_src)
                os.close(sub_dst)
            os.chmod(entry.name, stat.S_IMODE(info.st_mode) & 0o777, dir_fd=dst)
        elif stat.S_ISREG(info.st_mode):
            _copy_file(src, dst, entry.name, stat.S_IMODE(info.st_mode) & 0o777)


def _copy_file(src: int, dst: int, name: str, mode: int) -> None:
    # O_NONBLOCK: the entry may have become a FIFO since scandir looked; then it is simply skipped
    fd_in = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=src)
    try:
        if not stat.S_ISREG(os.fstat(fd_in).st_mode):
            return
        fd_out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=dst)
        try:
            while chunk := os.read(fd_in, COPY_CHUNK):
                os.write(fd_out, chunk)
            os.fchmod(fd_out, mode)
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)


def empty_tree(folder: int) -> None:
    """Remove everything inside an open folder (not the folder itself), never following a link."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            sub = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            try:
                empty_tree(sub)
            finally:
                os.close(sub)
            os.rmdir(entry.name, dir_fd=folder)
        else:
            os.unlink(entry.name, dir_fd=folder)
