"""What may stop a synthesis run before its work is done: a token or cost budget, or a broken endpoint.

One RunControl is shared by every trajectory of a run. The loop asks `stop_reason` before each
generation request and charges each stored turn's usage; once a budget is spent (counting what the
run had already spent before this invocation) no new request starts, the requests already in flight
finish and are stored, and the unfinished trajectories stay resumable. So a budget can be overshot
by at most the requests in flight at the moment it ran out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ecot.core.errors import EcotError
from ecot.run.usage import Price


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
    """No new generation request may start: the run's budget is spent or the run was stopped."""


class RunControl:
    def __init__(self, budget: Budget | None = None, spent: Mapping[str, Any] | None = None) -> None:
        self.budget = budget or Budget()
        self.tokens = int((spent or {}).get("total_tokens") or 0)
        self.usd = self.budget.price.cost(spent or {}) if self.budget.price else 0.0
        self._stopped: str | None = None
        self.budget_hit = False

    def charge(self, usage: Mapping[str, Any]) -> None:
        """Count one stored turn's tokens (prompt + completion) and cost."""
        total = usage.get("total_tokens")
        self.tokens += int(total if total is not None else (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0))
        if self.budget.price is not None:
            self.usd += self.budget.price.cost(usage)

    def stop(self, reason: str) -> None:
        """Stop starting requests (the first reason given is kept)."""
        if self._stopped is None:
            self._stopped = reason

    @property
    def stop_reason(self) -> str | None:
        if self._stopped is None:
            spent = self._spent()
            if spent is not None:
                self.budget_hit = True
                self._stopped = spent
        return self._stopped

    def check(self) -> None:
        """Raise BudgetExhausted when no new request may start."""
        reason = self.stop_reason
        if reason is not None:
            raise BudgetExhausted(reason)

    def _spent(self) -> str | None:
        budget = self.budget
        if budget.tokens is not None and self.tokens >= budget.tokens:
            return f"token budget spent: {self.tokens:,} of {budget.tokens:,} tokens"
        if budget.usd is not None and self.usd >= budget.usd * (1 - 1e-9):  # sums of floats fall just short
            return f"cost budget spent: ${self.usd:.4f} of ${budget.usd:.4f}"
        return None
