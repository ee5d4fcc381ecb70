"""The judge of a python test run, inside the sandbox (standard library only).

Copied into the work dir as `ecot_harness.py` (with ecot_child.py, ecot_jail.py and, for trace runs,
ecot_trace.py) and run as `python3 -S -s -B -c "import ecot_harness; ecot_harness.main('spec.json')"`.
The spec holds the test *inputs* only; expected outputs never enter the sandbox. This process never
runs candidate code: it compiles solution.py, makes itself non-dumpable, then forks one child
(ecot_child.py) that runs the tests in order, each on our go-ahead: function mode loads the module
once and calls the entry point per test (module state carries over, as on a judge); stdio mode runs
the program per test. The child reports what the candidate produced on a pipe of its own; this
process alone decides each test's status and time and writes the records on its stdout, which the
child does not hold:

- CPU time: the kernel's CPU clock of the child (all its threads; it cannot start processes), read
  when the go-ahead is given and when the report arrives; the child waits between tests, and the
  last window ends at its death (wait4), so every CPU second lands in the load's or some test's
  window. The run has a CPU budget, the sum of the load's and every test's limit: the module's load
  may spend from all of it, a test at most its own limit and what is left. Over either: SIGKILL,
  `timeout` (`limit` says which: "cpu" for the test's own limit, "budget" for the run's).
- Wall time: our own clock, limit x wall_factor + 0.5 s (for code that sleeps): SIGKILL, `timeout`.
- A child that dies without its report: `crash` (exit status or signal); a report that is not one
  well-formed frame for the test asked: `bad_report`. Tests after a fatal one are `skipped`.

Records, in order: `compiled` (or `syntax`), in function mode `load`, then exactly one `test` record
per test, `trace` in trace runs, and `done`; the host rejects any other shape.
"""

from __future__ import annotations

import builtins
import gc
import json
import os
import resource
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

# Every import happens here, before the first candidate code (the work dir is on sys.path), and none
# is heavy: dataclasses alone would cost as much as the fork.
import ecot_child
from ecot_jail import GO_FD, REPLY_FD, protect_judge

SOLUTION = "solution.py"
WALL_SLACK_S = 0.5
POLL_S = 0.25  # the longest we wait without looking at the child's CPU clock
FATAL = ("timeout", "memory", "crash", "bad_report", "traced")
CHILD_STATUSES = {
    "load": ("ok", "missing", "error", "memory", "exit"),
    "test": ("ok", "error", "memory", "exit", "unencodable", "output_limit"),
    "call": ("ok", "error", "memory", "exit", "unencodable", "output_limit"),  # check mode: one call of the candidate
}
TEXT_FIELDS = ("value", "stdout", "printed", "repr", "why", "entry", "args_after")
ERROR_FIELDS = ("type", "message", "line", "offset", "text", "function", "traceback")
Emit = Callable[[dict[str, Any]], None]


class Window:
    """Between two reports of a child: the report (a dict, or why it is malformed; None if none came),
    the child's CPU seconds and our wall seconds, and why we killed it ("cpu", "wall", "output" for a
    frame longer than any report, "traced"; "" if we did not)."""

    def __init__(self, report: dict[str, Any] | str | None, cpu: float, wall: float, over: str = "") -> None:
        self.report, self.cpu, self.wall, self.over = report, cpu, wall, over


def _small_int(text: str) -> int:
    if len(text) > 24:  # huge ints take quadratic time to read: no field of a report needs one
        raise ValueError("integer too long")
    return int(text)


def parse_frame(frame: bytes) -> dict[str, Any] | str:
    try:
        report = json.loads(frame.decode("utf-8"), parse_int=_small_int)
    except (ValueError, RecursionError):
        return "not one JSON object"
    return report if isinstance(report, dict) else "not one JSON object"


class Child:
    """A forked child running candidate code, watched from outside."""

    def __init__(self, job: dict[str, Any], stop_on_trace: bool) -> None:
        read_fd, write_fd = os.pipe()
        go_read, go_write = os.pipe()
        judge = os.getpid()
        pid = os.fork()
        if pid == 0:  # never returns into the judge's code, whatever happens
            code = 0
            try:
                ecot_child.child_main(job, {REPLY_FD: write_fd, GO_FD: go_read}, judge)
            except BaseException:  # noqa: BLE001 - the candidate's doing or ours: either way no report
                code = 70
            os._exit(code)
        os.close(write_fd)
        os.close(go_read)
        self.go_fd = go_write
        try:
            os.setpgid(pid, pid)
        except OSError:  # the child got there first
            pass
        self.pid, self.fd, self.stop_on_trace = pid, read_fd, stop_on_trace
        self.clock = (~pid << 3) | 2  # clock_getcpuclockid(pid): CPU time of the child's whole thread group
        self.buffer = bytearray()
        self.spent = 0.0  # CPU seconds already attributed to earlier windows
        self.eof = self.closed = False
        self.status: int | None = None  # wait status, once reaped
        self.total = 0.0  # CPU seconds of its whole life, once reaped
        self.trace: dict[str, Any] | None = None

    def cpu(self) -> float:
        try:
            return time.clock_gettime(self.clock)
        except OSError:  # gone: whatever was not attributed yet comes with the reaping
            return self.spent

    def window(self, cpu_limit: float, wall_limit: float, frame_cap: int) -> Window:
        """Wait for the child's next report, killing it when it runs over either limit."""
        start = time.monotonic()
        while True:
            frame = self._frame(frame_cap)
            if frame == b"too big":
                return self._stop(start, "output")
            if frame is not None:
                report = parse_frame(frame)
                if isinstance(report, dict) and report.get("kind") == "trace":
                    self.trace = self.trace or report
                    if self.stop_on_trace:  # a trace run is over once its trace is in
                        return self._stop(start, "traced")
                    continue
                used = max(self.cpu() - self.spent, 0.0)
                self.spent += used
                return Window(report, used, time.monotonic() - start)
            if self.status is not None:
                return Window(None, self._settle(), time.monotonic() - start)
            used, wall = self.cpu() - self.spent, time.monotonic() - start
            if used > cpu_limit or wall > wall_limit:
                return self._stop(start, "cpu" if used > cpu_limit else "wall")
            self._wait(min(max(min(cpu_limit - used, wall_limit - wall), 0.001), POLL_S))

    def _frame(self, cap: int) -> bytes | None:
        if len(self.buffer) < 4:
            return None
        size = int.from_bytes(self.buffer[:4], "big")
        if size > cap:
            return b"too big"
        if len(self.buffer) < 4 + size:
            return None
        frame = bytes(self.buffer[4 : 4 + size])
        del self.buffer[: 4 + size]
        return frame

    def _wait(self, seconds: float) -> None:
        if not self.eof:
            ready, _, _ = select.select([self.fd], [], [], seconds)
            if ready:
                data = os.read(self.fd, 1 << 16)
                self.buffer += data
                self.eof = not data
        elif not self._reap(os.WNOHANG):  # the pipe is closed; the child normally exits right after
            time.sleep(min(seconds, 0.002))

    def _reap(self, options: int = 0) -> bool:
        if self.status is None:
            pid, status, usage = os.wait4(self.pid, options)
            if pid == 0:
                return False
            self.status, self.total = status, usage.ru_utime + usage.ru_stime
        return True

    def _settle(self) -> float:
        """CPU seconds since the last report, up to the child's end (it has been reaped)."""
        used = max(self.total - self.spent, 0.0)
        self.spent += used
        return used

    def _stop(self, start: float, why: str) -> Window:
        self.close()
        return Window(None, self._settle(), time.monotonic() - start, why)

    def go(self) -> None:
        """Let the child run its next test (it waits for this, so no test's CPU lands in another's window)."""
        try:
            os.write(self.go_fd, b"g")
        except OSError:  # it has gone: the window will say how
            pass

    def ask(self, frame: bytes, wall_s: float) -> bool:
        """Check mode: hand the child one call (a length-prefixed frame); False if not taken within wall_s."""
        data = len(frame).to_bytes(4, "big") + frame
        deadline = time.monotonic() + wall_s
        try:
            while data:
                _, ready, _ = select.select([], [self.go_fd], [], max(deadline - time.monotonic(), 0.0))
                if not ready:
                    return False
                data = data[os.write(self.go_fd, data[: select.PIPE_BUF]) :]  # a writable pipe takes this much
        except OSError:  # it has gone: the window will say how
            pass
        return True

    def close(self) -> float:
        """Kill and reap the child (its process group, and itself should it have left the group); the
        CPU seconds it spent after its last report."""
        if self.status is None:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            self._reap()
        if not self.closed:
            os.close(self.fd)
            os.close(self.go_fd)
            self.closed = True
        return self._settle()

    def ending(self) -> dict[str, Any]:
        """How a child that sent no report ended."""
        status = self.status or 0
        return {"signal": os.WTERMSIG(status)} if os.WIFSIGNALED(status) else {"exit": os.waitstatus_to_exitcode(status)}


class Plan:
    """What to run: the mode, the tests' inputs and CPU limits, the output cap, the trace request."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.mode: str = spec["mode"]
        self.tests, self.limits = list(spec["tests"]), [float(x) for x in spec["limits"]]
        self.load_limit = float(spec.get("load_limit", 0.0))  # the module's top-level code (function and check mode)
        self.trace: dict[str, Any] | None = spec.get("trace")
        if self.trace is not None:  # a trace run executes only the traced test
            index = int(self.trace["test"])
            self.tests, self.limits = self.tests[index : index + 1], self.limits[index : index + 1]
        self.cap = int(spec.get("output_cap", 1 << 20))  # a test's printed output or return value, in characters
        self.wall_factor = float(spec.get("wall_factor", 3.0))

    @property
    def budget(self) -> float:
        """CPU seconds of the whole run: the load's limit and every test's."""
        return (self.load_limit if self.mode != "stdio" else 0.0) + sum(self.limits)

    @property
    def frame_cap(self) -> int:
        return 8 * self.cap + (1 << 20)  # JSON escapes: up to 6 bytes per character, plus a trace

    def wall(self, cpu_s: float) -> float:
        return cpu_s * self.wall_factor + WALL_SLACK_S


def verdict(kind: str, index: int, window: Window, limit: float, child: Child, plan: Plan) -> dict[str, Any]:
    """The record of one window: status and time decided here; values taken from a well-formed report."""
    record: dict[str, Any] = {"kind": kind, "i": index, "cpu": round(window.cpu, 6)}
    if window.over == "wall" and window.cpu <= limit:
        return {**record, "status": "timeout", "limit": "wall", "wall_limit": round(plan.wall(limit), 3)}
    if window.over == "cpu" or window.cpu > limit:
        return {**record, "status": "timeout", "limit": "cpu"}
    if window.over == "output":
        return {**record, "status": "bad_report", "why": f"a frame longer than {plan.frame_cap} bytes, more than any report"}
    if window.over == "traced":
        return {**record, "status": "traced"}
    report = window.report
    if report is None:
        return {**record, "status": "crash", **child.ending()}
    if isinstance(report, dict) and (report.get("kind"), report.get("i", -1)) == (kind, index) \
            and report.get("status") in CHILD_STATUSES[kind]:
        return {**record, **_values(report, plan.cap)}
    why = report if isinstance(report, str) else f"not the {kind} report of test {index}"
    return {**record, "status": "bad_report", "why": why}


def _values(report: dict[str, Any], cap: int) -> dict[str, Any]:
    """What a report may say: its status and the candidate's values, type-checked and bounded."""
    out: dict[str, Any] = {"status": report["status"]}
    out.update({k: report[k] for k in TEXT_FIELDS if isinstance(report.get(k), str)})
    if isinstance(report.get("size"), int):
        out["size"] = report["size"]
    if "code" in report and isinstance(report["code"], (int, str, type(None))):
        out["code"] = report["code"]
    if isinstance(report.get("error"), dict):
        error = report["error"]
        out["error"] = {k: error[k] for k in ERROR_FIELDS if isinstance(error.get(k), (str, int))}
    if "printed" in out:
        out["printed"] = out["printed"][: ecot_child.PRINTED_CAP]
    if len(out.get("value", "")) > cap or len(out.get("stdout", "")) > cap or len(out.get("args_after", "")) > cap:
        out = {"status": "output_limit", "size": cap}
    return out


def run(job: dict[str, Any], plan: Plan, emit: Emit, checks: Any = None) -> Child:
    """One child for the run: in function and check mode the module's load first, then every test in
    turn (check mode: the check code runs here and calls the candidate in the child, ecot_check.py). The
    load's CPU seconds count like a test's: against the run's budget, which the tests share."""
    child = Child(job, plan.trace is not None)
    ready = True
    if plan.mode != "stdio":
        budget = plan.budget
        load = verdict("load", -1, child.window(budget, plan.wall(budget), plan.frame_cap), budget, child, plan)
        emit(load)
        ready = load["status"] == "ok"
    done = len(plan.tests) if ready else 0
    if checks is not None:
        done = checks.run(child, plan, emit, verdict) if ready else 0
        child.close()
        _skip(emit, done, len(plan.tests))
        return child
    for index in range(done):
        own = plan.limits[index]
        limit = min(own, max(plan.budget - child.spent, 0.0))  # what the load and earlier tests left
        child.go()
        window = child.window(limit, plan.wall(limit), plan.frame_cap)
        if index == len(plan.tests) - 1:
            window.cpu += child.close()  # the last window ends at the child's death
        record = verdict("test", index, window, limit, child, plan)
        if record.get("limit") == "cpu" and limit < own:
            record["limit"] = "budget"
        emit(record)
        if record["status"] in FATAL:
            done = index + 1
            break
    child.close()
    _skip(emit, done, len(plan.tests))
    return child


def _skip(emit: Emit, start: int, end: int) -> None:
    for index in range(start, end):
        emit({"kind": "test", "i": index, "status": "skipped", "cpu": 0.0})


def _emit(record: dict[str, Any]) -> None:
    data = (json.dumps(record) + "\n").encode()
    while data:
        data = data[os.write(1, data) :]


def _compile(source: str) -> Any:
    try:
        return compile(source, SOLUTION, "exec")
    except (SyntaxError, ValueError) as err:
        _emit({"kind": "syntax", **ecot_child.error_info(err)})
    except (MemoryError, RecursionError) as err:
        _emit({"kind": "syntax", "type": type(err).__name__, "message": "the source is too deeply nested to compile"})
    return None


def _tracer(trace: dict[str, Any] | None) -> Any:
    if trace is None:
        return None
    from ecot_trace import Tracer  # copied beside this file for trace runs only; imported before any fork

    return Tracer(SOLUTION, int(trace.get("max_events", 400)), int(trace.get("max_repr", 80)))


def _checks(spec: dict[str, Any]) -> Any:
    if spec["mode"] != "check":
        return None
    import ecot_check  # copied for check runs only; imported before any fork, like everything the child uses

    return ecot_check.Checks.from_spec(spec)


def main(spec_path: str) -> int:
    with open(spec_path) as handle:
        spec = json.load(handle)
    os.unlink(spec_path)
    with open(SOLUTION, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    gc.disable()  # with gc.freeze() below: forked children do not copy the judge's heap page by page
    protect_judge()
    # -S skips site, which normally defines these; typeshed types them as site's Quitter objects
    builtins.exit = builtins.quit = sys.exit  # type: ignore[assignment]
    sys.set_int_max_str_digits(0)  # answers may be huge ints, as on judges that run older Pythons
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    code = _compile(source)
    if code is not None:
        _emit({"kind": "compiled"})
        plan = Plan(spec)
        checks = _checks(spec)
        job = {"mode": plan.mode, "code": code, "entry": spec.get("entry"), "tests": plan.tests, "cap": plan.cap,
               "tracer": _tracer(plan.trace), "preamble": checks.preamble if checks is not None else None}
        ecot_child.prepare()
        gc.freeze()
        child = run(job, plan, _emit, checks)
        if plan.trace is not None and child.trace is not None:
            _emit(job["tracer"].record(int(plan.trace["test"]), child.trace))
    _emit({"kind": "done"})
    os._exit(0)  # nothing is buffered (records go out with os.write); skip tearing the interpreter down


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
