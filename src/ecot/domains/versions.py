"""Toolchain versions, probed once per binary and remembered across processes.

Every outcome records the versions of the tools that judged it. Running `tool --version` for each of
them costs a one-shot `ecot check` more than the simulation itself, so a probe's answer is kept in
memory and in a small JSON file in the user's cache folder, keyed by the binary's resolved path, and
trusted only while the binary keeps the modification time and size it had when it was probed: an
upgraded toolchain is probed again. The file is a cache, never a source of truth: a missing, corrupt or
unwritable one costs a probe, not an error.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CACHE_FILE = "versions.json"
PROBE_FLAGS = ("--version", "-V")
PROBE_TIMEOUT_S = 20.0
UNKNOWN = "unknown"
_FORMAT = 1  # bump when an entry's meaning changes; an older file is then ignored


@dataclass(frozen=True)
class Binary:
    """One executable as found on disk: what a cached version is valid for."""

    invoked: str  # the name or path a probe runs
    resolved: str  # symlinks followed: the file whose identity is checked
    mtime_ns: int
    size: int

    @classmethod
    def find(cls, tool: str) -> Binary | None:
        """The executable `tool` names (a PATH name or a path), or None when there is none."""
        found = shutil.which(tool)
        if found is None:
            return None
        resolved = os.path.realpath(found)
        try:
            stat = os.stat(resolved)
        except OSError:
            return None
        return cls(found, resolved, stat.st_mtime_ns, stat.st_size)

    def matches(self, entry: Any) -> bool:
        """Whether a cache entry was probed from this very file (same modification time and size)."""
        return (
            isinstance(entry, dict)
            and entry.get("mtime_ns") == self.mtime_ns
            and entry.get("size") == self.size
            and isinstance(entry.get("version"), str)
        )


def cache_dir() -> Path:
    """ECOT_CACHE if set, else $XDG_CACHE_HOME/ecot, else ~/.cache/ecot."""
    explicit = os.environ.get("ECOT_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ecot"


def probe(tool: str) -> str:
    """First version-looking line of `tool --version` (or `tool -V`); UNKNOWN when neither answers."""
    for flag in PROBE_FLAGS:
        try:
            proc = subprocess.run([tool, flag], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        for line in (proc.stdout + proc.stderr).splitlines():
            if re.search(r"\d+\.\d+", line):
                return line.strip()[:120]
    return UNKNOWN


class VersionCache:
    """Versions by binary, read from `path` on first use and written back after each new probe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, Any] | None = None
        self._unknown: set[Binary] = set()  # failed probes: not written, not retried in this process

    def version(self, tool: str) -> str:
        binary = Binary.find(tool)
        if binary is None:
            return probe(tool)  # not on PATH: the probe fails the way the caller expects (UNKNOWN)
        entries = self._loaded()
        entry = entries.get(binary.resolved)
        if entry is not None and binary.matches(entry):
            return str(entry["version"])
        if binary in self._unknown:
            return UNKNOWN
        found = probe(binary.invoked)
        if found == UNKNOWN:  # a hung or mute tool: the next process tries again
            self._unknown.add(binary)
        else:
            entries[binary.resolved] = {"mtime_ns": binary.mtime_ns, "size": binary.size, "version": found}
            self._save(entries)
        return found

    def _loaded(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = _read_entries(self.path)
        return self._entries

    def _save(self, entries: dict[str, Any]) -> None:
        # Another process may have probed other tools meanwhile: keep its entries, ours win on a clash.
        merged = {**_read_entries(self.path), **entries}
        try:
            write_atomically(self.path, json.dumps({"format": _FORMAT, "tools": merged}, indent=1, sort_keys=True))
        except OSError as err:
            log.debug("tool version cache %s not written: %s", self.path, err)


def _read_entries(path: Path) -> dict[str, Any]:
    """The cached entries; an absent, unreadable or malformed file reads as empty (and is rewritten)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("tools"), dict):
        return {}
    return dict(data["tools"])


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file next to `path`, then rename: a reader sees the old file or the new one."""
    import tempfile  # only a process that probed something writes

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


_caches: dict[Path, VersionCache] = {}


def tool_version(tool: str) -> str:
    """The version line of `tool`, probed at most once per binary (per process, and across processes
    through the cache file while the binary is unchanged)."""
    path = cache_dir() / CACHE_FILE
    cache = _caches.get(path)
    if cache is None:
        cache = _caches[path] = VersionCache(path)
    return cache.version(tool)
