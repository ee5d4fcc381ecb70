"""Generators: the code writers of the loop, registered by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ecot.core.registry import Registry
from ecot.generators.base import Generation, Generator

GENERATORS: Registry[type[Generator]] = Registry(
    "generators",
    {
        "openai": "ecot.generators.openai_chat:OpenAIGenerator",
        "hf": "ecot.generators.hf_local:HFGenerator",
        "replay": "ecot.generators.replay:ReplayGenerator",
        "repair": "ecot.generators.repair:RepairGenerator",
    },
)



def make_generator(name: str, options: Mapping[str, Any]) -> Generator:
    """The generator registered under `name`, built from its options (Generator.from_options)."""
    return GENERATORS.get(name).from_options(options)


__all__ = ["GENERATORS", "Generation", "Generator", "make_generator"]
