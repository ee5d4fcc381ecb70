"""Trajectories and stores for the export tests, built through the store API only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ecot.core.outcome import Outcome
from ecot.core.trajectory import Message, Trajectory, Turn
from ecot.store import TrajectoryStore

SYSTEM = "You are a Python engineer. Reason about edge cases before you write code."
TRACE = {"test": 0, "input": [[1, 3, 5, 7], 5], "truncated": False, "events": [
    {"event": "call", "function": "lower_bound", "line": 1, "depth": 0, "source": "def lower_bound(a, x):",
     "locals": {"a": "[1, 3, 5, 7]", "x": "5"}},
    {"event": "line", "function": "lower_bound", "line": 2, "depth": 0, "source": "return 2", "locals": {}},
    {"event": "return", "function": "lower_bound", "line": 2, "depth": 0, "source": "return 2", "locals": {}, "value": "2"},
]}


def turn(index: int, label: str, code: str | None, reasoning: str, source: str = "real", trace: bool = False) -> Turn:
    metrics: dict[str, Any] = {"tests": 4, "trace": json.dumps(TRACE)} if trace else {"tests": 4}
    outcome = Outcome(label, f"{label} on test 0" if label != "Pass" else "all 4 tests passed", "", metrics,
                      {"python3": "Python 3.11.2"}, 0.01)
    return Turn(index, reasoning, code, reasoning, outcome, source)


def solution(task: str, variant: int = 0) -> str:
    return f"def {task.split('/')[-1]}(a, x):\n    # variant {variant}\n    return sorted(a).index(x) + {variant}\n"


def trajectory(task: str, words: str = "", variant: int = 0, fail_first: bool = True) -> Trajectory:
    final = solution(task, variant)
    turns = [turn(0, "Wrong_Answer", final.replace("index(x)", "index(x) - 1"), f"I index the sorted list {words}", trace=True)]
    turns.append(turn(1, "Pass", final, f"Off by one: the index is already the answer. {words}", trace=True))
    if not fail_first:
        turns = [turn(0, "Pass", final, f"I index the sorted list {words}")]
    prompt: list[Message] = [{"role": "system", "content": SYSTEM},
                             {"role": "user", "content": f"Write `{task.split('/')[-1]}(a, x)`: the position of x in sorted a."}]
    return Trajectory(task, "python", 0, prompt, turns, {"generator": "replay"})


def store_with(path: Path, runs: list[list[tuple[Trajectory, int, str]]]) -> None:
    """Each run: (trajectory, sample index, final status) appended through the store API."""
    with TrajectoryStore(path) as store:
        for number, items in enumerate(runs):
            run = store.begin_run({"base_url": f"http://host-{number}:8000/v1"})
            for original, sample, status in items:
                traj = store.trajectory(run, original.task_id, original.domain, sample, original.prompt_messages, original.provenance)
                for t in original.turns:
                    store.append_turn(traj, t)
                store.finish(traj, status)
