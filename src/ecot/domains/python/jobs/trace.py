"""Line-level execution traces of a Python candidate: the world-model observations of CWM.

Standard library only: the harness copies this file into the sandbox as `ecot_trace.py`. A trace is
a list of events for frames whose code comes from the candidate's file (never the harness or the
standard library):

    {"event": "call", "function": "f", "line": 1, "depth": 0, "source": "def f(n):", "locals": {"n": "3"}}
    {"event": "line", "function": "f", "line": 2, "depth": 0, "source": "total = 0", "locals": {}}
    {"event": "line", "function": "f", "line": 3, "depth": 0, "source": "for i in range(n):", "locals": {"total": "0"}}
    {"event": "return", "function": "f", "line": 5, "depth": 0, "source": "return total", "locals": {}, "value": "3"}
    {"event": "exception", ..., "exception": "ZeroDivisionError('division by zero')"}

Each event carries the frame's local variables at that moment, which is the state *after* the
frame's previous line ran (CWM's observation before each action); a variable appears only when
it is new or its value changed since the frame's previous event, and `deleted` lists variables
that disappeared. Values are bounded reprs (reprlib limits plus `max_repr` characters). After
`max_events` events tracing stops, `truncated` is set, `on_full` (if set) is called with the tracer
(the harness sends the trace right then, so it survives a test that is killed later) and the program
runs on untraced.
"""

from __future__ import annotations

import linecache
import reprlib
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

_UNWINDING = object()


class Tracer:
    def __init__(self, filename: str, max_events: int = 400, max_repr: int = 80) -> None:
        self.filename = filename
        self.max_events = max_events
        self.max_repr = max_repr
        self.events: list[dict[str, Any]] = []
        self.truncated = False
        self._seen: dict[int, dict[str, str]] = {}  # frame id -> last shown reprs
        self._last: dict[int, str] = {}  # frame id -> last event kind
        self._depths: dict[int, int] = {}  # frame id -> call depth
        self._depth = 0
        self._repr = reprlib.Repr()
        self._repr.maxlevel, self._repr.maxlist, self._repr.maxtuple = 4, 16, 16
        self._repr.maxdict, self._repr.maxset, self._repr.maxstring, self._repr.maxother = 12, 16, max_repr, max_repr
        self._old: Any = None
        self.on_full: Callable[[Tracer], None] | None = None

    # -- installing ------------------------------------------------------------------------------
    def __enter__(self) -> Tracer:
        self._old = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._old)

    def result(self) -> dict[str, Any]:
        return {"events": self.events, "truncated": self.truncated}

    # -- trace functions ---------------------------------------------------------------------------
    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call" or frame.f_code.co_filename != self.filename or self.truncated:
            return None
        self._depths[id(frame)] = self._depth
        self._depth += 1
        self._record(frame, "call", {})
        return self._local

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self.truncated:
            return None
        if event == "line":
            self._record(frame, "line", {})
        elif event == "exception":
            self._record(frame, "exception", {"exception": self._show(arg[1])})
        elif event == "return":
            self._depth -= 1
            unwinding = self._last.get(id(frame)) == "exception" and arg is None
            self._record(frame, "return", {"unwinding": True} if unwinding else {"value": self._show(arg)})
            for table in (self._seen, self._last, self._depths):
                table.pop(id(frame), None)
        return self._local

    # -- events ----------------------------------------------------------------------------------
    def _record(self, frame: FrameType, kind: str, extra: dict[str, Any]) -> None:
        if len(self.events) >= self.max_events:
            self.truncated = True
            sys.settrace(None)
            if self.on_full is not None:
                self.on_full(self)
            return
        changed, deleted = self._changes(frame)
        event: dict[str, Any] = {
            "event": kind,
            "function": frame.f_code.co_name,
            "line": frame.f_lineno,
            "depth": self._depths.get(id(frame), 0),
            "source": linecache.getline(self.filename, frame.f_lineno).strip(),
            "locals": changed,
        }
        if deleted:
            event["deleted"] = deleted
        event.update(extra)
        self.events.append(event)
        self._last[id(frame)] = kind

    def _changes(self, frame: FrameType) -> tuple[dict[str, str], list[str]]:
        before = self._seen.get(id(frame), {})
        now = {name: self._show(value) for name, value in list(frame.f_locals.items()) if not _hidden(name)}
        self._seen[id(frame)] = now
        changed = {name: text for name, text in now.items() if before.get(name) != text}
        deleted = [name for name in before if name not in now]
        return changed, deleted

    def _show(self, value: Any) -> str:
        try:
            if isinstance(value, (bytes, bytearray, memoryview)) and len(value) > self.max_repr:
                value = bytes(value[: self.max_repr])  # reprlib would build the whole repr first
            text = self._repr.repr(value)
        except BaseException as err:  # noqa: BLE001 - a candidate's __repr__ may raise anything
            text = f"<repr failed: {type(err).__name__}>"
        return text if len(text) <= self.max_repr else text[: self.max_repr - 3] + "..."

    @staticmethod
    def record(test: int, found: dict[str, Any]) -> dict[str, Any]:
        """The harness's `trace` record of what the child reported after a trace run."""
        events = found.get("events")
        return {"kind": "trace", "test": test, "events": events if isinstance(events, list) else [],
                "truncated": found.get("truncated") is True}


def _hidden(name: str) -> bool:
    """Names that are not the program's own state (module dunders, the harness's builtins)."""
    return name.startswith("__") and name.endswith("__")


def render(events: list[dict[str, Any]], truncated: bool = False) -> str:
    """A compact text form of a trace, one event per line (for docs and for reading)."""
    lines = []
    for event in events:
        pad = "  " * int(event.get("depth", 0))
        state = ", ".join(f"{k}={v}" for k, v in event.get("locals", {}).items())
        head = f"{pad}{event['event']:<9} {event['function']}:{event['line']}"
        tail = f"  | {state}" if state else ""
        if event["event"] == "return":
            tail += "  -> unwinding" if event.get("unwinding") else f"  -> {event.get('value')}"
        elif event["event"] == "exception":
            tail += f"  !! {event.get('exception')}"
        lines.append(f"{head}  {event.get('source', '')}{tail}")
    if truncated:
        lines.append("... (trace truncated)")
    return "\n".join(lines)
