"""The repair generator's first-person reasoning, written from the real observations of each turn.

Phrasing varies through the turn's rng; the facts (label, diagnostic, log line, metrics, line,
snippet, fix) always come from the outcome and the planted bug, never from templates alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from ecot.core.outcome import NO_CODE, Outcome
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.mutators import Applied, MutationSet

ANSWERS: dict[str, tuple[str, ...]] = {
    "initial": ("Here is my implementation:", "Here is the {artifact}:"),
    "fix": ("Here is the corrected {artifact}:", "Here is the fixed code:"),
    "decoy": ("Here is the revised {artifact}:", "Here is the {artifact} with that change:"),
    "undo_decoy": ("Here is the corrected {artifact}:", "Here is the fixed code:"),
    "rewrite": ("Here is the {artifact}, rewritten from the specification:",),
    "resubmit_infra": ("Resubmitting the same {artifact}:",),
    "resubmit_pass": ("The {artifact} stays as it is:",),
}
_OPENERS = ("The last run came back {label}: {diagnostic}", "The toolchain reported {label}: {diagnostic}",
            "Result of the last run: {label}: {diagnostic}")
_LOG_WORDS = re.compile(r"error|mismatch|latch|loop|expected|fail|warning|timeout|unable", re.IGNORECASE)


@dataclass
class Writer:
    mset: MutationSet
    task: Task
    rng: Random

    def reasoning(self, kind: str, turns: Sequence[Turn], evidence: Outcome | None, view: dict[str, Any]) -> str:
        parts: list[str] = []
        if turns and turns[-1].outcome.label == NO_CODE:
            last = turns[-1].outcome
            parts.append(f"My previous answer held no code block, so nothing was run ({last.label}: {last.diagnostic}). "
                         "This time I'll include the complete code.")
        if kind == "initial" or evidence is None:
            parts.append(" ".join(self.mset.describe(self.task.prompt, self.task.reference or "")))
            return "\n\n".join(parts)
        parts.append(self.evidence(evidence, explain=kind not in ("resubmit_infra", "resubmit_pass")))
        parts.append(getattr(self, f"_{kind}")(evidence, view))
        return "\n\n".join(p for p in parts if p)

    def codeless_answer(self, kind: str) -> str:
        return f"The {self.mset.artifact} follows the plan above." if kind == "initial" else "The change is described above."

    # -- what the run says ------------------------------------------------------------------------
    def evidence(self, outcome: Outcome, explain: bool = True) -> str:
        text = [self.rng.choice(_OPENERS).format(label=outcome.label, diagnostic=outcome.diagnostic.strip())]
        log_line = _log_line(outcome)
        if log_line:
            text.append(f'The log also shows: "{log_line}"')
        numbers = [f"{k}={v}" for k, v in outcome.metrics.items() if isinstance(v, int) and not isinstance(v, bool)]
        if numbers:
            text.append(f"Reported metrics: {', '.join(numbers[:4])}.")
        if explain:
            text.append(self.mset.for_label(outcome.label).meaning)
        return "\n".join(text)

    # -- one paragraph per kind of move -----------------------------------------------------------
    def _fix(self, outcome: Outcome, view: dict[str, Any]) -> str:
        bug: Applied = view["bug"]
        line = view["line"]
        if _removed_lines(bug):
            locate = f"Around line {line} the code {bug.description}."
        else:
            locate = f"Line {line} reads {_inline(bug.mutated)}, which {bug.description}."
        if "\n" in bug.original.strip():
            repair = f"I'll restore it to:\n{_block(bug.original)}"
        else:
            repair = f"I'll {'add back' if _removed_lines(bug) else 'change it to'} {_inline(bug.original)}."
        parts = (self._pointer(outcome, line, bug), locate, self.mset.by_kind(bug.kind).why, repair)
        return " ".join(p for p in parts if p)

    def _pointer(self, outcome: Outcome, line: int, bug: Applied) -> str:
        named = named_lines(outcome, self.task)
        if not named:
            names = self.mset.names(self.task.reference or "")
            signal = _shared_names(outcome.diagnostic, names, bug.mutated + "\n" + bug.original)
            if signal:
                return f"The diagnostic mentions `{signal[0]}`, so I followed it through the logic around it."
            return self.rng.choice(("So I went through the code for something that produces exactly this.",
                                    "Nothing names a line, so I traced the failing behaviour back through the code."))
        near = named[0]  # the diagnostic's own line comes first
        if abs(near - line) <= 2:
            return f"The message points at line {near}, so the problem is there or just before it."
        return f"The message names line {near}; tracing back from there, the cause is at line {line}."

    def _decoy(self, outcome: Outcome, view: dict[str, Any]) -> str:
        decoy: Applied = view["decoy"]
        guess = self.rng.choice(("My best guess is", "The most likely culprit looks like"))
        return (f"{guess} line {view['decoy_line']}, {_inline(decoy.original)}. "
                f"Reading the logic there again, I think it should be {_inline(decoy.mutated)}.")

    def _undo_decoy(self, outcome: Outcome, view: dict[str, Any]) -> str:
        decoy: Applied = view["decoy"]
        undo = (f"My change on line {view['decoy_line']} to {_inline(decoy.mutated)} did not fix it, so that guess "
                f"was wrong; I'll restore {_inline(decoy.original)} and look again.")
        return undo + " " + self._fix(outcome, view)

    def _rewrite(self, outcome: Outcome, view: dict[str, Any]) -> str:
        return ("I have fixed every problem I traced, yet it still does not pass. Rather than keep patching, "
                "I'll rewrite the module cleanly from the specification.")

    def _resubmit_infra(self, outcome: Outcome, view: dict[str, Any]) -> str:
        return (f"That failure came from the evaluation harness, not from my {self.mset.artifact}, so there is "
                f"nothing to fix in the code; I'll submit the same {self.mset.artifact} again.")

    def _resubmit_pass(self, outcome: Outcome, view: dict[str, Any]) -> str:
        return f"It already passes, so I'll keep the {self.mset.artifact} unchanged."


_LOCATION = re.compile(r"([\w./-]+\.\w+):(\d+)")


def named_lines(outcome: Outcome, task: Task) -> list[int]:
    """Line numbers the diagnostic, then the first log lines, give for the candidate file (not the bundle's)."""
    text = outcome.diagnostic + "\n" + "\n".join(outcome.log.splitlines()[:20])
    found = [int(m.group(2)) for m in _LOCATION.finditer(text) if m.group(1).split("/")[-1] not in task.files]
    return list(dict.fromkeys(found))


def _shared_names(diagnostic: str, declared: set[str], snippet: str) -> list[str]:
    """Design names the diagnostic mentions that also occur in the bug's lines."""
    words = dict.fromkeys(re.findall(r"[A-Za-z_]\w*", diagnostic))
    return [w for w in words if w in declared and len(w) > 1 and re.search(rf"\b{w}\b", snippet)]


def _removed_lines(bug: Applied) -> bool:
    """Whole lines went missing (the buggy code has nothing to point at)."""
    return "\n" in bug.spans[0].old and not bug.spans[0].new.strip()


def _inline(snippet: str) -> str:
    lines = [ln.strip() for ln in snippet.strip().splitlines() if ln.strip()]
    if not lines:
        return "``"
    return f"`{_clip(lines[0])}`" if len(lines) == 1 else f"`{_clip(lines[0], 80)} ... {_clip(lines[-1], 60)}`"


def _block(snippet: str) -> str:
    return "\n".join(f"    {_clip(ln.rstrip())}" for ln in snippet.strip("\n").splitlines()[:10])


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _log_line(outcome: Outcome) -> str:
    """The first telling log line that the diagnostic does not already say."""
    for line in outcome.log.splitlines():
        line = line.strip()
        if line and _LOG_WORDS.search(line) and line not in outcome.diagnostic and outcome.diagnostic not in line:
            return _clip(line, 200)
    return ""
