"""Early advice on a run that produces nothing: most of its first answers were cut off or held no code.

Such a run stores turns and spends tokens, but no candidate runs and nothing is exported; the user
should hear it after a few turns, with what to change, not find it in the summary at the end.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ecot.core.outcome import NO_CODE, TRUNCATED

FIRST_ANSWERS = 8  # how many answers are looked at before judging


@dataclass
class AnswerWatch:
    """Counts the first answers' labels of an invocation; `warning` is the one line to show, once."""

    answer_limit: int | None  # the generator's answer length limit (None: the endpoint's)
    first: int = FIRST_ANSWERS
    seen: Counter[str] = field(default_factory=Counter)
    warning: str | None = None

    def turn(self, label: str) -> str | None:
        """Note one stored answer; returns the warning when this answer completes a bad first batch."""
        if self.seen.total() >= self.first:
            return None
        self.seen[label] += 1
        if self.seen.total() < self.first:
            return None
        cut, empty = self.seen[TRUNCATED], self.seen[NO_CODE]
        if 2 * (cut + empty) <= self.first:  # most of them ran: nothing to say
            return None
        head = (f"warning: {cut + empty} of the first {self.first} answers ran nothing "
                f"({cut} cut off by the length limit (Truncated), {empty} without a code block (No_Code)); ")
        self.warning = head + (self._longer() if cut >= empty else self._code())
        return self.warning

    def _longer(self) -> str:
        if self.answer_limit is None:
            return ("the endpoint cut them off: give a larger --max-tokens N, or serve the model with a longer "
                    "context (vLLM: --max-model-len)")
        return (f"answers may have {self.answer_limit:,} tokens: raise it, e.g. --max-tokens {4 * self.answer_limit} "
                f"(reasoning models need thousands)")

    @staticmethod
    def _code() -> str:
        return ("the answers hold no fenced code block in the domain's language: check the model's chat template "
                "(--chat-template) and its instructions (--system-prompt), or try a stronger model")
