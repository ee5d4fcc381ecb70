"""The mbpp importer (MBPP-style rows, written for these tests) and what every file importer shares: gzip
files, folders whose other files are named as skipped, and errors that name the row."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ecot.cli.main import main
from ecot.core.errors import TaskFormatError
from ecot.core.outcome import PASS
from ecot.domains import get_backend
from ecot.importers import Skipped, import_tasks

ROWS: list[dict[str, Any]] = [
    {"task_id": 901, "text": "Write a function to remove every occurrence of a character from a string.",
     "code": "def remove_char(s, ch):\n    return s.replace(ch, '')\n",
     "test_list": ['assert remove_char("hello", "l") == "heo"', 'assert remove_char("abcda", "a") == "bcd"',
                   'assert remove_char("", "x") == ""'],
     "test_setup_code": "", "challenge_test_list": []},
    {"task_id": 902, "text": "Write a function that returns the pairs of adjacent elements of a list as tuples.",
     "code": "def adjacent_pairs(xs):\n    return list(zip(xs, xs[1:]))\n",
     "test_list": ["assert adjacent_pairs([1, 2, 3]) == [(1, 2), (2, 3)]", "assert adjacent_pairs([7]) == []"],
     "test_setup_code": "", "challenge_test_list": []},
    {"task_id": 903, "text": "Write a function to compute the area of a circle of radius r.",
     "code": "import math\ndef circle_area(r):\n    return math.pi * r * r\n",
     "test_list": ["assert math.isclose(circle_area(10), 314.1592653589793)", "assert math.isclose(circle_area(0.5), 0.7853981633974483)"],
     "test_imports": ["import math"], "test_setup_code": "", "challenge_test_list": []},
    {"task_id": 904, "text": "Write a function that scales every value of a dictionary by a factor.",
     "code": "def scale_values(d, k):\n    return {key: v * k for key, v in d.items()}\n",
     "test_list": ["assert scale_values(BASE, 2) == {'a': 2, 'b': 4}", "assert BASE == {'a': 1, 'b': 2}"],
     "test_setup_code": "BASE = {'a': 1, 'b': 2}", "challenge_test_list": []},
]
# (task_id, code, passes the way MBPP's harnesses judge: the row's program runs to the end)
VARIANTS = [
    (901, "def remove_char(s, ch):\n    return s.replace(ch, '', 1)\n", False),
    (901, "def remove_char(s, ch):\n    return ''.join(c for c in s if c != ch)\n", True),
    (902, "def adjacent_pairs(xs):\n    return [[a, b] for a, b in zip(xs, xs[1:])]\n", False),
    (902, "def adjacent_pairs(xs):\n    return [(xs[i], xs[i + 1]) for i in range(len(xs) - 1)]\n", True),
    (903, "def circle_area(r):\n    return 3.14 * r * r\n", False),
    (903, "def circle_area(r):\n    return 3.141592653589793 * r ** 2\n", True),
    (904, "def scale_values(d, k):\n    for key in d:\n        d[key] *= k\n    return d\n", False),
    (904, "def scale_values(d, k):\n    return dict((key, v * k) for key, v in d.items())\n", True),
]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row) + "\n" for row in rows)
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def mbpp_passes(row: dict[str, Any], code: str, work: Path) -> bool:
    """MBPP's way: the code, the imports, the setup and the asserts as one program that must run to the end."""
    program = "\n".join([code, *row.get("test_imports", []), row["test_setup_code"], *row["test_list"]]) + "\nprint('MBPP-OK')\n"
    done = subprocess.run(["/usr/bin/python3", "-S", "-c", program], capture_output=True, text=True, timeout=10, cwd=work, check=False)
    return done.returncode == 0 and done.stdout.endswith("MBPP-OK\n")


def test_rows_become_check_tasks_whose_references_pass(tmp_path: Path) -> None:
    tasks = {task.id: task for task in import_tasks("mbpp", write_rows(tmp_path / "mbpp.jsonl.gz", ROWS))}
    assert sorted(tasks) == ["mbpp/901", "mbpp/902", "mbpp/903", "mbpp/904"]
    task = tasks["mbpp/903"]
    assert task.options == {"mode": "check", "entry_point": "circle_area", "time_floor_s": 3.0}
    assert task.files["check.py"] == "import math\n" + "".join(line + "\n" for line in ROWS[2]["test_list"])
    assert "Your code should pass these tests:" in task.prompt and ROWS[2]["test_list"][0] in task.prompt
    backend = get_backend("python")
    for found in tasks.values():
        outcome = backend.run(found, found.reference or "")
        assert outcome.label == PASS and outcome.metrics["tests"] == len(ROWS[int(found.id[-1]) - 1]["test_list"]), outcome


def test_variants_get_mbpp_verdicts(tmp_path: Path) -> None:
    tasks = {task.id: task for task in import_tasks("mbpp", write_rows(tmp_path / "rows.jsonl", ROWS))}
    backend = get_backend("python")
    for task_id, code, passes in VARIANTS:
        row = next(r for r in ROWS if r["task_id"] == task_id)
        assert mbpp_passes(row, code, tmp_path) is passes, code
        outcome = backend.run(tasks[f"mbpp/{task_id}"], code)
        assert (outcome.label == PASS) is passes, f"{task_id}: {outcome.label}: {outcome.diagnostic}"


def test_a_folder_is_read_whole_and_what_is_not_jsonl_is_named(tmp_path: Path) -> None:
    write_rows(tmp_path / "a" / "one.jsonl", ROWS[:2])
    write_rows(tmp_path / "b" / "two.jsonl.gz", ROWS[2:])
    (tmp_path / "README.md").write_text("about the rows\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref\n")
    skips: list[Skipped] = []
    tasks = import_tasks("mbpp", tmp_path, skips)
    assert len(tasks) == 4
    assert skips == [Skipped(str(tmp_path / "README.md"), "not a .jsonl or .jsonl.gz file")]


@pytest.mark.parametrize(("change", "said"), [
    ({"test_list": []}, r"field 'test_list' must be a non-empty list"),
    ({"test_list": ["x = 1"]}, r"test_list\[0\] is not one assert statement"),
    ({"test_list": ["assert f(1 =="]}, r"field 'test_list\[0\]' is not valid Python"),
    ({"task_id": None}, r"missing field 'task_id'"),
    ({"code": None, "test_list": ["assert len([]) == 0"]}, r"cannot tell which function the tests call"),
])
def test_bad_rows_name_the_row_and_the_field(tmp_path: Path, change: dict[str, Any], said: str) -> None:
    path = write_rows(tmp_path / "bad.jsonl", [ROWS[0], {**ROWS[1], **change}])
    with pytest.raises(TaskFormatError, match=re.escape(f"{path}:2") + ".*" + said):
        import_tasks("mbpp", path)


def test_python_jsonl_points_benchmark_rows_to_their_importer(tmp_path: Path) -> None:
    row = {"task_id": "X/1", "prompt": "def f():\n    pass\n", "entry_point": "f", "test": "def check(c):\n    assert c()\n"}
    with pytest.raises(TaskFormatError, match="import it with `ecot import humaneval`"):
        import_tasks("python-jsonl", write_rows(tmp_path / "he.jsonl", [row]))
    with pytest.raises(TaskFormatError, match="import it with `ecot import mbpp`"):
        import_tasks("python-jsonl", write_rows(tmp_path / "mbpp.jsonl", [ROWS[0]]))


def test_humaneval_rows_without_a_check_are_refused(tmp_path: Path) -> None:
    row = {"task_id": "X/1", "prompt": "def f():\n    pass\n", "entry_point": "f", "test": "METADATA = {}\n"}
    with pytest.raises(TaskFormatError, match="neither defines check"):
        import_tasks("humaneval", write_rows(tmp_path / "x.jsonl", [row]))


def test_the_cli_lists_every_format_and_names_skipped_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    shown = capsys.readouterr().out
    for name in ("rtllm", "verilog-eval", "kernelbench", "python-jsonl", "humaneval", "mbpp"):
        assert re.search(rf"^  {re.escape(name)} +\S", shown, re.M), name
    write_rows(tmp_path / "src" / "rows.jsonl", ROWS)
    (tmp_path / "src" / "notes.txt").write_text("x")
    assert main(["import", "mbpp", str(tmp_path / "src"), str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "imported 4 mbpp tasks" in printed
    assert f"skipped 1 (not a .jsonl or .jsonl.gz file): {tmp_path / 'src' / 'notes.txt'}" in printed
