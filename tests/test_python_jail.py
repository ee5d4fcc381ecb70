"""The walls of the python judge (ecot/domains/python/jobs/jail.py), on their own: run by the sandbox's
interpreter in a scratch folder, outside any sandbox, so that each wall is the only thing in the way."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ecot.domains.python import bundle as python_bundle
from ecot.domains.python.jobs.jail import ARCHES, no_process_filter

PYTHON = "/usr/bin/python3"

# The judge forks a child that tries to reach it; prints what the child reached.
REACH_THE_JUDGE = """
import ctypes, os, sys
import ecot_jail
libc = ctypes.CDLL(None, use_errno=True)
if os.geteuid() == 0:  # root may ptrace anything: be an ordinary user, as candidates are
    os.setgid(65534)
    os.setuid(65534)
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: changing uid cleared it
if sys.argv[1] == "protected":
    ecot_jail.protect_judge()
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
judge = os.getpid()
read_end, write_end = os.pipe()
if os.fork() == 0:
    reached = []
    if libc.ptrace(16, judge, None, None) == 0:  # PTRACE_ATTACH
        reached.append("ptrace")
        os.waitpid(judge, 0)
        libc.ptrace(17, judge, None, None)  # PTRACE_DETACH
    for name in ("mem", "environ"):  # opening is what needs the right to trace
        try:
            open(f"/proc/{judge}/{name}", "rb").close()
            reached.append(name)
        except OSError:
            pass
    os.write(write_end, ",".join(reached).encode() or b"-")
    os._exit(0)
print(os.read(read_end, 100).decode())
os.wait()
"""

# A confined child reports what it could do.
CONFINED = """
import errno, json, os, subprocess, threading
import ecot_jail
ecot_jail.prepare()
spare = os.open(os.devnull, os.O_RDONLY)  # the judge's own descriptor: the child must not keep it
read_end, write_end = os.pipe()
judge = os.getpid()
if os.fork() == 0:
    ecot_jail.confine({ecot_jail.REPLY_FD: write_end}, judge)
    seen = {}
    try:
        if os.fork() == 0:
            os._exit(0)
        seen["fork"] = "allowed"
    except OSError as err:
        seen["fork"] = errno.errorcode[err.errno]
    try:
        subprocess.run(["/bin/true"])
        seen["subprocess"] = "allowed"
    except OSError as err:
        seen["subprocess"] = errno.errorcode[err.errno]
    box = []
    worker = threading.Thread(target=lambda: box.append(1))
    worker.start()
    worker.join()
    seen["thread"] = box == [1]
    seen["fds"] = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    seen["stdout"] = os.readlink("/proc/self/fd/1")
    os.write(ecot_jail.REPLY_FD, json.dumps(seen).encode())
    os._exit(0)
os.close(write_end)
print(os.read(read_end, 4096).decode())
os.wait()
"""


def run_with_jail(tmp_path: Path, script: str, *args: str) -> str:
    if not os.access(PYTHON, os.X_OK):
        pytest.skip(f"the python backend's interpreter {PYTHON} is missing")
    tmp_path.chmod(0o755)
    for name, text in python_bundle.texts(("jail",)).items():
        (tmp_path / name).write_text(text)
    argv = [PYTHON, "-S", "-s", "-B", "-c", script, *args]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_protected_judge_cannot_be_traced_or_read(tmp_path: Path) -> None:
    unprotected = run_with_jail(tmp_path, REACH_THE_JUDGE, "plain")
    if unprotected == "-":
        pytest.skip("this kernel keeps a child from tracing its parent anyway (Yama); nothing to compare")
    assert "ptrace" in unprotected and "mem" in unprotected  # the probe works ...
    assert run_with_jail(tmp_path, REACH_THE_JUDGE, "protected") == "-"  # ... and the wall holds


@pytest.mark.skipif(os.uname().machine not in ARCHES, reason="no seccomp filter for this architecture")
def test_a_confined_child_keeps_threads_but_cannot_start_processes(tmp_path: Path) -> None:
    seen = json.loads(run_with_jail(tmp_path, CONFINED))
    assert seen["fork"] == "EPERM" and seen["subprocess"] == "EPERM"
    assert seen["thread"] is True
    assert seen["stdout"] == "/dev/null"
    assert set(seen["fds"]) <= {0, 1, 2, 3, max(seen["fds"])}, seen["fds"]  # the last one is listdir's own


def test_the_filter_knows_its_architectures() -> None:
    assert no_process_filter("pdp11") is None
    for machine in ARCHES:
        program = no_process_filter(machine)
        assert program is not None and len(program) % 8 == 0 and len(program) // 8 < 64
