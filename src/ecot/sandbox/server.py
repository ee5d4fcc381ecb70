"""Long-lived bubblewrap sandboxes: one per process and set of limits, each run by the supervisor.

Starting a sandbox costs a few milliseconds, as much as a small simulation; these servers pay it
once. Jobs run in work dirs under one folder per process, shared with the servers.
"""

from __future__ import annotations

import atexit
import logging
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from ecot.core.task import Limits
from ecot.sandbox.isolation import (
    BASE_PATH,
    READ_ONLY_REST,
    chown_tree,
    private_mounts,
    ro_system_args,
    sandbox_uid,
    source_mounts,
    user_process_count,
    warn_once,
    work_root,
)
from ecot.sandbox.seccomp import no_keyrings_fd, with_seccomp
from ecot.sandbox.spawn import in_background, outliving_threads
from ecot.sandboxed import supervisor as _supervisor

log = logging.getLogger(__name__)
INNER_ROOT = "/ecot"  # where the shared folder appears inside: outside /tmp, which is emptied after each job


class SandboxServer:
    """A long-lived bubblewrap sandbox running the supervisor; jobs run in folders under `root`.

    The supervisor itself runs under one set of limits as hard rlimits, so every job it spawns
    inherits them from the first instruction on, at no per-job cost; a process keeps one server per
    set of limits (and /proc or not) in use. Inside, each request gets a private, size-limited work
    dir (see _jobfs); jobs see /proc only in a server started with proc_fs, and the host folders of
    ro_paths (read-only, at their own paths) only in a server started with them.
    """

    def __init__(self, limits: Limits, proc_fs: bool = False, ro_paths: tuple[str, ...] = (), exe_link: str | None = None) -> None:
        self.limits = limits
        self.proc_fs = proc_fs
        self.ro_paths = ro_paths
        self.exe_link = exe_link
        self.owner = os.getpid()
        self.root = shared_root()
        self.uid = sandbox_uid()  # the root stays owned by us: jobs cannot create files beside their dirs
        self._lock = threading.Lock()
        self.fresh = False  # whether each request gets a fresh IPC namespace (the supervisor says so)
        self._proc = outliving_threads(self._start)

    def _start(self) -> subprocess.Popen[bytes]:
        python, extra = _supervisor_python()
        src = str(Path(__file__).resolve().parents[2])  # the folder holding the ecot package
        serve = f"serve({INNER_ROOT!r}, {self.proc_fs}, {self.limits.disk_mb}, {self.exe_link!r})"
        boot = f"import sys; sys.path.insert(0, {src!r}); from ecot.sandboxed.supervisor import serve; {serve}"
        # /proc is mounted for the supervisor to enter its own namespaces; it hides it from jobs unless proc_fs
        args = ["bwrap", "--unshare-all", "--die-with-parent", "--as-pid-1", *ro_system_args(), *private_mounts(), *extra]
        for path in self.ro_paths:  # after the private /tmp, which they may live under
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        args += [*source_mounts(), "--proc", "/proc", "--bind", str(self.root), INNER_ROOT, *READ_ONLY_REST]
        args += ["--chdir", INNER_ROOT, "--clearenv"]
        args += ["--setenv", "PATH", BASE_PATH, python, "-I", "-S", "-c", boot]
        uid, limits = self.uid, self.limits
        # bubblewrap's monitor and the supervisor count against the process limit too
        procs = limits.procs + 2 if uid is not None else user_process_count() + limits.procs + 2
        apply_limits = _supervisor.limiter(limits.cpu_s, limits.memory_mb, limits.file_mb, procs, uid)

        def drop() -> None:
            apply_limits()
            os.umask(0o022)  # job dirs stay readable by us, the host

        with no_keyrings_fd() as seccomp:
            proc = subprocess.Popen(with_seccomp(args, seccomp), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    preexec_fn=drop, start_new_session=True, pass_fds=(seccomp,))
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], STARTUP_S)
        hello = _supervisor.read_message(proc.stdout) if ready else None
        if not hello or "ready" not in hello:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"the sandbox supervisor did not start (exit {proc.poll()})")
        if not hello.get("private"):
            warn_shared_workdirs_once()
        self.fresh = bool(hello.get("fresh"))
        return proc

    def alive(self) -> bool:
        return self._proc.poll() is None

    def run(self, jobs: list[dict[str, Any]]) -> dict[str, Any]:
        cwd = Path(jobs[0]["cwd"])
        if self.uid is not None:
            chown_tree(cwd, self.uid)
        # inside, the root is mounted at INNER_ROOT, outside /tmp, which the supervisor empties after each job
        inner = f"{INNER_ROOT}/{cwd.relative_to(self.root)}"
        jobs = [{**job, "cwd": inner, "env": {**job["env"], "HOME": inner}} for job in jobs]
        deadline = sum(job["limits"]["wall_s"] for job in jobs) + 30
        with self._lock:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            try:
                _supervisor.write_message(self._proc.stdin, {"jobs": jobs})
                ready, _, _ = select.select([self._proc.stdout], [], [], deadline)
                reply = _supervisor.read_message(self._proc.stdout) if ready else None
            except (BrokenPipeError, OSError):
                reply = None
        if reply is None:
            self.close()
            return {"error": "the sandbox supervisor died or hung; it will be restarted"}
        if reply.get("supervisor_cpu_s", 0) > self.limits.cpu_s / 2 or reply.get("retire"):
            self.close()  # long before its own CPU limit could end it mid-job, or when it cannot go on
        return reply

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()


MAX_SERVERS = 6  # per process: one per set of limits in use, least recently used retired first
MIN_SERVER_MEMORY_MB = 64  # below this the supervisor could not live under the job's memory limit
STARTUP_S = 60.0
ServerKey = tuple[int, Limits, bool, tuple[str, ...], str | None]  # pid, limits, /proc, read-only folders, exe link
_servers: dict[ServerKey, SandboxServer] = {}
_servers_lock = threading.Lock()
_starting: dict[ServerKey, threading.Lock] = {}


def warn_shared_workdirs_once() -> None:
    warn_once(log, "the sandbox cannot create user namespaces inside bubblewrap: jobs write to the shared work "
              "folder without a size limit of their own (only the per-file limit applies)")


def server_for(limits: Limits, proc_fs: bool = False, ro_paths: tuple[str, ...] = (), exe_link: str | None = None) -> SandboxServer:
    """This process's long-lived sandbox for these limits (and /proc, or a stand-in holding only
    /proc/self/exe -> exe_link; and read-only host folders), (re)started on demand; forks get their own.
    Servers of different kinds start at the same time."""
    key: ServerKey = (os.getpid(), limits, proc_fs, ro_paths, exe_link)
    with _servers_lock:
        starting = _starting.setdefault(key, threading.Lock())
    with starting:  # one start per kind; another kind's start does not wait for it
        with _servers_lock:
            server = _servers.get(key)
        if server is None or not server.alive():
            if server is not None:
                server.close()
            server = SandboxServer(limits, proc_fs, ro_paths, exe_link)
        with _servers_lock:
            _servers.pop(key, None)
            mine = [k for k in _servers if k[0] == os.getpid()]
            if len(mine) >= MAX_SERVERS:
                _servers.pop(mine[0]).close()
            _servers[key] = server  # inserted last: dict order is the LRU order
        return server


def prestart(limits: Limits, proc_fs: bool = False, ro_paths: tuple[str, ...] = (), exe_link: str | None = None) -> None:
    """Start the server of this kind in the background, unless there is one: a backend's first job that
    needs it then waits less (a warm-up; nothing depends on it)."""
    with _servers_lock:
        if (os.getpid(), limits, proc_fs, ro_paths, exe_link) in _servers:
            return
    in_background(lambda: server_for(limits, proc_fs, ro_paths, exe_link))


def shared_root() -> Path:
    """Where this process's work dirs live while sandbox servers are in use: one shared folder."""
    with _root_lock:  # servers may be started from several threads at once: they all share one root
        return _make_shared_root()


def _make_shared_root() -> Path:
    global _shared_root
    if _shared_root is None or _shared_root[0] != os.getpid():
        base = work_root()
        base.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="ecot-sbx-", dir=base))
        root.chmod(0o555)
        _shared_root = (os.getpid(), root)
        # The safety net for a process that never calls close_servers(): the servers and this folder are
        # shared by every backend of the process, so they end with it. Worker processes of
        # multiprocessing pools skip atexit; this hook runs there as well (after the workers' own
        # close of their backends, registered with a higher priority by ecot.executors.local).
        from multiprocessing import util

        util.Finalize(None, close_servers, exitpriority=10)
    return _shared_root[1]


_shared_root: tuple[int, Path] | None = None
_root_lock = threading.Lock()


@atexit.register
def close_servers() -> None:
    """Stop this process's sandbox servers and remove their shared folder; both return on next use.
    Close the backends first: their warm interpreters work in that folder too."""
    for key in [k for k in _servers if k[0] == os.getpid()]:
        _servers.pop(key).close()
    global _shared_root
    if _shared_root is not None and _shared_root[0] == os.getpid():
        root, _shared_root = _shared_root[1], None
        if root.exists():
            root.chmod(0o755)
            shutil.rmtree(root, ignore_errors=True)


def _supervisor_python() -> tuple[str, list[str]]:
    """A Python for the supervisor: the system one, else ours with its prefix mounted read-only."""
    if os.path.exists("/usr/bin/python3"):
        return "/usr/bin/python3", []
    prefix = os.path.realpath(sys.base_prefix)
    return os.path.realpath(sys.executable), ["--ro-bind", prefix, prefix]


def new_served_dir(prefix: str) -> Path:
    """A work dir in the folder shared with this process's sandbox servers. That folder is read-only
    (0555) so a job cannot leave files beside its own dir; we open it only to create a dir."""
    root = shared_root()
    with _servers_lock:
        root.chmod(0o755)
        try:
            return Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        finally:
            root.chmod(0o555)
