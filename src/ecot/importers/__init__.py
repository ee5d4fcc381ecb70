"""Importers: turn public benchmark layouts (RTLLM, VerilogEval, CVDP, KernelBench, HumanEval,
MBPP, Python JSONL) into ecot tasks.

Each importer is `(root: Path) -> list[Task]`, registered here by format name with a one-line
description (`ecot import --help` lists them); third-party formats register through the
`ecot.importers` entry-point group. Importers never drop an input silently: a malformed item raises
TaskFormatError naming the file, a usable but incomplete one is imported with a tag that says what is
missing, and a file or row left out on purpose is named with the reason (`skipped`), which
`import_tasks` collects and `ecot import` prints.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from ecot.core.errors import TaskFormatError
from ecot.core.registry import Registry
from ecot.core.task import Task

Importer = Callable[[Path], list[Task]]

IMPORTERS: Registry[Importer] = Registry(
    "importers",
    {
        "rtllm": "ecot.importers.rtllm:import_rtllm",
        "verilog-eval": "ecot.importers.verilog_eval:import_verilog_eval",
        "kernelbench": "ecot.importers.kernelbench:import_kernelbench",
        "python-jsonl": "ecot.importers.python_jsonl:import_python_jsonl",
        "humaneval": "ecot.importers.humaneval:import_humaneval",
        "mbpp": "ecot.importers.humaneval:import_mbpp",
        "cvdp": "ecot.importers.cvdp:import_cvdp",
    },
)

# One line per built-in format for `ecot import --help` (a plug-in's is its function's first docstring line).
DESCRIPTIONS = {
    "rtllm": "RTLLM v2 checkout: design folders with design_description.txt, testbench.v, verified_*.v (rtl)",
    "verilog-eval": "VerilogEval v2 spec-to-rtl: ProbNNN_name_prompt.txt, _ref.sv, _test.sv (rtl)",
    "kernelbench": "KernelBench: level<N>/<id>_<Name>.py files, each a PyTorch Model with get_inputs (gpu)",
    "python-jsonl": "JSONL rows with prompt, entry_point and {input, output} tests; LiveCodeBench fields (python)",
    "humaneval": "HumanEval-style JSONL (.gz too): prompt, entry_point, canonical_solution, test with check() (python)",
    "mbpp": "MBPP-style JSONL: text, code, test_list of asserts, test_setup_code (python)",
    "cvdp": "CVDP non-agentic code generation JSONL (file or folder): cocotb tests, references (rtl)",
}
# Formats whose source may be one file rather than a folder.
READS_FILES = frozenset({"python-jsonl", "humaneval", "mbpp", "cvdp"})

# Tags an importer puts on tasks it could only import partially.
TAG_NO_REFERENCE = "no-reference"
TAG_MISSING_DATA = "missing-data"
PROBLEM_TAGS = (TAG_NO_REFERENCE, TAG_MISSING_DATA)


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Skipped:
    """A file or row an importer left out, and why."""

    where: str
    reason: str


_skipped: ContextVar[list[Skipped] | None] = ContextVar("ecot_import_skipped", default=None)


def skipped(where: Path | str, reason: str) -> None:
    """Name an input the importer leaves out on purpose (collected by `import_tasks`, printed by `ecot import`)."""
    log.info("%s: skipped (%s)", where, reason)
    found = _skipped.get()
    if found is not None:
        found.append(Skipped(str(where), reason))


def skip_unread(root: Path, read: Iterable[Path], reason: Callable[[Path], str]) -> None:
    """Name every file below root that the importer did not read (hidden files and folders, such as .git,
    are not inputs and are not listed)."""
    used = {path.resolve() for path in read}
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if path.is_file() and not any(part.startswith(".") for part in parts) and path.resolve() not in used:
            skipped(path, reason(path))


@contextmanager
def _collecting(into: list[Skipped]) -> Iterator[None]:
    token = _skipped.set(into)
    try:
        yield
    finally:
        _skipped.reset(token)


def import_tasks(fmt: str, source: Path, skips: list[Skipped] | None = None) -> list[Task]:
    """Run the importer registered as `fmt` on `source`; errors name the source. What the importer left
    out on purpose is appended to `skips`."""
    importer = IMPORTERS.get(fmt)
    source = Path(source)
    if not source.exists():
        what = "file or folder" if fmt in READS_FILES else "folder"
        raise TaskFormatError(str(source), f"no such {what} (give the benchmark's checkout or dataset {what})")
    if not source.is_dir() and fmt not in READS_FILES:
        raise TaskFormatError(str(source), f"the {fmt} importer needs a folder, not a file")
    with _collecting(skips if skips is not None else []):
        tasks = importer(source)
    if not tasks:
        raise TaskFormatError(str(source), f"no {fmt} tasks found in {'this folder' if source.is_dir() else 'this file'}")
    from ecot.tasks.suite import check_unique_ids  # pydantic: not for `ecot import --help`

    check_unique_ids(tasks, str(source))
    return tasks


def describe(fmt: str) -> str:
    """The format's one-line description: ours, or a plug-in function's first docstring line."""
    if fmt in DESCRIPTIONS:
        return DESCRIPTIONS[fmt]
    try:
        doc = (IMPORTERS.get(fmt).__doc__ or "").strip()
    except Exception as err:  # noqa: BLE001 - a broken plug-in must not break --help
        return f"(plug-in that fails to load: {type(err).__name__})"
    return doc.splitlines()[0] if doc else "(plug-in)"


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


__all__ = [
    "DESCRIPTIONS", "IMPORTERS", "PROBLEM_TAGS", "READS_FILES", "TAG_MISSING_DATA", "TAG_NO_REFERENCE", "Importer",
    "Skipped", "describe", "import_tasks", "skip_unread", "skipped",
]
