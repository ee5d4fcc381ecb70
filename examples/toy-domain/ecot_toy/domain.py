"""The toy domain's descriptor: every fact ecot needs about it, and where the rest of it lives."""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict

from ecot.core.domain import Domain, KindedLabel, LabelKind
from ecot.domains.base import DomainOptions


class ToyLabel(KindedLabel):
    TOY_SYNTAX_ERROR = "Toy_Syntax_Error", LabelKind.BUILD
    TOY_WRONG_OUTPUT = "Toy_Wrong_Output", LabelKind.WRONG


class ToyOptions(DomainOptions):
    model_config = ConfigDict(extra="forbid", frozen=True)
    expect: str  # what the script must print


DOMAIN = Domain(
    name="toy",
    language="sh",
    fences=("sh", "shell", "bash"),
    suffix=".sh",
    comment="#",
    labels=ToyLabel,
    backend="ecot_toy.backend:ToyBackend",
    options=ToyOptions,
    instructions=Path(__file__).parent / "prompts.toml",
    metrics="ecot_toy.metrics:METRICS",
    preview="ecot_toy.preview:PREVIEW",
)
