"""The firmware domain's world-model hints: C's keywords, and the startup file's vector-table handlers."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from ecot.core.domain import WorldModelHints
from ecot.domains.languages import c_word


@cache
def vector_handlers() -> Mapping[str, str]:
    """The startup file's weak exception and interrupt handlers: renaming one leaves its interrupt to
    the default handler, a fault at run time rather than a link error."""
    from ecot.domains.firmware.regs import IRQ_NAMES, handler_name

    names = (handler_name(number) for number in range(2, 16 + len(IRQ_NAMES)))
    return {name: "HANDLER" for name in names if name.endswith("Handler")}


def firmware_word(text: str) -> str | None:
    """A C word, or a word the firmware descriptor names, such as a Cortex-M vector-table handler."""
    return vector_handlers().get(text) or c_word(text)


HINTS = WorldModelHints(special_words=vector_handlers, word_class=firmware_word)
