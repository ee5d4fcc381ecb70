"""Facts about a task that do not depend on the candidate, kept across processes and runs.

A verdict needs facts besides the candidate: the sample count the reference's simulation reports, the
reference's CPU time and answers on every test. Measuring them costs a toolchain run per task, so a
process that scores a suite once paid about twice the work. They are kept here, on the trusted side:

- where: the user's cache folder (ECOT_CACHE, else $XDG_CACHE_HOME/ecot, else ~/.cache/ecot), one
  small JSON file per entry under `tasks/<kind>/`; jobs never see that folder (the sandbox mounts no
  home or cache folder), so no candidate can write an entry;
- the key: a hash of everything the measurement read, and of nothing else: the task's content (files,
  reference, options, limits), the identity of every tool it ran (resolved path, modification time,
  size and version line: an upgraded or rebuilt toolchain misses), and the source of the code that
  measured it (a changed harness misses). No byte a candidate sends takes part, so a candidate can
  neither choose an entry nor make one;
- what is kept: only a clean measurement (the caller's `dump` returns None for a reference that
  failed, timed out or did not finish, which is measured again next time);
- writes go to a temporary file renamed into place: a reader sees a whole entry or none, concurrent
  writers of one key write the same facts, a crash leaves at most a stray temporary file. A missing,
  unreadable or malformed entry is measured again: the cache is never a source of truth.

`ECOT_NO_CACHE=1` (`ecot eval --no-cache`) bypasses the folder: every fact is measured in the process
(and kept in its memory, as before). See docs/benchmarks.md for what it saves.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from ecot.domains.versions import Binary, cache_dir, tool_version, write_atomically

log = logging.getLogger(__name__)

FOLDER = "tasks"
MEMORY_ENTRIES = 2048  # per process, across kinds
NO_CACHE_ENV = "ECOT_NO_CACHE"
_FORMAT = 1  # bump when the layout of an entry changes; older entries then miss

T = TypeVar("T")
_memory: OrderedDict[tuple[str, str], Any] = OrderedDict()
_lock = threading.Lock()


def enabled() -> bool:
    """Whether facts are read from and written to the cache folder (ECOT_NO_CACHE unset, "" or "0")."""
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def root() -> Path:
    return cache_dir() / FOLDER


@cache
def tool_identity(tool: str) -> str:
    """What a tool's answers depend on: its resolved path, modification time, size and version line
    (once per process; "missing" when it is not on PATH)."""
    binary = Binary.find(tool)
    if binary is None:
        return f"{tool}: missing"
    return f"{binary.resolved} {binary.mtime_ns} {binary.size} {tool_version(tool)}"


@cache
def code_identity(*modules: str) -> str:
    """A hash of the named modules' source files (the code that measures a fact and reads it back)."""
    digest = hashlib.sha256()
    for name in modules:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path is None:
            raise ValueError(f"module {name} is not loaded from a file: its facts cannot be keyed")
        digest.update(name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


def key(kind: str, *parts: Any) -> str:
    """The entry's name: a hash of the kind and every part (JSON; sets and tuples as sorted lists)."""
    text = json.dumps([_FORMAT, kind, *parts], sort_keys=True, default=_plain, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def lookup(kind: str, name: str, measure: Callable[[], T], dump: Callable[[T], dict[str, Any] | None],
           load: Callable[[dict[str, Any]], T]) -> T:
    """The fact `name` (a key()) of this kind: from this process's memory, else the cache folder, else
    measured now (and kept when `dump` gives a plain JSON object for it). `load` turns an entry back
    into the fact; one it refuses (raises) is measured again."""
    with _lock:
        if (kind, name) in _memory:
            _memory.move_to_end((kind, name))
            return _memory[(kind, name)]  # type: ignore[no-any-return]
    found: T | None = None
    entry = read(kind, name) if enabled() else None
    if entry is not None:
        try:
            found = load(entry)
        except (KeyError, TypeError, ValueError) as err:
            log.debug("cache entry %s/%s ignored: %s", kind, name, err)
    if found is None:
        found = measure()
        kept = dump(found)
        if kept is not None and enabled():
            write(kind, name, kept)
    _remember(kind, name, found)
    return found


def _remember(kind: str, name: str, fact: Any) -> None:
    with _lock:
        _memory[(kind, name)] = fact
        while len(_memory) > MEMORY_ENTRIES:
            _memory.popitem(last=False)


def forget() -> None:
    """Drop this process's memory of facts (the folder stays): the next lookup reads or measures."""
    with _lock:
        _memory.clear()


def _path(kind: str, name: str) -> Path:
    if not kind.replace("-", "").isalnum() or len(name) != 64 or not all(c in "0123456789abcdef" for c in name):
        raise ValueError(f"bad cache entry name {kind}/{name}")
    return root() / kind / name[:2] / f"{name}.json"


def read(kind: str, name: str) -> dict[str, Any] | None:
    """The entry's facts, or None when it is absent, unreadable or not one well-formed entry of this key."""
    try:
        data = json.loads(_path(kind, name).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != _FORMAT or data.get("key") != name:
        return None
    facts = data.get("facts")
    return facts if isinstance(facts, dict) else None


def write(kind: str, name: str, facts: dict[str, Any]) -> None:
    """Write the entry atomically; a folder that cannot be written costs a measurement, not an error."""
    path = _path(kind, name)
    text = json.dumps({"format": _FORMAT, "key": name, "facts": facts}, sort_keys=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomically(path, text)
    except OSError as err:
        log.debug("cache entry %s not written: %s", path, err)
