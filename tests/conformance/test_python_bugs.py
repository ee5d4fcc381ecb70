"""Planted Python bugs: each mutation of a bundled reference must earn exactly its expected label, with a
diagnostic that names the test, the line and the values (CPython 3.11 under /usr/bin/python3)."""

from __future__ import annotations

import re
import time

import pytest

from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT
from ecot.domains.python.verdict import (
    MEMORY_LIMIT,
    RUNTIME_ERROR,
    SYNTAX_ERROR,
    WRONG_ANSWER,
)

from .common import (
    BugCase,
    bundled_task,
    describe,
    evaluate,
    regex_sub,
    replace_once,
    run_bug,
)

PY_BUGS: tuple[tuple[BugCase, str], ...] = (
    (BugCase("python/two_sum", "missing_colon", replace_once("enumerate(nums):", "enumerate(nums)"), SYNTAX_ERROR),
     r"SyntaxError: expected ':' at solution\.py:3"),
    (BugCase("python/two_sum", "bad_indentation", replace_once("    for j, x", "        for j, x"), SYNTAX_ERROR),
     r"IndentationError: unexpected indent at solution\.py:3"),
    (BugCase("python/merge_intervals", "unbalanced_paren", replace_once("max(merged[-1][1], end)", "max(merged[-1][1], end"),
             SYNTAX_ERROR),
     r"SyntaxError: .*never closed"),
    (BugCase("python/max_subarray", "undefined_name", replace_once("return best", "return bset"), RUNTIME_ERROR),
     r"NameError: name 'bset' is not defined at solution\.py:6 \(`return bset`\) on test 0 of \d+ \(max_subarray\(\[-2, 1"),
    (BugCase("python/two_sum", "wrong_function_name", replace_once("def two_sum", "def twosum"), RUNTIME_ERROR),
     r"solution\.py does not define `two_sum`"),
    (BugCase("python/coin_change", "index_shift", replace_once("best[amount] if", "best[amount + 1] if"), RUNTIME_ERROR),
     r"IndexError: list index out of range at solution\.py:7"),
    (BugCase("python/two_sum", "dict_access", replace_once("first.get(target - x)", "first[target - x]"), RUNTIME_ERROR),
     r"KeyError: .* at solution\.py:4"),
    (BugCase("python/lower_bound", "exits", replace_once("    return lo", "    raise SystemExit(3)"), RUNTIME_ERROR),
     r"the function called sys\.exit\(3\)"),
    (BugCase("python/max_subarray", "wrong_comparison", replace_once("current = max(x, current + x)", "current = min(x, current + x)"),
             WRONG_ANSWER),
     r"test 0 of \d+ \(max_subarray\(\[-2, 1, -3, .*\]\)\) returned -?\d+, expected 6"),
    (BugCase("python/coin_change", "off_by_one", replace_once("range(1, amount + 1)", "range(1, amount)"), WRONG_ANSWER),
     r"returned -?\d+, expected \d+"),
    (BugCase("python/merge_intervals", "mutable_default",
             regex_sub(r"def merge_intervals\(intervals\):\n    merged = \[\]\n", "def merge_intervals(intervals, merged=[]):\n"),
             WRONG_ANSWER),
     r"test 1 of \d+ .* returned \[\[1, 6\]"),
    (BugCase("python/fizzbuzz", "stdio_wrong_line", replace_once("i % 15 == 0", "i % 14 == 0"), WRONG_ANSWER),
     r"test 3 of \d+ \(input '15\\n'\): output line 14 is FizzBuzz, expected 14"),
    (BugCase("python/lower_bound", "infinite_loop", replace_once("lo = mid + 1", "lo = mid"), TIMEOUT),
     r"exceeded its 1\.00 s CPU limit; the reference needs"),
    (BugCase("python/count_primes", "memory_hog", replace_once("sieve = bytearray([1]) * n", "sieve = bytearray([1]) * (n << 40)"),
             MEMORY_LIMIT),
     r"ran out of memory"),
    (BugCase("python/fizzbuzz", "print_flood", replace_once('print("\\n".join(out))', 'while True:\n    print("x" * 4096)'),
             RESOURCE_LIMIT),
     r"printed more than \d+ KiB"),
)


@pytest.mark.parametrize("case,pattern", [pytest.param(c, p, id=c.name) for c, p in PY_BUGS])
def test_planted_python_bug_earns_its_label(case: BugCase, pattern: str) -> None:
    outcome = run_bug(case)
    assert outcome.label == case.expected_label, describe(outcome)
    assert re.search(pattern, outcome.diagnostic), describe(outcome)


QUADRATIC_TWO_SUM = """def two_sum(nums, target):
    for j in range(len(nums)):
        for i in range(j):
            if nums[i] + nums[j] == target:
                return [i, j]
    return []
"""


def test_time_limits_scale_from_the_reference_so_a_quadratic_solution_times_out() -> None:
    task = bundled_task("python/two_sum")
    start = time.monotonic()
    outcome = evaluate(task, QUADRATIC_TWO_SUM)
    assert outcome.label == TIMEOUT, describe(outcome)
    assert outcome.metrics["first_failure"] == len(__import__("json").loads(task.files["tests.json"])) - 1
    assert outcome.metrics["tests_passed"] >= 5
    assert time.monotonic() - start < 15


def test_tuples_pass_for_lists_and_floats_within_tolerance() -> None:
    task = bundled_task("python/two_sum")
    as_tuple = (task.reference or "").replace("return [i, j]", "return (i, j)").replace("return []", "return ()")
    assert evaluate(task, as_tuple).label == PASS


def test_bool_is_not_a_number_and_none_is_not_empty() -> None:
    task = bundled_task("python/two_sum")
    outcome = evaluate(task, (task.reference or "").replace("    return []\n", "    return None\n"))
    assert outcome.label == WRONG_ANSWER and "returned None, expected []" in outcome.diagnostic, describe(outcome)


def test_stdio_programs_may_read_fd0_and_write_through_os_write() -> None:
    task = bundled_task("python/fizzbuzz")
    program = ("import os\nn = int(open(0).read())\nout = []\nfor i in range(1, n + 1):\n"
               "    out.append('FizzBuzz' if i % 15 == 0 else 'Fizz' if i % 3 == 0 else 'Buzz' if i % 5 == 0 else str(i))\n"
               "os.write(1, ('\\n'.join(out) + '\\n').encode())\n")
    assert evaluate(task, program).label == PASS
