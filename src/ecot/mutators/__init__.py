"""Domain bug-planting operators for the offline repair generator, registered by domain tag.

A new domain adds one module exporting a `MutationSet` (its operators, answer fence language, what
each outcome label implies, and a design-plan writer) and one line below, or an entry point in the
group `ecot.mutators`.
"""

from __future__ import annotations

from ecot.core.registry import Registry
from ecot.mutators.base import (
    CATEGORIES,
    Applied,
    Category,
    LabelEvidence,
    Mutation,
    MutationSet,
    Site,
    Source,
    compose,
)

MUTATORS: Registry[MutationSet] = Registry(
    "mutators",
    {
        "rtl": "ecot.domains.rtl.mutators:RTL_MUTATIONS",
        "gpu": "ecot.domains.gpu.mutators:GPU_MUTATIONS",
        "asm": "ecot.domains.asm.mutators:ASM_MUTATIONS",
        "python": "ecot.domains.python.mutators:PYTHON_MUTATIONS",
        "cad": "ecot.domains.cad.mutators:CAD_MUTATIONS",
        "firmware": "ecot.domains.firmware.mutators:FIRMWARE_MUTATIONS",
    },
)

__all__ = [
    "CATEGORIES",
    "MUTATORS",
    "Applied",
    "Category",
    "LabelEvidence",
    "Mutation",
    "MutationSet",
    "Site",
    "Source",
    "compose",
]
