"""The sandbox contains what it runs: limits, isolation, process-tree cleanup."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from ecot import sandbox
from ecot.core.task import Limits

FAST = Limits(wall_s=3, cpu_s=2, memory_mb=256, output_kb=64, file_mb=1, procs=16)


def run_sh(script: str, limits: Limits = FAST, **kw):
    with sandbox.workdir() as work:
        return sandbox.run(["sh", "-c", script], work, limits, **kw), work


def test_runs_and_captures_both_streams() -> None:
    result, _ = run_sh("echo out; echo err >&2; exit 3")
    assert result.returncode == 3
    assert result.stdout.strip() == "out" and result.stderr.strip() == "err"
    assert not result.timed_out and not result.output_overflow


def test_wall_timeout_kills_the_whole_tree() -> None:
    marker = f"60.{os.getpid()}"  # a sleep duration nothing else on the machine uses
    start = time.monotonic()
    result, _ = run_sh(f"(setsid sleep {marker} &); sleep {marker} & sleep {marker}", FAST.scaled(wall_s=1))
    assert result.timed_out
    assert time.monotonic() - start < 5
    time.sleep(0.2)
    leftovers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and marker.encode() in _cmdline(p)]
    assert leftovers == []


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_output_cap_stops_a_flood() -> None:
    result, _ = run_sh("yes ecot")
    assert result.output_overflow
    assert len(result.stdout) <= FAST.output_kb * 1024


def test_cpu_limit() -> None:
    result, _ = run_sh("while :; do :; done", FAST.scaled(cpu_s=1, wall_s=10))
    assert result.returncode != 0 and not result.timed_out


def test_a_step_may_carry_a_tighter_cpu_budget_than_its_sandbox() -> None:
    """The step's own budget binds it alone: the next request in the same long-lived sandbox gets the
    limits' full CPU time again."""
    limits = FAST.scaled(cpu_s=10, wall_s=10)
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.3: pass\nprint('done')"
    with sandbox.workdir() as work:
        first, tight = sandbox.run_steps([sandbox.Step(["true"]), sandbox.Step(["sh", "-c", "while :; do :; done"], cpu_s=1)],
                                         work, limits)
        assert first.returncode == 0 and tight.signal == signal.SIGXCPU and not tight.timed_out, tight
        assert tight.cpu_s is not None and 0.9 <= tight.cpu_s < 2.0, tight.cpu_s
        (after,) = sandbox.run_steps([sandbox.Step(["python3", "-c", burn])], work, limits)
        assert after.returncode == 0 and after.stdout.strip() == "done", after


@pytest.mark.parametrize("mode", ["bwrap", "rlimits"])
def test_cpu_time_comes_from_the_kernel(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """A job's CPU time is the kernel's count for its process tree (wait4), not anything it prints: a
    busy job shows its time, a sleeping one almost none, in the sandbox and in the rlimits fallback."""
    if mode == "rlimits":
        monkeypatch.setenv("ECOT_SANDBOX", "rlimits")
    busy, _ = run_sh("python3 -c 'import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass'")
    idle, _ = run_sh("sleep 0.3; echo cpu_s=99")
    assert busy.returncode == 0 and busy.cpu_s is not None and 0.25 <= busy.cpu_s < 1.0, busy
    assert idle.wall_s >= 0.3 and idle.cpu_s is not None and idle.cpu_s < 0.1, idle


def test_a_gated_step_runs_only_after_the_tagged_line_it_waits_for() -> None:
    """A step with a gate runs only when the step before printed the secret tag followed by text the
    pattern matches: the same text without the tag (anyone may print it) does not open it."""
    gate = sandbox.Gate("@T1x@", r"^passed \d+$")
    with sandbox.workdir() as work:
        for printed, runs in (("@T1x@passed 12", 2), ("noise @T1x@ passed 7", 2), ("passed 12", 1), ("@T1x@failed", 1)):
            results = sandbox.run_steps([sandbox.Step(["echo", printed]), sandbox.Step(["echo", "next"], after=gate)], work, FAST)
            assert len(results) == runs, printed
            assert runs == 1 or results[1].stdout.strip() == "next"


def test_fresh_files_are_made_as_their_step_starts_and_never_where_a_name_is_taken() -> None:
    """A step's fresh files are regular files written once the steps before it have ended. What an earlier
    step left under the same name (a file, a link) is never read nor followed, and a full work dir makes
    no error of the request: the step is just not run (its caller can run it on its own)."""
    with sandbox.workdir() as work:
        (made,) = sandbox.run_steps([sandbox.Step(["cat", "new.txt"], fresh={"new.txt": b"fresh data"})], work, FAST)
        assert made.returncode == 0 and made.stdout == "fresh data"
        small = FAST.scaled(disk_mb=8, file_mb=8)
        for before in ("echo old > taken.txt", "ln -s /etc/passwd taken.txt", "head -c 8M /dev/zero > a; head -c 8M /dev/zero > b"):
            steps = [sandbox.Step(["sh", "-c", f"rm -f taken.txt; {before}; true"]),
                     sandbox.Step(["cat", "taken.txt"], fresh={"taken.txt": b"x" * 65536})]
            results = sandbox.run_steps(steps, work, small)
            assert len(results) == 1 and results[0].returncode == 0, before


@pytest.mark.parametrize("served", [True, False])
def test_a_stand_in_proc_holds_only_the_exe_link(served: bool) -> None:
    """Without /proc, exe_link gives a read-only stand-in holding nothing but self/exe (Yosys finds its data
    through it), in the long-lived sandbox and in a one-shot one (too little memory for a server)."""
    limits = FAST if served else FAST.scaled(memory_mb=48)
    script = "find /proc | sort; readlink /proc/self/exe; touch /proc/x || echo refused; ls /proc/1 || echo no-pid-1"
    result, _ = run_sh(script, limits, exe_link="/usr/bin/yosys")
    lines = result.stdout.split()
    assert lines[:4] == ["/proc", "/proc/self", "/proc/self/exe", "/usr/bin/yosys"], result.output
    assert "refused" in lines and "no-pid-1" in lines, result.output


def test_file_size_limit() -> None:
    result, _ = run_sh("head -c 5000000 /dev/zero > big; echo rc=$?")
    assert "rc=0" not in result.stdout


def test_process_limit_stops_fork_bombs() -> None:
    result, _ = run_sh("for i in $(seq 100); do sleep 2 & done; wait; echo done")
    assert "fork" in result.stderr.lower() or result.returncode != 0


def test_memory_limit() -> None:
    result, _ = run_sh("python3 -c 'x = bytearray(600 * 1024 * 1024)'", FAST.scaled(memory_mb=200))
    assert result.returncode != 0


def test_environment_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECOT_SECRET_TOKEN", "hunter2")
    result, _ = run_sh("env")
    assert "hunter2" not in result.stdout


def test_work_dir_is_private_and_writable() -> None:
    with sandbox.workdir() as work:
        result = sandbox.run(["sh", "-c", "echo hi > note.txt && cat note.txt"], work, FAST)
        assert result.stdout.strip() == "hi"
        assert (work / "note.txt").read_text().strip() == "hi"


@pytest.mark.skipif(not sandbox.bwrap_available(), reason="bubblewrap (bwrap) is not available")
class TestIsolation:
    def test_home_and_secrets_are_invisible(self) -> None:
        home = os.path.expanduser("~")
        result, _ = run_sh(f"ls {home}; cat /etc/shadow; ls /root")
        assert result.stdout.strip() == ""

    def test_system_is_read_only(self) -> None:
        result, _ = run_sh("touch /usr/ecot_pwned; echo > /etc/ecot_pwned; echo rc=$?")
        assert not Path("/usr/ecot_pwned").exists() and not Path("/etc/ecot_pwned").exists()

    def test_no_network(self) -> None:
        script = "python3 -c \"import socket; s=socket.socket(); s.settimeout(1); s.connect(('127.0.0.1', 22))\""
        result, _ = run_sh(script)
        assert result.returncode != 0
        assert "Network is unreachable" in result.stderr or "refused" in result.stderr

    def test_proc_can_be_hidden(self) -> None:
        result, _ = run_sh("ls /proc/self/mem", proc_fs=False)
        assert result.returncode != 0


def test_fallback_without_bwrap_keeps_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECOT_SANDBOX", "rlimits")
    result, _ = run_sh("yes")
    assert result.output_overflow and not result.isolated


def test_steps_stop_at_the_first_failure_and_pass_files_through_read_once_pipes() -> None:
    with sandbox.workdir() as work:
        steps = [
            sandbox.Step(["sh", "-c", "cat secret.txt > made.txt"], feeds={"secret.txt": b"s3cret"}),
            sandbox.Step(["sh", "-c", "cat in.txt; ls"], feed_files={"in.txt": "made.txt"}),
        ]
        first, second = sandbox.run_steps(steps, work, FAST)
        assert first.returncode == 0
        assert second.stdout.startswith("s3cret")
        assert "made.txt" not in second.stdout and "secret.txt" not in second.stdout
        failing = sandbox.run_steps([sandbox.Step(["false"]), sandbox.Step(["true"])], work, FAST)
        assert len(failing) == 1 and failing[0].returncode == 1


def test_a_read_once_pipe_cannot_be_read_twice() -> None:
    with sandbox.workdir() as work:
        result = sandbox.run(["sh", "-c", "cat p; cat p"], work, FAST.scaled(wall_s=1), feeds={"p": b"once\n"})
        assert result.stdout == "once\n" and result.timed_out


@pytest.mark.skipif(not sandbox.bwrap_available(), reason="bubblewrap (bwrap) is not available")
def test_jobs_leave_nothing_behind_for_the_next_job() -> None:
    with sandbox.workdir() as work:
        sandbox.run(["sh", "-c", "echo left > /tmp/leftover; (setsid sleep 30 &); kill -9 1; exit 0"], work, FAST)
        after = sandbox.run(["sh", "-c", "ls /tmp; ps -e 2>/dev/null | grep -c sleep || true"], work, FAST)
        assert "leftover" not in after.stdout
        assert after.stdout.strip().splitlines()[-1] in {"0", ""}


def test_read_job_file_never_follows_links(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"host secret")
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "out.txt").write_bytes(b"0123456789")
    (work / "link").symlink_to(secret)
    (work / "dirlink").symlink_to(tmp_path)
    os.mkfifo(work / "fifo")
    assert sandbox.read_job_file(work, "out.txt", 4) == b"0123"
    assert sandbox.read_job_file(work, "link", 100) is None
    assert sandbox.read_job_file(work, "dirlink/secret", 100) is None
    assert sandbox.read_job_file(work, "fifo", 100) is None  # returns at once, never blocks
    assert sandbox.read_job_file(work, "missing", 100) is None
    with pytest.raises(ValueError):
        sandbox.read_job_file(work, "../secret", 100)


def test_a_server_started_by_a_short_lived_thread_outlives_it() -> None:
    """bubblewrap's --die-with-parent follows the thread that forked it: a sandbox server started from a
    pool thread must still serve after the pool is gone, not be restarted (or lost mid-job)."""
    if not sandbox.bwrap_available():
        pytest.skip("the long-lived servers need the missing (or disabled) tool 'bwrap'")
    from concurrent.futures import ThreadPoolExecutor

    from ecot.sandbox import server

    limits = Limits(wall_s=7.25)  # limits no other test uses: a server of its own
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_echo, limits).result()
    [started] = [s for (pid, lim, proc, ro, link), s in server._servers.items()
                 if pid == os.getpid() and lim == limits and not proc and not ro and not link]
    time.sleep(0.5)  # a server killed with its thread would be gone by now
    assert started.alive()
    _echo(limits)
    assert server.server_for(limits) is started, "the server was restarted after its thread ended"


def test_read_only_folders_are_shown_in_a_server_of_their_own() -> None:
    """ro_paths: a host folder appears read-only at its own path, in a long-lived server like any other
    job's (its work dir still private and size-limited); jobs without it do not see the folder."""
    if not sandbox.bwrap_available():
        pytest.skip("the long-lived servers need the missing (or disabled) tool 'bwrap'")
    from ecot.sandbox import server

    shared = Path(tempfile.mkdtemp(prefix="ecot-shown-"))  # the sandbox's user must reach it: not under pytest's 0700 tmp
    try:
        shared.chmod(0o755)
        (shared / "lib.txt").write_text("library\n")
        (shared / "lib.txt").chmod(0o644)
        script = f"cat {shared}/lib.txt; touch {shared}/planted 2>/dev/null && echo WROTE; touch mine && echo OWN"
        result, _ = run_sh(script, ro_paths=[str(shared)])
        assert result.stdout.split() == ["library", "OWN"], result.output
        assert not (shared / "planted").exists()
        assert any(key[3] == (str(shared),) for key in server._servers), "the job did not run in a served sandbox"
        result, _ = run_sh(f"cat {shared}/lib.txt")
        assert "library" not in result.stdout
    finally:
        shutil.rmtree(shared)


def _echo(limits: Limits) -> None:
    with sandbox.workdir() as work:
        result = sandbox.run(["echo", "hi"], work, limits)
    assert result.ok and result.stdout.strip() == "hi"
