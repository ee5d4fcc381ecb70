"""Warm sandboxed Python: preloaded modules, a fresh fork per job, the sandbox's limits and isolation."""

from __future__ import annotations

import os
import time

import pytest

from ecot import sandbox
from ecot.core.task import Limits
from ecot.sandbox.warm import WarmPython

LIMITS = Limits(wall_s=3, cpu_s=2, memory_mb=256, output_kb=64, file_mb=1, procs=16)


@pytest.fixture(scope="module")
def runner():
    with WarmPython(("json",)) as warm:
        yield warm


def run(runner, code: str, **kw):
    with sandbox.workdir() as work:
        return runner.run(work, code, LIMITS, **kw), work


def test_runs_code_as_main_with_feeds_and_argv(runner) -> None:
    code = "import sys; print(__name__, sys.argv[1:], open('in.txt').read())"
    result, _ = run(runner, code, argv=["a"], feeds={"in.txt": b"fed"})
    assert result.returncode == 0 and result.stdout.strip() == "__main__ ['a'] fed"


def test_each_job_is_a_fresh_fork(runner) -> None:
    first, _ = run(runner, "import json; json.MARK = 1; print(hasattr(json, 'MARK'))")
    second, _ = run(runner, "import json; print(hasattr(json, 'MARK'))")
    assert first.stdout.strip() == "True" and second.stdout.strip() == "False"


def test_exit_codes_and_exceptions(runner) -> None:
    assert run(runner, "raise SystemExit(3)")[0].returncode == 3
    failed, _ = run(runner, "1 / 0")
    assert failed.returncode == 1 and "ZeroDivisionError" in failed.stderr and "_zygote" not in failed.stderr


@pytest.mark.parametrize(
    ("code", "check"),
    [
        ("while True: pass", lambda r: r.timed_out or r.signal is not None),
        ("import os\nwhile True: os.fork()", lambda r: "Resource temporarily unavailable" in r.stderr),
        ("x = bytearray(2 * 1024 ** 3)", lambda r: "MemoryError" in r.stderr),
        ("print('y' * 10 ** 7)", lambda r: r.output_overflow),
        ("open('big', 'wb').write(b'0' * 5_000_000)", lambda r: r.returncode != 0),
    ],
    ids=["endless", "fork-bomb", "memory", "flood", "file-size"],
)
def test_limits_hold(runner, code: str, check) -> None:
    start = time.monotonic()
    result, _ = run(runner, code)
    assert check(result), result
    assert time.monotonic() - start < 10


def test_secrets_and_home_are_out_of_reach(runner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECOT_SECRET_TOKEN", "hunter2")
    result, _ = run(runner, "import os; print(dict(os.environ)); print(os.path.exists(os.path.expanduser('~root')))")
    assert "hunter2" not in result.stdout
    if sandbox.bwrap_available():
        home = os.path.expanduser("~")
        listing, _ = run(runner, f"import os; print(os.path.isdir({home!r}) and os.listdir({home!r}))")
        assert listing.stdout.strip() in {"False", "[]"}


def test_outside_work_dir_is_read_only(runner) -> None:
    if not sandbox.bwrap_available():
        pytest.skip("isolation needs the missing (or disabled) tool 'bwrap'")
    result, _ = run(runner, "open('/usr/ecot_pwned', 'w')")
    assert result.returncode != 0 and not os.path.exists("/usr/ecot_pwned")


def test_escaped_processes_do_not_outlive_their_job(runner) -> None:
    marker = f"61.{os.getpid()}"
    code = f"import subprocess; subprocess.Popen(['setsid', 'sleep', '{marker}'])"
    result, _ = run(runner, code)
    assert result.returncode == 0
    time.sleep(0.3)
    alive = [p for p in os.listdir("/proc") if p.isdigit() and marker.encode() in _cmdline(p)]
    assert alive == []


def _cmdline(pid: str) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_close_stops_the_interpreter_and_start_brings_a_new_one() -> None:
    warm = WarmPython(("json",))
    warm.start()
    first = warm.pid
    assert first is not None and alive(first)
    warm.close()
    assert warm.pid is None and not alive(first)
    assert run(warm, "print(6 * 7)")[0].stdout.strip() == "42"  # a job after close starts it again
    second = warm.pid
    assert second is not None and second != first
    warm.close()
    warm.close()  # idempotent
    assert not alive(second)
