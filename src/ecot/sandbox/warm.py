"""Warm sandboxed Python interpreters, for backends whose toolchain is a slow-to-import library.

    with WarmPython(("cadquery",)) as runner:    # owned by a backend: started by prepare(), stopped by close()
        with sandbox.workdir() as work:
            result = runner.run(work, HARNESS_SOURCE, limits, feeds={"candidate.py": code.encode()})

Each job is Python source run as __main__ in a fresh fork of an interpreter that imported the
preload modules once (see _zygote.py), inside bubblewrap with the same isolation as every other job:
no network, read-only system and virtualenv, private /tmp, its own work dir, rlimits per job, and a
wall limit after which the job's whole process group dies. A zygote that dies or hangs is replaced;
the job is reported as a SandboxError (an infrastructure failure, never the candidate's fault).
Without bubblewrap the zygote runs unisolated, like the one-shot fallback.
"""

from __future__ import annotations

import base64
import functools
import logging
import os
import select
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

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
from ecot.sandbox.runner import ExecResult, SandboxError, _result, bwrap_available, warn_unisolated_once
from ecot.sandbox.seccomp import no_keyrings_fd, with_seccomp
from ecot.sandbox.server import INNER_ROOT, shared_root, warn_shared_workdirs_once
from ecot.sandbox.spawn import outliving_threads
from ecot.sandboxed import supervisor as _supervisor

log = logging.getLogger(__name__)
SOURCE = str(Path(__file__).resolve().parents[2])  # the folder holding the ecot package
ZYGOTE_PROCS = 256  # hard ceiling for everything in one zygote's sandbox; jobs get their own lower limit
STARTUP_S = 180.0


@dataclass(frozen=True)
class Interpreter:
    """Which Python a WarmPython runs and what its jobs find there (default: ours, as a tool job's)."""

    python: str | None = None  # another interpreter (e.g. /usr/bin/python3 for candidates: standard library only)
    flags: tuple[str, ...] = ()  # its flags, for `python` (ours runs with -I)
    env: tuple[tuple[str, str], ...] = ()  # set when it starts, so every job inherits it (PYTHONHASHSEED)
    files: tuple[tuple[str, str], ...] = ()  # module name -> source file, imported before the first job
    proc: bool = True  # jobs see /proc
    source_on_path: bool = True  # jobs can import ecot's source (False: only what `python` itself finds)


class WarmPython:
    def __init__(self, preload: Sequence[str], interpreter: Interpreter = Interpreter()) -> None:
        self.preload = tuple(preload)
        self.interpreter = interpreter
        self.isolated = bwrap_available()
        if not self.isolated:
            warn_unisolated_once()
        self.root = shared_root()
        self.uid = sandbox_uid()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._home: str | None = None  # the unisolated interpreter's scratch home
        self._safety_net: weakref.finalize[Any, Any] | None = None
        self._fresh = False  # whether the interpreter gives each job a fresh IPC namespace (it says so)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    @property
    def reusable(self) -> bool:
        """Whether jobs share the started interpreter (it gives each job namespaces of its own); False
        where it is restarted after every job."""
        return self._fresh or not self.isolated

    @property
    def pid(self) -> int | None:
        """The interpreter's process id while it runs, else None."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def start(self) -> None:
        """Start the interpreter now (the preload import is paid here, not by the first job)."""
        with self._lock:
            self._ensure_running()

    # -- lifecycle -----------------------------------------------------------------------------------
    def _command(self) -> list[str]:
        spec = self.interpreter
        if spec.python is None:
            python, mounts, site_dirs = sandbox_python(self.uid)
            flags = ["-I", *(["-S"] if site_dirs else [])]
        else:
            python, mounts, site_dirs, flags = spec.python, [], [], list(spec.flags)
        sites = f"import site; [site.addsitedir(d) for d in {site_dirs!r}]; " if site_dirs else ""
        options = f"files={dict(spec.files)!r}, keep_proc={spec.proc}, drop_path={None if spec.source_on_path else SOURCE!r}"
        boot = (
            f"import sys; sys.path.insert(0, {SOURCE!r}); {sites}"
            f"from ecot.sandboxed.zygote import main; main({list(self.preload)!r}, {self.uid is not None}, "
            f"{INNER_ROOT if self.isolated else None!r}, {options})"
        )
        command = [python, *flags, "-c", boot]
        if not self.isolated:
            return command
        # the private /tmp comes first: the checkout or the venv bound next may live under /tmp
        args = ["bwrap", "--unshare-all", "--die-with-parent", "--as-pid-1", *ro_system_args(), *private_mounts()]
        for path in sorted(set(mounts)):
            args += ["--ro-bind", path, path]
        # ecot without its bundled suites; /proc for the interpreter, each job gets one of its own (_zygote)
        args += [*source_mounts(), "--proc", "/proc", "--bind", str(self.root), INNER_ROOT, *READ_ONLY_REST]
        args += ["--chdir", INNER_ROOT, "--clearenv"]
        for key, value in self._environment("/tmp").items():
            args += ["--setenv", key, value]
        return args + command

    def _environment(self, home: str) -> dict[str, str]:
        """The interpreter's environment: nothing of ours (no secrets), a writable home and cache."""
        return {"PATH": BASE_PATH, "HOME": home, "XDG_CACHE_HOME": home, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                **dict(self.interpreter.env)}

    def _start(self) -> subprocess.Popen[bytes]:
        uid = self.uid
        procs = ZYGOTE_PROCS if uid is not None else user_process_count() + ZYGOTE_PROCS

        def ceilings() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_NPROC, (procs, procs))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)

        env = None
        if not self.isolated:
            home = self._home = tempfile.mkdtemp(prefix="ecot-home-", dir=work_root())
            if uid is not None:
                os.chown(home, uid, uid)
            env = self._environment(home)
        with ExitStack() as stack:
            command, fds = self._command(), []
            if self.isolated:  # bubblewrap reads the seccomp program (no keyrings) from this descriptor
                fds.append(stack.enter_context(no_keyrings_fd()))
                command = with_seccomp(command, fds[0])
            proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=ceilings, start_new_session=True, env=env,
                pass_fds=fds,
            )
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], STARTUP_S)
        hello = _supervisor.read_message(proc.stdout) if ready else None
        if not hello or "ready" not in hello:
            proc.kill()
            proc.wait()
            raise SandboxError(f"the warm Python for {self.preload} did not start (exit {proc.poll()})")
        if self.isolated and not hello.get("contained"):
            warn_shared_workdirs_once()
        self._fresh = bool(hello.get("fresh"))
        if self.isolated and not self._fresh:
            warn_restarts_once()
        return proc

    def _ensure_running(self) -> subprocess.Popen[bytes]:
        """The running interpreter, started anew if there is none or it died (the caller holds the lock)."""
        if self._proc is None or self._proc.poll() is not None:
            self._stop()
            self._launch()
        assert self._proc is not None
        return self._proc

    def _launch(self) -> None:
        try:
            self._proc = outliving_threads(self._start)
        except BaseException:
            if self._home is not None:
                shutil.rmtree(self._home, ignore_errors=True)
                self._home = None
            raise
        # The safety net: an owner that never calls close() (a crash, an interpreter exit without the
        # backend's close) must not leave the interpreter running; the normal path is close().
        self._safety_net = weakref.finalize(self, _stop_process, self._proc, self._home)

    def close(self) -> None:
        """Stop the interpreter; a later start() or job starts a new one."""
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        if self._safety_net is not None:
            self._safety_net()  # runs _stop_process once and disarms the net
            self._safety_net = None
        self._proc, self._home = None, None

    # -- jobs ------------------------------------------------------------------------------------------
    def run(
        self,
        cwd: Path,
        code: str,
        limits: Limits,
        *,
        argv: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        feeds: Mapping[str, bytes] | None = None,
        filename: str = "<job>",
    ) -> ExecResult:
        """Run `code` as __main__ in a fresh fork, with cwd (a sandbox.workdir()) as its work dir."""
        cwd = Path(cwd).resolve()
        if self.isolated and not cwd.is_relative_to(self.root):
            raise SandboxError(f"{cwd} is not a sandbox.workdir() folder")
        inner = f"{INNER_ROOT}/{cwd.relative_to(self.root)}" if self.isolated else str(cwd)
        job: dict[str, Any] = {
            "code": code,
            "filename": filename,
            "argv": [filename, *argv],
            "cwd": inner,
            "env": {"PATH": BASE_PATH, "HOME": inner, "TMPDIR": "/tmp", "LANG": "C.UTF-8", **(env or {})},
            "limits": limits.to_dict(),
            "feeds": {name: base64.b64encode(data).decode() for name, data in (feeds or {}).items()},
        }
        if self.uid is not None:
            chown_tree(cwd, self.uid)
        reply = self._exchange(job, limits.wall_s + 30)
        if "error" in reply:
            raise SandboxError(reply["error"])
        return _result(reply["results"][0], self.isolated)

    def _exchange(self, job: dict[str, Any], deadline: float) -> dict[str, Any]:
        with self._lock:
            proc = self._ensure_running()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                _supervisor.write_message(proc.stdin, {"job": job})
                ready, _, _ = select.select([proc.stdout], [], [], deadline)
                reply = _supervisor.read_message(proc.stdout) if ready else None
            except (BrokenPipeError, OSError):
                reply = None
            if reply is None:
                self._stop()
                return {"error": "the warm Python died or hung; it will be restarted"}
            if reply.get("retire") or (self.isolated and not self._fresh):
                self._stop()  # the next job must not share this job's kernel objects: a new sandbox
            return reply


def sandbox_python(uid: int | None) -> tuple[str, list[str], list[str]]:
    """A Python for sandboxed jobs that use our packages: (python, folders to mount read-only, site
    folders to add). Ours, if the sandbox's uid can reach it; else (ours lives in a closed home, e.g.
    /root) the system Python of the same version reading our virtualenv's site-packages, which it can
    reach."""
    prefixes = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)]
    if uid is None or all(_reachable(p) for p in prefixes):
        return sys.executable, prefixes, []
    system = "/usr/bin/python3"
    sites = sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")})
    if os.path.exists(system) and _version(system) == tuple(sys.version_info[:2]) and all(map(_reachable, sites)):
        return system, sites, sites
    raise SandboxError(f"no Python the sandbox user can reach: {prefixes[-1]} is in a closed folder")


def warn_restarts_once() -> None:
    warn_once(log, "the sandbox cannot create namespaces of its own: every warm Python is restarted after each job "
              "(seconds per job) so that no job shares kernel objects with the next")


def _reachable(path: str) -> bool:
    """Whether a user who is neither owner nor group can reach path (every folder above is o+x)."""
    parts = Path(path).resolve().parts
    return all(os.stat(Path(*parts[: i + 1])).st_mode & 0o001 for i in range(1, len(parts)))


K = TypeVar("K", bound=Hashable)


class WarmSet(Generic[K]):
    """A backend's warm interpreters, one per key (a preload set, with or without a GPU), each made on
    first use by `make(key)` and all stopped by close(); a later get() makes a new one."""

    def __init__(self, make: Callable[[K], WarmPython]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._warm: dict[K, WarmPython] = {}

    def get(self, key: K) -> WarmPython:
        with self._lock:
            if key not in self._warm:
                self._warm[key] = self._make(key)
            return self._warm[key]

    def close(self) -> None:
        with self._lock:
            warm = list(self._warm.values())
            self._warm.clear()
        for interpreter in warm:
            interpreter.close()


@functools.cache
def _version(python: str) -> tuple[int, ...]:
    out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True)
    return tuple(int(x) for x in out.stdout.split())


def _stop_process(proc: subprocess.Popen[bytes], home: str | None) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)
