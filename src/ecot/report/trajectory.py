"""What one trajectory page shows: the prompt, every turn (code, diff, verdict, trace, audits) and the
folded ECoT sample as the export would write it.

Everything here is untrusted text from the store; the templates escape it (autoescape), and code
goes through Pygments, which escapes it too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ecot.core.outcome import BULKY_METRICS
from ecot.core.trajectory import REAL, Trajectory, Turn
from ecot.export.fold import log_excerpt
from ecot.export.traces import stored_trace
from ecot.report.highlight import highlight_code, highlight_domain, unified_diff

TRACE_EVENTS = 400  # events shown per trace (the tracer's own default bound)


@dataclass(frozen=True)
class PreviewView:
    src: str  # the PNG, relative to the report's root (to the page, once on a page)
    title: str
    caption: str


@dataclass
class TraceView:
    test: Any
    input: str
    truncated: bool
    events: list[dict[str, str]]
    hidden: int  # events beyond TRACE_EVENTS, not shown


@dataclass
class TurnView:
    index: int
    label: str
    passed: bool
    source: str
    reasoning: str
    raw: str
    code: Markup | None
    diff: Markup | None
    added: int
    removed: int
    diagnostic: str
    excerpt: list[str]
    log: str
    metrics: list[tuple[str, str]]
    tool_versions: dict[str, str]
    wall_s: float
    gen_s: float
    usage: dict[str, Any]
    finish_reason: str | None
    trace: TraceView | None
    audits: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FoldView:
    messages: list[dict[str, str]]  # role, content: the chat sample as exported
    reason: str = ""  # why there is none
    prompt_repeated: bool = False  # its system and user messages are the prompt shown above, verbatim


@dataclass
class TrajectoryView:
    id: int
    task_id: str
    domain: str
    sample: int
    run_id: Any
    status: str
    final_label: str
    rounds: int
    provenance: list[tuple[str, str]]
    system: str
    user: str
    turns: list[TurnView]
    fold: FoldView
    preview: PreviewView | None = None  # a picture of the last attempt (Domain.preview)


def status_of(traj: Trajectory) -> str:
    return str(traj.provenance.get("status") or "unfinished")


def build_view(
    traj: Trajectory, sample: dict[str, Any] | None, audits: Mapping[int, list[dict[str, Any]]] | None = None,
    preview: PreviewView | None = None,
) -> TrajectoryView:
    """The page's content. `sample`: fold_trajectory(traj); `audits`: turn index -> its real-execution audits."""
    assert traj.id is not None
    final = traj.final
    view = TrajectoryView(
        id=traj.id,
        task_id=traj.task_id,
        domain=traj.domain,
        sample=traj.sample,
        run_id=traj.provenance.get("run_id"),
        status=status_of(traj),
        final_label=final.outcome.label if final else "-",
        rounds=max(len(traj.turns) - 1, 0),
        provenance=provenance_items(traj.provenance),
        system=_joined(traj, "system"),
        user=_joined(traj, "user"),
        turns=turn_views(traj, audits or {}),
        fold=fold_view(traj, sample),
        preview=preview,
    )
    # The sample's system and user turns repeat the prompt: shown once (half of a page's size otherwise).
    head = [m["content"] for m in view.fold.messages[:2]]
    view.fold.prompt_repeated = head == [view.system, view.user]
    return view


def _joined(traj: Trajectory, role: str) -> str:
    return "\n\n".join(m["content"] for m in traj.prompt_messages if m.get("role") == role)


def provenance_items(provenance: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Flat key/value pairs; nested records (the generator's) as compact JSON."""
    items = []
    for key, value in sorted(provenance.items()):
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        items.append((str(key), text))
    return items


def turn_views(traj: Trajectory, audits: Mapping[int, list[dict[str, Any]]]) -> list[TurnView]:
    views, previous = [], None
    for turn in traj.turns:
        views.append(turn_view(turn, traj.domain, previous, audits.get(turn.index, [])))
        previous = turn.code if turn.code is not None else previous
    return views


def turn_view(turn: Turn, domain: str, previous: str | None, audits: list[dict[str, Any]]) -> TurnView:
    """One turn; `previous` is the code of the last attempt that had code (what this one revised)."""
    outcome = turn.outcome
    diff, added, removed = None, 0, 0
    if turn.code is not None and previous is not None:
        text, added, removed = unified_diff(previous, turn.code, turn.index)
        diff = highlight_code(text, "diff") if text else None
    return TurnView(
        index=turn.index,
        label=outcome.label,
        passed=outcome.passed,
        source=turn.observation_source,
        reasoning=turn.reasoning,
        raw=turn.raw,
        code=highlight_domain(turn.code, domain) if turn.code is not None else None,
        diff=diff,
        added=added,
        removed=removed,
        diagnostic=outcome.diagnostic,
        excerpt=log_excerpt(outcome),
        log=outcome.log,
        metrics=[(k, _metric(v)) for k, v in sorted(outcome.metrics.items()) if k not in BULKY_METRICS],
        tool_versions=dict(outcome.tool_versions),
        wall_s=outcome.wall_s,
        gen_s=turn.gen_s,
        usage=dict(turn.usage),
        finish_reason=turn.finish_reason,
        trace=trace_view(turn),
        audits=audits,
    )


def _metric(value: object) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def trace_view(turn: Turn) -> TraceView | None:
    payload = stored_trace(turn)
    if payload is None:
        return None
    events: Sequence[Any] = payload["events"]
    return TraceView(
        test=payload.get("test"),
        input=json.dumps(payload.get("input"), ensure_ascii=False),
        truncated=bool(payload.get("truncated")),
        events=[_event(e) for e in events[:TRACE_EVENTS] if isinstance(e, dict)],
        hidden=max(len(events) - TRACE_EVENTS, 0),
    )


def _event(event: Mapping[str, Any]) -> dict[str, str]:
    """One trace event as text cells; the result is the return value or the exception."""
    kind = str(event.get("event", ""))
    result = ""
    if kind == "return":
        result = "unwinding" if event.get("unwinding") else f"-> {event.get('value')}"
    elif kind == "exception":
        result = f"!! {event.get('exception')}"
    found = event.get("locals")
    state: dict[str, Any] = found if isinstance(found, dict) else {}
    return {
        "event": kind,
        "where": f"{event.get('function', '')}:{event.get('line', '')}",
        "depth": str(event.get("depth", 0)),
        "source": str(event.get("source", "")),
        "locals": ", ".join(f"{k}={v}" for k, v in state.items()),
        "result": result,
    }


def fold_view(traj: Trajectory, sample: dict[str, Any] | None) -> FoldView:
    """The sample `ecot export` writes for this trajectory (deterministic fold), or why there is none."""
    if sample is not None:
        return FoldView([{"role": m["role"], "content": m["content"]} for m in sample["messages"]])
    final = traj.final
    if final is None:
        reason = "no turn stored yet"
    elif status_of(traj) == "unfinished":
        reason = f"the trajectory is not finished (its last stored turn: {final.outcome.label})"
    elif not final.outcome.passed:
        reason = f"the final turn did not pass ({final.outcome.label}): not a training sample"
    elif final.observation_source != REAL:
        reason = f"the final Pass came from {final.observation_source}, not from real execution: never a training target"
    else:
        reason = "the final turn holds no code"
    return FoldView([], reason)
