"""The one sandboxed runner every backend uses for untrusted work.

Isolation: bubblewrap (no network, read-only system, a private writable work dir, no home, a clean
environment, a private PID namespace so a timeout ends every descendant). Limits: CPU time, wall time,
address space, file size, process count (rlimits) and a cap on captured output. As root, candidates
run under a throw-away unprivileged uid, so the process limit binds and root's files stay closed.
Without bubblewrap the runner warns once and keeps the limits only.

Speed: starting a bubblewrap sandbox costs a few milliseconds, as much as a small simulation. Jobs
that need no /proc therefore run in one long-lived sandbox per process, whose supervisor (PID 1 in
there) ends every leftover process and empties /tmp after each job. Jobs that need /proc or extra
read-only paths get a fresh sandbox each.
"""

from __future__ import annotations

import atexit
import base64
import itertools
import logging
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ecot import _supervisor
from ecot.task import Limits

log = logging.getLogger(__name__)

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
_SYSTEM_RO = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin")
_ETC_RO = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_UID_BASE, _UID_SPAN = 200_000, 50_000
_TMP_BYTES = 256 * 1024 * 1024
INNER_ROOT = "/ecot"
_uid_counter = itertools.count()
_warned = threading.Event()
_bwrap_cache: list[bool] = []


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the program inside it)."""


@dataclass(frozen=True)
class ExecResult:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    output_overflow: bool
    wall_s: float
    isolated: bool

    @property
    def signal(self) -> int | None:
        """The signal that ended the program, if any (also through a shell's 128+N convention)."""
        code = self.returncode
        if code is None:
            return None
        if code < 0:
            return -code
        if self.isolated and 128 < code < 128 + 65:
            return code - 128
        return None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.output_overflow

    @property
    def output(self) -> str:
        return self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr


def bwrap_available() -> bool:
    if os.environ.get("ECOT_SANDBOX") == "rlimits":
        return False
    if not _bwrap_cache:
        exe = shutil.which("bwrap")
        ok = False
        if exe:
            probe = subprocess.run(
                [exe, "--unshare-all", "--die-with-parent", *_ro_system_args(), "true"], capture_output=True, timeout=20
            )
            ok = probe.returncode == 0
        _bwrap_cache.append(ok)
    return _bwrap_cache[0]


def warn_unisolated_once() -> None:
    if not _warned.is_set():
        _warned.set()
        log.warning(
            "bubblewrap (bwrap) is unavailable or disabled: candidates run with resource limits only, "
            "without network or file-system isolation. Install bubblewrap for real isolation."
        )


def _ro_system_args() -> list[str]:
    args: list[str] = []
    for path in (*_SYSTEM_RO, *_ETC_RO):
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


# After all mounts: the sandbox's own root and /dev become read-only, so nothing a job writes outside
# its work dir, /tmp and /dev/shm can persist (e.g. an /etc/ld.so.preload planted for later jobs).
_READ_ONLY_REST = ("--remount-ro", "/dev", "--remount-ro", "/")


def _private_mounts() -> list[str]:
    size = str(_TMP_BYTES)
    return ["--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp"]


def _work_root() -> Path:
    return Path(os.environ.get("ECOT_WORK_ROOT", tempfile.gettempdir()))


@contextmanager
def workdir(prefix: str = "ecot-") -> Iterator[Path]:
    """A private scratch folder for one evaluation, removed afterwards whatever happens."""
    if bwrap_available():
        path = _new_served_dir(prefix)
    else:
        base = _work_root()
        base.mkdir(parents=True, exist_ok=True)
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _new_served_dir(prefix: str) -> Path:
    """A work dir in the folder shared with this process's sandbox servers. That folder is read-only
    (0555) so a job cannot leave files beside its own dir; we open it only to create a dir."""
    root = _server_root()
    with _servers_lock:
        root.chmod(0o755)
        try:
            return Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        finally:
            root.chmod(0o555)


def write_files(folder: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class Step:
    """One command of a sandboxed pipeline.

    feeds: files delivered through named pipes in the work dir, readable once (opening one again
    blocks), so a program cannot re-read e.g. a testbench holding a secret. feed_files: pipe name ->
    a file an earlier step wrote, moved into a read-once pipe for this step.
    """

    argv: Sequence[str]
    feeds: Mapping[str, bytes] = field(default_factory=dict)
    feed_files: Mapping[str, str] = field(default_factory=dict)
    stdin: bytes | None = None


def run(
    argv: Sequence[str],
    cwd: Path,
    limits: Limits,
    *,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    ro_paths: Sequence[str] = (),
    proc_fs: bool = False,
    feeds: Mapping[str, bytes] | None = None,
) -> ExecResult:
    """Run argv inside the sandbox with cwd as its only writable folder (see Step for feeds)."""
    step = Step(argv, feeds or {}, stdin=stdin)
    return run_steps([step], cwd, limits, env=env, ro_paths=ro_paths, proc_fs=proc_fs)[0]


def run_steps(
    steps: Sequence[Step],
    cwd: Path,
    limits: Limits,
    *,
    env: Mapping[str, str] | None = None,
    ro_paths: Sequence[str] = (),
    proc_fs: bool = False,
) -> list[ExecResult]:
    """Run steps in order in one sandbox, stopping after the first that fails; one result per step run.

    proc_fs=True mounts /proc (some toolchains need it) at the price of a fresh sandbox per call.
    """
    cwd = Path(cwd).resolve()
    isolated = bwrap_available()
    if not isolated:
        warn_unisolated_once()
    environment = {"PATH": BASE_PATH, "HOME": str(cwd), "TMPDIR": "/tmp", "LANG": "C.UTF-8", **(env or {})}
    jobs = [_job(step, cwd, environment, limits) for step in steps]
    served = isolated and not proc_fs and not ro_paths and limits.memory_mb >= MIN_SERVER_MEMORY_MB
    if served and cwd.is_relative_to(_server_root()):
        reply = _server(limits).run(jobs)
    else:
        reply = _one_shot(jobs, cwd, isolated, ro_paths, proc_fs)
    if "error" in reply:
        raise SandboxError(reply["error"])
    return [_result(r, isolated) for r in reply["results"]]


def _job(step: Step, cwd: Path, env: dict[str, str], limits: Limits) -> dict[str, Any]:
    return {
        "argv": list(step.argv),
        "cwd": str(cwd),
        "env": env,
        "limits": limits.to_dict(),
        "stdin": base64.b64encode(step.stdin).decode() if step.stdin is not None else None,
        "feeds": {name: base64.b64encode(data).decode() for name, data in step.feeds.items()},
        "feed_files": dict(step.feed_files),
    }


def _result(raw: dict[str, Any], isolated: bool) -> ExecResult:
    return ExecResult(
        returncode=raw["returncode"],
        stdout=base64.b64decode(raw["stdout"]).decode("utf-8", "replace"),
        stderr=base64.b64decode(raw["stderr"]).decode("utf-8", "replace"),
        timed_out=raw["timed_out"],
        output_overflow=raw["output_overflow"],
        wall_s=raw["wall_s"],
        isolated=isolated,
    )


def _one_shot(jobs: list[dict[str, Any]], cwd: Path, isolated: bool, ro_paths: Sequence[str], proc_fs: bool) -> dict[str, Any]:
    """A fresh sandbox per step (or only rlimits, without bubblewrap)."""
    uid = _sandbox_uid()
    if uid is not None:
        _chown_tree(cwd, uid)
    prefix: list[str] = []
    if isolated:
        prefix = ["bwrap", "--unshare-all", "--die-with-parent", *_ro_system_args()]
        for path in ro_paths:
            if os.path.exists(path):
                prefix += ["--ro-bind", path, path]
        prefix += ["--proc", "/proc"] if proc_fs else []
        prefix += [*_private_mounts(), "--bind", str(cwd), str(cwd), *_READ_ONLY_REST, "--chdir", str(cwd), "--clearenv"]
        for key, value in jobs[0]["env"].items():
            prefix += ["--setenv", key, value]
    elif uid is None:
        jobs = [{**job, "limits": {**job["limits"], "procs": _user_process_count() + job["limits"]["procs"]}} for job in jobs]
    jobs = [{**job, "argv": prefix + job["argv"]} for job in jobs]
    try:
        return {"results": _supervisor.run_jobs(jobs, uid)}
    finally:
        if uid is not None and not isolated:
            _kill_uid(uid)


class SandboxServer:
    """A long-lived bubblewrap sandbox running the supervisor; jobs run in folders under `root`.

    The supervisor itself runs under one set of limits as hard rlimits, so every job it spawns
    inherits them from the first instruction on, at no per-job cost; a process keeps one server per
    set of limits in use.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.owner = os.getpid()
        self.root = _server_root()
        self.uid = _sandbox_uid()  # the root stays owned by us: jobs cannot create files beside their dirs
        self._lock = threading.Lock()
        self._proc = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        python, extra = _supervisor_python()
        args = ["bwrap", "--unshare-all", "--die-with-parent", "--as-pid-1", *_ro_system_args(), *extra]
        args += [*_private_mounts(), "--bind", str(self.root), INNER_ROOT, *_READ_ONLY_REST]
        args += ["--chdir", INNER_ROOT, "--clearenv"]
        args += ["--setenv", "PATH", BASE_PATH, python, "-I", "-S", "-c", Path(_supervisor.__file__).read_text()]
        uid, limits = self.uid, self.limits
        # bubblewrap's monitor and the supervisor count against the process limit too
        procs = limits.procs + 2 if uid is not None else _user_process_count() + limits.procs + 2
        apply_limits = _supervisor.limiter(limits.cpu_s, limits.memory_mb, limits.file_mb, procs, uid)

        def drop() -> None:
            apply_limits()
            os.umask(0o022)  # job dirs stay readable by us, the host

        return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=drop, start_new_session=True)

    def alive(self) -> bool:
        return self._proc.poll() is None

    def run(self, jobs: list[dict[str, Any]]) -> dict[str, Any]:
        cwd = Path(jobs[0]["cwd"])
        if self.uid is not None:
            _chown_tree(cwd, self.uid)
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
        if reply.get("supervisor_cpu_s", 0) > self.limits.cpu_s / 2:
            self.close()  # retire it long before its own CPU limit could end it mid-job
        return reply

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()


MAX_SERVERS = 4  # per process: one per set of limits in use, least recently used retired first
MIN_SERVER_MEMORY_MB = 64  # below this the supervisor could not live under the job's memory limit
_servers: dict[tuple[int, Limits], SandboxServer] = {}
_servers_lock = threading.Lock()


def _server(limits: Limits) -> SandboxServer:
    """This process's long-lived sandbox for these limits, (re)started on demand; forks get their own."""
    key = (os.getpid(), limits)
    with _servers_lock:
        server = _servers.pop(key, None)
        if server is None or not server.alive():
            if server is not None:
                server.close()
            mine = [k for k in _servers if k[0] == os.getpid()]
            if len(mine) >= MAX_SERVERS:
                _servers.pop(mine[0]).close()
            server = SandboxServer(limits)
        _servers[key] = server  # re-inserted last: dict order is the LRU order
        return server


def _server_root() -> Path:
    """Where this process's work dirs live while sandbox servers are in use: one shared folder."""
    global _shared_root
    if _shared_root is None or _shared_root[0] != os.getpid():
        base = _work_root()
        base.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="ecot-sbx-", dir=base))
        root.chmod(0o555)
        _shared_root = (os.getpid(), root)
        # worker processes of multiprocessing pools skip atexit; this hook runs there as well
        from multiprocessing import util

        util.Finalize(None, _close_servers, exitpriority=10)
    return _shared_root[1]


_shared_root: tuple[int, Path] | None = None


@atexit.register
def _close_servers() -> None:
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


def _sandbox_uid() -> int | None:
    """As root, each sandbox gets its own unprivileged uid."""
    if os.geteuid() != 0:
        return None
    return _UID_BASE + (os.getpid() * 131 + next(_uid_counter)) % _UID_SPAN


def _chown_tree(root: Path, uid: int) -> None:
    os.chown(root, uid, uid)
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _owner(path: Path) -> int | None:
    try:
        return path.stat().st_uid
    except OSError:
        return None


def _user_process_count() -> int:
    uid = os.getuid()
    return sum(1 for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) == uid)


def _kill_uid(uid: int) -> None:
    """Without a PID namespace, end every process left under the run's private uid."""
    import signal

    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _owner(entry) == uid:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
