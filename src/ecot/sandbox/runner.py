"""The one sandboxed runner every backend uses for untrusted work.

Isolation: bubblewrap (no network, read-only system, a private writable work dir, no home, a clean
environment, a private PID namespace so a timeout ends every descendant). Limits: CPU time, wall time,
address space, file size, process count (rlimits) and a cap on captured output. As root, candidates
run under a throw-away unprivileged uid, so the process limit binds and root's files stay closed.
Without bubblewrap the runner warns once and keeps the limits only.

Speed: starting a bubblewrap sandbox costs a few milliseconds, as much as a small simulation. Jobs
therefore run in one long-lived sandbox per process and kind (limits, /proc or not, extra read-only
folders), whose supervisor (PID 1 in there) ends every leftover process, empties /tmp and moves to a
new IPC namespace after each job. Jobs outside the shared work root or with too little memory for a
supervisor get a fresh sandbox each, as do all jobs where the sandbox cannot have namespaces of its own
(nothing of one job may reach the next).
"""

from __future__ import annotations

import base64
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecot.core.task import Limits
from ecot.sandbox.isolation import (
    BASE_PATH,
    READ_ONLY_REST,
    chown_tree,
    kill_uid,
    private_mounts,
    read_job_file,
    ro_system_args,
    sandbox_uid,
    user_process_count,
    warn_once,
    work_root,
)
from ecot.sandbox.seccomp import no_keyrings_fd, with_seccomp
from ecot.sandbox.server import (
    MIN_SERVER_MEMORY_MB,
    new_served_dir,
    server_for,
    shared_root,
)
from ecot.sandbox.server import prestart as _prestart
from ecot.sandboxed import supervisor as _supervisor

log = logging.getLogger(__name__)

__all__ = ["ExecResult", "Gate", "SandboxError", "Step", "prestart", "read_job_file", "run", "run_steps", "workdir", "write_files"]

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
    cpu_s: float | None = None  # CPU time of the step's process tree, from the kernel (None where not measured)

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
                [exe, "--unshare-all", "--die-with-parent", *ro_system_args(), "true"], capture_output=True, timeout=20
            )
            ok = probe.returncode == 0
        _bwrap_cache.append(ok)
    return _bwrap_cache[0]


def warn_unisolated_once() -> None:
    warn_once(log, "bubblewrap (bwrap) is unavailable or disabled: candidates run with resource limits only, "
              "without network or file-system isolation. Install bubblewrap for real isolation.")


@contextmanager
def workdir(prefix: str = "ecot-") -> Iterator[Path]:
    """A private scratch folder for one evaluation, removed afterwards whatever happens."""
    if bwrap_available():
        path = new_served_dir(prefix)
    else:
        base = work_root()
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


@dataclass(frozen=True)
class Gate:
    """Run a step only if the step before it printed a line holding the secret `tag` whose text after the
    tag matches `pattern` (the testbench's own pass line): work a verdict needs only after a pass, without
    a second sandbox request. The host judges the output again; the gate only saves work."""

    tag: str
    pattern: str


@dataclass(frozen=True)
class Step:
    """One command of a sandboxed pipeline.

    feeds: files delivered through named pipes in the work dir, readable once (opening one again
    blocks), so a program cannot re-read e.g. a testbench holding a secret. feed_files: pipe name ->
    a file an earlier step wrote, moved into a read-once pipe for this step. fresh: regular files
    written as this step starts, once every process of the steps before has ended, under names that must
    be free then (for a tool that seeks in its input, which a pipe does not allow); a step whose files
    cannot be written there (a taken name, a full work dir) is not run, as if its gate were closed.
    """

    argv: Sequence[str]
    feeds: Mapping[str, bytes] = field(default_factory=dict)
    feed_files: Mapping[str, str] = field(default_factory=dict)
    stdin: bytes | None = None
    fresh: Mapping[str, bytes] = field(default_factory=dict)
    cpu_s: float | None = None  # a CPU budget of this step's own, below the limits' cpu_s (None: theirs)
    output_kb: int | None = None  # an output cap of this step's own (None: the limits')
    after: Gate | None = None  # run only after the step before printed this (None: always)


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
    cpu_s: float | None = None,
    exe_link: str | None = None,
) -> ExecResult:
    """Run argv inside the sandbox with cwd as its only writable folder (see Step for feeds and cpu_s,
    run_steps for exe_link)."""
    step = Step(argv, feeds or {}, stdin=stdin, cpu_s=cpu_s)
    return run_steps([step], cwd, limits, env=env, ro_paths=ro_paths, proc_fs=proc_fs, exe_link=exe_link)[0]


def run_steps(
    steps: Sequence[Step],
    cwd: Path,
    limits: Limits,
    *,
    env: Mapping[str, str] | None = None,
    ro_paths: Sequence[str] = (),
    proc_fs: bool = False,
    exe_link: str | None = None,
) -> list[ExecResult]:
    """Run steps in order in one sandbox, stopping after the first that fails (or before one whose gate
    is not met); one result per step run.

    proc_fs=True mounts /proc (some toolchains need it); without it, exe_link makes a stand-in /proc
    holding only self/exe, a link to that program (Yosys finds its data through it, and nothing else
    there); ro_paths shows those host folders read-only at their own paths (e.g. a virtualenv a tool
    loads); each kind of sandbox is kept for later calls.
    """
    cwd = Path(cwd).resolve()
    isolated = bwrap_available()
    if not isolated:
        warn_unisolated_once()
    environment = {"PATH": BASE_PATH, "HOME": str(cwd), "TMPDIR": "/tmp", "LANG": "C.UTF-8", **(env or {})}
    jobs = [_job(step, cwd, environment, limits) for step in steps]
    served = isolated and limits.memory_mb >= MIN_SERVER_MEMORY_MB and cwd.is_relative_to(shared_root())
    link = None if proc_fs else exe_link
    server = server_for(limits, proc_fs, tuple(ro_paths), link) if served else None
    if server is not None and server.fresh:
        reply = server.run(jobs)
    else:  # a server that cannot give each request fresh namespaces is never used (a fresh sandbox per step)
        reply = _one_shot(jobs, cwd, isolated, ro_paths, proc_fs, link)
    if "error" in reply:
        raise SandboxError(reply["error"])
    return [_result(r, isolated) for r in reply["results"]]


def prestart(limits: Limits, *, proc_fs: bool = False, ro_paths: Sequence[str] = (), exe_link: str | None = None) -> None:
    """Start, in the background, the long-lived sandbox that jobs with these limits (and /proc or an
    exe link, and read-only folders) will run in, so that the first of them does not wait for it."""
    if bwrap_available() and limits.memory_mb >= MIN_SERVER_MEMORY_MB:
        _prestart(limits, proc_fs, tuple(ro_paths), None if proc_fs else exe_link)


def _job(step: Step, cwd: Path, env: dict[str, str], limits: Limits) -> dict[str, Any]:
    own = limits.to_dict()
    if step.cpu_s is not None:
        own["cpu_s"] = min(limits.cpu_s, step.cpu_s)
    if step.output_kb is not None:
        own["output_kb"] = step.output_kb
    gate = {"only_after": {"tag": step.after.tag, "pattern": step.after.pattern}} if step.after is not None else {}
    return {
        **gate,
        "argv": list(step.argv),
        "cwd": str(cwd),
        "env": env,
        "limits": own,
        "stdin": base64.b64encode(step.stdin).decode() if step.stdin is not None else None,
        "feeds": {name: base64.b64encode(data).decode() for name, data in step.feeds.items()},
        "feed_files": dict(step.feed_files),
        "fresh": {name: base64.b64encode(data).decode() for name, data in step.fresh.items()},
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
        cpu_s=raw.get("cpu_s"),
    )


def _one_shot(jobs: list[dict[str, Any]], cwd: Path, isolated: bool, ro_paths: Sequence[str], proc_fs: bool,
              exe_link: str | None = None) -> dict[str, Any]:
    """A fresh sandbox per step (or only rlimits, without bubblewrap)."""
    uid = sandbox_uid()
    if uid is not None:
        chown_tree(cwd, uid)
    prefix: list[str] = []
    if isolated:
        # the private /tmp comes first: anything bound later may live under /tmp (a checkout, a venv)
        prefix = ["bwrap", "--unshare-all", "--die-with-parent", *ro_system_args(), *private_mounts()]
        for path in ro_paths:
            if os.path.exists(path):
                prefix += ["--ro-bind", path, path]
        prefix += ["--proc", "/proc"] if proc_fs else []
        prefix += ["--dir", "/proc/self", "--symlink", exe_link, "/proc/self/exe"] if exe_link else []
        prefix += ["--bind", str(cwd), str(cwd), *READ_ONLY_REST, "--chdir", str(cwd), "--clearenv"]
        for key, value in jobs[0]["env"].items():
            prefix += ["--setenv", key, value]
    elif uid is None:
        jobs = [{**job, "limits": {**job["limits"], "procs": user_process_count() + job["limits"]["procs"]}} for job in jobs]
    with ExitStack() as stack:
        if isolated:  # each step's bwrap reads the seccomp program from a descriptor of its own
            fds = [stack.enter_context(no_keyrings_fd()) for _ in jobs]
            jobs = [{**job, "argv": with_seccomp(prefix, fd) + job["argv"], "pass_fds": [fd]} for job, fd in zip(jobs, fds)]
        try:
            return {"results": _supervisor.run_jobs(jobs, uid)}
        finally:
            if uid is not None and not isolated:
                kill_uid(uid)


