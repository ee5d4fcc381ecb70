"""The trainer's schedule and what it tells the user: ecot's own progress line per logging step
(and nothing of the libraries' bars).

The learning rate warms up linearly, then follows a cosine to the end. Warm-up is shifted by one step
so that the first optimizer step already learns: the usual schedule starts at 0, which wastes the
first step of a short run (with 3 steps, a third of it).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def quiet_libraries() -> Iterator[None]:
    """No progress bars of datasets and transformers (tokenizing, writing shards) and no deprecation
    notes the user cannot act on: ecot's own lines say what happens."""
    import datasets
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled(), datasets.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    datasets.disable_progress_bars()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning, module=r"(transformers|peft|trl)\.")
            yield
    finally:
        if bars[0]:
            hf_logging.enable_progress_bar()
        if bars[1]:
            datasets.enable_progress_bars()


def warm_cosine(warmup: int, total: int) -> Callable[[int], float]:
    """The learning-rate factor of scheduler step `step` (0 = the first optimizer step); never 0."""

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / (warmup + 1)
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    return factor


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


def progress_line(step: int, total: int, logs: dict[str, Any], elapsed: float, done_here: int) -> str:
    """`step 3/10  loss 1.6321  lr 2.0e-05  grad norm 1.23  epoch 0.30  0:12 elapsed, ETA 0:28`."""
    parts = [f"step {step}/{total}", f"loss {logs['loss']:.4f}"]
    if "learning_rate" in logs:
        parts.append(f"lr {logs['learning_rate']:.1e}")
    if logs.get("grad_norm") is not None:
        parts.append(f"grad norm {logs['grad_norm']:.2f}")
    if "epoch" in logs:
        parts.append(f"epoch {logs['epoch']:.2f}")
    timing = f"{_clock(elapsed)} elapsed"
    if done_here > 0 and total > step:
        timing += f", ETA {_clock(elapsed / done_here * (total - step))}"
    return "  ".join([*parts, timing])


def progress_callback(say: Callable[[str], None], before: float | None) -> Any:
    """A trainer callback: one line per logged training step through `say`; on a fresh run it also
    puts the validation loss measured before training at step 0 of the log history (checkpoints keep it)."""
    from transformers import TrainerCallback

    class Progress(TrainerCallback):
        started, first_step = 0.0, 0

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.started, self.first_step = time.monotonic(), state.global_step
            if before is not None and state.global_step == 0:
                state.log_history.insert(0, {"eval_loss": before, "step": 0})

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
            if logs and "loss" in logs:
                elapsed = time.monotonic() - self.started
                say(progress_line(state.global_step, state.max_steps, logs, elapsed, state.global_step - self.first_step))

    return Progress()
