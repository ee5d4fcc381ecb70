"""The firmware domain's descriptor: bare-metal Cortex-M C run on an emulated board."""

from __future__ import annotations

from collections.abc import Mapping

from ecot.core.domain import Domain, KindedLabel, LabelKind, WorldModelHints


class FirmwareLabel(KindedLabel):
    COMPILATION_ERROR = "Compilation_Error", LabelKind.BUILD
    LINK_ERROR = "Link_Error", LabelKind.BUILD
    HARD_FAULT = "Hard_Fault", LabelKind.RUNTIME
    MEMORY_FAULT = "Memory_Fault", LabelKind.RUNTIME
    REGISTER_MISMATCH = "Register_Mismatch", LabelKind.WRONG
    OUTPUT_MISMATCH = "Output_Mismatch", LabelKind.WRONG


def vector_handlers() -> Mapping[str, str]:
    """The startup file's weak exception and interrupt handlers: renaming one leaves its interrupt to
    the default handler, a fault at run time rather than a link error."""
    from ecot.domains.firmware.regs import IRQ_NAMES, handler_name

    names = (handler_name(number) for number in range(2, 16 + len(IRQ_NAMES)))
    return {name: "HANDLER" for name in names if name.endswith("Handler")}


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
    hints=WorldModelHints(special_words=vector_handlers),
)
