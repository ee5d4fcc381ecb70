"""Live progress of a synthesis run: turns done, labels so far, requests in flight, tokens per second, and
the time left (ETA: the trajectories left at the pace of those this invocation ended, skipped ones aside).

The loop updates a LiveCounters as it goes (in its event-loop thread). ProgressReporter shows them:
on a terminal as a rich bar whose text is redrawn a few times a second; otherwise (output redirected
to a file or a pipe, as under nohup, CI or a cluster scheduler) as one plain line every `every`
seconds and a last one at the end, so a log shows the run moving long before it finishes.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

LABELS_SHOWN = 6


@dataclass
class LiveCounters:
    total: int = 0  # trajectories this invocation goes through
    done: int = 0  # of those, how many ended (finished, skipped, stopped or failed)
    skipped: int = 0  # of those, how many an earlier invocation had finished
    turns: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0  # generation requests open now
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    on_turn: Callable[[str], None] | None = None  # told each stored turn's label (ecot.run.advice watches them)

    def request_started(self) -> None:
        self.in_flight += 1

    def request_ended(self) -> None:
        self.in_flight -= 1

    def turn_stored(self, label: str, usage: Mapping[str, Any]) -> None:
        self.turns += 1
        self.labels[label] += 1
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        if self.on_turn is not None:
            self.on_turn(label)

    def trajectory_ended(self, skipped: bool = False) -> None:
        self.done += 1
        self.skipped += skipped

    def eta(self) -> float | None:
        """Seconds left at the pace of the trajectories this invocation ended; None before the first."""
        worked = self.done - self.skipped
        if worked <= 0:
            return None
        return (time.monotonic() - self.started) / worked * (self.total - self.done)

    def line(self, compact: bool = False) -> str:
        """One line, e.g. 'trajectories 3/12 | turns 17 (Pass 3, Syntax_Error 9) | in flight 5 | 40.0 tok/s |
        tokens 12,345 | ETA 0:04:10 | 0:01:30'.

        `compact` leaves out what a progress bar already shows (trajectories, elapsed time).
        """
        elapsed = max(time.monotonic() - self.started, 1e-9)
        counts = Counter(dict(self.labels))  # a copy: the loop may add labels while this runs
        labels = ", ".join(f"{label} {n}" for label, n in counts.most_common(LABELS_SHOWN))
        more = len(counts) - LABELS_SHOWN
        labels += f", +{more} more" if more > 0 else ""
        parts = [
            f"turns {self.turns}" + (f" ({labels})" if labels else ""),
            f"in flight {self.in_flight}",
            f"{self.completion_tokens / elapsed:.1f} tok/s",
            f"tokens {self.prompt_tokens + self.completion_tokens:,}",
            f"ETA {_clock(eta)}" if (eta := self.eta()) is not None else "ETA -",
        ]
        if compact:
            return " | ".join(parts)
        return " | ".join([f"trajectories {self.done}/{self.total}", *parts, _clock(elapsed)])


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


class _CountersColumn(ProgressColumn):
    """The counters' text, read at every redraw."""

    def __init__(self, counters: LiveCounters) -> None:
        super().__init__()
        self.counters = counters

    def render(self, task: Any) -> Text:
        return Text(self.counters.line(compact=True))


class ProgressReporter:
    """A context manager: a live bar on a terminal, else a line every `every` seconds (0: only at the end)."""

    def __init__(self, counters: LiveCounters, console: Console, title: str, every: float = 30.0) -> None:
        self.counters, self.console, self.title, self.every = counters, console, title, every
        self._bar: Progress | None = None
        self._task: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ProgressReporter:
        if self.console.is_terminal:
            columns = (
                TextColumn("{task.description}"), BarColumn(bar_width=20), MofNCompleteColumn(), TimeElapsedColumn(),
                _CountersColumn(self.counters),
            )
            self._bar = Progress(*columns, console=self.console, refresh_per_second=4)
            self._bar.start()
            self._task = self._bar.add_task(self.title, total=self.counters.total)
        elif self.every > 0:
            self._thread = threading.Thread(target=self._log_lines, name="ecot-progress", daemon=True)
            self._thread.start()
        return self

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.counters.done)

    def _log_lines(self) -> None:
        while not self._stop.wait(self.every):
            self._print()

    def _print(self) -> None:
        self.console.print(f"{self.title}: {self.counters.line()}", markup=False, highlight=False, soft_wrap=True)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self.advance()
            self._bar.stop()
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._print()
