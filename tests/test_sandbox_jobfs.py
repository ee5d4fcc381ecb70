"""What a job can write and see: a private, size-limited work dir; only regular files come back; the
trusted processes (supervisor, warm interpreter) are out of sight and reach; no suite is readable."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ecot import sandbox
from ecot.core.task import Limits
from ecot.sandbox.warm import WarmPython
from ecot.tasks.suite import bundled_domains, bundled_suite_path

LIMITS = Limits(wall_s=10, cpu_s=10, memory_mb=512, output_kb=256, file_mb=64, procs=16, disk_mb=32)

PROBE = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit()) if os.path.isdir('/proc') else []
attach = [pid for pid in {1, os.getppid(), *pids} if pid != os.getpid() and libc.ptrace(16, pid, 0, 0) == 0]
mem = []
for pid in {1, os.getppid(), *pids} - {os.getpid()}:
    try:
        open(f'/proc/{pid}/mem', 'rb').close()
        mem.append(pid)
    except OSError:
        pass
print('PIDS', pids)
print('ATTACHED', attach)
print('MEM', mem)
print('SIBLINGS', sorted(os.listdir('..')))
print('SELF', os.getpid())
"""


@pytest.fixture(autouse=True)
def _isolated() -> None:
    if not sandbox.bwrap_available():
        pytest.skip("needs the missing (or disabled) tool 'bwrap'")


def served(script: str, limits: Limits = LIMITS, files: dict[str, str] | None = None) -> tuple[Any, set[str], int]:
    """Run a shell script in a served sandbox: (result, names left in the work dir, bytes left)."""
    with sandbox.workdir() as work:
        sandbox.write_files(work, files or {})
        result = sandbox.run(["sh", "-c", script], work, limits)
        names = {str(p.relative_to(work)) for p in work.rglob("*")}
        size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file() and not p.is_symlink())
        return result, names, size


WARM = WarmPython(("json",))  # started by the first job, stopped by its safety net when the tests end


def warm(code: str, limits: Limits = LIMITS) -> tuple[Any, set[str], int]:
    with sandbox.workdir() as work:
        result = WARM.run(work, code, limits)
        names = {str(p.relative_to(work)) for p in work.rglob("*")}
        size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file() and not p.is_symlink())
        return result, names, size


def test_a_job_cannot_write_more_than_its_disk_limit() -> None:
    fill = "i=0; while [ $i -lt 20 ]; do head -c 8000000 /dev/zero > f$i || exit 7; i=$((i+1)); done"
    result, names, size = served(fill)
    assert result.returncode == 7, result.output
    assert size <= LIMITS.disk_mb << 20
    assert "No space left on device" in result.stderr


def test_a_warm_job_cannot_write_more_than_its_disk_limit() -> None:
    code = "import os\nfor i in range(20):\n    open(f'f{i}', 'wb').write(b'x' * 8_000_000)\n"
    result, _, size = warm(code)
    assert result.returncode != 0 and "No space left on device" in result.stderr, result.output
    assert size <= LIMITS.disk_mb << 20


def test_only_regular_files_and_folders_come_back() -> None:
    script = ("echo data > kept.txt; mkdir -p sub && echo x > sub/inner.txt; ln -s /etc/passwd link; "
              "mkfifo pipe; ln -s /etc dirlink; rm input.txt")
    result, names, _ = served(script, files={"input.txt": "host wrote this"})
    assert result.returncode == 0, result.output
    assert names == {"kept.txt", "sub", "sub/inner.txt"}


def test_inputs_reach_the_job_and_changes_come_back() -> None:
    result, names, _ = served("cat in.txt; echo more >> in.txt", files={"in.txt": "hello\n"})
    assert result.stdout == "hello\n"
    assert names == {"in.txt"}


def test_the_supervisor_and_other_jobs_are_out_of_reach() -> None:
    with sandbox.workdir() as work:
        result = sandbox.run(["python3", "-I", "-S", "-c", PROBE], work, LIMITS)
    assert "PIDS []" in result.stdout, result.output  # no /proc at all in a plain served sandbox
    assert "ATTACHED []" in result.stdout and "MEM []" in result.stdout, result.output
    siblings = next(line for line in result.stdout.splitlines() if line.startswith("SIBLINGS"))
    assert siblings.count("ecot-") == 1, siblings  # only its own folder under the shared root


def test_a_proc_sandbox_shows_the_supervisor_but_it_cannot_be_traced() -> None:
    with sandbox.workdir() as work:
        result = sandbox.run(["python3", "-I", "-S", "-c", PROBE], work, LIMITS, proc_fs=True)
    assert "ATTACHED []" in result.stdout and "MEM []" in result.stdout, result.output


def test_a_warm_job_cannot_reach_the_warm_interpreter_and_sees_only_its_own_folder() -> None:
    result, _, _ = warm(PROBE)
    assert result.returncode == 0, result.output
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["ATTACHED"] == "[]" and lines["MEM"] == "[]", result.output
    assert lines["PIDS"] == f"[1, {lines['SELF']}]", result.output  # the (non-dumpable) warm interpreter and itself
    assert lines["SIBLINGS"].count("ecot-") == 1, result.output


def test_a_warm_job_can_end_itself_with_a_signal() -> None:
    result, _, _ = warm("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert result.signal == 9, result


def test_no_bundled_suite_is_readable_from_a_warm_job() -> None:
    suites = [str(bundled_suite_path(domain)) for domain in bundled_domains()]
    code = f"import os\nprint(sorted(name for suite in {suites!r} for name in os.listdir(suite)))\n"
    result, _, _ = warm(code)
    assert len(suites) == 6 and result.stdout.strip() == "[]", result.output


def test_a_hostile_job_leaves_nothing_for_the_next_one() -> None:
    plant = ("import os\nfor d in ('/tmp', '/dev/shm', '..', os.path.expanduser('~')):\n    try:\n"
             "        open(os.path.join(d, 'planted'), 'w').write('x')\n    except OSError:\n        pass\n")
    warm(plant)
    find = ("import os\nprint([d for d in ('/tmp', '/dev/shm', '..', os.path.expanduser('~')) "
            "if os.path.exists(os.path.join(d, 'planted'))])\n")
    result, _, _ = warm(find)
    assert result.stdout.strip() == "[]", result.output


SWAPPER = """
import os, sys, time
work, secret = sys.argv[1], sys.argv[2]
path, staged, link = [os.path.join(work, n) for n in ('out.bin', 'staged', 'link')]
while True:  # atomic swaps: the name is always either the job's file or a link to the host's secret
    open(staged, 'wb').write(b'job output')
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(secret, link)
    os.replace(staged, path)
    time.sleep(0.0002)
    os.replace(link, path)
    time.sleep(0.0002)
"""


def _race(reader: Callable[[Path], bytes | None], rounds: int, tmp_path: Path) -> list[bytes]:
    """A separate process swaps a job's output between a regular file and a link to a host secret while
    reader reads it, rounds times."""
    secret = tmp_path / "secret"
    secret.write_bytes(b"HOST SECRET")
    work = tmp_path / "work"
    work.mkdir()
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(work), str(secret)])
    try:
        while not (work / "out.bin").exists():
            time.sleep(0.01)
        found = []
        for _ in range(rounds):
            if (data := reader(work)) is not None:
                found.append(data)
            time.sleep(0.0003)
        return found
    finally:
        swapper.kill()
        swapper.wait()


def test_the_symlink_race_never_leaks_a_host_file(tmp_path: Path) -> None:
    read = _race(lambda work: sandbox.read_job_file(work, "out.bin", 1 << 10), 200, tmp_path)
    assert read, "the race never offered the regular file: the test proves nothing"
    assert all(data == b"job output" for data in read)
