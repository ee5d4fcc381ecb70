"""The python-jsonl importer: the simple layout and LiveCodeBench's field names, judged by the real backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ecot.cli.main import main
from ecot.core.errors import TaskFormatError, ToolMissingError
from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.importers import IMPORTERS, TAG_NO_REFERENCE, import_tasks
from ecot.tasks.suite import load_suite

SIMPLE = {
    "task_id": "add/1",
    "prompt": "Write add(a, b) returning a + b.",
    "entry_point": "add",
    "tests": [{"input": [1, 2], "output": 3}, {"input": [-5, 5], "output": 0}],
    "canonical_solution": "def add(a, b):\n    return a + b\n",
}
STDIO = {
    "id": "echo-sum",
    "prompt": "Read two integers and print their sum.",
    "tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "10 -3\n", "output": "7"}],
    "solution": "a, b = map(int, input().split())\nprint(a + b)\n",
}
LIVECODEBENCH = {
    "question_id": "lcb 7",
    "question_content": "Return the largest element of nums.",
    "starter_code": "class Solution:\n    def biggest(self, nums: list[int]) -> int:\n        ",
    "metadata": json.dumps({"func_name": "Solution.biggest"}),
    "public_test_cases": json.dumps([{"input": "[3, 9, 2]", "output": "9", "testtype": "functional"}]),
    "private_test_cases": [{"input": "[-1]", "output": "-1", "testtype": "functional"}],
    "canonical_solution": "class Solution:\n    def biggest(self, nums):\n        return max(nums)\n",
}
NO_REFERENCE = {"task_id": "neg", "prompt": "negate(x)", "entry_point": "negate", "tests": [{"input": [4], "output": -4}]}
OUTPUT_FROM_REFERENCE = {
    "task_id": "square", "prompt": "square(x)", "entry_point": "square",
    "tests": [{"input": [3]}, {"input": [-2]}], "canonical_solution": "def square(x):\n    return x * x\n",
}


def write_jsonl(folder: Path, rows: list[object], name: str = "bench.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("\n".join(json.dumps(r) if not isinstance(r, str) else r for r in rows) + "\n")
    return folder


@pytest.fixture
def imported(tmp_path: Path) -> dict[str, Task]:
    root = write_jsonl(tmp_path / "src", [SIMPLE, STDIO, LIVECODEBENCH, NO_REFERENCE, OUTPUT_FROM_REFERENCE])
    return {t.id: t for t in import_tasks("python-jsonl", root)}


def backend():  # type: ignore[no-untyped-def]
    try:
        return get_backend("python")
    except ToolMissingError as err:
        pytest.skip(f"python backend needs the missing tool '{err.tool}'")


def test_registered_and_maps_fields(imported: dict[str, Task]) -> None:
    assert "python-jsonl" in IMPORTERS.names()
    assert sorted(imported) == ["bench/add_1", "bench/echo-sum", "bench/lcb_7", "bench/neg", "bench/square"]
    add = imported["bench/add_1"]
    assert add.domain == "python" and add.options == {"mode": "function", "entry_point": "add"}
    assert json.loads(add.files["tests.json"]) == SIMPLE["tests"]
    assert imported["bench/echo-sum"].options == {"mode": "stdio"}
    lcb = imported["bench/lcb_7"]
    assert lcb.options["entry_point"] == "Solution.biggest" and "Starter code" in lcb.prompt
    assert json.loads(lcb.files["tests.json"]) == [{"input": [[3, 9, 2]], "output": 9}, {"input": [[-1]], "output": -1}]
    assert TAG_NO_REFERENCE in imported["bench/neg"].tags and imported["bench/neg"].reference is None


def test_imported_references_pass_on_the_real_backend(imported: dict[str, Task]) -> None:
    runner = backend()
    for task in imported.values():
        if task.reference:
            outcome = runner.run(task, task.reference)
            assert outcome.label == "Pass", f"{task.id}: {outcome.label}: {outcome.diagnostic}"


def test_outputs_missing_from_a_test_come_from_the_reference(imported: dict[str, Task]) -> None:
    runner = backend()
    task = imported["bench/square"]
    assert runner.run(task, "def square(x):\n    return x * x\n").label == "Pass"
    wrong = runner.run(task, "def square(x):\n    return x + x\n")
    assert wrong.label == "Wrong_Answer" and "square(3)) returned 6, expected 9" in wrong.diagnostic


def test_a_task_without_reference_still_judges_candidates(imported: dict[str, Task]) -> None:
    runner = backend()
    task = imported["bench/neg"]
    assert runner.run(task, "def negate(x):\n    return -x\n").label == "Pass"
    assert runner.run(task, "def negate(x):\n    return x\n").label == "Wrong_Answer"


@pytest.mark.parametrize(
    "row,message",
    [
        ("{not json", "bench.jsonl:2: invalid JSON"),
        ({"task_id": "x", "prompt": "p", "entry_point": "f"}, "bench.jsonl:2: no tests"),
        ({"task_id": "x", "prompt": "p", "tests": [{"input": "[1]", "output": "1", "testtype": "functional"}]},
         "need an entry_point"),
        ({"task_id": "x", "prompt": "p", "entry_point": "f", "tests": [{"input": [1]}]}, "no solution to compute it from"),
        ({"prompt": "p", "tests": [{"input": "", "output": ""}]}, "missing task_id"),
    ],
)
def test_bad_lines_name_file_line_and_problem(tmp_path: Path, row: object, message: str) -> None:
    root = write_jsonl(tmp_path / "bad", [SIMPLE, row])
    with pytest.raises(TaskFormatError, match=message.replace("(", r"\(")):
        import_tasks("python-jsonl", root)


def test_cli_import_writes_a_loadable_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_jsonl(tmp_path / "src", [SIMPLE, STDIO, NO_REFERENCE])
    out = tmp_path / "suite"
    assert main(["import", "python-jsonl", str(root), str(out)]) == 0
    assert "imported 3 python-jsonl tasks" in capsys.readouterr().out
    tasks = {t.id: t for t in load_suite(out)}
    assert tasks["bench/add_1"].reference == SIMPLE["canonical_solution"]
    assert json.loads(tasks["bench/echo-sum"].files["tests.json"]) == STDIO["tests"]
    jsonl = tmp_path / "suite.jsonl"
    assert main(["import", "python-jsonl", str(root), str(jsonl), "--jsonl"]) == 0
    assert len(load_suite(jsonl)) == 3
