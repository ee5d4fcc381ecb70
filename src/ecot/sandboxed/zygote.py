"""A warm, sandboxed Python: imports heavy modules once, then runs each job in a fresh fork.

Runs inside bubblewrap as PID 1 of its namespace (like the supervisor). CadQuery or PyTorch take
seconds to import; a fork of an interpreter that already holds them starts in milliseconds. Each job
is Python source executed as __main__ in its own child: its own session, rlimits, cwd, environment
and output pipes, none of our descriptors, no capabilities, a private size-limited work dir (see
_jobfs); after the job every leftover process ends, its files are copied back, /tmp is emptied and we
move to a new IPC namespace, so no kernel object of the job reaches the next.
"""

from __future__ import annotations

import base64
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import resource
import signal
import sys
import time
import traceback
from typing import Any

from ecot.sandboxed import jobfs as _jobfs
from ecot.sandboxed import supervisor as _supervisor


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
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])  # ours (the host's folders) stay ours
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


def run_job(job: dict[str, Any], base_vsz: int, private: Any, exclusive_uid: bool) -> dict[str, Any]:
    """Run one job in a fork. With a private root (inside bubblewrap), its work dir is copied into the
    root's tmpfs first and published back after every process of the job has ended."""
    host = private.enter(job["cwd"], int(job["limits"].get("disk_mb", 512))) if private is not None else None
    feeds = {name: base64.b64decode(data) for name, data in (job.get("feeds") or {}).items()}
    pipes = [_supervisor._open_fifo(os.path.join(job["cwd"], name), data) for name, data in feeds.items()]
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        if private is not None:
            _jobfs.drop_privileges()  # the capabilities of our own user namespace are not the job's
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
        _end_leftovers(exclusive_uid)  # nothing of the job may still write while its files are copied out
        if host is not None:
            try:
                private.publish(job["cwd"], host)
            finally:
                os.close(host)
                private.clear()
    return {
        "returncode": os.waitstatus_to_exitcode(status),
        "stdout": base64.b64encode(out).decode(),
        "stderr": base64.b64encode(err).decode(),
        "timed_out": timed_out,
        "output_overflow": overflow,
        "wall_s": time.monotonic() - start,
    }


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


def main(preload: list[str], exclusive_uid: bool = False, root: str | None = None, files: dict[str, str] | None = None,
         keep_proc: bool = True, drop_path: str | None = None) -> None:
    """root: the shared work root as mounted in the sandbox (None outside bubblewrap). Inside, we enter a
    user and mount namespace of our own first (single-threaded, before any import), so that each job's work
    dir can be a private tmpfs. Jobs keep /proc unless not keep_proc (PyTorch and CadQuery read /proc/cpuinfo
    and /proc/self); in it they see us as PID 1, non-dumpable: our memory, environment and descriptors are
    closed to them. files: modules imported from these source files under these names (a harness whose
    modules import each other by the names they get in a job's folder); drop_path: a folder taken off
    sys.path once everything is imported (ecot's source, for jobs that must find the standard library only)."""
    private = _private_root(root) if root is not None else None
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
    loaded = _preload(preload, files or {})
    base_vsz = _virtual_size()
    if not keep_proc and private is not None:
        _jobfs.hide("/proc")  # the jobs' own mount namespace is ours: they see none from now on
    if drop_path in sys.path:
        sys.path.remove(drop_path)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    fresh = private is not None and _renewed_ipc()  # a new IPC namespace after every job
    _supervisor.write_message(stdout, {"ready": loaded, "contained": private is not None, "fresh": fresh})
    while (request := _supervisor.read_message(stdin)) is not None:
        try:
            reply: dict[str, Any] = {"results": [run_job(request["job"], base_vsz, private, exclusive_uid)]}
        except Exception as err:  # noqa: BLE001 - reported to the host as an infrastructure failure
            reply = {"error": f"{type(err).__name__}: {err}"}
            _end_leftovers(exclusive_uid)
        if fresh:
            _supervisor.renew_ipc(reply)
        _supervisor.write_message(stdout, reply)
        if reply.get("retire"):
            return


class _SourceFiles(importlib.abc.MetaPathFinder):
    """A finder for modules named after files that are not on sys.path under those names."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        where = self.files.get(name)
        return importlib.util.spec_from_file_location(name, where) if where is not None else None


def _preload(preload: list[str], files: dict[str, str]) -> list[str]:
    finder = _SourceFiles(files)
    sys.meta_path.insert(0, finder)
    try:
        for name in [*preload, *files]:
            importlib.import_module(name)
    finally:
        sys.meta_path.remove(finder)
    return [*preload, *files]


def _renewed_ipc() -> bool:
    """Whether we could move to a new IPC namespace: done once the preload imports are over, since the
    threads they may have started stay in the namespace they began in, which no job may share then."""
    note: dict[str, Any] = {}
    _supervisor.renew_ipc(note)
    return "retire" not in note


def _private_root(root: str) -> Any:
    """Our own namespaces and the work root as a tmpfs (a _jobfs.PrivateRoot), or None if the kernel
    refuses nested user namespaces (jobs then write to the shared folder, with a warning on the host)."""
    try:
        _jobfs.enter_namespaces()
        return _jobfs.PrivateRoot(root, 512)
    except OSError as err:
        print(f"ecot warm interpreter: no private work dirs ({err})", file=sys.stderr)
        return None
