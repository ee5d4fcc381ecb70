"""The world-model contract, and the model card saved with every model file.

A world model maps (task, candidate code) -> a predicted Outcome (label, diagnostic, log, metrics),
in batches. Model files are folders: `card.json` (what the model is, the fingerprint of its
training data, the code version that trained it, its fidelity numbers) plus the model's own files.
Everything loads from the folder alone, without network access.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ecot.core.errors import EcotError
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.icwm.dataset import Example
from ecot.store.version import code_version, ecot_version

V = TypeVar("V")


def remember(cache: dict[Any, V], key: Any, value: V, limit: int) -> V:
    """Store `value` in a bounded memo, dropping the oldest entry when full (a memo, not a policy)."""
    if len(cache) >= limit:
        cache.pop(next(iter(cache)))
    cache[key] = value
    return value

CARD = "card.json"


@dataclass(frozen=True)
class Prediction:
    outcome: Outcome
    confidence: float  # the model's probability for its label (1.0 for a remembered real outcome)


@dataclass
class ModelCard:
    kind: str
    fingerprint: str = ""  # sha256 of the training examples (see dataset.fingerprint)
    examples: int = 0
    train_tasks: list[str] = field(default_factory=list)
    held_out_tasks: list[str] = field(default_factory=list)
    label_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    fidelity: dict[str, Any] = field(default_factory=dict)  # filled by `ecot icwm eval` (and train)
    history: list[dict[str, Any]] = field(default_factory=list)  # earlier versions this one was retrained from
    code_version: str = field(default_factory=code_version)
    ecot_version: str = field(default_factory=ecot_version)
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def name(self) -> str:
        """The kind and a digest of what made the model: its training turns, options and code. Two models
        trained on the same turns by other code or options judge differently, so they are different
        environments (a synthesis run's key includes this name)."""
        if not self.fingerprint:
            return self.kind
        made_of = json.dumps([self.fingerprint, self.params, self.code_version], sort_keys=True, default=str)
        return f"{self.kind}-{hashlib.sha256(made_of.encode()).hexdigest()[:10]}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "name": self.name}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelCard:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


class WorldModel(ABC):
    kind: ClassVar[str]

    def __init__(self) -> None:
        self.card = ModelCard(self.kind)

    @property
    def name(self) -> str:
        return self.card.name

    @property
    def source(self) -> str:
        """The observation_source of turns this model judged."""
        return f"icwm:{self.name}"

    def domains(self) -> set[str]:
        """Domains the model has training data for (others are served by the real backend)."""
        return set(self.card.label_counts)

    @abstractmethod
    def fit(self, examples: Sequence[Example], tasks: Mapping[str, Task]) -> None:
        """Train on real examples (the card's data fields are filled by the caller)."""

    def forget_recent(self) -> None:  # noqa: B027 -- optional hook: models without caches keep the no-op
        """Drop caches of earlier predictions (timings of cold requests start here)."""

    @abstractmethod
    def predict(self, requests: Sequence[tuple[Task, str]]) -> list[Prediction]:
        """One prediction per (task, candidate), in order."""

    @abstractmethod
    def _save_files(self, folder: Path) -> None: ...

    @classmethod
    @abstractmethod
    def _load_files(cls, folder: Path, card: ModelCard) -> WorldModel: ...

    def save(self, path: Path) -> Path:
        """Write the model folder atomically: a temp sibling renamed over `path` when complete."""
        path = Path(path)
        check_replaceable(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
        try:
            self._save_files(temp)
            write_card(temp, self.card)
            if path.exists():
                old = path.with_name(f".{path.name}.old")
                shutil.rmtree(old, ignore_errors=True)
                os.replace(path, old)
                os.replace(temp, path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(temp, path)
        finally:
            shutil.rmtree(temp, ignore_errors=True)
        return path


def write_card(folder: Path, card: ModelCard) -> None:
    target = Path(folder) / CARD
    temp = target.with_suffix(".tmp")
    temp.write_text(json.dumps(card.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temp, target)


def read_card(folder: Path) -> ModelCard:
    path = Path(folder) / CARD
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise TypeError(f"expected a JSON object, got {type(data).__name__}")
        return ModelCard.from_dict(data)
    except (FileNotFoundError, NotADirectoryError):
        raise EcotError(f"{folder} is not a world-model folder (no {CARD})") from None
    except (OSError, ValueError, TypeError) as err:  # ValueError: bad JSON or not UTF-8
        raise EcotError(f"{path}: unreadable model card: {err}") from None


def check_replaceable(path: Path) -> None:
    """Saving replaces `path` whole: allow that only for a world-model folder or an empty one.

    Anything else (a store, a corpus folder, `out/`) would be deleted by the rename-over."""
    path = Path(path)
    if not path.exists() or (path.is_dir() and ((path / CARD).is_file() or not any(path.iterdir()))):
        return
    raise EcotError(f"refusing to replace {path}: it is not a world-model folder (no {CARD}); "
                    "choose another output path or remove it yourself")
