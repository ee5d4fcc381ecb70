"""The candidate's side of a python test run: what a forked child of the harness does (standard library only).

Copied into the sandbox as `ecot_child.py`; ecot_harness.py forks one child per run, which runs the
tests in order, each when the harness says so: function mode loads the module once and calls the
entry point per test (module state carries over, as on a judge that keeps one process); stdio mode
runs the program as __main__ per test, with a fresh namespace. From the moment the candidate's code runs the
child is the candidate's, so it reports only what the candidate *produced* (a return value, captured
stdout, an exception, an exit) as length-prefixed JSON frames on its reply pipe. The harness alone
decides status and time, from the kernel, and writes the records the host reads.

stdin and stdout are unnamed memory files (memfd) on descriptors 0 and 1 for each test, so `input()`,
`open(0)`, `print` and `os.write(1, ...)` all work and there is no path to swap for a link.
"""

from __future__ import annotations

import builtins
import gc
import io
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import ecot_values
from ecot_jail import GO_FD, REPLY_FD, confine
from ecot_jail import prepare as jail_ready

SOLUTION = "solution.py"
PRINTED_CAP = 4096  # what a function's own prints show in the log


class Unencodable(Exception):
    pass


_reserve: bytearray | None = None  # 2 MiB, freed on MemoryError so the report still gets out


def send(frame: dict[str, Any]) -> None:
    body = json.dumps(frame).encode()
    data = len(body).to_bytes(4, "big") + body
    while data:
        data = data[os.write(REPLY_FD, data) :]


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
    except BaseException as err:  # noqa: BLE001 - a hostile __repr__ must not end the report
        text = f"<unprintable {type(value).__name__}: {type(err).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _safe_str(err: BaseException, limit: int = 300) -> str:
    try:
        text = str(err)
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not end the report
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
    """One test's stdin (holding its input) and stdout, as memory files on descriptors 0 and 1."""

    def __init__(self, text_in: str) -> None:
        self.text_in = text_in.encode()
        self.out = -1

    def __enter__(self) -> Capture:
        stdin = os.memfd_create("stdin")
        data = self.text_in
        while data:
            data = data[os.write(stdin, data) :]
        os.lseek(stdin, 0, os.SEEK_SET)
        self.out = os.memfd_create("stdout")
        for fd, target in ((stdin, 0), (os.dup(self.out), 1)):
            if fd != target:  # the candidate may have closed 0 or 1, so the new descriptor took its number
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
        """(what the test printed, up to cap bytes; whether it printed more)."""
        try:
            size = os.fstat(self.out).st_size
            data = os.pread(self.out, cap, 0) if size else b""
            os.close(self.out)
        except OSError:  # the candidate closed our descriptor: it printed nothing we can see
            return "", False
        return data.decode("utf-8", "replace"), size > cap


def guarded(body: Callable[[], Any], tracer: Any = None) -> tuple[str, Any]:
    """(status, payload) of body(): its value, or how it failed. No clock here: the harness times us."""
    global _reserve
    try:
        if tracer is None:
            return "ok", body()
        with tracer:
            return "ok", body()
    except MemoryError:
        _reserve = None
        gc.collect()
        _reserve = bytearray(2 << 20)
        return "memory", None
    except SystemExit as err:
        code = err.code
        plain = code is None or (isinstance(code, int) and abs(code) < 1 << 31)
        return "exit", code if plain else _safe_repr(code)
    except BaseException as err:  # noqa: BLE001 - everything else is the candidate's exception
        return "error", error_info(err)


def _result(index: int, status: str, payload: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "test", "i": index, "status": status}
    if status == "error":
        record["error"] = payload
    elif status == "exit":
        record["code"] = payload
    return record


def _encoded(value: Any, cap: int) -> dict[str, Any]:
    try:
        text = json.dumps(encode(value))
    except (Unencodable, RecursionError, ValueError) as err:
        return {"status": "unencodable", "repr": _safe_repr(value), "why": str(err)}
    if len(text) > cap:
        return {"status": "output_limit", "size": len(text)}
    return {"value": text}


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


def _traced(job: dict[str, Any]) -> Any:
    """The tracer of a trace run (one test), which sends its trace as soon as it is full."""
    tracer = job.get("tracer")
    if tracer is not None:
        tracer.on_full = lambda full: send({"kind": "trace", **full.result()})
    return tracer


def load(job: dict[str, Any]) -> Callable[..., Any] | None:
    """Function and check mode: execute the module once (after the task's preamble, if any: HumanEval's
    prompt, as its harness does) and find the entry point; reports how that went."""
    namespace: dict[str, Any] = {}

    def body() -> None:
        if job.get("preamble") is not None:
            exec(job["preamble"], namespace)
        exec(job["code"], namespace)

    with Capture(""):
        status, payload = guarded(body)
    if status != "ok":
        send({**_result(-1, status, payload), "kind": "load"})
        return None
    target = _entry(namespace, str(job["entry"]))
    send({"kind": "load", "status": "ok"} if target is not None else {"kind": "load", "status": "missing", "entry": job["entry"]})
    return target


def call_test(target: Callable[..., Any], raw: str, index: int, cap: int, tracer: Any) -> dict[str, Any]:
    args = json.loads(raw)  # a fresh copy: a candidate that mutates its input cannot touch the next test
    with Capture("") as capture:
        status, value = guarded(lambda: _call(target, args), tracer)
    printed, over = capture.read(cap)
    record = _result(index, status, value)
    if status == "ok":
        record.update(_encoded(value, cap))
    if printed:
        record["printed"] = printed[:PRINTED_CAP]
    if over:
        record.update(status="output_limit", size=cap)
    return record


def _read_exactly(count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = os.read(GO_FD, count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _receive() -> dict[str, Any] | None:
    """Check mode: the judge's next call (a length-prefixed frame), or None once it has closed the pipe."""
    head = _read_exactly(4)
    body = _read_exactly(int.from_bytes(head, "big")) if head is not None else None
    frame: dict[str, Any] | None = json.loads(body) if body is not None else None
    return frame


def _arguments_after(args: Any, kwargs: Any, sent: str) -> str | None:
    """The arguments as the candidate left them, if it changed them and they are still plain data."""
    try:
        after = ecot_values.dump([args, kwargs])
    except ecot_values.Unencodable:
        return None
    return after if after != sent else None


def check_call(target: Callable[..., Any], request: dict[str, Any], cap: int) -> dict[str, Any]:
    """One call the judge's check code made: the candidate's return value as plain data, or how it failed."""
    args, kwargs = ecot_values.load(request["args"])
    with Capture("") as capture:
        status, value = guarded(lambda: target(*args, **kwargs))
    printed, over = capture.read(cap)
    record = {**_result(int(request["i"]), status, value), "kind": "call"}
    after = _arguments_after(args, kwargs, request["args"])
    if after is not None:  # the check sees its arguments changed, as it would sharing the candidate's process
        record["args_after"] = after
    if status == "ok":
        try:
            text = ecot_values.dump(value)
        except ecot_values.Unencodable as err:
            record.update(status="unencodable", repr=_safe_repr(value), why=str(err))
        else:
            record.update({"value": text} if len(text) <= cap else {"status": "output_limit", "size": len(text)})
    if printed:
        record["printed"] = printed[:PRINTED_CAP]
    if over:
        record.update(status="output_limit", size=cap)
    return record


def program_test(code: Any, text_in: str, index: int, cap: int, tracer: Any) -> dict[str, Any]:
    """Run the program as __main__ on one test's input, then wait for its threads as an interpreter would."""
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    def program() -> None:
        exec(code, namespace)
        _join_threads()

    with Capture(text_in) as capture:
        status, payload = guarded(program, tracer)
    out, over = capture.read(cap)
    if status == "exit" and payload in (0, None):
        status = "ok"
    record = _result(index, status, payload)
    if over:  # checked first: a flood usually ends in an error (EFBIG) that is not the point
        record.update(status="output_limit", size=cap)
    elif status in ("ok", "exit", "error"):
        record["stdout"] = out
    return record


def _join_threads() -> None:
    threading = sys.modules.get("threading")  # not imported unless the program did
    if threading is not None:
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()


def session(job: dict[str, Any]) -> None:
    """Every test of the job in order, each on the judge's go-ahead, one frame each."""
    target = load(job) if job["mode"] != "stdio" else None
    if job["mode"] != "stdio" and target is None:
        return
    tracer, cap = _traced(job), int(job["cap"])
    if job["mode"] == "check" and target is not None:
        while (request := _receive()) is not None:
            send(check_call(target, request, cap))
        return
    for index, raw in enumerate(job["tests"]):
        if not os.read(GO_FD, 1):  # one test at a time, so the judge's clock sees only this one
            return
        if target is not None:
            record = call_test(target, raw, index, cap, tracer)
        else:
            record = program_test(job["code"], raw, index, cap, tracer)
        if tracer is not None and not tracer.truncated:  # a full tracer has sent its trace already
            send({"kind": "trace", **tracer.result()})
        send(record)


def prepare() -> None:
    """Before the judge's first fork: what every child needs, made once per interpreter. Also run when
    this module is imported, so the warm judge (which imports it once, then forks a judge per job) pays
    for the reserve's 2 MiB of fresh pages once rather than in every job (about 0.8 ms of each)."""
    global _reserve
    if _reserve is None:
        _reserve = bytearray(2 << 20)
    jail_ready()


prepare()


def child_main(job: dict[str, Any], pipes: dict[int, int], judge: int) -> None:
    """The forked child's whole life; the caller exits right after, whatever happens."""
    confine(pipes, judge)
    gc.enable()
    session(job)
