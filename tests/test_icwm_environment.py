"""The world model as environment: deferral of unsure predictions to the real backend (unit level:
a stand-in real environment isolates the routing rule)."""

from __future__ import annotations

import asyncio

import pytest

from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.core.trajectory import REAL
from ecot.icwm.base import Prediction
from ecot.icwm.environment import WorldModelEnvironment
from scripted_world_model import ScriptedWorldModel

TASK = Task(id="rtl/a", domain="rtl", prompt="p", reference="module a; endmodule\n")


def by_confidence() -> ScriptedWorldModel:
    """Says Simulation_Mismatch, as sure as the code's first word says."""
    return ScriptedWorldModel(lambda code: Prediction(Outcome("Simulation_Mismatch", "guess"), float(code.split()[0])))


class CountingReal:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def observe(self, task: Task, code: str) -> Outcome:
        self.calls.append(code)
        return Outcome("Syntax_Error", "real verdict")


def test_unsure_predictions_run_for_real_and_sure_ones_do_not() -> None:
    real = CountingReal()
    environment = WorldModelEnvironment(by_confidence(), real, verify=True, min_confidence=0.8)

    async def both() -> list[tuple[Outcome, str]]:
        return [await environment.observe_sourced(TASK, code) for code in ("0.5 x", "0.95 y")]

    (unsure, unsure_source), (sure, sure_source) = asyncio.run(both())
    assert (unsure.label, unsure_source) == ("Syntax_Error", REAL) and real.calls == ["0.5 x"]
    assert sure.label == "Simulation_Mismatch" and sure_source == environment.source
    assert environment.stats.deferred == 1 and environment.stats.predicted == 1


def test_deferral_needs_a_real_backend_and_a_threshold_in_range() -> None:
    with pytest.raises(ValueError, match="need a real environment"):
        WorldModelEnvironment(by_confidence(), None, verify=False, min_confidence=0.5)
    with pytest.raises(ValueError, match="min_confidence"):
        WorldModelEnvironment(by_confidence(), CountingReal(), min_confidence=1.5)


def test_a_candidate_the_model_fails_on_runs_for_real_and_spares_its_batch_mates() -> None:
    def answer(code: str) -> Prediction:
        if code.startswith("bad"):
            raise IndexError("model bug")
        return Prediction(Outcome("Simulation_Mismatch", "guess"), 1.0)

    real = CountingReal()
    environment = WorldModelEnvironment(ScriptedWorldModel(answer), real, verify=False)

    async def together() -> list[tuple[Outcome, str]]:  # one batch: concurrent requests
        return list(await asyncio.gather(*(environment.observe_sourced(TASK, code) for code in ("good a", "bad b", "good c"))))

    (a, a_source), (b, b_source), (c, c_source) = asyncio.run(together())
    assert (a.label, a_source) == (c.label, c_source) == ("Simulation_Mismatch", environment.source)
    assert (b.label, b_source) == ("Syntax_Error", REAL) and real.calls == ["bad b"]
    assert environment.stats.model_errors == 1 and environment.stats.predicted == 2
    alone = WorldModelEnvironment(ScriptedWorldModel(answer), None, verify=False)
    with pytest.raises(IndexError, match="model bug"):  # nothing to fall back on: the failure is the caller's
        asyncio.run(alone.observe_sourced(TASK, "bad"))
