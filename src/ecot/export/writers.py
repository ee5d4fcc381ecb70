"""Row writers of the export files (JSON lines, Parquet); the files themselves come from
ecot.export.staging, which makes a whole export appear at once or not at all."""

from __future__ import annotations

import json
from typing import Any, BinaryIO, Protocol

from ecot.core.trajectory import Trajectory

RAW_JSONL = "raw.jsonl"
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
    def write(self, row: dict[str, Any]) -> None: ...

    def close(self) -> None:
        """Finish the format; the file itself stays open for the staging to commit."""


class JsonlWriter:
    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle

    def write(self, row: dict[str, Any]) -> None:
        self._handle.write((json.dumps(row, ensure_ascii=False, default=str) + "\n").encode("utf-8"))

    def close(self) -> None:
        self._handle.flush()


class ParquetWriter:
    """Buffers rows and writes them in zstd row groups with a fixed schema."""

    def __init__(self, handle: BinaryIO, schema: Any) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.schema, self._pa = schema, pa
        self._writer = pq.ParquetWriter(handle, schema, compression="zstd")
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
        self._writer.close()  # writes the footer (not closing the handle); an empty export still gets a valid file
