"""The settings of a training run and what it returns (shared by the trainer and its summary)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class TrainSettings:
    data: Path
    out: Path
    model: str = "smollm2"
    max_steps: int = -1  # > 0 overrides epochs
    epochs: float = 1.0
    learning_rate: float = 2e-5
    batch_size: int = 1
    grad_accum: int = 8
    max_length: int = 4096
    lora: bool = False
    lora_rank: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    activation_checkpointing: bool = False  # recompute activations: less memory for long rows, ~30% slower
    device: str = "auto"
    save_steps: int = 50
    logging_steps: int = 1
    resume: bool = False
    seed: int = 0
    limit: int | None = None  # train on the first N training rows only
    threads: int = 0
    cache_dir: Path | None = None
    time_limit_s: float | None = None  # stop after this much training time, then save as at the end


@dataclass
class TrainResult:
    model_dir: Path
    steps: int
    train_rows: int
    train_tokens: int
    too_long: list[dict[str, Any]]
    train_loss: list[tuple[int, float]] = field(default_factory=list)
    eval_loss: float | None = None  # validation loss after training
    eval_loss_before: float | None = None  # ... and of the base model, before the first step
    device: str = "cpu"
    bf16: bool = False
    plot: Path | None = None
    stopped_by_time_limit: bool = False
