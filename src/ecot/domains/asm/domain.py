"""The asm domain's descriptor: x86-64 GNU assembly routines linked against a C harness."""

from __future__ import annotations

from pathlib import Path

from ecot.core.domain import Domain, KindedLabel, LabelKind
from ecot.domains.asm.hints import HINTS


class AsmLabel(KindedLabel):
    ASSEMBLY_ERROR = "Assembly_Error", LabelKind.BUILD
    LINK_ERROR = "Link_Error", LabelKind.BUILD
    RUNTIME_ERROR = "Runtime_Error", LabelKind.RUNTIME
    OUTPUT_MISMATCH = "Output_Mismatch", LabelKind.WRONG
    FORBIDDEN_CODE = "Forbidden_Code", LabelKind.REJECTED


DOMAIN = Domain(
    name="asm",
    language="asm",
    fences=("asm", "assembly", "nasm", "gas", "s", "x86asm"),
    suffix=".s",
    comment="#",  # GNU as on x86-64: "#" starts a line comment
    labels=AsmLabel,
    backend="ecot.domains.asm.backend:AsmBackend",
    options="ecot.domains.asm.options:AsmOptions",
    mutators="ecot.domains.asm.mutators:ASM_MUTATIONS",
    hints=HINTS,
    instructions=Path(__file__).parent / "prompts.toml",
    metrics="ecot.domains.asm.metrics:METRICS",
)
