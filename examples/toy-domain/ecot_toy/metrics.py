"""The toy domain's benchmark metric: how many samples parse (the shell's own Syn@1)."""

from __future__ import annotations

from ecot.core.scoring import BenchMetric, Verdicts, share
from ecot_toy.domain import ToyLabel


def parses(verdicts: Verdicts) -> float | None:
    """% of samples that `sh -n` accepts (a script that timed out or printed the wrong thing parsed)."""
    return share([v.label != ToyLabel.TOY_SYNTAX_ERROR and v.label not in ("No_Code", "Truncated") for v in verdicts])


METRICS = (BenchMetric("parses", "%", "toy", parses),)
