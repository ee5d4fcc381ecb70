"""Domain bug-planting operators for the offline repair generator, registered by domain tag.

A new domain adds one module exporting a `MutationSet` (its operators, answer fence language, what
each outcome label implies, and a design-plan writer) and one line below, or an entry point in the
group `ecot.mutators`.
"""

from __future__ import annotations

from ecot.mutators.base import CATEGORIES, Applied, Category, LabelEvidence, Mutation, MutationSet, Site, Source, compose
from ecot.registry import Registry

MUTATORS: Registry[MutationSet] = Registry(
    "mutators",
    {
        "rtl": "ecot.mutators.rtl:RTL_MUTATIONS",
        "gpu": "ecot.mutators.gpu:GPU_MUTATIONS",
        "asm": "ecot.mutators.asm:ASM_MUTATIONS",
        "python": "ecot.mutators.python:PYTHON_MUTATIONS",
        "cad": "ecot.mutators.cad:CAD_MUTATIONS",
        "firmware": "ecot.mutators.firmware:FIRMWARE_MUTATIONS",
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
