"""The python domain's check mode: the benchmark's own test code, run by the judge, calls the candidate's
function in the child; the values that cross, the verdicts and diagnostics, tasks that cannot be judged
here, and the honest twins of the hostile check-mode cases (hostile/pycheck.py), which must pass."""

from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict, namedtuple
from enum import IntEnum
from typing import Any

import pytest

from ecot.audit.hostile import pycheck
from ecot.core.errors import TaskFormatError
from ecot.core.outcome import INFRA_ERROR, PASS, TIMEOUT
from ecot.core.task import Task
from ecot.domains.python.jobs import values
from ecot.domains.python.verdict import RUNTIME_ERROR, WRONG_ANSWER
from ecot.tasks.suite import parse_task

from .common import bundled_task, describe, evaluate

SCALE = """def scale(xs, k):
    return [x * k for x in xs]
"""


def check_task(check: str, reference: str | None = SCALE, entry: str = "scale", **options: Any) -> Task:
    record = {"id": "checks/scale", "domain": "python", "prompt": f"Write {entry}.", "files": {"check.py": check},
              "reference": reference, "options": {"mode": "check", "entry_point": entry, **options},
              "limits": {"wall_s": 20.0, "cpu_s": 20.0}}
    return parse_task(record, "test")


HUMANEVAL_STYLE = """
def check(candidate):
    assert candidate([1, 2], 3) == [3, 6]
    assert candidate([], 5) == []
    assert candidate((1.5,), 2) == [3.0]


check(scale)
"""


# -- the values that cross between judge and child ---------------------------------------------------
class Color(IntEnum):
    RED = 1


@pytest.mark.parametrize("value", [
    None, True, 0, -7, 2**53, -(2**200), 1.5, -0.0, math.inf, "ü\n", b"\x00\xff", bytearray(b"ab"), 1 + 2j,
    [1, [2, (3,)]], (1, "a"), (), {1: "a", "b": [2], (1, 2): None}, {1, 2}, frozenset({"x"}), [{"nested": {3}}],
])
def test_values_keep_their_type(value: Any) -> None:
    back = values.load(values.dump(value))
    assert back == value and type(back) is type(value) or isinstance(value, bytearray) and back == bytes(value)


def test_subclasses_travel_as_their_base_type_and_objects_do_not_travel() -> None:
    pair = namedtuple("pair", "a b")
    assert type(values.load(values.dump(pair(1, 2)))) is tuple
    assert type(values.load(values.dump(Color.RED))) is int
    assert type(values.load(values.dump(OrderedDict(a=1)))) is dict
    assert math.isnan(values.load(values.dump(math.nan)))
    for thing in (object(), len, (x for x in ()), [lambda: 0]):
        with pytest.raises(values.Unencodable):
            values.dump(thing)


@pytest.mark.parametrize("text", ['{"list": []}', '{"tuple": [], "set": []}', '{"int": "zz"}', "1" * 40, '{"set": [[1]]}',
                                  '{"dict": [[[1], 2]]}', "[" * 5000, "not json"])
def test_values_refuse_what_they_did_not_write(text: str) -> None:
    with pytest.raises(values.BadValue):
        values.load(text)


# -- verdicts -------------------------------------------------------------------------------------------
def test_the_reference_passes_and_counts_its_assertions_and_calls() -> None:
    outcome = evaluate(check_task(HUMANEVAL_STYLE), SCALE)
    assert outcome.label == PASS, describe(outcome)
    assert outcome.metrics["assertions"] == 3 and outcome.metrics["calls"] == 3


@pytest.mark.parametrize(("candidate", "label", "said"), [
    ("def scale(xs, k):\n    return tuple(x * k for x in xs)\n", WRONG_ANSWER,
     r"assertion failed at check\.py:3 .*last call: scale\(\[1, 2\], 3\) returned \(3, 6\)"),
    ("def scale(xs, k):\n    return (x * k for x in xs)\n", WRONG_ANSWER, r"returned <generator object .*which is not plain data"),
    ("def scale(xs, k):\n    return [x * k for x in xs][:1]\n", WRONG_ANSWER, r"assertion failed at check\.py:4 .*scale\(\[\], 5\)|check\.py:3"),
    ("def scale(xs, k):\n    return [x / 0 for x in xs]\n", RUNTIME_ERROR,
     r"ZeroDivisionError: division by zero at solution\.py:2 .* in scale\(\[1, 2\], 3\) on test 0 of 1"),
    ("def scale(xs, k):\n    raise SystemExit(0)\n", RUNTIME_ERROR, r"scale\(\[1, 2\], 3\) called sys\.exit\(0\)"),
    ("def scale(xs, k):\n    while True:\n        pass\n", TIMEOUT, r"test 0 of 1 .* exceeded"),
    ("def scael(xs, k):\n    return xs\n", RUNTIME_ERROR, r"solution\.py does not define `scale`"),
])
def test_wrong_candidates_get_the_checks_verdict(candidate: str, label: str, said: str) -> None:
    task = dataclasses.replace(check_task(HUMANEVAL_STYLE), limits=check_task(HUMANEVAL_STYLE).limits.scaled(wall_s=6.0, cpu_s=6.0))
    outcome = evaluate(task, candidate)
    assert outcome.label == label, describe(outcome)
    assert __import__("re").search(said, outcome.diagnostic), outcome.diagnostic


def test_a_check_that_expects_an_exception_sees_the_same_builtin_type() -> None:
    check = ("def check(candidate):\n    try:\n        candidate([1], 'x')\n    except TypeError:\n        pass\n"
             "    else:\n        assert False, 'no TypeError'\n    assert candidate([2], 2) == [4]\n\ncheck(scale)\n")
    reference = "def scale(xs, k):\n    if not isinstance(k, int):\n        raise TypeError('k')\n    return [x * k for x in xs]\n"
    assert evaluate(check_task(check, reference), reference).label == PASS
    wrong = "def scale(xs, k):\n    if not isinstance(k, int):\n        raise ValueError('k')\n    return [x * k for x in xs]\n"
    outcome = evaluate(check_task(check, reference), wrong)
    assert outcome.label == RUNTIME_ERROR and "ValueError: k" in outcome.diagnostic, describe(outcome)


def test_mbpp_style_asserts_are_one_test_each_and_a_failure_names_its_test() -> None:
    check = "import math\nassert scale([1], 2) == [2]\nassert math.isclose(scale([0.1], 3)[0], 0.3)\nassert scale([], 0) == []\n"
    task = check_task(check)
    assert evaluate(task, SCALE).metrics["tests"] == 3
    outcome = evaluate(task, "def scale(xs, k):\n    return [x * k for x in xs] or [0]\n")
    assert outcome.label == WRONG_ANSWER and outcome.metrics["tests_passed"] == 2, describe(outcome)
    assert outcome.diagnostic.startswith("test 2 of 3 (`assert scale([], 0) == []`): assertion failed at check.py:4"), outcome.diagnostic


def test_the_check_sees_what_the_candidate_did_to_its_arguments() -> None:
    """As in a harness sharing the candidate's process: in-place work is seen, and so is a changed input."""
    in_place = ("grid = [[3, 1], {'k': [2, 1]}]\nassert sort_all(grid) is None\n"
                "assert grid == [[1, 3], {'k': [1, 2]}]\n")
    reference = "def sort_all(items):\n    items[0].sort()\n    items[1]['k'].sort()\n"
    task = check_task(in_place, reference, entry="sort_all")
    assert evaluate(task, reference).label == PASS
    outcome = evaluate(task, "def sort_all(items):\n    items[0].sort()\n")
    assert outcome.label == WRONG_ANSWER and "test 1 of 2" in outcome.diagnostic, describe(outcome)
    untouched = "data = [2, 1]\nassert scale(data, 2) == [4, 2]\nassert data == [2, 1], 'the input changed'\n"
    outcome = evaluate(check_task(untouched), "def scale(xs, k):\n    xs[:] = [x * k for x in xs]\n    return xs\n")
    assert outcome.label == WRONG_ANSWER and "the input changed" in outcome.diagnostic, describe(outcome)


def test_a_check_that_runs_no_assertion_checks_nothing() -> None:
    check = "def check(candidate):\n    for x in candidate([1], 1):\n        assert x == 1\n\ncheck(scale)\n"
    assert evaluate(check_task(check), SCALE).label == PASS
    outcome = evaluate(check_task(check), "def scale(xs, k):\n    return []\n")
    assert outcome.label == WRONG_ANSWER and "ran no assertion" in outcome.diagnostic, describe(outcome)


def test_what_the_check_prints_never_reaches_the_verdict_channel() -> None:
    check = ('import json\nprint(json.dumps({"kind": "done"}))\nassert scale([1], 1) == [1]\n'
             'print(json.dumps({"kind": "test", "i": 1, "status": "ok"}))\nassert scale([1], 2) == [3]\n')
    outcome = evaluate(check_task(check, None), SCALE)
    assert outcome.label == WRONG_ANSWER and outcome.metrics["tests_passed"] == 1, describe(outcome)


def test_tasks_that_cannot_be_judged_here_are_not_run_here() -> None:
    broken = evaluate(check_task("assert scale([1], 2) == [3]\n"), SCALE)  # the reference fails its own check
    assert broken.label == INFRA_ERROR and broken.diagnostic.startswith("not run here"), describe(broken)
    lambdas = evaluate(check_task("assert scale([lambda: 1], 2) == []\n", None), SCALE)  # not plain data
    assert lambdas.label == INFRA_ERROR and "not plain data" in lambdas.diagnostic, describe(lambdas)


@pytest.mark.parametrize(("check", "said"), [
    ("def check(candidate):\n    pass\n", "has no test"),
    ("assert scale([1] == \n", "does not compile"),
])
def test_a_bad_check_file_is_refused_when_the_task_is_loaded(check: str, said: str) -> None:
    with pytest.raises(TaskFormatError, match=said):
        check_task(check)


# -- honest twins of the hostile cases --------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(pycheck.HONEST_TWINS))
def test_the_honest_twin_of_a_hostile_case_passes(name: str) -> None:
    task_id, candidate = pycheck.HONEST_TWINS[name]
    outcome = evaluate(bundled_task(task_id), candidate)
    assert outcome.label == PASS, f"{name}: {describe(outcome)}"


def test_every_honest_twin_has_its_hostile_case() -> None:
    names = {case.name for cases in pycheck.CASES.values() for case in cases}
    assert set(pycheck.HONEST_TWINS) <= names
