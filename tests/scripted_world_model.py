"""A world model whose every answer is a function of the candidate: tests of the environment's rules
(verification, deferral) use it to isolate those rules from any learned model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ecot.core.task import Task
from ecot.icwm.base import Prediction, WorldModel


class ScriptedWorldModel(WorldModel):
    kind = "scripted"

    def __init__(self, answer: Callable[[str], Prediction], domains: frozenset[str] = frozenset({"rtl"})) -> None:
        super().__init__()
        self.answer, self._domains = answer, domains

    def fit(self, examples: Sequence[object], tasks: object) -> None: ...

    def domains(self) -> set[str]:
        return set(self._domains)

    def predict(self, requests: Sequence[tuple[Task, str]]) -> list[Prediction]:
        return [self.answer(code) for _, code in requests]

    def _save_files(self, folder: Path) -> None:
        raise NotImplementedError("a scripted world model is not saved")

    @classmethod
    def _load_files(cls, folder: Path, card: object) -> WorldModel:
        raise NotImplementedError("a scripted world model is not saved")
