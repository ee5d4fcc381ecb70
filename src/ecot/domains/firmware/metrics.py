"""EmbedCGen's metric (Main%), named by the descriptor (`Domain.metrics`) and scored by `ecot bench`."""

from __future__ import annotations

from ecot.core.scoring import BenchMetric, pass_share

METRICS = (BenchMetric("main", "%", "EmbedCGen", pass_share),)
