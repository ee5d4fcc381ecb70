"""What may stop a synthesis run before its work is done: a token or cost budget, a broken endpoint, Ctrl-C.

One RunControl is shared by every trajectory of a run. Before a generation request is sent, the loop
reserves its worst case (the prompt's tokens, bounded from above, plus the answer's length limit:
`Generator.answer_limit`); a request whose worst case does not fit in what the budget has left
(counting what the run spent before this invocation and what the requests in flight hold) is not
sent. When its turn is stored, the reservation is given back and the turn's real usage is charged.
So a run whose answers have a length limit never spends more than its budget; the unfinished
trajectories stay resumable. Without a length limit (no `--max-tokens`) the reservation counts the
longest answer seen so far, and the requests in flight may pass the budget (the CLI says so).

Every reason to stop is a `Stop`: its kind (budget, endpoint, interrupted), what happened, and what a
rerun does (`RERUN`); the summary, the store's record of the invocation and the report print the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.trajectory import Turn
from ecot.generators.options import content_text
from ecot.run.usage import Price


class StopKind(StrEnum):
    BUDGET = "budget"  # a token or cost budget has no room for the next request
    ENDPOINT = "endpoint"  # the endpoint went away (the circuit breaker opened)
    INTERRUPTED = "interrupted"  # Ctrl-C (or SIGTERM)
    OTHER = "other"  # a caller's own reason (a library user's control)


# What rerunning the same command does after each kind of stop.
RERUN = {
    StopKind.BUDGET: "the same command stops again at once: rerun with a larger --budget-tokens/--budget-usd to resume",
    StopKind.ENDPOINT: "rerun the same command once the endpoint answers to resume (finished turns are kept)",
    StopKind.INTERRUPTED: "rerun the same command to resume (finished turns are kept)",
    StopKind.OTHER: "rerun the same command to resume (finished turns are kept)",
}


@dataclass(frozen=True)
class Stop:
    kind: StopKind
    detail: str  # what happened, e.g. "token budget: 5,800 of 6,000 tokens used; the next request could need 700"

    @property
    def rerun(self) -> str:
        return RERUN[self.kind]

    def line(self) -> str:
        return f"stopped early ({self.kind}): {self.detail}; {self.rerun}"


@dataclass(frozen=True)
class Budget:
    tokens: int | None = None  # total tokens (prompt + completion) of the run
    usd: float | None = None  # cost of the run at `price`
    price: Price | None = None

    def __post_init__(self) -> None:
        if self.tokens is not None and self.tokens < 1:
            raise EcotError(f"--budget-tokens must be >= 1, got {self.tokens}")
        if self.usd is not None and not self.usd > 0:
            raise EcotError(f"--budget-usd must be > 0, got {self.usd}")
        if self.usd is not None and self.price is None:
            raise EcotError("--budget-usd needs a price for the model: give --prices FILE")

    @property
    def active(self) -> bool:
        return self.tokens is not None or self.usd is not None


class BudgetExhausted(EcotError):
    """No new generation request may start: the run's budget has no room for it or the run was stopped."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the message says what the run keeps and what a rerun does."""


@dataclass
class Hold:
    """Tokens and cost set aside for one request in flight, in `shares` (one per answer it brings)."""

    tokens: int
    usd: float
    shares: int = 1

    def take_share(self) -> tuple[int, float]:
        """One answer's part of the hold (the last one takes what is left)."""
        tokens, usd = self.tokens // self.shares, self.usd / self.shares
        self.tokens, self.usd, self.shares = self.tokens - tokens, self.usd - usd, self.shares - 1
        return tokens, usd


def usage_total(usage: Mapping[str, Any]) -> int:
    """A turn's tokens as the store sums them: total_tokens, else prompt + completion."""
    total = usage.get("total_tokens")
    return int(total if total is not None else (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0))


class RunControl:
    def __init__(self, budget: Budget | None = None, spent: Mapping[str, Any] | None = None) -> None:
        self.budget = budget or Budget()
        self.tokens = int((spent or {}).get("total_tokens") or 0)
        self.usd = self.budget.price.cost(spent or {}) if self.budget.price else 0.0
        self.reserved_tokens, self.reserved_usd = 0, 0.0
        self.held = 0  # answers reserved for and not yet back (what may still give room back)
        self.longest_answer = 0  # completion tokens of the longest answer seen (the bound when none is set)
        self._stop: Stop | None = None
        self._refused: tuple[int, float] | None = None  # the smallest worst case the budget refused
        self._event: asyncio.Event | None = None
        self._event_loop: asyncio.AbstractEventLoop | None = None

    @property
    def budget_hit(self) -> bool:
        """Whether the budget refused a request (its trajectory stopped)."""
        return self._refused is not None

    async def reserve(self, tokens: int, usd: float = 0.0, shares: int = 1) -> Hold:
        """Set a request's worst case aside. While it does not fit, wait for the requests in flight to give
        room back; with none in flight it is refused (BudgetExhausted: its trajectory stops, smaller requests
        of others may still fit). Once the run is stopped every request is refused."""
        while True:
            self.check()
            if self._fits(tokens, usd):
                self.reserved_tokens += tokens
                self.reserved_usd += usd
                self.held += shares
                return Hold(tokens, usd, shares)
            if self.held == 0:  # nothing in flight can give room back
                smallest = self._refused
                self._refused = (tokens, usd) if smallest is None or tokens < smallest[0] else smallest
                raise BudgetExhausted(self._budget_detail(tokens, usd))
            room = self._room()
            room.clear()
            await room.wait()

    def _fits(self, tokens: int, usd: float) -> bool:
        """Whether the request fits; it counts as at least one token, so a spent budget admits none."""
        budget = self.budget
        if budget.tokens is not None and self.tokens + self.reserved_tokens + max(tokens, 1) > budget.tokens:
            return False
        return budget.usd is None or self.usd + self.reserved_usd + usd <= budget.usd * (1 + 1e-9)

    def _room(self) -> asyncio.Event:
        """Set whenever a hold is given back or the run stops (one event per event loop)."""
        loop = asyncio.get_running_loop()
        if self._event is None or self._event_loop is not loop:
            self._event, self._event_loop = asyncio.Event(), loop
        return self._event

    def release(self, hold: Hold | None) -> None:
        """Give one answer's share of a hold back without spending it (its request failed)."""
        if hold is not None and hold.shares > 0:
            tokens, usd = hold.take_share()
            self.reserved_tokens -= tokens
            self.reserved_usd -= usd
            self.held -= 1
            if self.held == 0:  # sums of floats do not come back to zero exactly
                self.reserved_tokens, self.reserved_usd = 0, 0.0
            if self._event is not None:
                self._event.set()

    def charge(self, usage: Mapping[str, Any], hold: Hold | None = None) -> None:
        """Count one stored turn's tokens (prompt + completion) and cost, in place of its share of `hold`."""
        self.release(hold)
        self.tokens += usage_total(usage)
        self.longest_answer = max(self.longest_answer, int(usage.get("completion_tokens") or 0))
        if self.budget.price is not None:
            self.usd += self.budget.price.cost(usage)

    def stop(self, reason: str, kind: StopKind = StopKind.OTHER) -> None:
        """Stop starting requests (the first reason given is kept)."""
        if self._stop is None:
            self._stop = Stop(kind, reason)
        if self._event is not None:
            self._event.set()

    @property
    def stopped(self) -> Stop | None:
        """Why the run stopped early: a stop, else the budget's refusals (with its numbers as they are now)."""
        if self._stop is not None or self._refused is None:
            return self._stop
        return Stop(StopKind.BUDGET, self._budget_detail(*self._refused))

    @property
    def stop_reason(self) -> str | None:
        stop = self.stopped
        return stop.detail if stop is not None else None

    def check(self) -> None:
        """Raise BudgetExhausted when the run was stopped."""
        if self._stop is not None:
            raise BudgetExhausted(self._stop.detail)

    def _budget_detail(self, tokens: int, usd: float) -> str:
        budget = self.budget
        if budget.tokens is not None and (budget.usd is None or self.tokens + tokens > budget.tokens):
            return (f"token budget: {self.tokens:,} of {budget.tokens:,} tokens used; "
                    f"the smallest request left could need up to {tokens:,}")
        return f"cost budget: ${self.usd:.4f} of ${budget.usd or 0:.4f} used; the smallest request left could cost up to ${usd:.4f}"


MESSAGE_OVERHEAD = 8  # tokens a chat template wraps around one message (role markers), at most


def prompt_bound(messages: Sequence[Mapping[str, Any]], turns: Sequence[Turn]) -> int:
    """An upper bound of a request's prompt tokens without its tokenizer. After a turn whose usage is
    known, that request's prompt and answer (the answer is re-sent) plus the new observation, counted in
    bytes; else every message in bytes (no tokenizer makes more tokens of a text than it has bytes)."""
    last = turns[-1].usage if turns else {}
    prompt, completion = last.get("prompt_tokens"), last.get("completion_tokens")
    if prompt is not None and completion is not None:
        n = int(last.get("n") or 1)  # an answer of an n-request holds 1/n of its prompt tokens (rounded)
        new = messages[-1:]
        return int(prompt) * n + n + int(completion) + MESSAGE_OVERHEAD + _bytes(new)
    return _bytes(messages) + MESSAGE_OVERHEAD


def _bytes(messages: Sequence[Mapping[str, Any]]) -> int:
    return sum(len(content_text(m.get("content")).encode("utf-8")) + MESSAGE_OVERHEAD for m in messages)
