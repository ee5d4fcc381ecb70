"""The multi-turn loop on the real RTL backend and the real store (generators scripted per test)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ecot.core.outcome import INFRA_ERROR, NO_CODE, PASS, Outcome, infra_error
from ecot.core.task import Task
from ecot.core.trajectory import Message, Turn
from ecot.executors.local import LocalPool
from ecot.generators.base import Generation, Generator
from ecot.generators.repair import RepairGenerator
from ecot.run.control import RunControl
from ecot.run.loop import BaseEnvironment, LoopSettings, RealEnvironment, RunSummary, SynthesisLoop, conversation
from ecot.store import TrajectoryStore
from ecot.tasks.suite import bundled_suite_path, load_suite


def rtl_task() -> Task:
    return load_suite(bundled_suite_path("rtl"))[0]


class Scripted(Generator):
    """Answers from a list, one per turn; records what it was shown."""

    name = "scripted"

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.seen: list[list[Message]] = []

    async def generate(self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0) -> Generation:
        from ecot.core.extract import extract_code, split_thinking

        self.seen.append(list(messages))
        raw = self.answers[min(len(turns), len(self.answers) - 1)]
        reasoning, answer = split_thinking(raw)
        return Generation(reasoning, extract_code(answer, task.domain), raw, {"completion_tokens": 7})


def fenced(code: str) -> str:
    return f"<think>Let me write it.</think>\n```verilog\n{code}```"


class BrokenThenFixedEnv(BaseEnvironment):
    """Fails for harness reasons a set number of times, then defers to a real environment."""

    source = "real"

    def __init__(self, real: RealEnvironment, failures: int) -> None:
        self.real, self.failures, self.calls = real, failures, 0

    async def observe(self, task: Task, code: str) -> Outcome:
        self.calls += 1
        if self.calls <= self.failures:
            return infra_error("simulated harness failure")
        return await self.real.observe(task, code)


def run_loop(tmp_path: Path, generator: Generator, env_factory=None, max_rounds: int = 4):
    task = rtl_task()
    store = TrajectoryStore(tmp_path / "t.db")
    with LocalPool(1) as pool:
        env = RealEnvironment(pool) if env_factory is None else env_factory(RealEnvironment(pool))
        loop = SynthesisLoop(generator, env, store, LoopSettings(max_rounds=max_rounds))
        run_id = store.begin_run({"test": tmp_path.name})
        summary = asyncio.run(loop.run(run_id, [task]))
        (traj,) = list(store.iter_trajectories(run_id=run_id))
    store.close()
    return task, traj, summary


def test_repairs_until_pass_and_keeps_every_turn(tmp_path: Path) -> None:
    task = rtl_task()
    broken = task.reference.replace(";", "", 1)  # a syntax error
    generator = Scripted(["no code here, sorry", fenced(broken), fenced(task.reference)])
    _, traj, summary = run_loop(tmp_path, generator)
    assert traj.labels[0] == NO_CODE
    assert traj.labels[1] == "Syntax_Error"
    assert traj.labels[2] == PASS and traj.passed
    assert summary.statuses["passed"] == 1 and summary.turns == 3
    assert all(t.observation_source == "real" and t.raw for t in traj.turns)
    assert traj.turns[1].usage == {"completion_tokens": 7}
    # the generator saw the real verdict of its previous attempt
    assert "Syntax_Error" in generator.seen[2][-1]["content"]
    assert generator.seen[2][-1]["role"] == "user"


def test_stops_after_k_correction_rounds(tmp_path: Path) -> None:
    _, traj, summary = run_loop(tmp_path, Scripted([fenced("module nothing; endmodule\n")]), max_rounds=2)
    assert len(traj.turns) == 3 and not traj.passed
    assert summary.statuses["failed"] == 1


def test_infra_failures_are_retried_not_blamed(tmp_path: Path) -> None:
    task = rtl_task()
    generator = Scripted([fenced(task.reference)])
    _, traj, _ = run_loop(tmp_path, generator, lambda real: BrokenThenFixedEnv(real, failures=2))
    assert traj.labels == [PASS]


def test_persistent_infra_failure_ends_the_trajectory_without_a_revision(tmp_path: Path) -> None:
    task = rtl_task()
    generator = Scripted([fenced(task.reference)])
    _, traj, summary = run_loop(tmp_path, generator, lambda real: BrokenThenFixedEnv(real, failures=99))
    assert traj.labels == [INFRA_ERROR]
    assert summary.statuses["error"] == 1
    assert len(generator.seen) == 1  # never asked to "fix" code for a harness failure


def test_generator_errors_leave_the_trajectory_open_for_a_rerun(tmp_path: Path) -> None:
    class Failing(Scripted):
        async def generate(self, *args, **kwargs):
            raise ConnectionError("endpoint down")

    task = rtl_task()
    store = TrajectoryStore(tmp_path / "t.db")
    with LocalPool(1) as pool:
        loop = SynthesisLoop(Failing([]), RealEnvironment(pool), store, LoopSettings())
        run_id = store.begin_run({"x": 1})
        summary = asyncio.run(loop.run(run_id, [task]))
        assert summary.statuses["generator_error"] == 1 and summary.generator_errors
        assert not store.is_finished(run_id, task.id, 0)
        rerun = SynthesisLoop(Scripted([fenced(task.reference)]), RealEnvironment(pool), store, LoopSettings())
        assert asyncio.run(rerun.run(run_id, [task])).statuses["passed"] == 1
    store.close()


def test_conversation_rebuilds_observations() -> None:
    task = rtl_task()
    outcome = Outcome("Simulation_Mismatch", "MISMATCH time=10 signal=y expected=1 got=0", "MISMATCH time=10 ...")
    turn = Turn(0, "r", "code", "raw answer", outcome)
    messages = conversation([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], [turn], task)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "Simulation_Mismatch" in messages[-1]["content"] and "signal=y" in messages[-1]["content"]


class Batching(Scripted):
    """Records which samples each first-turn batch asked for."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(answers)
        self.batches: list[list[int]] = []

    async def generate_samples(self, messages, task, samples, turns=()):  # type: ignore[no-untyped-def]
        self.batches.append(list(samples))
        return await super().generate_samples(messages, task, samples, turns)


def test_first_turns_of_a_tasks_samples_are_one_batch_and_resume_batches_only_fresh_ones(tmp_path: Path) -> None:
    task = rtl_task()
    broken = task.reference.replace(";", "", 1)
    store = TrajectoryStore(tmp_path / "t.db")
    with LocalPool(1) as pool:
        run_id = store.begin_run({"batch": 1})
        started = store.trajectory(run_id, task.id, task.domain, 1, [], {})  # sample 1 began in an earlier invocation
        store.append_turn(started, Turn(0, "", broken, fenced(broken), Outcome("Syntax_Error", "x")))
        generator = Batching([fenced(broken), fenced(task.reference)])
        loop = SynthesisLoop(generator, RealEnvironment(pool), store, LoopSettings())
        summary = asyncio.run(loop.run(run_id, [task], samples=4))
        trajectories = list(store.iter_trajectories(run_id=run_id))
    store.close()
    assert generator.batches == [[0, 2, 3]]  # one call for the three fresh first turns
    assert summary.statuses["passed"] == 4 and all(t.labels == ["Syntax_Error", PASS] for t in trajectories)
    assert loop.counters.turns == 7 and loop.counters.in_flight == 0 and loop.counters.done == 4


class StopAfter(RunControl):
    """Stops the run (as a lost endpoint does) once `turns` turns are stored: an interruption."""

    def __init__(self, turns: int) -> None:
        super().__init__()
        self.left = turns

    def charge(self, usage: dict, hold: object = None) -> None:
        super().charge(usage, hold)  # type: ignore[arg-type]
        self.left -= 1
        if self.left <= 0:
            self.stop("interrupted by the test")


CPU_TIME = re.compile(r"\d+\.\d+ s CPU")


def stored_text(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT t.task_id, t.sample, u.idx, u.reasoning, u.raw FROM turns u "
            "JOIN trajectories t ON u.trajectory_id = t.id"
        ).fetchall()
    # Log lines quote measured CPU time, which differs between any two runs, resumed or not.
    return sorted((*key, CPU_TIME.sub("<t> s CPU", reasoning), CPU_TIME.sub("<t> s CPU", raw)) for *key, reasoning, raw in rows)


def synthesize(path: Path, tasks: list[Task], control: RunControl | None) -> RunSummary:
    """One invocation of the repair generator on the real RTL backend: a fresh store object and
    generator each time, as a rerun of `ecot synth` would have."""
    with TrajectoryStore(path) as store, LocalPool(2) as pool:
        loop = SynthesisLoop(RepairGenerator(), RealEnvironment(pool), store, LoopSettings(max_rounds=4), control)
        return asyncio.run(loop.run(store.begin_run({"test": "resume"}), tasks, 2))


def test_an_interrupted_and_resumed_run_stores_the_same_text_as_an_uninterrupted_one(tmp_path: Path) -> None:
    tasks = load_suite(bundled_suite_path("python"))[:8]
    synthesize(tmp_path / "clean.db", tasks, None)
    expected = stored_text(tmp_path / "clean.db")
    for stop_after in (3, 9):  # interrupted twice, mid-trajectory, then run to the end
        assert synthesize(tmp_path / "resumed.db", tasks, StopAfter(stop_after)).stop_reason == "interrupted by the test"
    synthesize(tmp_path / "resumed.db", tasks, None)
    # The generator's feedback text quotes the metrics of the last observation: after a resume
    # they come from the store, so an uninterrupted run must see them exactly as stored too.
    listed = [r for r in expected if re.search(r"Reported metrics: \w+=\d+, \w+=\d+", r[3])]
    assert listed, "no turn quotes two metrics: the test would not notice their order"
    assert stored_text(tmp_path / "resumed.db") == expected
