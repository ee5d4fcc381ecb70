"""The firmware domain's descriptor: bare-metal Cortex-M C run on an emulated board."""

from __future__ import annotations

from pathlib import Path

from ecot.core.domain import Domain, KindedLabel, LabelKind
from ecot.domains.firmware.hints import HINTS


class FirmwareLabel(KindedLabel):
    COMPILATION_ERROR = "Compilation_Error", LabelKind.BUILD
    LINK_ERROR = "Link_Error", LabelKind.BUILD
    HARD_FAULT = "Hard_Fault", LabelKind.RUNTIME
    MEMORY_FAULT = "Memory_Fault", LabelKind.RUNTIME
    REGISTER_MISMATCH = "Register_Mismatch", LabelKind.WRONG
    OUTPUT_MISMATCH = "Output_Mismatch", LabelKind.WRONG


DOMAIN = Domain(
    name="firmware",
    language="c",
    fences=("c", "cpp"),
    suffix=".c",
    comment="//",
    labels=FirmwareLabel,
    backend="ecot.domains.firmware.backend:FirmwareBackend",
    options="ecot.domains.firmware.options:FirmwareOptions",
    mutators="ecot.domains.firmware.mutators:FIRMWARE_MUTATIONS",
    hints=HINTS,
    instructions=Path(__file__).parent / "prompts.toml",
    metrics="ecot.domains.firmware.metrics:METRICS",
)
