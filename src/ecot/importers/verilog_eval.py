"""VerilogEval v2 spec-to-rtl importer: one task per `ProbNNN_name` triple.

Layout (flat, usually `dataset_spec-to-rtl/`):
    ProbNNN_name_prompt.txt   the spec, asking for `module TopModule`   -> prompt
    ProbNNN_name_ref.sv       the reference, declared `module RefModule` -> files["ref.sv"]
    ProbNNN_name_test.sv      `tb` drives RefModule and TopModule side by side and prints
                              "Mismatches: N in M samples"              -> files["test.sv"]

The reference stays in the bundle because the testbench instantiates it; the backend renames
RefModule per evaluation (option hidden_modules) so a candidate cannot simply instantiate it.
The task's own reference is the same source with RefModule renamed to TopModule.

VerilogEval judges by simulation alone, and some of its problems ask for a latch, so the tasks
switch ecot's structural (Yosys) checks off (synth = "off"): a design passes exactly when it passes
the benchmark's own testbench, with every sample of the reference's run checked. As VerilogEval's
analyzer does, a run whose testbench prints its watchdog's `TIMEOUT` fails (fail_pattern), and a
problem gets 30 s (wall and CPU).
"""

from __future__ import annotations

import re
from pathlib import Path

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.importers import read_text, rename_module, skip_unread, strip_comments
from ecot.tasks.suite import parse_task

REF_MODULE = "RefModule"
TOP_MODULE = "TopModule"
PARTS = {"prompt": "_prompt.txt", "ref": "_ref.sv", "test": "_test.sv"}
PASS_PATTERN = r"Mismatches: 0 in \d+ samples"
FAIL_PATTERN = r"^TIMEOUT$"  # the testbench's watchdog fired: VerilogEval's analyzer fails the run
LIMIT_S = 30.0  # VerilogEval gives each problem 30 s
COUNT_PATTERN = r"Mismatches: (?P<mismatches>\d+) in (?P<samples>\d+) samples"

_FILE = re.compile(r"^(?P<stem>Prob\d+_\w+?)_(?P<part>prompt\.txt|ref\.sv|test\.sv)$")


def import_verilog_eval(root: Path) -> list[Task]:
    """All complete problem triples below `root`, sorted by task id; every other file is named as skipped."""
    problems = problem_files(Path(root))
    tasks = [_import_problem(stem, parts) for stem, parts in sorted(problems.items())]
    skip_unread(Path(root), [path for parts in problems.values() for path in parts.values()], _why_unread)
    return tasks


def _why_unread(path: Path) -> str:
    if path.name.endswith("_ifc.txt"):
        return "a module interface description: spec-to-rtl prompts already state it"
    return "not part of a ProbNNN_name prompt/ref/test triple"


def problem_files(root: Path) -> dict[str, dict[str, Path]]:
    """`ProbNNN_name` -> {"prompt"|"ref"|"test": path}; an incomplete triple is an error."""
    problems: dict[str, dict[str, Path]] = {}
    for path in sorted(root.rglob("Prob*")):
        match = _FILE.match(path.name)
        if not match or not path.is_file():
            continue
        part = match.group("part").split(".")[0]
        entry = problems.setdefault(match.group("stem"), {})
        if part in entry:
            raise TaskFormatError(str(path), f"duplicate problem file (also {entry[part]})")
        entry[part] = path
    for stem, parts in problems.items():
        missing = [PARTS[part] for part in PARTS if part not in parts]
        if missing:
            present = next(iter(parts.values()))
            names = ", ".join(stem + suffix for suffix in missing)
            raise TaskFormatError(str(present), f"incomplete problem {stem}: missing {names}")
    return problems


def _import_problem(stem: str, parts: dict[str, Path]) -> Task:
    prompt = read_text(parts["prompt"])
    if not prompt.strip():
        raise TaskFormatError(str(parts["prompt"]), "the prompt is empty")
    ref = read_text(parts["ref"])
    test = read_text(parts["test"])
    _check_declares(ref, REF_MODULE, parts["ref"])
    _check_instantiates(test, (REF_MODULE, TOP_MODULE), parts["test"])
    record = {
        "id": f"verilog-eval/{stem}",
        "domain": "rtl",
        "prompt": prompt,
        "files": {"test.sv": test, "ref.sv": ref},
        "reference": rename_module(ref, REF_MODULE, TOP_MODULE),
        "options": {
            "top": TOP_MODULE,
            "testbench": "test.sv",
            "hidden_modules": [REF_MODULE],
            "pass_pattern": PASS_PATTERN,
            "fail_pattern": FAIL_PATTERN,
            "count_pattern": COUNT_PATTERN,
            "synth": "off",
        },
        "limits": {"wall_s": LIMIT_S, "cpu_s": LIMIT_S},
        "tags": ["verilog-eval", "spec-to-rtl"],
    }
    return parse_task(record, str(parts["prompt"].parent / stem))


def _check_declares(source: str, module: str, path: Path) -> None:
    if not re.search(rf"(?<![\w$])module\s+{module}\b", strip_comments(source)):
        raise TaskFormatError(str(path), f"does not declare `module {module}`")
    if re.search(rf"(?<![\w$]){TOP_MODULE}(?![\w$])", strip_comments(source)):
        raise TaskFormatError(str(path), f"already mentions {TOP_MODULE}; renaming {module} would clash")


def _check_instantiates(source: str, modules: tuple[str, ...], path: Path) -> None:
    code = strip_comments(source)
    for module in modules:
        if not re.search(rf"(?<![\w$]){module}\s+(?:#\s*\(.*?\)\s*)?[A-Za-z_][\w$]*\s*\(", code, re.DOTALL):
            raise TaskFormatError(str(path), f"the testbench never instantiates {module}")
