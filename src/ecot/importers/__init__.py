"""Importers: turn public benchmark layouts (RTLLM, VerilogEval, CVDP, KernelBench, Python JSONL) into ecot tasks.

Each importer is `(root: Path) -> list[Task]`, registered here by format name; third-party
formats register through the `ecot.importers` entry-point group. Importers never drop an input
silently: a malformed item raises TaskFormatError naming the file, a usable but incomplete one is
imported with a tag that says what is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ecot.core.errors import TaskFormatError
from ecot.core.registry import Registry
from ecot.core.task import Task
from ecot.tasks.suite import check_unique_ids

Importer = Callable[[Path], list[Task]]

IMPORTERS: Registry[Importer] = Registry(
    "importers",
    {
        "rtllm": "ecot.importers.rtllm:import_rtllm",
        "verilog-eval": "ecot.importers.verilog_eval:import_verilog_eval",
        "kernelbench": "ecot.importers.kernelbench:import_kernelbench",
        "python-jsonl": "ecot.importers.python_jsonl:import_python_jsonl",
        "cvdp": "ecot.importers.cvdp:import_cvdp",
    },
)
# Formats whose source may also be one file (a JSONL dataset) rather than a folder.
FILE_FORMATS = frozenset({"cvdp"})

# Tags an importer puts on tasks it could only import partially.
TAG_NO_REFERENCE = "no-reference"
TAG_MISSING_DATA = "missing-data"
PROBLEM_TAGS = (TAG_NO_REFERENCE, TAG_MISSING_DATA)


def import_tasks(fmt: str, source: Path) -> list[Task]:
    """Run the importer registered as `fmt` on `source`; errors name the source."""
    importer = IMPORTERS.get(fmt)
    source = Path(source)
    if not source.exists():
        raise TaskFormatError(str(source), "no such folder (give the benchmark's checkout or dataset folder)")
    if not source.is_dir() and fmt not in FILE_FORMATS:
        raise TaskFormatError(str(source), f"the {fmt} importer needs a folder, not a file")
    tasks = importer(source)
    if not tasks:
        raise TaskFormatError(str(source), f"no {fmt} tasks found in this folder")
    check_unique_ids(tasks, str(source))
    return tasks


def read_text(path: Path) -> str:
    """A source file as text (newlines normalized); a bad encoding names the file."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TaskFormatError(str(path), "not UTF-8 text") from None


def strip_comments(source: str) -> str:
    """Verilog text without // and /* */ comments (string literals are left alone)."""
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", source)


def rename_module(source: str, old: str, new: str) -> str:
    """Rename a module everywhere it is named: declaration, instances, comments."""
    return re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", new, source)


__all__ = ["IMPORTERS", "PROBLEM_TAGS", "TAG_MISSING_DATA", "TAG_NO_REFERENCE", "Importer", "import_tasks"]
