"""The test runner that executes a Python candidate inside the sandbox (standard library only).

It is copied into the work dir as `ecot_harness.py` and run as `python3 -S -s -B ecot_harness.py
spec.json`. The spec holds the test *inputs* only; expected outputs never enter the sandbox. For
each test it reports what the candidate produced (a return value or captured stdout), or how it
failed, as one JSON line on the original stdout, which is moved to a private descriptor before any
candidate code runs. The host compares values, so a forged line is only as good as a real answer.

Per test: a CPU-time limit (ITIMER_PROF) and a wall-time guard (ITIMER_REAL) raise TimeLimit in the
candidate; MemoryError is reported as such; stdout is redirected at the descriptor level so
`print`, `sys.stdout.write` and `os.write(1, ...)` are all captured (and `open(0)` reads the input).
"""

from __future__ import annotations

import builtins
import gc
import io
import json
import os
import resource
import signal
import sys
import time
import traceback
from typing import Any, Callable

SOLUTION = "solution.py"


class TimeLimit(BaseException):
    """Raised inside the candidate when its test's time is up (BaseException: harder to swallow)."""


class Unencodable(Exception):
    pass


_reserve: bytearray | None = None  # 2 MiB, freed on MemoryError so reporting still works


# What the timer handler needs to end a test on its own: the result channel and the running test.
_running: dict[str, Any] = {"emit": None, "record": None, "hits": 0}
SWALLOW_LIMIT = 10  # timer hits (0.05 s apart) a candidate may swallow before the harness ends the run


def _on_timer(signum: int, frame: Any) -> None:
    _running["hits"] += 1
    if _running["hits"] > SWALLOW_LIMIT and _running["emit"] and _running["record"]:
        # the candidate keeps catching TimeLimit: report the timeout ourselves and stop here
        _running["emit"]({**_running["record"], "status": "timeout", "swallowed": True})
        os._exit(0)
    raise TimeLimit()


def _arm(cpu_s: float, wall_s: float) -> None:
    # the timers repeat, so a candidate that swallows TimeLimit keeps getting it
    _running["hits"] = 0
    signal.setitimer(signal.ITIMER_PROF, max(cpu_s, 0.001), 0.05)
    signal.setitimer(signal.ITIMER_REAL, max(wall_s, 0.001), 0.05)


def _disarm() -> None:
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)


def encode(value: Any, depth: int = 0) -> Any:
    """A JSON-ready copy of a return value: tuples become lists; anything else non-JSON fails."""
    if depth > 100:
        raise Unencodable("nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise Unencodable("dict with non-string keys")
        return {k: encode(v, depth + 1) for k, v in value.items()}
    raise Unencodable(type(value).__name__)


def _safe_repr(value: Any, limit: int = 200) -> str:
    try:
        text = repr(value)
    except BaseException as err:  # noqa: BLE001 - a hostile __repr__ must not end the run
        text = f"<unprintable {type(value).__name__}: {type(err).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _safe_str(err: BaseException, limit: int = 300) -> str:
    try:
        text = str(err)
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not end the run
        text = f"<unprintable {type(err).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def error_info(err: BaseException) -> dict[str, Any]:
    """Type, message and the deepest line of the solution the traceback passes through."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == SOLUTION]
    info: dict[str, Any] = {"type": type(err).__name__, "message": _safe_str(err)}
    if isinstance(err, SyntaxError):
        info.update(line=err.lineno, offset=err.offset, text=(err.text or "").rstrip("\n"), message=str(err.msg))
    elif frames:
        info.update(line=frames[-1].lineno, text=(frames[-1].line or ""), function=frames[-1].name)
    # only the candidate's own frames: the harness around them is noise to whoever reads the log
    shown = traceback.format_list(frames[-8:]) if frames else []
    head = "Traceback (most recent call last):\n" if shown else ""
    info["traceback"] = (head + "".join(shown) + "".join(traceback.format_exception_only(type(err), err)))[-2000:]
    return info


class Capture:
    """Descriptor-level stdin/stdout for one test: a file with the input on fd 0, a file on fd 1."""

    def __init__(self, index: int, text_in: str) -> None:
        self.in_path, self.out_path = f".in{index}", f".out{index}"
        with open(self.in_path, "w") as handle:
            handle.write(text_in)

    def __enter__(self) -> Capture:
        for path, flags, target in ((self.in_path, os.O_RDONLY, 0), (self.out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 1)):
            fd = os.open(path, flags, 0o600)
            if fd != target:  # the candidate may have closed fd 0 or 1 (e.g. via open(0)), so open() reused it
                os.dup2(fd, target)
                os.close(fd)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)))
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            sys.stdout.flush()
        except BaseException:  # noqa: BLE001 - a broken stdout is the candidate's own business
            pass

    def read(self, cap: int) -> tuple[str, bool]:
        size = os.path.getsize(self.out_path)
        with open(self.out_path, "rb") as handle:
            data = handle.read(cap)
        for path in (self.in_path, self.out_path):
            os.unlink(path)
        return data.decode("utf-8", "replace"), size > cap


class Runner:
    def __init__(self, spec: dict[str, Any], results: Callable[[dict[str, Any]], None]) -> None:
        self.spec = spec
        self.emit = results
        self.cap = int(spec.get("output_cap", 1 << 20))
        self.wall_factor = float(spec.get("wall_factor", 3.0))
        self.code: Any = None
        self.namespace: dict[str, Any] = {}

    def compile(self, source: str) -> bool:
        try:
            self.code = compile(source, SOLUTION, "exec")
        except (SyntaxError, ValueError) as err:
            self.emit({"kind": "syntax", **error_info(err)})
            return False
        except (MemoryError, RecursionError) as err:
            self.emit({"kind": "syntax", "type": type(err).__name__, "message": "the source is too deeply nested to compile"})
            return False
        return True

    def guarded(self, body: Callable[[], Any], cpu_s: float, tracer: Any = None, index: int = -1) -> tuple[str, Any, float]:
        """(status, payload, cpu seconds) of body() under the time limits."""
        global _reserve
        _running.update(emit=self.emit, record={"kind": "test" if index >= 0 else "load", "i": index, "cpu": cpu_s})
        start = time.process_time()
        try:
            _arm(cpu_s, cpu_s * self.wall_factor + 0.5)
            try:
                if tracer is not None:
                    with tracer:
                        value = body()
                else:
                    value = body()
            finally:
                _disarm()
            used = time.process_time() - start
            return ("timeout", None, used) if used > cpu_s else ("ok", value, used)
        except TimeLimit:
            return "timeout", None, time.process_time() - start
        except MemoryError:
            _reserve = None
            gc.collect()
            _reserve = bytearray(2 << 20)
            return "memory", None, time.process_time() - start
        except SystemExit as err:
            return "exit", err.code, time.process_time() - start
        except BaseException as err:  # noqa: BLE001 - everything else is the candidate's exception
            return "error", error_info(err), time.process_time() - start


def _result(index: int, status: str, payload: Any, used: float) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "test", "i": index, "status": status, "cpu": round(used, 6)}
    if status == "error":
        record["error"] = payload
    elif status == "exit":
        record["code"] = payload if isinstance(payload, (int, type(None))) else _safe_repr(payload)
    return record


def run_function(runner: Runner, tests: list[Any], limits: list[float], tracer_for: Callable[[int], Any]) -> None:
    spec = runner.spec
    load_limit = max(limits) if limits else 2.0
    with Capture(-1, ""):
        status, payload, used = runner.guarded(lambda: exec(runner.code, runner.namespace), load_limit)
    if status != "ok":
        runner.emit({**_result(-1, status, payload, used), "kind": "load"})
        return
    target = _entry(runner.namespace, str(spec["entry"]))
    if target is None:
        runner.emit({"kind": "load", "i": -1, "status": "missing", "entry": spec["entry"]})
        return
    for index, raw in enumerate(tests):
        args = json.loads(raw)  # a fresh copy: a candidate that mutates its input cannot touch the next test
        with Capture(index, "") as capture:
            status, value, used = runner.guarded(lambda: _call(target, args), limits[index], tracer_for(index), index)
        printed, over = capture.read(runner.cap)
        record = _result(index, status, value, used)
        if status == "ok":
            record.update(_encoded(value, runner.cap))
        if printed:
            record["printed"] = printed[:4096]
        if over:
            record.update(status="output_limit", size=runner.cap)
        runner.emit(record)
        if status in ("timeout", "memory"):
            return


def _entry(namespace: dict[str, Any], entry: str) -> Callable[..., Any] | None:
    owner, _, method = entry.partition(".")
    found = namespace.get(owner)
    if not method:
        return found if callable(found) else None
    if not isinstance(found, type) or not hasattr(found, method):
        return None
    return lambda *args: getattr(found(), method)(*args)  # a fresh instance per test, LeetCode style


def _call(target: Callable[..., Any], args: Any) -> Any:
    return target(*args) if isinstance(args, list) else target(args)


def _encoded(value: Any, cap: int) -> dict[str, Any]:
    try:
        text = json.dumps(encode(value))
    except (Unencodable, RecursionError, ValueError) as err:
        return {"status": "unencodable", "repr": _safe_repr(value), "why": str(err)}
    if len(text) > cap:
        return {"status": "output_limit", "size": len(text)}
    return {"value": text}


def run_stdio(runner: Runner, tests: list[str], limits: list[float], tracer_for: Callable[[int], Any]) -> None:
    for index, text in enumerate(tests):
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        with Capture(index, text) as capture:
            status, payload, used = runner.guarded(lambda: exec(runner.code, namespace), limits[index], tracer_for(index), index)
        out, over = capture.read(runner.cap)
        if status == "exit" and payload in (0, None):
            status = "ok"
        record = _result(index, status, payload, used)
        if over:  # checked first: a flood usually ends in an error (EFBIG) that is not the point
            record.update(status="output_limit", size=runner.cap)
        elif status in ("ok", "exit", "error", "timeout"):
            record["stdout"] = out
        runner.emit(record)
        if status in ("timeout", "memory"):
            return


def _emitter() -> Callable[[dict[str, Any]], None]:
    """Results go to a duplicate of the original stdout, made before fd 1 is redirected."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)

    def emit(record: dict[str, Any]) -> None:
        channel.write(json.dumps(record) + "\n")
        channel.flush()

    return emit


def main(spec_path: str) -> int:
    global _reserve
    _reserve = bytearray(2 << 20)
    with open(spec_path) as handle:
        spec = json.load(handle)
    os.unlink(spec_path)
    with open(SOLUTION, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    signal.signal(signal.SIGPROF, _on_timer)
    signal.signal(signal.SIGALRM, _on_timer)
    builtins.exit = builtins.quit = sys.exit  # -S skips site, which normally defines these
    sys.set_int_max_str_digits(0)  # answers may be huge ints, as on judges that run older Pythons
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    emit = _emitter()
    runner = Runner(spec, emit)
    if not runner.compile(source):
        emit({"kind": "done"})
        return 0
    emit({"kind": "compiled"})
    tests, limits = spec["tests"], spec["limits"]
    trace = spec.get("trace")
    tracer_for = _tracers(trace, emit)
    if trace is not None:  # a trace run executes only the traced test
        index = int(trace["test"])
        tests, limits = _only(tests, index), _only(limits, index)
    runner_fn = run_function if spec["mode"] == "function" else run_stdio
    runner_fn(runner, tests, limits, tracer_for)
    if trace is not None:
        tracer_for(-1)
    emit({"kind": "done"})
    return 0


def _only(items: list[Any], index: int) -> list[Any]:
    return [items[index]] if 0 <= index < len(items) else []


def _tracers(trace: dict[str, Any] | None, emit: Callable[[dict[str, Any]], None]) -> Callable[[int], Any]:
    """tracer_for(i): the tracer for the i-th test run (only the first, in a trace run); -1 reports it."""
    if trace is None:
        return lambda index: None
    # copied beside this file, imported only for trace runs
    from ecot_trace import Tracer  # noqa: I001

    tracer = Tracer(SOLUTION, int(trace.get("max_events", 400)), int(trace.get("max_repr", 80)))

    def tracer_for(index: int) -> Any:
        if index == -1:
            emit({"kind": "trace", "test": int(trace["test"]), **tracer.result()})
            return None
        return tracer if index == 0 else None

    return tracer_for


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
