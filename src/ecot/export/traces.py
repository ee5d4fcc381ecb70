"""CWM-style execution-trace samples from the Python domain's stored traces.

The Python backend can re-run one test under a line tracer and store the trace with the turn
(`metrics["trace"]`, see docs/domains/python.md). Each such trace becomes one sample in the spirit
of Code World Models: given the program and its input, predict the execution step by step, each
step being the line about to run and the local variables that changed since the previous step
(the next program state). Traces of failing attempts count as much as passing ones: the code's
real execution is the target, not its correctness. Only real executions are used, never a world
model's prediction.
"""

from __future__ import annotations

import json
from typing import Any

from ecot.core.trajectory import REAL, Trajectory, Turn
from ecot.domains.python.jobs.trace import render
from ecot.export.fold import fence, provenance_of
from ecot.export.sample import Sample

INSTRUCTIONS = """You predict how Python code executes. Given a program and its input, write the execution \
trace: one line per event (call, line, return, exception) with the function, the line number and its source, \
then after `|` the local variables that are new or changed since that frame's previous event, and on a \
return `->` the returned value. Indentation shows the call depth."""


def trace_samples(traj: Trajectory) -> list[Sample]:
    samples = []
    for turn in traj.turns:
        payload = stored_trace(turn)
        if payload is None or turn.code is None:
            continue
        user = f"{fence(turn.code, 'python')}\n\n{describe_input(payload.get('input'))}"
        meta: dict[str, Any] = {
            **provenance_of(traj, "trace"),
            "turn": turn.index,
            "label": turn.outcome.label,
            "test": payload.get("test"),
            "events": len(payload["events"]),
            "truncated": bool(payload.get("truncated")),
        }
        prompt = [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}]
        completion = [{"role": "assistant", "content": render(payload["events"], bool(payload.get("truncated")))}]
        samples.append(Sample("trace", prompt, {"completion": completion}, meta))
    return samples


def stored_trace(turn: Turn) -> dict[str, Any] | None:
    """The turn's trace payload when real execution recorded one with events, else None."""
    text = turn.outcome.metrics.get("trace")
    if turn.observation_source != REAL or not isinstance(text, str):
        return None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("events"), list) or not payload["events"]:
        return None
    return payload


def describe_input(value: Any) -> str:
    if isinstance(value, str):
        return f"The program runs with this standard input:\n{fence(value, 'text')}"
    if isinstance(value, list):
        return f"The entry point is called with these arguments (JSON): {json.dumps(value, ensure_ascii=False)}"
    return "The program runs with no input."
