"""A warm, sandboxed Python: imports heavy modules once, then runs each job in a fresh fork.

Runs inside bubblewrap as PID 1 of its namespace (like the supervisor). CadQuery or PyTorch take
seconds to import; a fork of an interpreter that already holds them starts in milliseconds. Each job
is Python source executed as __main__ in its own child: its own session, rlimits, cwd, environment
and output pipes; after the job every leftover process ends and /tmp is emptied.
"""

from __future__ import annotations

import base64
import importlib
import os
import resource
import signal
import sys
import time
import traceback
from typing import Any

from ecot import _jobfs, _supervisor


def _virtual_size() -> int:
    """Bytes of address space this interpreter already maps (the children start from it)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _child(job: dict[str, Any], out_w: int, err_w: int, base_vsz: int) -> None:
    """In the forked child: become the job, run its code, never return."""
    code = 1
    try:
        os.setsid()
        limits = job["limits"]
        cpu = max(1, int(limits["cpu_s"] + 0.999))
        memory = base_vsz + (limits["memory_mb"] << 20)  # the job's budget on top of the warm image
        for which, value in (
            (resource.RLIMIT_CPU, (cpu, cpu + 1)),
            (resource.RLIMIT_AS, (memory, memory)),
            (resource.RLIMIT_FSIZE, (limits["file_mb"] << 20,) * 2),
            (resource.RLIMIT_NPROC, (limits["procs"],) * 2),
        ):
            resource.setrlimit(which, value)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        sys.argv = list(job.get("argv") or ["job"])
        exec(compile(job["code"], job.get("filename", "<job>"), "exec"), {"__name__": "__main__"})
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException as err:  # noqa: BLE001 - reported on the job's stderr like an uncaught exception
        frames = err.__traceback__.tb_next if err.__traceback__ else None  # drop this harness frame
        traceback.print_exception(type(err), err, frames)
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def run_job(job: dict[str, Any], base_vsz: int, root: str | None) -> dict[str, Any]:
    """Run one job in a fork; with a root (inside bubblewrap), contained as described in _contained."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pipes: list[str] = []
    if root is None:
        feeds = _feeds(job)
        pipes = [_supervisor._open_fifo(os.path.join(job["cwd"], name), data) for name, data in feeds.items()]
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        if root is not None:
            _contained(job, out_w, err_w, base_vsz, root)
        _child(job, out_w, err_w, base_vsz)
    os.close(out_w)
    os.close(err_w)
    try:
        limits = job["limits"]
        out, err, timed_out, overflow = _supervisor.collect_fds(
            out_r, err_r, pid, limits["wall_s"], limits["output_kb"] * 1024, start
        )
        if timed_out or overflow:
            _supervisor.kill_group(pid)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(out_r)
        os.close(err_r)
        for path in pipes:
            _supervisor._release_fifo(path)
    return {
        "returncode": os.waitstatus_to_exitcode(status),
        "stdout": base64.b64encode(out).decode(),
        "stderr": base64.b64encode(err).decode(),
        "timed_out": timed_out,
        "output_overflow": overflow,
        "wall_s": time.monotonic() - start,
    }


def _feeds(job: dict[str, Any]) -> dict[str, bytes]:
    return {name: base64.b64decode(data) for name, data in (job.get("feeds") or {}).items()}


def _contained(job: dict[str, Any], out_w: int, err_w: int, base_vsz: int, root: str) -> None:
    """In the forked child, never returning: the job's keeper. It enters a user and mount namespace of
    its own, makes the work root a private tmpfs holding only this job's folder (see _jobfs), and starts
    a new PID namespace whose first process mounts a /proc of its own and forks the job, without
    capabilities, as an ordinary process (the first one would ignore signals it sends itself). The warm
    interpreter and the keeper stay out of the job's sight and reach. When the namespace has ended, with
    every process of the job, the keeper copies the job's files back and exits as the job did."""
    status = 125 << 8
    try:
        os.setsid()
        _jobfs.libc().prctl(_jobfs.PR_SET_DUMPABLE, 1, 0, 0, 0)  # the id maps are written through /proc/self
        _jobfs.enter_namespaces()
        _jobfs.non_dumpable()
        private = _jobfs.PrivateRoot(root, int(job["limits"].get("disk_mb", 512)))
        host = private.enter(job["cwd"])
        # the feeds' writer threads start first: no thread can be started once the PID namespace is new
        paths = [_supervisor._open_fifo(os.path.join(job["cwd"], name), data) for name, data in _feeds(job).items()]
        _jobfs.new_pid_namespace()
        status_r, status_w = os.pipe()
        init = os.fork()
        if init == 0:
            os.close(status_r)
            _namespace_init(job, out_w, err_w, base_vsz, status_w)
        os.close(status_w)
        os.close(out_w)
        os.close(err_w)
        os.waitpid(init, 0)  # the namespace ended with its first process: every process of the job is gone
        reported = os.read(status_r, 16)
        status = int(reported) if reported.strip().isdigit() else status
        for path in paths:
            _supervisor._release_fifo(path)
        private.publish(job["cwd"], host)
    except BaseException:  # noqa: BLE001 - the keeper failed: an infrastructure error, shown on the job's stderr
        os.write(err_w, f"ecot: the job's sandbox could not be set up: {traceback.format_exc()}".encode())
    finally:
        _exit_as(status)


def _exit_as(status: int) -> None:
    """End this process as the wait status says the job ended (a signal is re-raised on ourselves)."""
    try:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
    finally:
        os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 125)


def _namespace_init(job: dict[str, Any], out_w: int, err_w: int, base_vsz: int, status_w: int) -> None:
    """PID 1 of the job's namespace: a /proc of its own, then the job as its child; reports the job's
    wait status to the keeper and exits, which ends whatever the job left running."""
    status = 125 << 8
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the only signals a job can send us are handled ones
        _jobfs.mount_proc()
        pid = os.fork()
        if pid == 0:
            os.close(status_w)
            _jobfs.drop_privileges()
            _child(job, out_w, err_w, base_vsz)
        os.close(out_w)
        os.close(err_w)
        while True:  # reap orphans too, until the job itself has ended
            found, status = os.wait()
            if found == pid:
                break
    finally:
        os.write(status_w, str(status).encode())
        os._exit(0)


def _end_leftovers(exclusive_uid: bool) -> None:
    """Inside bubblewrap, as PID 1, clean the namespace; outside it, a uid of our own still lets us
    end everything a job left (kill(-1) reaches only this uid's processes, never ourselves)."""
    if os.getpid() == 1:
        _supervisor._clean_namespace()
    elif exclusive_uid:
        _supervisor.kill_everyone_else()
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    time.sleep(0.001)
            except ChildProcessError:
                break


def _can_contain() -> bool:
    """Whether a child can enter the namespaces _contained needs (tried in a throw-away fork)."""
    pid = os.fork()
    if pid == 0:
        try:
            _jobfs.enter_namespaces()
            _jobfs.new_pid_namespace()
            os._exit(0)
        except BaseException:  # noqa: BLE001 - any failure means no
            os._exit(1)
    return os.waitpid(pid, 0)[1] == 0


def main(preload: list[str], exclusive_uid: bool = False, root: str | None = None) -> None:
    """root: the shared work root as mounted in the sandbox (None outside bubblewrap)."""
    if root is not None and not _can_contain():
        print("ecot warm interpreter: cannot create user namespaces; jobs run uncontained", file=sys.stderr)
        root = None
    _jobfs.non_dumpable()  # jobs share our uid: none may trace us or read our memory
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as PID 1, a handled signal is the only one a job could send us
    if os.getpid() != 1:  # outside bubblewrap: orphans of jobs become ours to reap (PR_SET_CHILD_SUBREAPER)
        try:
            import ctypes

            ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    for folder in ("/tmp", "/dev/shm"):  # before any job: what is there now is ours to keep
        _supervisor._startup_entries(folder)
    loaded = []
    for name in preload:
        importlib.import_module(name)
        loaded.append(name)
    base_vsz = _virtual_size()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _supervisor.write_message(stdout, {"ready": loaded, "contained": root is not None})
    while (request := _supervisor.read_message(stdin)) is not None:
        try:
            reply: dict[str, Any] = {"results": [run_job(request["job"], base_vsz, root)]}
        except Exception as err:  # noqa: BLE001 - reported to the host as an infrastructure failure
            reply = {"error": f"{type(err).__name__}: {err}"}
        _end_leftovers(exclusive_uid)
        _supervisor.write_message(stdout, reply)
