"""Token and cost accounting: a price table, and usage totals per run, domain and round.

A price table is a TOML file with one table per model name (as sent to the endpoint), prices in
USD per million tokens; `"*"` prices every model not named:

    ["Qwen/Qwen3-32B"]
    input = 0.20    # prompt tokens
    output = 0.60   # completion tokens (reasoning tokens included, as endpoints count them)

Totals come from the store (`TrajectoryStore.usage_rows`): every stored turn counts, finished or
not, since its tokens were paid for either way.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError

ANY_MODEL = "*"
MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    input: float  # USD per million prompt tokens
    output: float  # USD per million completion tokens

    def cost(self, usage: Mapping[str, Any]) -> float:
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        return (prompt * self.input + completion * self.output) / MILLION


@dataclass(frozen=True)
class PriceTable:
    prices: Mapping[str, Price]
    source: str = ""

    def price(self, model: str | None) -> Price | None:
        found = self.prices.get(model or "")
        return found if found is not None else self.prices.get(ANY_MODEL)


def load_prices(path: Path) -> PriceTable:
    """Read a price table; a malformed one fails with the file and the model it is about."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise EcotError(f"price table {path}: cannot read ({err.strerror or err})") from None
    except tomllib.TOMLDecodeError as err:
        raise EcotError(f"price table {path}: not valid TOML ({err})") from None
    prices: dict[str, Price] = {}
    for model, entry in data.items():
        if not isinstance(entry, dict) or set(entry) - {"input", "output"} or not entry:
            raise EcotError(f"price table {path}: [{model!r}] must hold only 'input' and 'output' (USD per million tokens)")
        values = {key: entry.get(key, 0.0) for key in ("input", "output")}
        bad = [key for key, value in values.items() if not _price_number(value)]
        if bad:
            raise EcotError(f"price table {path}: [{model!r}] {bad[0]} must be a number >= 0, got {values[bad[0]]!r}")
        prices[model] = Price(float(values["input"]), float(values["output"]))
    if not prices:
        raise EcotError(f"price table {path}: names no model")
    return PriceTable(prices, str(path))


def _price_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


@dataclass
class Tokens:
    """Sums over turns; `usd` is None when no price is known for some of them."""

    turns: int = 0
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    usd: float | None = 0.0

    def add(self, row: Mapping[str, Any], price: Price | None) -> None:
        for key in ("turns", "truncated", "prompt_tokens", "completion_tokens", "reasoning_tokens", "total_tokens"):
            setattr(self, key, getattr(self, key) + int(row.get(key) or 0))
        if price is None or self.usd is None:
            self.usd = None
        else:
            self.usd += price.cost(row)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "usd": None if self.usd is None else round(self.usd, 6)}


@dataclass
class UsageTotals:
    all: Tokens = field(default_factory=Tokens)
    runs: dict[int, Tokens] = field(default_factory=dict)
    domains: dict[str, Tokens] = field(default_factory=dict)
    rounds: dict[int, Tokens] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "all": self.all.to_dict(),
            "runs": {str(k): v.to_dict() for k, v in sorted(self.runs.items())},
            "domains": {k: v.to_dict() for k, v in sorted(self.domains.items())},
            "rounds": {str(k): v.to_dict() for k, v in sorted(self.rounds.items())},
        }


def run_models(runs: Iterable[Mapping[str, Any]]) -> dict[int, str | None]:
    """The model each run sampled, from its stored config (None for offline generators)."""
    return {int(run["id"]): (run.get("config") or {}).get("generator", {}).get("model") for run in runs}


def usage_totals(rows: Iterable[Mapping[str, Any]], models: Mapping[int, str | None], prices: PriceTable | None = None) -> UsageTotals:
    """Fold `TrajectoryStore.usage_rows` into totals per run, domain and round (and over all)."""
    totals = UsageTotals()
    for row in rows:
        price = prices.price(models.get(int(row["run_id"]))) if prices is not None else None
        groups = (
            totals.all,
            totals.runs.setdefault(int(row["run_id"]), Tokens()),
            totals.domains.setdefault(str(row["domain"]), Tokens()),
            totals.rounds.setdefault(int(row["round"]), Tokens()),
        )
        for group in groups:
            group.add(row, price)
    return totals


def render_usage(totals: UsageTotals, title: str = "Tokens and cost") -> Any:
    """A rich Table: all, then per run, per domain (by name) and per round (round 0 = first attempt)."""
    from rich.table import Table

    reasoning = totals.all.reasoning_tokens > 0  # most endpoints do not report them: no empty column
    columns = ["", "turns", "trunc", "prompt", "compl", *(["reason"] if reasoning else []), "total", "USD"]
    table = Table(title=title, caption="trunc: answers cut off by the length limit; compl: completion tokens", show_edge=False)
    for column in columns:
        table.add_column(column, justify="right" if column else "left", no_wrap=True)
    sections: list[list[tuple[str, Tokens]]] = [
        [("all", totals.all)],
        [(f"run {k}", v) for k, v in sorted(totals.runs.items())] if len(totals.runs) > 1 else [],
        sorted(totals.domains.items()),
        [(f"round {k}", v) for k, v in sorted(totals.rounds.items())],
    ]
    for section in (s for s in sections if s):
        for position, (name, t) in enumerate(section):
            reasoning_cells = [t.reasoning_tokens] if reasoning else []
            cells = [t.turns, t.truncated, t.prompt_tokens, t.completion_tokens, *reasoning_cells, t.total_tokens]
            usd = "-" if t.usd is None else f"{t.usd:.4f}"
            table.add_row(name, *(f"{c:,}" for c in cells), usd, end_section=position == len(section) - 1)
    return table
