"""The multi-turn loop and what drives it: routing, observations, run identity, budgets, usage, progress,
and the main job as a library call (`synthesize`, from ecot.run.session; loaded on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecot.core.lazy import lazy_exports

if TYPE_CHECKING:
    from ecot.run.session import Judge, RunOptions, RunResult, synthesize

__all__ = ["Judge", "RunOptions", "RunResult", "synthesize"]

__getattr__ = lazy_exports(__name__, globals(), dict.fromkeys(__all__, "ecot.run.session"))
