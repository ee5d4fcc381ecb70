"""ECoT export: fold trajectories into training samples (SFT, preference pairs, execution traces)
and write JSONL / Parquet corpora with a split, deduplication, token counts and a dataset card."""

from ecot.export.fold import build_trace, chat_prompt, fold_trajectory, foldable, split_sample
from ecot.export.options import FORMATS, ExportOptions
from ecot.export.pipeline import ExportReport, export_run, export_store
from ecot.export.rewrite import TraceRewriter, make_generator, rewrite_trace

__all__ = [
    "FORMATS",
    "ExportOptions",
    "ExportReport",
    "TraceRewriter",
    "build_trace",
    "chat_prompt",
    "export_run",
    "export_store",
    "fold_trajectory",
    "foldable",
    "make_generator",
    "rewrite_trace",
    "split_sample",
]
