"""The one sandboxed runner every backend uses for untrusted work.

Isolation: bubblewrap (no network, read-only system, a private writable work dir, no home, a clean
environment, its own PID namespace so a timeout kills every descendant). Limits: CPU time, wall time,
address space, file size, process count (rlimits) and a cap on captured output. When running as root
the candidate also runs under a throw-away unprivileged uid, so the process limit is enforced and
nothing of root's is readable. Without bubblewrap the runner warns once and keeps the limits only.
"""

from __future__ import annotations

import itertools
import logging
import os
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ecot.task import Limits

log = logging.getLogger(__name__)

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
_SYSTEM_RO = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin")
_ETC_RO = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_UID_BASE, _UID_SPAN = 200_000, 50_000
_uid_counter = itertools.count()
_warned = threading.Event()


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
        """The signal that ended the program, if any (also through bubblewrap's 128+N convention)."""
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
    return _bwrap_works()


_bwrap_cache: list[bool] = []


def _bwrap_works() -> bool:
    if not _bwrap_cache:
        exe = shutil.which("bwrap")
        ok = False
        if exe:
            probe = subprocess.run(
                [exe, "--unshare-all", "--die-with-parent", *_ro_system_args(), "--proc", "/proc", "true"],
                capture_output=True,
                timeout=20,
            )
            ok = probe.returncode == 0
        _bwrap_cache.append(ok)
    return _bwrap_cache[0]


def _ro_system_args() -> list[str]:
    args: list[str] = []
    for path in (*_SYSTEM_RO, *_ETC_RO):
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def warn_unisolated_once() -> None:
    if not _warned.is_set():
        _warned.set()
        log.warning(
            "bubblewrap (bwrap) is unavailable or disabled: candidates run with resource limits only, "
            "without network or file-system isolation. Install bubblewrap for real isolation."
        )


@contextmanager
def workdir(prefix: str = "ecot-") -> Iterator[Path]:
    """A private scratch folder for one evaluation, removed afterwards whatever happens."""
    base = Path(os.environ.get("ECOT_WORK_ROOT", tempfile.gettempdir()))
    base.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def write_files(folder: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def run(
    argv: Sequence[str],
    cwd: Path,
    limits: Limits,
    *,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    ro_paths: Sequence[str] = (),
    proc_fs: bool = True,
) -> ExecResult:
    """Run argv inside the sandbox with cwd as its only writable folder.

    proc_fs=False leaves /proc out, so the program cannot read its own memory or open files of others.
    """
    cwd = Path(cwd).resolve()
    isolated = bwrap_available()
    if not isolated:
        warn_unisolated_once()
    uid = _sandbox_uid()
    if uid is not None:
        _chown_tree(cwd, uid)
    environment = {"PATH": BASE_PATH, "HOME": str(cwd), "TMPDIR": "/tmp", "LANG": "C.UTF-8", **(env or {})}
    command = _bwrap_prefix(cwd, environment, limits, ro_paths, proc_fs) + list(argv) if isolated else list(argv)
    start = time.monotonic()
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=environment,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_limiter(limits, uid),
    )
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc, stdin), daemon=True).start()
    out, err, timed_out, overflow = _collect(proc, limits, start)
    returncode = _reap(proc)
    if uid is not None and not isolated:
        _kill_uid(uid)
    return ExecResult(
        returncode=returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        timed_out=timed_out,
        output_overflow=overflow,
        wall_s=time.monotonic() - start,
        isolated=isolated,
    )


def _bwrap_prefix(
    cwd: Path, env: Mapping[str, str], limits: Limits, ro_paths: Sequence[str], proc_fs: bool
) -> list[str]:
    args = ["bwrap", "--unshare-all", "--die-with-parent", *_ro_system_args()]
    for path in ro_paths:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    args += ["--proc", "/proc"] if proc_fs else []
    args += ["--dev", "/dev"]
    args += ["--size", str(limits.file_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    args += ["--bind", str(cwd), str(cwd), "--chdir", str(cwd), "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def _sandbox_uid() -> int | None:
    """As root, each run gets its own unprivileged uid so RLIMIT_NPROC binds and root's files stay closed."""
    if os.geteuid() != 0:
        return None
    return _UID_BASE + (os.getpid() * 131 + next(_uid_counter)) % _UID_SPAN


def _chown_tree(root: Path, uid: int) -> None:
    os.chown(root, uid, uid)
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _user_process_count() -> int:
    uid = os.getuid()
    return sum(1 for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) == uid)


def _owner(path: Path) -> int | None:
    try:
        return path.stat().st_uid
    except OSError:
        return None


def _limiter(limits: Limits, uid: int | None):
    procs = limits.procs if uid is not None else _user_process_count() + limits.procs
    memory = limits.memory_mb * 1024 * 1024
    fsize = limits.file_mb * 1024 * 1024
    cpu = max(1, int(limits.cpu_s + 0.999))

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_NPROC, (procs, procs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.umask(0o077)
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    return apply


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except OSError:  # the program exited or closed its input early
        pass


def _collect(proc: subprocess.Popen[bytes], limits: Limits, start: float) -> tuple[bytes, bytes, bool, bool]:
    """Read both pipes until EOF, the wall limit, or the output cap; kill the group on the last two."""
    cap = limits.output_kb * 1024
    chunks: dict[int, bytearray] = {}
    selector = selectors.DefaultSelector()
    for pipe in (proc.stdout, proc.stderr):
        assert pipe is not None
        chunks[pipe.fileno()] = bytearray()
        selector.register(pipe, selectors.EVENT_READ)
    timed_out = overflow = False
    while selector.get_map():
        remaining = limits.wall_s - (time.monotonic() - start)
        if remaining <= 0:
            timed_out = True
            break
        for key, _ in selector.select(timeout=min(remaining, 0.5)):
            data = os.read(key.fd, 65536)
            if not data:
                selector.unregister(key.fileobj)
                continue
            chunks[key.fd] += data
        if sum(len(c) for c in chunks.values()) > cap:
            overflow = True
            break
    selector.close()
    if timed_out or overflow:
        _kill_group(proc)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = bytes(chunks[proc.stdout.fileno()][:cap]), bytes(chunks[proc.stderr.fileno()][:cap])
    proc.stdout.close()
    proc.stderr.close()
    return out, err, timed_out, overflow


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(proc: subprocess.Popen[bytes]) -> int:
    returncode = proc.wait()
    _kill_group(proc)  # descendants still in the group
    return returncode


def _kill_uid(uid: int) -> None:
    """Without a PID namespace, end every process left under the run's private uid."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _owner(entry) == uid:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
