"""Atomic writers for the export files: train.jsonl, train.parquet (folded samples), raw.jsonl (everything).

Each file is written to a temporary sibling and renamed into place only when the whole export
succeeded, so a reader never sees a half-written corpus and a failed export leaves the old one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Protocol

from ecot.trajectory import Trajectory

TRAIN_JSONL = "train.jsonl"
TRAIN_PARQUET = "train.parquet"
RAW_JSONL = "raw.jsonl"
PARQUET_BATCH = 512


def train_row(sample: dict[str, Any]) -> dict[str, Any]:
    """The row shared by JSONL and Parquet: chat messages, metadata as a JSON string, flat columns.

    Metadata stays a string so heterogeneous provenance (int vs float settings, per-domain tool
    names) can never break `datasets` schema inference.
    """
    meta = sample["metadata"]
    return {
        "messages": [{"role": m["role"], "content": m["content"]} for m in sample["messages"]],
        "metadata": json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str),
        "domain": meta["domain"],
        "task_id": meta["task_id"],
        "rounds": int(meta["rounds"]),
    }


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

    def commit(self) -> None: ...

    def abort(self) -> None: ...


class _AtomicFile:
    """A temp text file next to `path`, renamed over it on commit and deleted on abort."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.temp = _temp_sibling(path)
        self.handle: IO[str] = open(self.temp, "w", encoding="utf-8")

    def commit(self) -> None:
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self.temp, self.path)

    def abort(self) -> None:
        self.handle.close()
        self.temp.unlink(missing_ok=True)


def _temp_sibling(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(name, 0o644)  # mkstemp makes 0600; a corpus is meant to be shared
    return Path(name)


class JsonlWriter:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = _AtomicFile(path)

    def write(self, row: dict[str, Any]) -> None:
        self._file.handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

    def commit(self) -> None:
        self._file.commit()

    def abort(self) -> None:
        self._file.abort()


class ParquetWriter:
    """Buffers train rows and writes them in row groups with a fixed schema."""

    def __init__(self, path: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path = path
        self._pa = pa
        self.schema = pa.schema(
            [
                ("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
                ("metadata", pa.string()),
                ("domain", pa.string()),
                ("task_id", pa.string()),
                ("rounds", pa.int32()),
            ]
        )
        self._temp = _temp_sibling(path)
        self._writer = pq.ParquetWriter(str(self._temp), self.schema, compression="zstd")
        self._rows: list[dict[str, Any]] = []

    def write(self, row: dict[str, Any]) -> None:
        self._rows.append(row)
        if len(self._rows) >= PARQUET_BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            self._writer.write_table(self._pa.Table.from_pylist(self._rows, schema=self.schema))
            self._rows = []

    def commit(self) -> None:
        self._flush()
        self._writer.close()  # writes the footer; an empty export still gets a valid schema-only file
        with open(self._temp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(self._temp, self.path)

    def abort(self) -> None:
        self._writer.close()
        self._temp.unlink(missing_ok=True)


def open_writer(fmt: str, out_dir: Path) -> RowWriter:
    if fmt == "jsonl":
        return JsonlWriter(out_dir / TRAIN_JSONL)
    if fmt == "parquet":
        return ParquetWriter(out_dir / TRAIN_PARQUET)
    if fmt == "raw":
        return JsonlWriter(out_dir / RAW_JSONL)
    raise ValueError(f"unknown export format '{fmt}' (known: jsonl, parquet, raw)")
