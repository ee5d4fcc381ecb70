"""ECoT export: fold trajectories into chat samples and write JSONL / Parquet corpora."""

from ecot.export.fold import build_trace, fold_trajectory, foldable, split_sample
from ecot.export.pipeline import FORMATS, ExportReport, export_run, export_store
from ecot.export.rewrite import TraceRewriter, make_generator, rewrite_trace

__all__ = [
    "FORMATS",
    "ExportReport",
    "TraceRewriter",
    "build_trace",
    "export_run",
    "export_store",
    "fold_trajectory",
    "foldable",
    "make_generator",
    "rewrite_trace",
    "split_sample",
]
