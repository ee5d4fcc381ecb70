"""The multi-turn loop and what drives it: routing, observations, run identity, budgets, usage, progress,
and the main job as a library call (`synthesize`, from ecot.run.session; loaded on first use)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ecot.run.session import Judge, RunOptions, RunResult, synthesize

__all__ = ["Judge", "RunOptions", "RunResult", "synthesize"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("ecot.run.session"), name)
    globals()[name] = value  # later look-ups skip this hook
    return value
