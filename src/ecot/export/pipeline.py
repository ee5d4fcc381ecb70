"""Store -> export files: select trajectories, build samples of one kind, drop over-long samples and
duplicates, split by task, write atomically with a dataset card."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from ecot.core.trajectory import Trajectory
from ecot.export.card import CardStats
from ecot.export.choices import FORMATS
from ecot.export.decontam import BenchmarkTasks, keep_clean
from ecot.export.dedup import Deduplicator
from ecot.export.fold import build_trace, fold_trajectory, foldable, make_sample
from ecot.export.options import ExportOptions
from ecot.export.preference import preference_pairs
from ecot.export.rewrite import TraceRewriter
from ecot.export.rows import arrow_schema, train_row
from ecot.export.sample import Sample, from_folded
from ecot.export.select import trajectories
from ecot.export.split import SPLITS, TRAIN, task_split
from ecot.export.staging import CARD, Staging
from ecot.export.tokens import TokenCounter, load_tokenizer
from ecot.export.traces import trace_samples
from ecot.export.writers import RAW_JSONL, JsonlWriter, ParquetWriter, RowWriter, raw_row
from ecot.store import TrajectoryStore

__all__ = ["FORMATS", "ExportOptions", "ExportReport", "export_run", "export_store"]
CHUNK = 64  # trajectories folded (and rewritten concurrently) per step


@dataclass
class ExportReport:
    trajectories: int = 0
    exported: int = 0
    skipped_not_passed: int = 0  # final turn did not pass
    skipped_unverified: int = 0  # final Pass came from a world model, not real execution
    other_runs: int = 0  # same (task, sample) read from another run instead
    benchmark_tasks: int = 0  # trajectories of benchmark tasks left out (decontamination)
    duplicates: Counter[str] = field(default_factory=Counter)  # "exact" / "near"
    over_length: list[dict[str, Any]] = field(default_factory=list)  # dropped or kept, per the policy
    splits: Counter[str] = field(default_factory=Counter)
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
        if self.benchmark_tasks:
            text += f"; {self.benchmark_tasks} trajectories of benchmark tasks left out (--allow-overlap keeps them)"
        if self.rewritten or self.fallbacks:
            text += f"; {self.rewritten} traces rewritten, {self.fallbacks} fell back to the deterministic trace"
        return text


def export_run(
    store: TrajectoryStore, out_dir: Path, run_id: int | None = None, domain: str | None = None,
    formats: Sequence[str] = FORMATS,
) -> ExportReport:
    """Synchronous export with the deterministic trace (what `ecot synth` calls when it finishes)."""
    return asyncio.run(export_store(store, out_dir, ExportOptions(formats=tuple(formats), run_id=run_id, domain=domain)))


async def export_store(
    store: TrajectoryStore, out_dir: Path, options: ExportOptions | None = None,
    rewriter: TraceRewriter | None = None, progress: Callable[[int], None] | None = None, **overrides: Any,
) -> ExportReport:
    """Export finished trajectories; nothing is renamed into `out_dir` unless all of it succeeds.

    `overrides` replace single fields of `options` (formats=..., domain=..., ...)."""
    options = dataclasses.replace(options or ExportOptions(), **overrides)
    options.check()
    sink = Sink(options, Path(out_dir))
    try:
        stream, sink.report.other_runs = trajectories(store, options.run_id, options.domain, options.all_runs)
        dropped: list[Trajectory] = []
        if not options.allow_overlap:
            stream = keep_clean(stream, BenchmarkTasks.of(store), dropped)
        for chunk in _chunks(stream, CHUNK):
            for traj, samples in zip(chunk, await build_chunk(chunk, options.kind, rewriter)):
                sink.take(traj, samples)
            if progress is not None:
                progress(len(chunk))
        sink.report.benchmark_tasks = len(dropped)
        if dropped:
            sink.card.left_out["benchmark task (decontamination; --allow-overlap keeps it)"] += len(dropped)
        sink.commit()
    except BaseException:
        sink.abort()
        raise
    if rewriter is not None:
        sink.report.rewritten, sink.report.fallbacks = rewriter.stats.rewritten, rewriter.stats.fallbacks
    return sink.report


class Sink:
    """Where samples go: the length policy, deduplication, the split, the writers and the card."""

    def __init__(self, options: ExportOptions, out_dir: Path) -> None:
        self.options, self.report = options, ExportReport()
        self.counter = TokenCounter(load_tokenizer(options.tokenizer)) if options.tokenizer else None
        self.dedup = Deduplicator(options.near_duplicates) if options.dedup else None
        self.card = CardStats(options.kind, options.settings())
        self.staging = Staging(out_dir)
        try:
            self.writers = self._open_writers()
        except BaseException:
            self.staging.abort()  # drops the folder lock too
            raise

    def _open_writers(self) -> dict[str, list[RowWriter]]:
        options = self.options
        writers: dict[str, list[RowWriter]] = {}
        schema = arrow_schema(options.kind, options.layout, self.counter is not None)
        for split in SPLITS if options.validation > 0 else (TRAIN,):
            writers[split] = [JsonlWriter(self.staging.open(f"{split}.jsonl"))] if "jsonl" in options.formats else []
            if "parquet" in options.formats:
                writers[split].append(ParquetWriter(self.staging.open(f"{split}.parquet"), schema))
        writers["raw"] = [JsonlWriter(self.staging.open(RAW_JSONL))] if "raw" in options.formats else []
        return writers

    def take(self, traj: Trajectory, samples: list[Sample]) -> None:
        self.report.trajectories += 1
        if not samples and self.options.kind == "sft":
            if traj.passed:
                self.report.skipped_unverified += 1
            else:
                self.report.skipped_not_passed += 1
        for writer in self.writers["raw"]:
            writer.write(raw_row(traj))
        for sample in samples:
            self._take_sample(sample)

    def _take_sample(self, sample: Sample) -> None:
        options, report = self.options, self.report
        tokens = self.counter.count(sample) if self.counter is not None else None
        if tokens is not None and options.max_tokens is not None and tokens["tokens"] > options.max_tokens:
            report.over_length.append({"task_id": sample.task_id, "sample": sample.metadata["sample"],
                                       "run_id": sample.metadata.get("run_id"), "tokens": tokens["tokens"]})
            if options.over_length == "drop":
                self.card.left_out[f"longer than {options.max_tokens} tokens"] += 1
                return
        duplicate = self.dedup.duplicate(sample) if self.dedup is not None else None
        if duplicate is not None:
            report.duplicates[duplicate] += 1
            self.card.left_out[f"{duplicate} duplicate"] += 1
            return
        split = task_split(sample.task_id, options.validation, options.seed)
        row = train_row(sample, options.layout, tokens)
        for writer in self.writers[split]:
            writer.write(row)
        self.card.add(sample, split, tokens)
        report.exported += 1
        report.splits[split] += 1

    def commit(self) -> None:
        for writer in (w for group in self.writers.values() for w in group):
            writer.close()
        formats = self.options.formats
        if "jsonl" in formats or "parquet" in formats:
            ext = "parquet" if "parquet" in formats else "jsonl"
            self.staging.text(CARD, self.card.render({s: f"{s}.{ext}" for s in self.writers if s != "raw"}))
        self.report.files = self.staging.commit()

    def abort(self) -> None:
        for writer in (w for group in self.writers.values() for w in group):
            try:
                writer.close()  # lets pyarrow finish before its file goes
            except Exception:  # noqa: BLE001 - the export is being thrown away anyway
                pass
        self.staging.abort()  # closes and drops every file: nothing of this export remains


async def build_chunk(chunk: Sequence[Trajectory], kind: str, rewriter: TraceRewriter | None) -> list[list[Sample]]:
    if kind == "preference":
        return [preference_pairs(traj) for traj in chunk]
    if kind == "trace":
        return [trace_samples(traj) for traj in chunk]
    folded = await fold_chunk(chunk, rewriter)
    return [[from_folded(sample)] if sample is not None else [] for sample in folded]


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


def _chunks(items: Iterable[Trajectory], size: int) -> Iterator[list[Trajectory]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
