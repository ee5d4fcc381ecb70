"""The world model as the loop's environment (equation 3), with real-execution audits and verification.

- Requests from all trajectories in flight are gathered into batches (one forward pass serves many).
- **Verification.** A predicted Pass is never taken on trust: the candidate runs on the real backend
  and that real outcome becomes the turn's observation (source "real"). So a trajectory can only end
  in Pass through real execution, and its final answer is verified before it reaches the corpus.
- **Audits.** After a world-model turn is stored, it is also run for real at `audit_rate` (chosen by
  a stable hash, so a resumed run audits the same turns); the verdict goes to the store's `audits`
  table, where `ecot icwm retrain` finds the disagreements.
- **Deferral.** A prediction less confident than `min_confidence` is not used: the candidate runs on
  the real backend instead (source "real", so it is also a new training example). The fidelity
  report's selective table says which threshold buys which accuracy at which share of turns.
- A domain the model never saw is served by the real backend, and so is a candidate the model fails
  on (counted; the other requests of its batch are predicted one by one, unharmed).

`WorldModelJudge` hands a world model to a run as its judge (`ecot.run.synthesize(..., judge=...)`):
verified as above for synthesis, or alone for a benchmark scored by predictions.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.core.trajectory import REAL, Trajectory, Turn
from ecot.icwm.base import Prediction, WorldModel
from ecot.run.loop import BaseEnvironment

log = logging.getLogger(__name__)


class RealLike(Protocol):
    async def observe(self, task: Task, code: str) -> Outcome: ...


class AuditStore(Protocol):
    def record_audit(self, trajectory: Trajectory, index: int, real: Outcome, world_model: str) -> bool: ...


@dataclass
class AuditStats:
    predicted: int = 0
    verified: int = 0  # predicted Pass, run for real
    verified_pass: int = 0  # ... and the real backend agreed
    judged: int = 0  # stored turns whose verdict is the model's (what audits sample)
    audits: int = 0
    disagreements: int = 0
    audit_infra: int = 0  # audits whose real run failed for harness reasons (not recorded)
    unseen_domain: int = 0  # observations served by the real backend for lack of training data
    deferred: int = 0  # predictions under min_confidence, run for real instead
    model_errors: int = 0  # candidates the model failed on, run for real instead
    confusion: Counter[str] = field(default_factory=Counter)  # "predicted->real" of audits and verifications

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "confusion"}
        data["confusion"] = dict(self.confusion.most_common())
        checked = self.audits + self.verified
        agree = self.audits - self.disagreements + self.verified_pass
        data["checked_agreement"] = round(agree / checked, 4) if checked else None
        return data


class Batcher:
    """Gathers concurrent predict calls into batches of at most `max_batch`, run off the event loop."""

    def __init__(self, model: WorldModel, max_batch: int = 64, max_wait_s: float = 0.002) -> None:
        self.model, self.max_batch, self.max_wait_s = model, max_batch, max_wait_s
        self._pending: list[tuple[Task, str, asyncio.Future[Prediction]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def predict(self, task: Task, code: str) -> Prediction:
        future: asyncio.Future[Prediction] = asyncio.get_running_loop().create_future()
        self._pending.append((task, code, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        await asyncio.sleep(self.max_wait_s)  # let the other trajectories of this tick queue up
        while self._pending:
            batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
            try:
                results = await asyncio.to_thread(self.model.predict, [(t, c) for t, c, _ in batch])
            except Exception:  # noqa: BLE001 - one bad request must not fail its batch-mates: one by one
                for task, code, future in batch:
                    await self._alone(task, code, future)
                continue
            for (_, _, future), result in zip(batch, results):
                if not future.done():
                    future.set_result(result)

    async def _alone(self, task: Task, code: str, future: asyncio.Future[Prediction]) -> None:
        try:
            [result] = await asyncio.to_thread(self.model.predict, [(task, code)])
        except Exception as err:  # noqa: BLE001 - handed to this request's caller only
            if not future.done():
                future.set_exception(err)
            return
        if not future.done():
            future.set_result(result)


class WorldModelEnvironment(BaseEnvironment):
    def __init__(
        self,
        model: WorldModel,
        real: RealLike | None = None,
        store: AuditStore | None = None,
        audit_rate: float = 0.0,
        verify: bool = True,
        seed: int = 0,
        max_batch: int = 64,
        min_confidence: float = 0.0,
    ) -> None:
        if not 0.0 <= audit_rate <= 1.0:
            raise ValueError(f"audit_rate must be in [0, 1], got {audit_rate}")
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in [0, 1], got {min_confidence}")
        if (audit_rate > 0 or verify or min_confidence > 0) and real is None:
            raise ValueError("audits, verification and deferral need a real environment")
        self.model, self.real, self.store = model, real, store
        self.audit_rate, self.verify, self.seed = audit_rate, verify, seed
        self.min_confidence = min_confidence
        self.source = model.source
        self.stats = AuditStats()
        self._batcher = Batcher(model, max_batch=max_batch)
        self._domains = model.domains()

    async def observe(self, task: Task, code: str) -> Outcome:
        outcome, _ = await self.observe_sourced(task, code)
        return outcome

    async def observe_sourced(self, task: Task, code: str) -> tuple[Outcome, str]:
        if task.domain not in self._domains:
            if self.real is None:
                raise ValueError(f"world model {self.model.name} has no data for domain '{task.domain}'")
            self.stats.unseen_domain += 1
            return await self.real.observe(task, code), REAL
        try:
            prediction = await self._batcher.predict(task, code)
        except Exception as err:  # noqa: BLE001 - a model failure costs one real run, not the trajectory
            if self.real is None:
                raise
            self.stats.model_errors += 1
            log.warning("world model %s failed on a %s candidate (%s); running it for real", self.model.name, task.id, err)
            return await self.real.observe(task, code), REAL
        if prediction.confidence < self.min_confidence and self.real is not None:
            self.stats.deferred += 1
            return await self.real.observe(task, code), REAL
        self.stats.predicted += 1
        if not (prediction.outcome.passed and self.verify and self.real is not None):
            return prediction.outcome, self.source
        real = await self.real.observe(task, code)
        if real.is_infra:
            return real, REAL  # the loop retries infra failures; nothing is learned from them
        self.stats.verified += 1
        self.stats.verified_pass += real.passed
        self.stats.confusion[f"{prediction.outcome.label}->{real.label}"] += 1
        return real, REAL

    def audited(self, traj: Trajectory, turn: Turn) -> bool:
        """Whether this turn is one of the `audit_rate` share re-run for real (stable across resumes)."""
        key = f"{self.seed}\x1f{traj.task_id}\x1f{traj.sample}\x1f{turn.index}\x1f{traj.provenance.get('run_id')}"
        draw = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
        return draw < self.audit_rate

    async def after_turn(self, traj: Trajectory, turn: Turn, task: Task) -> None:
        if turn.observation_source != self.source or turn.code is None:
            return
        self.stats.judged += 1
        if self.real is None or not self.audited(traj, turn):
            return
        real = await self.real.observe(task, turn.code)
        if real.is_infra:
            self.stats.audit_infra += 1
            return
        agree = real.label == turn.outcome.label
        if self.store is not None:
            agree = self.store.record_audit(traj, turn.index, real, self.model.name)
        self.stats.audits += 1
        self.stats.disagreements += not agree
        self.stats.confusion[f"{turn.outcome.label}->{real.label}"] += 1
        if not agree:
            log.info("audit: %s turn %d predicted %s, real %s", traj.task_id, turn.index, turn.outcome.label, real.label)


@dataclass
class WorldModelJudge:
    """A world model as the judge of a run (ecot.run.session.Judge). Verified (synthesis): each predicted
    Pass is re-run for real, `audit_rate` of its turns are audited, and a turn it is less than
    `min_confidence` sure of runs for real. Alone (`verify=False`, benchmarks): it judges every turn."""

    model: WorldModel
    audit_rate: float = 0.0
    min_confidence: float = 0.0
    verify: bool = True
    made: WorldModelEnvironment | None = None

    def identity(self) -> dict[str, Any]:
        found: dict[str, Any] = {"environment": self.model.source}
        if self.verify:
            found["audit_rate"] = self.audit_rate
        if self.min_confidence:
            found["min_confidence"] = self.min_confidence
        return found

    def environment(self, real: RealLike, store: AuditStore) -> WorldModelEnvironment:
        if self.verify:
            self.made = WorldModelEnvironment(self.model, real, store, audit_rate=self.audit_rate, verify=True,
                                              min_confidence=self.min_confidence)
        else:
            self.made = WorldModelEnvironment(self.model, real=None, store=None, audit_rate=0.0, verify=False)
        return self.made

    def stats(self) -> dict[str, Any]:
        return self.made.stats.as_dict() if self.made is not None else {}
