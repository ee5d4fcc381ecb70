"""Store -> export files: fold every finished trajectory, optionally rewrite traces, write atomically."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from ecot.export.fold import build_trace, fold_trajectory, foldable, make_sample
from ecot.export.rewrite import TraceRewriter
from ecot.export.writers import RowWriter, open_writer, raw_row, train_row
from ecot.store import TrajectoryStore
from ecot.trajectory import Trajectory

FORMATS = ("jsonl", "parquet", "raw")
CHUNK = 64  # trajectories folded (and rewritten concurrently) per step


@dataclass
class ExportReport:
    trajectories: int = 0
    exported: int = 0
    skipped_not_passed: int = 0  # final turn did not pass
    skipped_unverified: int = 0  # final Pass came from a world model, not real execution
    rewritten: int = 0
    fallbacks: int = 0
    files: list[Path] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "files": [str(p) for p in self.files]}

    def __str__(self) -> str:
        text = (
            f"{self.exported} samples from {self.trajectories} finished trajectories "
            f"(skipped: {self.skipped_not_passed} not passed, {self.skipped_unverified} passed only under a world model)"
        )
        if self.rewritten or self.fallbacks:
            text += f"; {self.rewritten} traces rewritten, {self.fallbacks} fell back to the deterministic trace"
        return text


def export_run(
    store: TrajectoryStore,
    out_dir: Path,
    run_id: int | None = None,
    domain: str | None = None,
    formats: Sequence[str] = FORMATS,
) -> ExportReport:
    """Synchronous export with the deterministic trace (what `ecot synth` calls when it finishes)."""
    return asyncio.run(export_store(store, out_dir, formats, run_id=run_id, domain=domain))


async def export_store(
    store: TrajectoryStore,
    out_dir: Path,
    formats: Sequence[str] = FORMATS,
    run_id: int | None = None,
    domain: str | None = None,
    rewriter: TraceRewriter | None = None,
    progress: Callable[[int], None] | None = None,
) -> ExportReport:
    """Export finished trajectories; nothing is renamed into `out_dir` unless all of it succeeds."""
    report = ExportReport()
    writers = {fmt: open_writer(fmt, Path(out_dir)) for fmt in dict.fromkeys(formats)}
    try:
        for chunk in _chunks(store.iter_trajectories(run_id=run_id, domain=domain), CHUNK):
            samples = await fold_chunk(chunk, rewriter)
            for traj, sample in zip(chunk, samples):
                _count(report, traj, sample)
                _write(writers, traj, sample)
            if progress is not None:
                progress(len(chunk))
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    for writer in writers.values():
        writer.commit()
        report.files.append(writer.path)
    if rewriter is not None:
        report.rewritten, report.fallbacks = rewriter.stats.rewritten, rewriter.stats.fallbacks
    return report


async def fold_chunk(chunk: Sequence[Trajectory], rewriter: TraceRewriter | None) -> list[dict[str, Any] | None]:
    if rewriter is None:
        return [fold_trajectory(traj) for traj in chunk]
    traces = [build_trace(traj) if foldable(traj) else None for traj in chunk]
    rewrites = await asyncio.gather(
        *(rewriter(trace, traj) if trace is not None else _none() for trace, traj in zip(traces, chunk))
    )
    samples: list[dict[str, Any] | None] = []
    for traj, trace, text in zip(chunk, traces, rewrites):
        if trace is None:
            samples.append(None)
        elif text is None:
            samples.append(make_sample(traj, trace, fold="deterministic"))
        else:
            samples.append(make_sample(traj, text, fold=rewriter.fold_name))
    return samples


async def _none() -> None:
    return None


def _count(report: ExportReport, traj: Trajectory, sample: dict[str, Any] | None) -> None:
    report.trajectories += 1
    if sample is not None:
        report.exported += 1
    elif traj.passed:
        report.skipped_unverified += 1
    else:
        report.skipped_not_passed += 1


def _write(writers: dict[str, RowWriter], traj: Trajectory, sample: dict[str, Any] | None) -> None:
    if "raw" in writers:
        writers["raw"].write(raw_row(traj))
    if sample is None:
        return
    row = train_row(sample)
    for fmt in ("jsonl", "parquet"):
        if fmt in writers:
            writers[fmt].write(row)


def _chunks(items: Iterable[Trajectory], size: int) -> Iterator[list[Trajectory]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
