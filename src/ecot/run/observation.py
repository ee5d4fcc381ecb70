"""Rendering an Outcome as the observation message the generator reads next."""

from __future__ import annotations

import re

from ecot.core.outcome import TRUNCATED, Outcome, shown_metrics
from ecot.core.task import Task
from ecot.run.router import route

EXCERPT_LINES = 24
_INTERESTING = re.compile(r"error|warning|mismatch|fail|fault|expected|assert|exception|traceback|line \d+|:\d+:", re.I)


def log_excerpt(log: str, diagnostic: str, max_lines: int = EXCERPT_LINES) -> str:
    """The lines of the log an engineer would read: those around errors, else the tail."""
    lines = [ln for ln in log.splitlines() if ln.strip()]
    hits = [i for i, ln in enumerate(lines) if _INTERESTING.search(ln) or (diagnostic and diagnostic[:40] in ln)]
    if not hits:
        return "\n".join(lines[-max_lines:])
    keep: list[int] = []
    for i in hits:
        for j in range(max(0, i - 2), min(len(lines), i + 3)):
            if j not in keep:
                keep.append(j)
        if len(keep) >= max_lines:
            break
    return "\n".join(lines[j] for j in sorted(keep)[:max_lines])


def render(outcome: Outcome, task: Task) -> str:
    if outcome.label == TRUNCATED:
        return render_truncated(outcome)
    parts = [f"Execution result: {outcome.label}", f"Diagnostic: {outcome.diagnostic}"]
    shown = shown_metrics(outcome.metrics)
    if shown:
        parts.append("Metrics: " + ", ".join(f"{k}={v}" for k, v in sorted(shown.items())))
    excerpt = log_excerpt(outcome.log, outcome.diagnostic)
    if excerpt:
        parts.append(f"Log excerpt:\n```\n{excerpt}\n```")
    if not outcome.passed:
        parts.append(route(task).revise)
    return "\n".join(parts)


def render_truncated(outcome: Outcome) -> str:
    """Not a verdict on code (nothing ran): the answer stopped at the length limit before it was complete."""
    tokens = outcome.metrics.get("completion_tokens")
    at = f" at {tokens} tokens" if tokens else ""
    return (
        f"Execution result: {TRUNCATED}\n"
        f"Your answer was cut off{at} (the response length limit) before it was complete, so nothing was run. "
        "Answer again within the limit: keep the reasoning brief and give the complete code in one block."
    )
