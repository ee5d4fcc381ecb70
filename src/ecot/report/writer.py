"""The incremental site writer: a file is rendered only when its key changed and written only when its
bytes changed; files an earlier report wrote and this one does not are removed.

The manifest (`.ecot-report.json` in the output folder) records, per file, the key it was rendered
from and the sha256 of its bytes. Every file is written atomically (temporary name, then rename),
and the manifest is saved every CHECKPOINT writes and at the end, so a crash loses no finished page:
a page written after the last checkpoint is only rendered again on the next run. Only files named in
the manifest are ever removed; a folder that holds other files and no manifest is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ecot.core.errors import EcotError

MANIFEST = ".ecot-report.json"
FORMAT = 1
CHECKPOINT = 500


@dataclass
class WriteCounts:
    written: int = 0  # new or changed bytes
    unchanged: int = 0  # rendered again, same bytes: not rewritten
    kept: int = 0  # same key: not even rendered
    removed: int = 0  # written by an earlier report, not part of this one

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def key_of(*parts: object) -> str:
    """A short stable key of JSON-able parts."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class SiteWriter:
    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.counts = WriteCounts()
        self._old = self._load()
        self._new: dict[str, list[str]] = {}
        self._since_checkpoint = 0
        if not (self.out / MANIFEST).is_file():
            self.save()  # first: a report killed before its first checkpoint is still known as one

    def _load(self) -> dict[str, list[str]]:
        path = self.out / MANIFEST
        if self.out.exists() and not self.out.is_dir():
            raise EcotError(f"--out {self.out} exists and is not a folder")
        if not path.is_file():
            if self.out.is_dir() and any(self.out.iterdir()):
                raise EcotError(f"--out {self.out} is not empty and holds no ecot report: choose a new or empty folder")
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise EcotError(f"{path}: unreadable report manifest ({err}); delete the folder to start over") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
            return {}  # another format: everything is rendered again (and old files stay)
        return {str(k): list(v) for k, v in data["files"].items() if isinstance(v, list) and len(v) == 2}

    def fresh(self, rel: str, key: str) -> bool:
        """True (and the file kept as is) when it was written from the same key and is still there."""
        entry = self._old.get(rel)
        if entry is None or entry[0] != key or not (self.out / rel).is_file():
            return False
        self._new[rel] = entry
        self.counts.kept += 1
        return True

    def old_sha(self, rel: str) -> str | None:
        """The sha256 the earlier report recorded for `rel` (what a rendering elsewhere compares with)."""
        entry = self._old.get(rel)
        return entry[1] if entry is not None else None

    def write(self, rel: str, data: bytes | str, key: str = "") -> Path:
        """Write `data` at `rel` unless the file already holds exactly these bytes."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        sha, written = write_if_changed(self.out / rel, raw, self.old_sha(rel))
        self.record(rel, key, sha, written)
        return self.out / rel

    def record(self, rel: str, key: str, sha: str, written: bool) -> None:
        """Note a file this report holds (written here, or by a worker process with write_if_changed)."""
        if written:
            self.counts.written += 1
        else:
            self.counts.unchanged += 1
        self._new[rel] = [key, sha]
        self._since_checkpoint += 1
        if self._since_checkpoint >= CHECKPOINT:
            self.save()

    def save(self) -> None:
        """Record what is on disk now: files of the old manifest not yet seen stay listed until finish()."""
        files = {**self._old, **self._new}
        data = json.dumps({"format": FORMAT, "files": files}, sort_keys=True).encode("utf-8")
        path = self.out / MANIFEST
        if not (path.is_file() and path.read_bytes() == data):  # an unchanged report leaves every file untouched
            _atomic_write(path, data)
        self._since_checkpoint = 0

    def finish(self) -> None:
        """Remove the files of the earlier report that this one did not produce, then save the manifest."""
        for rel in sorted(set(self._old) - set(self._new)):
            path = self.out / rel
            if path.is_file():
                path.unlink()
                self.counts.removed += 1
        self._old = {}
        self.save()


def write_if_changed(target: Path, data: bytes, old_sha: str | None) -> tuple[str, bool]:
    """(sha256 of `data`, whether it was written): a file that still holds the bytes recorded is left alone."""
    sha = digest(data)
    if old_sha == sha and target.is_file():
        return sha, False
    _atomic_write(target, data)
    return sha, True


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)
