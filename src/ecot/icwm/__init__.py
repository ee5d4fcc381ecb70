"""The Industrial Code World Model: learned proxies of the real backends (section 2.3 of the paper).

World models are registered by name: `fast` (CPU: a classifier over the candidate's change plus
retrieval of the nearest known diagnostic) and `lm` (a fine-tuned causal language model). Both
predict (task, candidate) -> Outcome and are saved as folders with a model card.
"""

from __future__ import annotations

from pathlib import Path

from ecot.icwm.base import ModelCard, Prediction, WorldModel, read_card
from ecot.registry import Registry

WORLD_MODELS: Registry[type[WorldModel]] = Registry(
    "world_models",
    {
        "fast": "ecot.icwm.fast:FastWorldModel",
        "lm": "ecot.icwm.lm:LMWorldModel",
    },
)


def load_model(path: Path | str) -> WorldModel:
    """Load a saved world model (any registered kind) from its folder, offline."""
    folder = Path(path)
    card = read_card(folder)
    return WORLD_MODELS.get(card.kind)._load_files(folder, card)


__all__ = ["WORLD_MODELS", "ModelCard", "Prediction", "WorldModel", "load_model", "read_card"]
