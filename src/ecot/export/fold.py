"""ECoT folding: one multi-turn trajectory -> one chat sample whose <think> walks the repair path.

The trace is built deterministically from the stored turns (same trajectory, same bytes), in the
first person: what I tried, a view of the code (full first version, then diffs), what the toolchain
reported, my diagnosis and fix, and finally the passing verification. Only trajectories whose final
turn passed *real* execution are folded: a world-model Pass is never a training target.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from ecot.core.domain import get_domain
from ecot.core.errors import EcotError
from ecot.core.extract import fence
from ecot.core.outcome import INFRA_ERROR, NOT_RUN, TRUNCATED, Outcome, shown_metrics
from ecot.core.trajectory import REAL, Message, Trajectory, Turn

REASONING_CHARS = 2000  # per turn; long model thoughts are cut at a sentence end
DIAGNOSTIC_CHARS = 600
CODE_CHARS = 8000  # first version shown in full up to this bound
DIFF_LINES = 60
LOG_LINES = 5
LOG_LINE_CHARS = 200
METRICS_SHOWN = 6

_RELEVANT = re.compile(
    r"error|fail|fault|mismatch|assert|exception|traceback|warning|expected|\bgot\b|timeout|"
    r"undefined|not declared|illegal|overflow|exceed|line \d+|:\d+:",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](\s|$)")


def language(domain: str) -> str:
    """The fence language of the domain's answers, from its descriptor (an unknown domain is an error)."""
    return get_domain(domain).language


def foldable(traj: Trajectory) -> bool:
    final = traj.final
    return final is not None and final.outcome.passed and final.observation_source == REAL and bool(final.code)


def fold_trajectory(traj: Trajectory) -> dict[str, Any] | None:
    """The ECoT sample of a trajectory that ended in a real Pass, else None."""
    if not foldable(traj):
        return None
    return make_sample(traj, build_trace(traj), fold="deterministic")


def make_sample(traj: Trajectory, trace: str, fold: str) -> dict[str, Any]:
    assistant = f"<think>\n{trace}\n</think>\n\n{final_answer(traj)}"
    return {
        "messages": [*chat_prompt(traj), {"role": "assistant", "content": assistant}],
        "metadata": {**metadata(traj, fold), "kind": "sft"},
    }


def chat_prompt(traj: Trajectory) -> list[dict[str, str]]:
    """[system, user]: the domain instructions the generator saw, then the task.

    A sample always opens with our own system message: without one, chat templates such as
    SmolLM2's insert theirs ("You are a helpful AI assistant named SmolLM ..."). A stored prompt
    without instructions gets the router's instructions for the domain.
    """
    system = _joined(traj.prompt_messages, "system") or domain_instructions(traj.domain)
    return [{"role": "system", "content": system}, {"role": "user", "content": _joined(traj.prompt_messages, "user")}]


def _joined(messages: list[Message], role: str) -> str:
    return "\n\n".join(part for m in messages if m["role"] == role and (part := m["content"].strip()))


def domain_instructions(domain: str) -> str:
    from ecot.core.task import Task
    from ecot.run import router

    try:
        return router.route(Task(id=f"{domain}/_", domain=domain, prompt="")).system
    except EcotError:  # a domain without a prompts file: the instructions every domain shares
        return str(router._load("common")["system"])


def final_answer(traj: Trajectory) -> str:
    assert traj.final is not None and traj.final.code is not None
    return fence(traj.final.code, language(traj.domain))


def split_sample(sample: dict[str, Any]) -> tuple[str, str]:
    """(thinking, answer) of a folded sample's assistant message."""
    content = sample["messages"][-1]["content"]
    head, _, answer = content.partition("\n</think>\n\n")
    return head.removeprefix("<think>\n"), answer


# -- the deterministic trace -----------------------------------------------------------------


def build_trace(traj: Trajectory) -> str:
    turns = traj.turns
    lang = language(traj.domain)
    if len(turns) == 1:
        intro = condense(turns[0].reasoning) or "I write the implementation straight from the specification."
        return f"{intro}\n\nI run it through the toolchain. {report(turns[0].outcome)}"
    blocks = [_first_attempt(turns[0], lang)]
    last_code = turns[0].code
    for previous, turn in zip(turns, turns[1:]):
        blocks.append(_revision(turn, previous.outcome, last_code, lang))
        last_code = turn.code or last_code
    return "\n\n".join(blocks)


def _first_attempt(turn: Turn, lang: str) -> str:
    intro = condense(turn.reasoning) or "I write a first implementation from the specification."
    return "\n\n".join([f"Attempt 1. {intro}", _code_view(turn, lang, "My first version:"), _observation(turn, True)])


def _revision(turn: Turn, seen: Outcome, previous_code: str | None, lang: str) -> str:
    fix = condense(_unquote(turn.reasoning, seen)) or "I revise the code to address that report."
    if turn.code is None:
        change = "My answer this time held no code block, so there was nothing new to run."
    elif previous_code is None:
        change = _code_view(turn, lang, "My new version:")
    else:
        change = _diff_view(previous_code, turn.code, turn.index)
    return "\n\n".join([f"My diagnosis and fix: {fix}", change, _observation(turn, False)])


def _unquote(reasoning: str, seen: Outcome) -> str:
    """The reasoning without a verbatim repeat of the report the trace has just quoted."""
    diagnostic = seen.diagnostic.strip()
    if len(diagnostic) < 40:  # short ones read naturally twice
        return reasoning
    return reasoning.replace(f"{seen.label}: {diagnostic}", f"{seen.label} (the report above)")


def _observation(turn: Turn, first: bool) -> str:
    lead = "I run it through the toolchain." if first else "I run it again."
    outcome = turn.outcome
    if outcome.label in NOT_RUN:
        return report(outcome)
    text = f"{lead} {report(outcome)}"
    if outcome.label == INFRA_ERROR:
        text += " That failure is in the harness, not in my code, so it tells me nothing about the design."
    excerpt = log_excerpt(outcome)
    if excerpt and not outcome.passed:
        text += "\nRelevant log lines:\n" + "\n".join(f"> {line}" for line in excerpt)
    return text


def report(outcome: Outcome) -> str:
    diagnostic = condense(outcome.diagnostic, DIAGNOSTIC_CHARS) or "no diagnostic"
    who = "The harness" if outcome.label in NOT_RUN else "The toolchain"  # nothing ran for No_Code, Truncated
    text = f"{who} reports {outcome.label}: {diagnostic}"
    metrics = _metrics(outcome)
    return f"{text} ({metrics})" if metrics else text


def _metrics(outcome: Outcome) -> str:
    # Durations (sim_s, compile_ms...) vary run to run and teach nothing about the code.
    items = sorted(shown_metrics(outcome.metrics).items())[:METRICS_SHOWN]
    return ", ".join(f"{key}={_metric(value)}" for key, value in items)


def _metric(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _code_view(turn: Turn, lang: str, title: str) -> str:
    if turn.code is None:
        if turn.outcome.label == TRUNCATED:
            return "My answer was cut off before it was complete, so there was nothing to run."
        return "My answer held no code block, so there was nothing to run."
    body = turn.code.rstrip("\n")
    if len(body) > CODE_CHARS:
        kept = body[:CODE_CHARS].rsplit("\n", 1)[0]
        body = f"{kept}\n... ({body.count(chr(10)) - kept.count(chr(10))} more lines)"
    return f"{title}\n{fence(body, lang)}"


def _diff_view(before: str, after: str, index: int) -> str:
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"attempt {index}", f"attempt {index + 1}", lineterm="", n=2
        )
    )
    if not lines:
        return "I keep the code unchanged."
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"... ({len(lines) - DIFF_LINES} more diff lines)"]
    return "The change:\n" + fence("\n".join(lines), "diff")


def log_excerpt(outcome: Outcome) -> list[str]:
    """A few log lines an engineer would read: error-looking ones, else (with no diagnostic) the tail."""
    lines = [line.strip() for line in outcome.log.splitlines() if line.strip()]
    lines = [line for line in lines if line != outcome.diagnostic.strip()]
    relevant = list(dict.fromkeys(line for line in lines if _RELEVANT.search(line)))
    chosen = relevant[:LOG_LINES] if relevant or outcome.diagnostic.strip() else lines[-LOG_LINES:]
    return [line if len(line) <= LOG_LINE_CHARS else line[:LOG_LINE_CHARS] + " ..." for line in chosen]


def condense(text: str, limit: int = REASONING_CHARS) -> str:
    """Whitespace-normalized text, cut at the last sentence end before `limit`."""
    text = re.sub(r"\n{3,}", "\n\n", text.strip())
    text = re.sub(r"[ \t]+\n", "\n", text)
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end(0) for m in _SENTENCE_END.finditer(head)]
    cut = ends[-1] if ends and ends[-1] > limit // 2 else limit
    return head[:cut].rstrip() + " [...]"


# -- metadata --------------------------------------------------------------------------------


def metadata(traj: Trajectory, fold: str) -> dict[str, Any]:
    """Flat provenance summary for filtering, plus the full stored provenance for reproduction."""
    prov = traj.provenance
    return {
        "task_id": traj.task_id,
        "domain": traj.domain,
        "sample": traj.sample,
        "run_id": prov.get("run_id"),
        "rounds": len(traj.turns) - 1,
        "labels": traj.labels,
        "observation_sources": [t.observation_source for t in traj.turns],
        "fold": fold,
        "generator": _provenance_value(prov, "generator"),
        "model": _provenance_value(prov, "model"),
        "synthetic": _provenance_value(prov, "synthetic"),
        "environment": _provenance_value(prov, "environment"),  # "real" or "icwm:<model>"
        "tool_versions": tool_versions(traj),
        "provenance": {k: v for k, v in prov.items() if k not in ("run_id", "status")},
    }


def provenance_of(traj: Trajectory, kind: str) -> dict[str, Any]:
    """The metadata of a sample that is not a folded trace (preference pairs, execution traces)."""
    meta = metadata(traj, "")
    del meta["fold"]
    return {**meta, "kind": kind}


def tool_versions(traj: Trajectory) -> dict[str, str]:
    """Versions reported by the real toolchain runs, later turns winning."""
    merged: dict[str, str] = {}
    for turn in traj.turns:
        if turn.observation_source == REAL:
            merged.update(turn.outcome.tool_versions)
    return merged


def _provenance_value(prov: dict[str, Any], key: str) -> Any:
    """Look a key up flat, or inside a nested generator/backend record ({"generator": {...}})."""
    value = prov.get(key)
    if isinstance(value, dict):
        return value.get("name", value.get(key))
    if value is not None:
        return value
    for nested in prov.values():
        if isinstance(nested, dict) and key in nested:
            return nested[key]
    return None
