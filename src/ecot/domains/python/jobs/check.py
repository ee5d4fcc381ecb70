"""Check mode, the judge's side: the benchmark's own test code runs here, the candidate's function in the child.

Copied into the sandbox as `ecot_check.py`. HumanEval ships `def check(candidate): assert ...`, MBPP a
list of `assert f(...) == ...` lines; both are Python that calls the candidate. Running that code in the
candidate's process would let the candidate rewrite it (patch `AssertionError`, `abs` or `check`
itself, exit early, forge what it prints), so it runs here, in the judge, which never runs candidate
code: the name of the entry point is bound to a stand-in that sends each call's arguments to the child
and returns what the candidate returned, as plain data (ecot_values.py). Each call is one window of the
child's kernel CPU clock, as a test is in function mode.

The check file's top-level statements are split into tests: each `assert` statement and each
expression statement (HumanEval's `check(find_zero)`) closes one test, with the statements before it
(imports, helpers, `def check`) as its setup. A test passes when its statements ran to the end, at
least one `assert` ran (counted by rewriting every `assert` of the file), and no call of the candidate
failed in a way the check could not see (a crash, a time or memory limit, `sys.exit`, a value that is
not plain data): a check that swallows such a failure with `except BaseException` does not make it a
Pass. An exception the candidate raised reaches the check as the same builtin type, so a check that
expects one can catch it. The file is opened before the child exists and read after, so the child never
holds its text (expected values) in memory or on disk.
"""

from __future__ import annotations

import ast
import builtins
import gc
import io
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import ecot_values as values
from ecot_checkfile import COUNTER, instrumented, split_tests

CHECK_FILE, PREAMBLE_FILE = "check.py", "prompt.py"  # the names the judge's tracebacks show
SHOWN = 200  # characters of a call, a value or a message kept in a record
FATAL = ("timeout", "memory", "crash", "bad_report")
NOT_RAISED = (SystemExit, KeyboardInterrupt, GeneratorExit, StopIteration, StopAsyncIteration)


def _clip(text: str) -> str:
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _shown(value: Any) -> str:
    try:
        return _clip(repr(value))
    except (RecursionError, ValueError):  # a deep value, or an int too long to print
        return f"<{type(value).__name__}>"


class Stopped(BaseException):
    """The candidate's call failed beyond what the check may see (the failure is kept on the link)."""


def _raised(error: dict[str, Any]) -> BaseException:
    """The candidate's exception as the check sees it: the same builtin type where there is one."""
    kind = getattr(builtins, str(error.get("type")), None)
    message = str(error.get("message", ""))
    if isinstance(kind, type) and issubclass(kind, Exception) and not issubclass(kind, NOT_RAISED):
        try:
            return kind(message)
        except Exception:  # noqa: BLE001 - a type whose constructor wants other arguments
            pass
    return RuntimeError(f"{error.get('type')}: {message}")


class Link:
    """The candidate's function as the check calls it: every call a window of the child's clock."""

    def __init__(self, child: Any, plan: Any, verdict: Callable[..., dict[str, Any]]) -> None:
        self.child, self.plan, self.verdict = child, plan, verdict
        self.calls = 0
        self.begin(1.0)

    def begin(self, limit: float) -> None:
        self.limit, self.cpu, self.wall = limit, 0.0, 0.0
        self.first_call = self.calls
        self.failure: dict[str, Any] | None = None  # why this test failed whatever the check says
        self.raised: BaseException | None = None  # the last candidate exception handed to the check
        self.error: dict[str, Any] | None = None
        self.last_call, self.returned = "", ""

    def proxy(self, name: str) -> Callable[..., Any]:
        def candidate(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, args, kwargs)

        candidate.__name__ = candidate.__qualname__ = name
        return candidate

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.failure is not None:
            raise Stopped
        shown = ", ".join([_shown(a) for a in args] + [f"{k}={_shown(v)}" for k, v in kwargs.items()])
        self.last_call, self.returned = _clip(f"{name}({shown})"), ""
        try:
            payload = values.dump([list(args), kwargs])
        except values.Unencodable as err:
            return self._stop({"status": "unsupported", "why": f"the check passes {err} to {name}, which is not plain data"})
        index = self.calls
        self.calls += 1
        started = time.monotonic()
        delivered = self.child.ask(json.dumps({"kind": "call", "i": index, "args": payload}).encode(), self._wall_left())
        self.wall += time.monotonic() - started
        if not delivered:
            self.cpu += self.child.close()
            return self._stop({"status": "timeout", "limit": "wall", "wall_limit": round(self.plan.wall(self.limit), 3)})
        left = max(self.limit - self.cpu, 0.0)
        window = self.child.window(left, self._wall_left(), self.plan.frame_cap)
        self.cpu += window.cpu
        self.wall += window.wall
        record = self.verdict("call", index, window, left, self.child, self.plan)
        status = record["status"]
        if status in ("ok", "error") and "args_after" in record:
            try:
                changed = values.load(record["args_after"])
            except values.BadValue as err:
                return self._stop({"status": "bad_report", "why": f"arguments that are not values: {err}"})
            _write_back([list(args), kwargs], changed)
        if status == "ok":
            try:
                value = values.load(record.get("value", ""))
            except values.BadValue as err:
                return self._stop({"status": "bad_report", "why": f"a return value that is not one: {err}"})
            self.returned = _shown(value)
            return value
        if status == "error":
            self.error = record.get("error") or {}
            self.raised = _raised(self.error)
            raise self.raised
        if status == "timeout":
            record["wall_limit"] = round(self.plan.wall(self.limit), 3)
        return self._stop(record)

    def _wall_left(self) -> float:
        allowed: float = self.plan.wall(self.limit)
        return max(allowed - self.wall, 0.0)

    def _stop(self, record: dict[str, Any]) -> Any:
        for key in ("kind", "i", "cpu"):  # the test's record keeps its own index and CPU total
            record.pop(key, None)
        self.failure = record
        raise Stopped


def _write_back(mine: Any, theirs: Any) -> None:
    """Change the check's own arguments in place to what the candidate left in its copies (the check
    sees what it would see sharing the candidate's process: a list the candidate sorted is sorted)."""
    if isinstance(mine, (list, tuple)) and isinstance(theirs, (list, tuple)) and len(mine) == len(theirs):
        for index, (old, new) in enumerate(zip(mine, theirs)):
            if _same_shape(old, new):
                _write_back(old, new)
            elif isinstance(mine, list):
                mine[index] = new
    elif isinstance(mine, list) and isinstance(theirs, list):
        mine[:] = theirs
    elif isinstance(mine, dict) and isinstance(theirs, dict):
        if mine.keys() == theirs.keys():
            for key, new in theirs.items():
                if _same_shape(mine[key], new):
                    _write_back(mine[key], new)
                else:
                    mine[key] = new
        else:
            mine.clear()
            mine.update(theirs)
    elif isinstance(mine, set) and isinstance(theirs, (set, frozenset)):
        mine.clear()
        mine.update(theirs)
    elif isinstance(mine, bytearray) and isinstance(theirs, bytes):
        mine[:] = theirs


def _same_shape(old: Any, new: Any) -> bool:
    """Whether `old` is a container the write-back changes in place to look like `new`."""
    return any(isinstance(old, kind) and isinstance(new, like) for kind, like in
               (((list, tuple), (list, tuple)), (dict, dict), (set, (set, frozenset)), (bytearray, bytes)))


class Checks:
    """The check file, read from a descriptor the child never held, run test by test."""

    def __init__(self, fd: int, preamble: Any, entry: str) -> None:
        self.fd, self.preamble, self.entry = fd, preamble, entry
        self.assertions = 0

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> Checks:
        """In the judge, before the fork: the preamble compiled (the child runs it too), the check opened."""
        preamble = None
        if spec.get("preamble"):
            with open(spec["preamble"], encoding="utf-8") as handle:
                preamble = compile(handle.read(), PREAMBLE_FILE, "exec")
        return cls(open_check(spec["check"]), preamble, str(spec["entry"]))

    def _reached(self) -> None:
        self.assertions += 1

    def _namespace(self, link: Link) -> dict[str, Any]:
        namespace: dict[str, Any] = {"__name__": "__check__", "__builtins__": builtins}
        if self.preamble is not None:
            exec(self.preamble, namespace)  # the prompt's helpers (HumanEval's `poly`), trusted task code
        namespace[self.entry] = link.proxy(self.entry)
        namespace[COUNTER] = self._reached
        return namespace

    def run(self, child: Any, plan: Any, emit: Callable[[dict[str, Any]], None], verdict: Callable[..., Any]) -> int:
        """Every test in order (after the module loaded); how many test records were written."""
        source = self._read()
        tests = split_tests(ast.parse(source, CHECK_FILE))
        lines = source.splitlines()
        link = Link(child, plan, verdict)
        _isolate()
        try:
            namespace = self._namespace(link)
        except BaseException as err:  # noqa: BLE001 - a broken prompt: the task's fault, reported as the check's
            emit({"kind": "test", "i": 0, "cpu": 0.0, "status": "check_error", **_where(err, lines)})
            return 1
        for index, statements in enumerate(tests):
            link.begin(plan.limits[index])
            self.assertions = 0
            outcome = self._execute(statements, namespace, link, lines)
            if index == len(tests) - 1:
                link.cpu += child.close()  # the last window ends at the child's death
            record = self._record(index, outcome, link)
            emit(record)
            if record["status"] in FATAL:
                return index + 1
        return len(tests)

    def _read(self) -> str:
        chunks = []
        while chunk := os.read(self.fd, 1 << 16):
            chunks.append(chunk)
        os.close(self.fd)
        return b"".join(chunks).decode("utf-8", "replace")

    def _execute(self, statements: list[ast.stmt], namespace: dict[str, Any], link: Link, lines: list[str]) -> dict[str, Any]:
        code = compile(instrumented(ast.Module(statements, [])), CHECK_FILE, "exec")
        try:
            exec(code, namespace)
        except Stopped:
            return {}
        except BaseException as err:  # noqa: BLE001 - the check failed, or the candidate's exception ended it
            if err is link.raised:
                return {"status": "error", "error": link.error}
            status = "assertion" if isinstance(err, AssertionError) else "check_error"
            return {"status": status, **_where(err, lines)}
        return {"status": "ok"}

    def _record(self, index: int, outcome: dict[str, Any], link: Link) -> dict[str, Any]:
        record: dict[str, Any] = {"kind": "test", "i": index, "cpu": round(link.cpu, 6), "calls": link.calls - link.first_call,
                                  "assertions": self.assertions}
        if link.cpu > link.limit and (link.failure or {}).get("status") not in FATAL:
            link.failure = {"status": "timeout", "limit": "cpu"}  # threads working after the last reply
        if link.failure is not None:
            record.update(link.failure)
        elif outcome.get("status") == "ok" and self.assertions == 0:
            record["status"] = "vacuous"
        else:
            record.update(outcome)
        if link.last_call:
            record["call"] = link.last_call
            record["returned"] = link.returned
        return record


def _where(err: BaseException, lines: list[str]) -> dict[str, Any]:
    """The error's type and message, and the deepest line of the check file it passed through."""
    walked = traceback.StackSummary.extract(traceback.walk_tb(err.__traceback__), lookup_lines=False)
    frames = [f for f in walked if f.filename == CHECK_FILE]  # lines from our copy: the file is gone
    try:
        message = str(err)
    except Exception:  # noqa: BLE001 - a message that cannot be printed
        message = ""
    found: dict[str, Any] = {"type": type(err).__name__, "message": _clip(message)}
    if frames and frames[-1].lineno and 0 < frames[-1].lineno <= len(lines):
        found.update(line=frames[-1].lineno, text=_clip(lines[frames[-1].lineno - 1].strip()))
    return found


class _Sink(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


def _isolate() -> None:
    """Before the first line of check code: what it prints goes nowhere (our stdout is the verdict
    channel), and it imports from the system's library only, never from the work dir, where the
    candidate can write a `random.py` of its own."""
    sys.stdout = _Sink()
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != here]
    gc.enable()  # the judge forked with the collector off; check code may make cycles


def open_check(name: str) -> int:
    """The check file as a descriptor, its name gone: the child, forked next, closes every descriptor
    it does not need and finds no file to open."""
    fd = os.open(name, os.O_RDONLY)
    os.unlink(name)
    return fd
