"""ECoT export: fold trajectories into training samples (SFT, preference pairs, execution traces)
and write JSONL / Parquet corpora with a split, deduplication, token counts and a dataset card.

The names below are loaded from their submodules on first use: `ecot export --help` reads only the
option choices (ecot.export.choices), not the pipeline with its numpy, pydantic and SQLite dependencies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecot.core.lazy import lazy_exports

if TYPE_CHECKING:
    from ecot.export.choices import FORMATS
    from ecot.export.fold import build_trace, chat_prompt, fold_trajectory, foldable, split_sample
    from ecot.export.options import ExportOptions
    from ecot.export.pipeline import ExportReport, export_run, export_store
    from ecot.export.rewrite import TraceRewriter, rewrite_trace

# public name -> the submodule that defines it
_HOMES: dict[str, str] = {
    "build_trace": "fold", "chat_prompt": "fold", "fold_trajectory": "fold", "foldable": "fold", "split_sample": "fold",
    "FORMATS": "choices", "ExportOptions": "options",
    "ExportReport": "pipeline", "export_run": "pipeline", "export_store": "pipeline",
    "TraceRewriter": "rewrite", "rewrite_trace": "rewrite",
}

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
    "rewrite_trace",
    "split_sample",
]

__getattr__ = lazy_exports(__name__, globals(), {name: f"{__name__}.{home}" for name, home in _HOMES.items()})
