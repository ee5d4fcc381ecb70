"""The Industrial Code World Model: learned proxies of the real backends (section 2.3 of the paper).

World models are registered by name: `fast` (CPU: a classifier over the candidate's change plus
retrieval of the nearest known diagnostic) and `lm` (a fine-tuned causal language model). Both
predict (task, candidate) -> Outcome and are saved as folders with a model card.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from ecot.core.errors import EcotError
from ecot.core.registry import Registry
from ecot.icwm.base import ModelCard, Prediction, WorldModel, read_card

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
    kind = WORLD_MODELS.get(card.kind)
    try:
        return kind._load_files(folder, card)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, zipfile.BadZipFile) as err:
        # A missing, truncated or hand-edited model file: name the folder instead of the parser's traceback.
        raise EcotError(f"{folder}: damaged {card.kind} world model ({type(err).__name__}: {err}); "
                        "train or save it again") from err


__all__ = ["WORLD_MODELS", "ModelCard", "Prediction", "WorldModel", "load_model", "read_card"]
