"""Python tasks on the host side: options, the tests file, time limits and answer comparison.

tests.json is a list of {"input": ..., "output": ...}. In function mode `input` is the list of
positional arguments (JSON) and `output` the expected return value; in stdio mode both are strings
(the program's stdin and expected stdout). Only inputs are ever written into the sandbox.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ecot.core.task import Task
from ecot.domains.python.options import Compare, Mode, PythonOptions

REL_TOL, ABS_TOL = 1e-6, 1e-9  # float answers
MISSING = object()


PySpec = PythonOptions  # the name the python modules use for the typed options


@contextmanager
def big_ints() -> Iterator[None]:
    """Lift CPython's 4300-digit limit on int <-> str conversion for a moment: answers may be huge ints."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def loads(text: str) -> Any:
    with big_ints():
        return json.loads(text)


@dataclass(frozen=True)
class Case:
    input: Any  # argument list (function mode) or stdin text
    output: Any = MISSING  # MISSING: take the reference's answer

    def sandbox_input(self, mode: Mode) -> str:
        """What the harness receives: the JSON of the argument list, or the stdin text."""
        if mode != "function":
            return str(self.input)
        with big_ints():
            return json.dumps(self.input)


def load_cases(task: Task, spec: PySpec) -> list[Case]:
    try:
        raw = loads(task.files[spec.tests])
    except json.JSONDecodeError as err:
        raise ValueError(f"task {task.id}: {spec.tests} is not valid JSON: {err.msg} (line {err.lineno})") from None
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"task {task.id}: {spec.tests} must be a non-empty list of tests")
    cases = []
    for number, item in enumerate(raw):
        if not isinstance(item, dict) or "input" not in item:
            raise ValueError(f"task {task.id}: test {number} in {spec.tests} needs an 'input'")
        value = item["input"]
        if spec.mode == "function" and not isinstance(value, list):
            raise ValueError(f"task {task.id}: test {number}: function-mode input must be the list of arguments")
        if spec.mode == "stdio" and not isinstance(value, str):
            raise ValueError(f"task {task.id}: test {number}: stdio-mode input must be a string")
        cases.append(Case(value, item.get("output", MISSING)))
    return cases


# -- comparison -------------------------------------------------------------------------------------
def same_value(expected: Any, got: Any) -> bool:
    """Equality of JSON values: floats within tolerance, bool never equal to a number, lists elementwise."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        if isinstance(expected, int) and isinstance(got, int):
            return expected == got
        return math.isclose(expected, got, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(same_value(a, b) for a, b in zip(expected, got))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(same_value(expected[k], got[k]) for k in expected)
    return type(expected) is type(got) and expected == got


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def first_line_difference(expected: str, got: str) -> tuple[int, str, str] | None:
    """(0-based line, expected line, got line) of the first difference, ignoring trailing spaces."""
    want, have = _lines(expected), _lines(got)
    for index in range(max(len(want), len(have))):
        a = want[index] if index < len(want) else "<end of output>"
        b = have[index] if index < len(have) else "<end of output>"
        if a != b:
            return index, a, b
    return None


def same_tokens(expected: str, got: str) -> bool:
    want, have = expected.split(), got.split()
    return len(want) == len(have) and all(a == b or _close_numbers(a, b) for a, b in zip(want, have))


def _close_numbers(a: str, b: str) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)
    except ValueError:
        return False


def same_output(expected: Any, got: Any, compare: Compare) -> bool:
    if compare == "exact":
        return same_value(expected, got)
    if compare == "tokens":
        return same_tokens(str(expected), str(got))
    return first_line_difference(str(expected), str(got)) is None
