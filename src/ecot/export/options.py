"""What an export writes: kind, layout, run selection, split, deduplication and the length policy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ecot.core.errors import EcotError
from ecot.export.choices import FORMATS, KINDS, LAYOUTS, OVER_LENGTH


@dataclass(frozen=True)
class ExportOptions:
    formats: Sequence[str] = FORMATS
    kind: str = "sft"
    layout: str = "messages"  # sft and trace rows: `messages`, or `prompt` + `completion`
    run_id: int | None = None
    domain: str | None = None
    all_runs: bool = False  # every trajectory, not one per (task, sample index)
    validation: float = 0.1  # share of tasks held out (by task, seeded)
    seed: int = 0
    dedup: bool = True
    near_duplicates: float | None = 0.9  # similarity threshold; None keeps near duplicates
    tokenizer: str | None = None
    max_tokens: int | None = None
    over_length: str = "drop"  # or "keep": listed in the report and the card either way
    allow_overlap: bool = False  # keep trajectories of benchmark tasks (see ecot.export.decontam)

    def check(self) -> None:
        """One clear error for a bad combination, before the store is read."""
        unknown = sorted(set(self.formats) - set(FORMATS))
        if unknown or not self.formats:
            raise EcotError(f"formats must be a non-empty subset of {','.join(FORMATS)}, got {','.join(self.formats)}")
        if self.kind not in KINDS:
            raise EcotError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.layout not in LAYOUTS:
            raise EcotError(f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}")
        if not 0.0 <= self.validation < 1.0:
            raise EcotError(f"the validation share must be in [0, 1), got {self.validation}")
        if self.near_duplicates is not None and not 0.0 < self.near_duplicates <= 1.0:
            raise EcotError(f"the near-duplicate threshold must be in (0, 1], got {self.near_duplicates}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise EcotError(f"max tokens must be >= 1, got {self.max_tokens}")
        if self.max_tokens is not None and self.tokenizer is None:
            raise EcotError("a token limit needs a tokenizer to count with (--tokenizer smollm2 or a model folder)")
        if self.over_length not in OVER_LENGTH:
            raise EcotError(f"over-length policy must be drop or keep, got {self.over_length!r}")
        if self.run_id is not None and self.all_runs:
            raise EcotError("--run and --all-runs exclude each other")

    def settings(self) -> dict[str, Any]:
        """The options as the dataset card records them."""
        values = asdict(self)
        values["formats"] = list(self.formats)
        return values
