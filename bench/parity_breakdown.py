"""Where one evaluation's time goes, ecot against the benchmark's recipe (used by bench/harness_parity.py).

In this process, on the given tasks' references, with the backend warm and the task cache filled:
  protocol   the recipe's own evaluation (parity_recipes), per task
  ecot       Backend.run, per task
  in jobs    the part of it spent inside sandbox jobs: the toolchain and the sandbox around it (the
             served jobs' and the warm interpreter's own wall time of each job)
  host       ecot's own time: ecot minus in jobs (files, options, verdict code, the sandbox's protocol)
Medians over the tasks, alternating protocol and ecot per task.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import parity_recipes as recipes

from ecot.core.task import Task


def _count_jobs(spent: list[float]) -> Callable[[], None]:
    """Add every sandbox job's own wall time to spent[0]; returns the undo."""
    from ecot.sandbox import server, warm

    served, forked = server.SandboxServer.run, warm.WarmPython.run

    def run_served(self: Any, jobs: Any) -> Any:
        reply = served(self, jobs)
        spent[0] += sum(float(r.get("wall_s", 0.0)) for r in reply.get("results", []))
        return reply

    def run_forked(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = forked(self, *args, **kwargs)
        spent[0] += result.wall_s
        return result

    server.SandboxServer.run, warm.WarmPython.run = run_served, run_forked  # type: ignore[method-assign]

    def undo() -> None:
        server.SandboxServer.run, warm.WarmPython.run = served, forked  # type: ignore[method-assign]

    return undo


def _protocol(name: str) -> Callable[[Task], object]:
    if name == "rtllm":
        folders = recipes.rtllm_designs(recipes.RTLLM_ROOT)
        return lambda task: recipes.rtllm_one(folders[task.id.split("/", 1)[1]], task.reference or "")
    problems = recipes.humaneval_problems()
    return lambda task: recipes.humaneval_one(problems[task.id.split("/", 1)[1].replace("_", "/", 1)], task.reference or "")


def breakdown(name: str, tasks: list[Task], cache: Path) -> dict[str, object]:
    os.environ["ECOT_CACHE"] = str(cache)
    from ecot.domains import get_backend

    backend = get_backend(tasks[0].domain)
    for task in tasks:  # warm: sandboxes, interpreters, the task cache
        backend.run(task, task.reference or "")
    protocol = _protocol(name)
    theirs, ours, inside = [], [], []
    spent = [0.0]
    undo = _count_jobs(spent)
    try:
        for task in tasks:
            start = time.perf_counter()
            protocol(task)
            theirs.append(time.perf_counter() - start)
            spent[0] = 0.0
            start = time.perf_counter()
            backend.run(task, task.reference or "")
            ours.append(time.perf_counter() - start)
            inside.append(spent[0])
    finally:
        undo()
    row = {"bench": name, "breakdown": len(tasks), "protocol_ms": _ms(theirs), "ecot_ms": _ms(ours),
           "in_jobs_ms": _ms(inside), "host_ms": _ms([o - i for o, i in zip(ours, inside)])}
    print(f"{name:9} per evaluation (median of {len(tasks)} references): protocol {row['protocol_ms']:.1f} ms, "
          f"ecot {row['ecot_ms']:.1f} ms = in sandbox jobs {row['in_jobs_ms']:.1f} ms + ecot's own {row['host_ms']:.1f} ms",
          flush=True)
    return row


def _ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1e3, 2)
