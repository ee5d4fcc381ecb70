"""Job runner shared by the one-shot sandbox and the persistent sandbox supervisor.

Standard library only: this file also runs *inside* bubblewrap as PID 1 of a private PID namespace,
started with `python -I -S`, where it executes jobs sent as length-prefixed JSON on stdin. As PID 1 it
can end every leftover process of a job with kill(-1) and cannot itself be killed from inside.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import selectors
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from ecot.sandboxed import steps

HEADER = struct.Struct("!I")


def limiter(cpu_s: float, memory_mb: int, file_mb: int, procs: int, uid: int | None) -> Callable[[], None]:
    """A preexec function applying rlimits (and dropping to uid when given) in the child."""
    cpu = max(1, int(cpu_s + 0.999))
    memory, fsize = memory_mb * 1024 * 1024, file_mb * 1024 * 1024

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


def collect(proc: subprocess.Popen[bytes], wall_s: float, cap: int, start: float) -> tuple[bytes, bytes, bool, bool]:
    """Read both pipes until EOF, the wall limit or the output cap; kill the group on the last two."""
    assert proc.stdout is not None and proc.stderr is not None
    try:
        return collect_fds(proc.stdout.fileno(), proc.stderr.fileno(), proc.pid, wall_s, cap, start)
    finally:
        proc.stdout.close()
        proc.stderr.close()


def collect_fds(out_fd: int, err_fd: int, pgid: int, wall_s: float, cap: int, start: float) -> tuple[bytes, bytes, bool, bool]:
    """collect() on raw pipe descriptors of a process group (the caller closes them)."""
    chunks = {out_fd: bytearray(), err_fd: bytearray()}
    selector = selectors.DefaultSelector()
    for fd in chunks:
        selector.register(fd, selectors.EVENT_READ)
    timed_out = overflow = False
    while selector.get_map():
        remaining = wall_s - (time.monotonic() - start)
        if remaining <= 0:
            timed_out = True
            break
        for key, _ in selector.select(timeout=min(remaining, 0.5)):
            data = os.read(key.fd, 65536)
            if data:
                chunks[key.fd] += data
            else:
                selector.unregister(key.fd)
        if sum(len(c) for c in chunks.values()) > cap:
            overflow = True
            break
    selector.close()
    if timed_out or overflow:
        kill_group(pgid)
    return bytes(chunks[out_fd][:cap]), bytes(chunks[err_fd][:cap]), timed_out, overflow


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_job(job: dict[str, Any], uid: int | None = None, inherit_limits: bool = False) -> dict[str, Any]:
    """Run one command with limits; returns what happened (output base64-encoded).

    inherit_limits: the caller already runs under the job's hard rlimits (the sandbox supervisor
    does), so the child is spawned without a Python-level fork, which would cost ~1 ms per job.
    """
    limits = job["limits"]
    stdin = base64.b64decode(job["stdin"]) if job.get("stdin") is not None else None
    feeds = {name: base64.b64decode(data) for name, data in (job.get("feeds") or {}).items()}
    for name, produced in (job.get("feed_files") or {}).items():
        path = os.path.join(job["cwd"], produced)
        with open(path, "rb") as handle:
            feeds[name] = handle.read()
        os.unlink(path)
    pipes = [_open_fifo(os.path.join(job["cwd"], name), data) for name, data in feeds.items()]
    try:
        return _spawn_and_wait(job, limits, stdin, uid, inherit_limits)
    finally:
        for path in pipes:
            _release_fifo(path)


def run_jobs(jobs: list[dict[str, Any]], uid: int | None = None, inherit_limits: bool = False) -> list[dict[str, Any]]:
    """Run jobs in order, stopping after the first that fails, times out or floods its output, and before
    one whose `only_after` the previous job's output does not meet (steps.reported) or whose fresh files
    cannot be written (a name an earlier job took, a full work dir): the caller sees it was not run."""
    results: list[dict[str, Any]] = []
    for job in jobs:
        gate = job.get("only_after")
        if gate is not None:
            if not (results and steps.reported(results[-1], gate["tag"], gate["pattern"])):
                break
            _clean_namespace()  # as PID 1: nothing of the steps before still runs, nothing is left in /tmp
        if not steps.wrote_fresh(job):
            break
        result = run_job(job, uid, inherit_limits)
        results.append(result)
        if result["returncode"] != 0 or result["timed_out"] or result["output_overflow"]:
            break
    return results


def _spawn_and_wait(job: dict[str, Any], limits: dict[str, Any], stdin: bytes | None, uid: int | None, inherit: bool) -> dict[str, Any]:
    start = time.monotonic()
    spawn: dict[str, Any] = {"process_group": 0} if inherit else {
        "start_new_session": True,
        "preexec_fn": limiter(limits["cpu_s"], limits["memory_mb"], limits["file_mb"], limits["procs"], uid),
    }
    proc = subprocess.Popen(
        job["argv"],
        cwd=job["cwd"],
        env=job["env"],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=tuple(job.get("pass_fds") or ()),  # only bubblewrap's seccomp program, for one-shot sandboxes
        **spawn,
    )
    if inherit:
        _lower_cpu_limit(proc.pid, limits["cpu_s"])
    if stdin is not None:
        _feed(proc, stdin)
    out, err, timed_out, overflow = collect(proc, limits["wall_s"], limits["output_kb"] * 1024, start)
    returncode, cpu_s = _wait(proc)
    kill_group(proc.pid)
    return {
        "returncode": returncode,
        "stdout": base64.b64encode(out).decode(),
        "stderr": base64.b64encode(err).decode(),
        "timed_out": timed_out,
        "output_overflow": overflow,
        "wall_s": time.monotonic() - start,
        "cpu_s": cpu_s,
    }


def _lower_cpu_limit(pid: int, cpu_s: float) -> None:
    """A job whose CPU limit is below the one it inherited from us (the server's) gets its own, set on
    the child as it starts (a job may carry a tighter budget than its sandbox's limits)."""
    cpu = max(1, int(cpu_s + 0.999))
    inherited = resource.getrlimit(resource.RLIMIT_CPU)[0]
    if inherited == resource.RLIM_INFINITY or cpu < inherited:
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (cpu, cpu + 1))
        except ProcessLookupError:  # it has ended already: nothing left to limit
            pass


def _wait(proc: subprocess.Popen[bytes]) -> tuple[int, float]:
    """The exit status, and the CPU seconds the process and the descendants it waited for used, from the
    kernel's accounting (wait4): a number the job cannot write."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, round(usage.ru_utime + usage.ru_stime, 4)


def _open_fifo(path: str, data: bytes) -> str:
    """A named pipe holding data for one reader; opening it again later blocks."""
    import threading

    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path, 0o644)

    def write() -> None:
        try:
            with open(path, "wb") as pipe:
                pipe.write(data)
        except OSError:  # the reader went away
            pass

    threading.Thread(target=write, daemon=True).start()
    return path


def _release_fifo(path: str) -> None:
    """Unblock a writer nobody read from, then remove the pipe."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
        os.unlink(path)
    except OSError:
        pass


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    import threading

    def write() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            proc.stdin.close()
        except OSError:  # the program exited or closed its input early
            pass

    threading.Thread(target=write, daemon=True).start()


def kill_everyone_else(sweeps: int = 5) -> None:
    """SIGKILL every process we may signal except ourselves, in a few sweeps (a fork bomb can create
    processes while one runs), reaping our own children in between."""
    for _ in range(sweeps):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        _reap_children()


def _reap_children() -> None:
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def _clean_namespace() -> None:
    """As PID 1 of the sandbox's namespace: end every other process, reap them, empty /tmp and /dev/shm."""
    if os.getpid() != 1:
        return
    kill_everyone_else()
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.001)
    for folder in ("/tmp", "/dev/shm"):
        for entry in set(os.listdir(folder)) - _startup_entries(folder):
            _remove(os.path.join(folder, entry))


_STARTUP: dict[str, set[str]] = {}


def _startup_entries(folder: str) -> set[str]:
    """What a folder held when the sandbox started (the paths of read-only mounts under /tmp, e.g.
    a checkout or venv living there): kept, and never walked, by the clean-up after each job."""
    if folder not in _STARTUP:
        _STARTUP[folder] = set(os.listdir(folder))
    return _STARTUP[folder]


def _remove(path: str) -> None:
    import shutil

    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    message: dict[str, Any] = json.loads(stream.read(size))
    return message


def write_message(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()


def serve(root: str | None = None, keep_proc: bool = False, disk_mb: int = 0, exe_link: str | None = None) -> None:
    """The supervisor loop: one request (a pipeline of jobs) at a time until stdin closes.

    root: the shared work root as mounted here. When this process can enter user and mount namespaces
    of its own, the root becomes a private tmpfs of disk_mb holding only the current request's work
    dir (see _jobfs), and /proc, which bubblewrap mounted so the namespaces could be entered, is
    hidden again unless keep_proc: then it holds only `self/exe`, a link to exe_link when given (for a
    tool that finds its data next to its own binary through /proc/self/exe, as Yosys does).
    """
    private = _private_root(root, keep_proc, disk_mb, exe_link) if root else None
    fresh = private is not None  # our namespaces came with an IPC namespace of our own: see renew_ipc
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as PID 1, a handled signal is the only one a job could send us
    for folder in ("/tmp", "/dev/shm"):
        _startup_entries(folder)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    write_message(stdout, {"ready": True, "private": private is not None, "fresh": fresh})
    while (request := read_message(stdin)) is not None:
        try:
            reply: dict[str, Any] = {"results": _run_request(request["jobs"], private)}
        except Exception as err:  # noqa: BLE001 - reported to the host as an infrastructure failure
            reply = {"error": f"{type(err).__name__}: {err}"}
        _clean_namespace()
        if private is not None:
            private.clear()
        if fresh:
            renew_ipc(reply)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        reply["supervisor_cpu_s"] = usage.ru_utime + usage.ru_stime  # it lives under the jobs' CPU limit
        write_message(stdout, reply)
        if reply.get("retire"):
            return


def renew_ipc(reply: dict[str, Any]) -> None:
    """After a job, when every process of it has ended: a new IPC namespace for the next job, so that
    no SysV object or POSIX message queue survives the job (the old namespace dies with its objects).
    Where the kernel refuses, the reply asks the host to retire us: no later job may share them."""
    from ecot.sandboxed import jobfs as _jobfs

    try:
        _jobfs.fresh_ipc()
    except OSError as err:
        reply["retire"] = f"no fresh IPC namespace for the next job ({err})"


def _private_root(root: str, keep_proc: bool, disk_mb: int, exe_link: str | None = None) -> Any:
    """Out of the jobs' reach (non-dumpable), in namespaces of our own where we may mount: the work root
    as a size-limited tmpfs (a _jobfs.PrivateRoot), or None where namespaces cannot be entered."""
    from ecot.sandboxed import jobfs as _jobfs

    try:
        _jobfs.enter_namespaces()  # first: the id maps cannot be written once we are non-dumpable
        if not keep_proc:
            _jobfs.hide("/proc", {"self/exe": exe_link} if exe_link else None)
        return _jobfs.PrivateRoot(root, disk_mb)
    except OSError as err:
        print(f"ecot supervisor: no private work dirs ({err}); jobs write to the shared folder", file=sys.stderr)
        return None
    finally:
        _jobfs.non_dumpable()


def _run_request(jobs: list[dict[str, Any]], private: Any) -> list[dict[str, Any]]:
    """Run a pipeline; in the private root, the work dir is copied in first and published after."""
    if private is None:
        return run_jobs(jobs, inherit_limits=True)
    cwd = jobs[0]["cwd"]
    host = private.enter(cwd)
    try:
        results = run_jobs(jobs, inherit_limits=True)
        if os.getpid() == 1:
            kill_everyone_else()  # nothing of the jobs may still write while their files are copied out
        private.publish(cwd, host)
        return results
    finally:
        os.close(host)


if __name__ == "__main__":
    serve()
