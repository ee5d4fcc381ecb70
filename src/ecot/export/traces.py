"""CWM-style execution-trace samples from the traces a domain's backend stored with its turns.

A backend may re-run a candidate under a tracer and store the trace with the turn (`metrics["trace"]`,
a JSON payload with `events`, `input` and `truncated`; the python domain does, see
docs/domains/python.md). Its domain's trace format (`Domain.traces`) says how such a trace becomes a
sample in the spirit of Code World Models: given the program and its input, predict the execution
step by step. Traces of failing attempts count as much as passing ones: the code's real execution is
the target, not its correctness. Only real executions are used, never a world model's prediction.
"""

from __future__ import annotations

import json
from typing import Any

from ecot.core.domain import find_domain
from ecot.core.extract import fence
from ecot.core.trajectory import REAL, Trajectory, Turn
from ecot.export.fold import provenance_of
from ecot.export.sample import Sample


def trace_samples(traj: Trajectory) -> list[Sample]:
    described = find_domain(traj.domain)
    form = described.load_traces() if described is not None else None
    if described is None or form is None:
        return []
    samples = []
    for turn in traj.turns:
        payload = stored_trace(turn)
        if payload is None or turn.code is None:
            continue
        user = f"{fence(turn.code, described.language)}\n\n{form.describe_input(payload.get('input'))}"
        meta: dict[str, Any] = {
            **provenance_of(traj, "trace"),
            "turn": turn.index,
            "label": turn.outcome.label,
            "test": payload.get("test"),
            "events": len(payload["events"]),
            "truncated": bool(payload.get("truncated")),
        }
        prompt = [{"role": "system", "content": form.instructions}, {"role": "user", "content": user}]
        completion = [{"role": "assistant", "content": form.render(payload["events"], bool(payload.get("truncated")))}]
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
