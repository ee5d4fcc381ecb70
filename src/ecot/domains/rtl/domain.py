"""The rtl domain's descriptor: Verilog/SystemVerilog designs judged by simulation, lint and synthesis."""

from __future__ import annotations

from pathlib import Path

from ecot.core.domain import Domain, KindedLabel, LabelKind, WorldModelHints


class RtlLabel(KindedLabel):
    SYNTAX_ERROR = "Syntax_Error", LabelKind.BUILD
    ELABORATION_ERROR = "Elaboration_Error", LabelKind.BUILD
    SIMULATION_MISMATCH = "Simulation_Mismatch", LabelKind.WRONG
    SYNTHESIS_ERROR = "Synthesis_Error", LabelKind.BUILD
    LINT_ERROR = "Lint_Error", LabelKind.BUILD


DOMAIN = Domain(
    name="rtl",
    language="verilog",
    fences=("verilog", "systemverilog", "sv", "v"),
    suffix=".v",
    alt_suffixes=(".sv",),
    comment="//",
    labels=RtlLabel,
    backend="ecot.domains.rtl.backend:RtlBackend",
    options="ecot.domains.rtl.options:RtlOptions",
    mutators="ecot.domains.rtl.mutators:RTL_MUTATIONS",
    hints=WorldModelHints(observed_metrics=("mismatches", "samples", "cells")),
    instructions=Path(__file__).parent / "prompts.toml",
    metrics="ecot.domains.rtl.metrics:METRICS",
    drift="ecot.domains.rtl.drift:DRIFT",
)
