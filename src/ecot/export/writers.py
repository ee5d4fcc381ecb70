"""Crash-safe export files: everything is written into a hidden staging folder inside the output
folder and renamed into place only when the whole export succeeded.

A reader never sees a half-written file, and a failed export leaves the previous corpus. The
staging folder is named `.ecot-export.<pid>.<random>`: an export killed with SIGKILL cannot
remove it, so the next export removes every staging folder whose process is gone (and the
`.<file>.*.tmp` temporaries older ecot versions left). Files of an earlier export that this one
does not write (a split or format it no longer produces) are removed, so the folder always holds
one consistent export, described by its README.md.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Protocol

from ecot.trajectory import Trajectory

RAW_JSONL = "raw.jsonl"
CARD = "README.md"
OWNED = re.compile(r"^(train|validation)\.(jsonl|parquet)$|^raw\.jsonl$|^README\.md$")
STAGING = re.compile(r"^\.ecot-export\.(\d+)\.[A-Za-z0-9_]+$")
OLD_TEMP = re.compile(r"^\.(train\.jsonl|train\.parquet|raw\.jsonl)\..+\.tmp$")
PARQUET_BATCH = 512


def raw_row(traj: Trajectory) -> dict[str, Any]:
    """The full multi-turn record of a trajectory, passed or not."""
    return {
        "trajectory_id": traj.id,
        "run_id": traj.provenance.get("run_id"),
        "task_id": traj.task_id,
        "domain": traj.domain,
        "sample": traj.sample,
        "status": traj.provenance.get("status"),
        "passed": traj.passed,
        "prompt_messages": traj.prompt_messages,
        "provenance": traj.provenance,
        "turns": [turn.to_dict() for turn in traj.turns],
    }


class RowWriter(Protocol):
    path: Path

    def write(self, row: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


class JsonlWriter:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] = open(path, "w", encoding="utf-8")

    def write(self, row: dict[str, Any]) -> None:
        self._handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

    def close(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()


class ParquetWriter:
    """Buffers rows and writes them in zstd row groups with a fixed schema."""

    def __init__(self, path: Path, schema: Any) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path, self.schema, self._pa = path, schema, pa
        self._writer = pq.ParquetWriter(str(path), schema, compression="zstd")
        self._rows: list[dict[str, Any]] = []

    def write(self, row: dict[str, Any]) -> None:
        self._rows.append(row)
        if len(self._rows) >= PARQUET_BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            self._writer.write_table(self._pa.Table.from_pylist(self._rows, schema=self.schema))
            self._rows = []

    def close(self) -> None:
        self._flush()
        self._writer.close()  # writes the footer; an empty export still gets a valid schema-only file
        with open(self.path, "rb") as handle:
            os.fsync(handle.fileno())


class Staging:
    """The staging folder of one export: open files in it, then commit (rename all) or abort."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        clean_stale(self.out_dir)
        self.folder = Path(tempfile.mkdtemp(prefix=f".ecot-export.{os.getpid()}.", dir=self.out_dir))
        self.writers: list[RowWriter] = []

    def jsonl(self, name: str) -> JsonlWriter:
        return self._keep(JsonlWriter(self.folder / name))

    def parquet(self, name: str, schema: Any) -> ParquetWriter:
        return self._keep(ParquetWriter(self.folder / name, schema))

    def text(self, name: str, content: str) -> None:
        with open(self.folder / name, "w", encoding="utf-8") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())

    def _keep(self, writer: Any) -> Any:
        self.writers.append(writer)
        return writer

    def commit(self) -> list[Path]:
        """Close every file, rename each into the output folder, drop files of an earlier export."""
        for writer in self.writers:
            writer.close()
        names = sorted(p.name for p in self.folder.iterdir())
        for stale in self.out_dir.iterdir():
            if OWNED.match(stale.name) and stale.name not in names and stale.is_file():
                stale.unlink()
        card = [n for n in names if n == CARD]  # the card goes last: it describes the files beside it
        for name in [n for n in names if n != CARD] + card:
            os.replace(self.folder / name, self.out_dir / name)
        self.folder.rmdir()
        _fsync_dir(self.out_dir)
        return [self.out_dir / name for name in names]

    def abort(self) -> None:
        for writer in self.writers:
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - the folder goes anyway
                pass
        shutil.rmtree(self.folder, ignore_errors=True)


def clean_stale(out_dir: Path) -> list[Path]:
    """Remove staging folders of exports whose process is gone, and old-style temp files."""
    removed = []
    for entry in out_dir.iterdir():
        staging = STAGING.match(entry.name)
        if staging and entry.is_dir() and not _alive(int(staging.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
        elif OLD_TEMP.match(entry.name) and entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # a folder named with our pid is a leftover of an earlier process that had it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

