"""Domain bug-planting operators for the offline repair generator, registered by domain tag.

A domain adds one module exporting a `MutationSet` (its operators, what each outcome label implies,
and a design-plan writer) and names it in its descriptor (`Domain.mutators`); the answer's fence
language comes from the descriptor too.
"""

from __future__ import annotations

from ecot.core.domain import DescribedRegistry
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

# By domain: the descriptor's `mutators` reference, else the older `ecot.mutators` entry-point group.
MUTATORS: DescribedRegistry[MutationSet] = DescribedRegistry("mutators", "mutators")


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
