"""Generators: the code writers of the loop, registered by name."""

from __future__ import annotations

from ecot.generators.base import Generation, Generator
from ecot.core.registry import Registry

GENERATORS: Registry[type[Generator]] = Registry(
    "generators",
    {
        "openai": "ecot.generators.openai_chat:OpenAIGenerator",
        "hf": "ecot.generators.hf_local:HFGenerator",
        "replay": "ecot.generators.replay:ReplayGenerator",
        "repair": "ecot.generators.repair:RepairGenerator",
    },
)

__all__ = ["GENERATORS", "Generation", "Generator"]
