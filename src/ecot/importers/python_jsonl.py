"""A simple public JSONL layout for Python tasks -> ecot python tasks (one task per line).

Every `*.jsonl` file below the folder is read; each line is one problem:

    {"task_id": "two-sum", "prompt": "...", "entry_point": "two_sum",
     "tests": [{"input": [[2, 7, 11, 15], 9], "output": [0, 1]}, ...],
     "canonical_solution": "def two_sum(nums, target): ..."}

- `entry_point` present: function mode; `input` is the argument list and `output` the return value.
  Without it the task is a stdin/stdout program and both are strings.
- LiveCodeBench's field names are understood too: `question_id`, `question_content`,
  `starter_code` (appended to the prompt), `metadata.func_name`, and `public_test_cases` /
  `private_test_cases` (lists or JSON strings) whose functional `input` is newline-separated JSON
  values and whose `output` is JSON text; `testtype` "stdin" or "functional" picks the mode.
- `solution`/`reference` are accepted for `canonical_solution`; without one the task is tagged
  `no-reference`. A test without `output` takes the reference's answer (the backend computes it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.importers import TAG_NO_REFERENCE, skip_unread
from ecot.tasks.suite import parse_task, read_jsonl

_ID_CHARS = re.compile(r"[^A-Za-z0-9_.\-]")


def import_python_jsonl(root: Path) -> list[Task]:
    """One JSONL file, or every *.jsonl below a folder (other files are named as skipped)."""
    root = Path(root)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    if root.is_dir():
        skip_unread(root, files, lambda path: "not a .jsonl file")
    tasks: list[Task] = []
    for path in files:
        tasks.extend(_import_file(path))
    return tasks


def _import_file(path: Path) -> list[Task]:
    tasks = []
    for where, item in read_jsonl(path):
        if not isinstance(item, dict):
            raise TaskFormatError(where, "each line must be a JSON object")
        tasks.append(_task(item, path.stem, where))
    return tasks


def _first(item: dict[str, Any], *names: str) -> Any:
    return next((item[n] for n in names if item.get(n) not in (None, "")), None)


def _task(item: dict[str, Any], prefix: str, where: str) -> Task:
    _refuse_benchmark_code(item, where)
    raw_id = _first(item, "task_id", "id", "question_id", "name")
    if raw_id is None:
        raise TaskFormatError(where, "missing task_id (or id / question_id)")
    prompt = _first(item, "prompt", "question_content", "question", "description")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskFormatError(where, "missing prompt (or question_content)")
    metadata = item.get("metadata")
    if isinstance(metadata, str):
        metadata = _loads(metadata, where, "metadata")
    entry = _first(item, "entry_point", "func_name") or (metadata or {}).get("func_name")
    raw_tests = _tests(item, where)
    mode = item.get("mode") or _mode(entry, raw_tests)
    if mode == "function" and not entry:
        raise TaskFormatError(where, "functional tests need an entry_point (or metadata.func_name)")
    tests = [_test(t, mode, where, i) for i, t in enumerate(raw_tests)]
    reference = _first(item, "canonical_solution", "solution", "reference")
    if reference is None and any("output" not in t for t in tests):
        raise TaskFormatError(where, "a test has no output and there is no solution to compute it from")
    starter = item.get("starter_code")
    text = prompt.strip() + (f"\n\nStarter code:\n```python\n{starter.rstrip()}\n```" if starter else "")
    options: dict[str, Any] = {"mode": mode, **({"entry_point": entry} if mode == "function" else {})}
    record = {
        "id": f"{_ID_CHARS.sub('_', prefix)}/{_ID_CHARS.sub('_', str(raw_id))}",
        "domain": "python",
        "prompt": text,
        "files": {"tests.json": json.dumps(tests, indent=0)},
        "reference": reference,
        "options": options,
        "tags": [prefix] + ([TAG_NO_REFERENCE] if reference is None else []),
    }
    return parse_task(record, where)


def _refuse_benchmark_code(item: dict[str, Any], where: str) -> None:
    """A HumanEval or MBPP row holds its benchmark's own test code, which check mode runs as it is."""
    if any(item.get(field) for field in ("tests", "public_test_cases", "private_test_cases")):
        return
    for field, fmt in (("test", "humaneval"), ("test_list", "mbpp")):
        if item.get(field):
            raise TaskFormatError(where, f"no {{input, output}} tests: field '{field}' holds the benchmark's own test code; "
                                         f"import it with `ecot import {fmt}`")


def _loads(text: str, where: str, field: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise TaskFormatError(where, f"field '{field}': invalid JSON text: {err.msg}") from None


def _tests(item: dict[str, Any], where: str) -> list[dict[str, Any]]:
    found: list[Any] = []
    for field in ("tests", "public_test_cases", "private_test_cases"):
        value = item.get(field)
        if isinstance(value, str):
            value = _loads(value, where, field)
        if value:
            if not isinstance(value, list):
                raise TaskFormatError(where, f"field '{field}': expected a list of tests")
            found.extend(value)
    if not found:
        raise TaskFormatError(where, "no tests (give `tests` as a list of {input, output})")
    for index, test in enumerate(found):
        if not isinstance(test, dict) or "input" not in test:
            raise TaskFormatError(where, f"test {index} needs an 'input'")
    return found


def _mode(entry: Any, tests: list[dict[str, Any]]) -> str:
    kinds = {t.get("testtype") for t in tests if t.get("testtype")}
    if kinds == {"stdin"}:
        return "stdio"
    if kinds == {"functional"}:
        return "function"
    return "function" if entry else "stdio"


def _test(test: dict[str, Any], mode: str, where: str, index: int) -> dict[str, Any]:
    """Normalize one test: function mode gets an argument list (LiveCodeBench's newline-separated JSON
    values become one), stdio mode gets strings."""
    value = test["input"]
    out: dict[str, Any] = {}
    if mode == "stdio":
        if not isinstance(value, str):
            raise TaskFormatError(where, f"test {index}: stdin input must be a string")
        out["input"] = value
        if "output" in test:
            out["output"] = str(test["output"])
        return out
    if isinstance(value, str):  # LiveCodeBench functional: one JSON value per line; output is JSON text
        out["input"] = [_loads(line, where, f"test {index} input") for line in value.splitlines() if line.strip()]
        if "output" in test:
            expected = test["output"]
            out["output"] = _loads(expected, where, f"test {index} output") if isinstance(expected, str) else expected
        return out
    if not isinstance(value, list):
        raise TaskFormatError(where, f"test {index}: function input must be the list of arguments")
    out["input"] = value
    if "output" in test:
        out["output"] = test["output"]
    return out
