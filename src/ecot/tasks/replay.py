"""Replay files that script a generator for a suite: a broken first attempt, then the reference.

Used by tests and benchmarks that drive `ecot synth` through a real OpenAI-compatible server
(`ecot serve --mode replay`) with deterministic answers and real toolchain verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ecot.core.extract import domain_fences
from ecot.core.task import Task


def break_code(code: str) -> str:
    """A deliberately broken first attempt: the code with its last line cut off."""
    lines = code.rstrip().splitlines()
    return "\n".join(lines[:-1]) + "\n"


def fenced(task: Task, code: str, thinking: str) -> str:
    language = (domain_fences(task.domain) or ("",))[0]
    return f"<think>{thinking}</think>\n\n```{language}\n{code}```\n"


def write_replay(tasks: Iterable[Task], path: Path) -> int:
    """Two answers per task: turn 0 broken, turn 1 the reference. Returns the number of lines."""
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for task in tasks:
            if task.reference is None:
                continue
            answers = [
                fenced(task, break_code(task.reference), "I write the whole design in one go."),
                fenced(task, task.reference, "The toolchain says the end of my file is broken; I restore it."),
            ]
            for turn, content in enumerate(answers):
                handle.write(json.dumps({"task_id": task.id, "turn": turn, "content": content}) + "\n")
                count += 1
    return count
