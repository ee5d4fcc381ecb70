"""RTLLM v2 importer: one task per design folder.

Layout (anywhere below the root, usually `<Category>/<Subcategory>/<design>/`):
    design_description.txt   the natural-language spec -> prompt
    testbench.v              self-checking testbench   -> files["testbench.v"]
    verified_<name>.v        known-good design          -> reference (top module renamed)
    makefile                 ignored (VCS commands)
    *.txt / *.dat            data the testbench reads with $readmemh/$fopen -> bundle files

The verified design's top module is often called `verified_<name>` while the testbench
instantiates another name (adder_pipe_64bit's testbench wants `adder_pipe_64bit`, its reference
declares `verified_adder_64bit`), so the DUT name is read from the testbench and the reference's
top module is renamed to it.

RTLLM judges a design by its testbench; it applies no latch, loop or multiple-driver checks. The
tasks set `synth = "warn"`: ecot's Yosys checks still run and report what they find (metric
`structural_warning`), but a design that passes the testbench passes (`ecot import --strict-checks`
keeps them as failures).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.importers import TAG_MISSING_DATA, TAG_NO_REFERENCE, read_text, rename_module, skip_unread, strip_comments
from ecot.tasks.suite import parse_task

log = logging.getLogger(__name__)

DESCRIPTION = "design_description.txt"
TESTBENCH = "testbench.v"
REFERENCE_GLOB = "verified_*.v"

# RTLLM prints "===========Your Design Passed===========" with or without inner spaces.
PASS_PATTERN = r"=+\s*Your Design Passed\s*=+"
# Failure lines: "===========Error===========", "=========== Failed ===========", "Failed at ...",
# "Test failed: ...", "Error: ...", "Test completed with N failures", "Test completed with N errors."
FAIL_PATTERN = r"[Ff]ailed|failures|^=*\s*Error\b|\d+\s+errors\b"
COUNT_PATTERN = r"completed with\s*(?P<mismatches>\d+)\s*(?:/\s*(?P<samples>\d+)\s*)?(?:failures|errors)"

_KEYWORDS = frozenset(
    """always always_comb always_ff always_latch and assert assign assume automatic begin bit buf
    bufif0 bufif1 byte case casex casez class cover deassign default disable else end endcase
    endfunction endgenerate endmodule endtask enum event for force forever fork function generate
    genvar if initial inout input int integer join localparam logic longint macromodule module
    nand negedge new nor not notif0 notif1 or output parameter posedge program property real
    release reg repeat return sequence shortint signed static string struct supply0 supply1 task
    time tri typedef unsigned void wait while wire xnor xor""".split()
)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_MODULE_DECL = re.compile(r"(?<![\w$])module\s+([A-Za-z_][\w$]*)")
_INSTANCE = re.compile(r"(?<![\w$.`'])([A-Za-z_][\w$]*)\s+([A-Za-z_][\w$]*)\s*(?:\[[^\]]*\]\s*)?\(")
_DEFINE = re.compile(r'`define\s+(\w+)\s+("[^"\n]*")')
_READMEM = re.compile(r"\$readmem[hb]\s*\(\s*(\"[^\"]*\"|`\w+)")
_FOPEN_READ = re.compile(r'\$fopen\s*\(\s*("[^"]*"|`\w+)\s*,\s*"r[b+]*"')


def import_rtllm(root: Path) -> list[Task]:
    """All RTLLM designs below `root`, sorted by task id; every other file is named as skipped."""
    root = Path(root)
    folders = design_folders(root)
    tasks = [import_design(folder, root) for folder in folders]
    read = [folder / name for folder, task in zip(folders, tasks) for name in (DESCRIPTION, *task.files)]
    read += [path for folder in folders for path in folder.glob(REFERENCE_GLOB)]
    skip_unread(root, read, _why_unread)
    return sorted(tasks, key=lambda task: task.id)


def _why_unread(path: Path) -> str:
    if path.name.lower() == "makefile":
        return "a design's VCS makefile: ecot runs its own simulator"
    return "not a design description, testbench, verified design or data file the testbench reads"


def design_folders(root: Path) -> list[Path]:
    """Every folder holding any RTLLM design file (so an incomplete one is reported, not skipped)."""
    markers = [*root.rglob(DESCRIPTION), *root.rglob(TESTBENCH), *root.rglob(REFERENCE_GLOB)]
    return sorted({path.parent for path in markers if path.is_file()})


def import_design(folder: Path, root: Path) -> Task:
    description = read_text(_required(folder, DESCRIPTION))
    if not description.strip():
        raise TaskFormatError(str(folder / DESCRIPTION), "the design description is empty")
    testbench = read_text(_required(folder, TESTBENCH))
    reference_path = _reference_path(folder)
    reference = read_text(reference_path) if reference_path else None
    top = find_dut(testbench, str(folder / TESTBENCH), reference)
    tags = ["rtllm"]
    category = folder.parent.relative_to(root).as_posix() if folder != root else ""
    if category and category != ".":
        tags.append(category)
    if reference is None:
        log.warning("%s: no %s; imported without a reference (tag %r)", folder, REFERENCE_GLOB, TAG_NO_REFERENCE)
        tags.append(TAG_NO_REFERENCE)
    else:
        reference = rename_top(reference, top, str(reference_path))
    data, missing = _bundle_data(folder, testbench)
    if missing:
        what = ", ".join(missing)
        log.warning("%s: the testbench reads %s, missing from the folder (tag %r)", folder, what, TAG_MISSING_DATA)
        tags.append(TAG_MISSING_DATA)
    record = {
        "id": "rtllm/" + re.sub(r"[^A-Za-z0-9_.\-]", "_", folder.name),
        "domain": "rtl",
        "prompt": description.strip() + "\n",
        "files": {TESTBENCH: testbench, **data},
        "reference": reference,
        "options": {
            "top": top,
            "testbench": TESTBENCH,
            "pass_pattern": PASS_PATTERN,
            "fail_pattern": FAIL_PATTERN,
            "count_pattern": COUNT_PATTERN,
            "synth": "warn",
        },
        "tags": tags,
    }
    return parse_task(record, str(folder))


def _required(folder: Path, name: str) -> Path:
    path = folder / name
    if not path.is_file():
        raise TaskFormatError(str(path), f"missing: every RTLLM design folder needs {DESCRIPTION} and {TESTBENCH}")
    return path


def _reference_path(folder: Path) -> Path | None:
    found = sorted(folder.glob(REFERENCE_GLOB))
    if len(found) > 1:
        names = ", ".join(path.name for path in found)
        raise TaskFormatError(str(folder), f"several verified designs ({names}); expected one")
    return found[0] if found else None


def declared(source: str) -> list[str]:
    return _MODULE_DECL.findall(_code_only(source))


def instantiated(source: str) -> list[str]:
    """Module names used as `Type [#(...)] instance [range] (` (keywords excluded), in order."""
    code = _drop_parameter_lists(_code_only(source))
    names = (m.group(1) for m in _INSTANCE.finditer(code) if not {m.group(1), m.group(2)} & _KEYWORDS)
    return list(dict.fromkeys(names))


def find_dut(testbench: str, where: str, reference: str | None) -> str:
    """The module the testbench instantiates without defining it: the design under test."""
    external = [name for name in instantiated(testbench) if name not in declared(testbench)]
    if len(external) > 1 and reference is not None:
        # A testbench may also use helpers; keep the names the reference can provide.
        ref_names = {re.sub(r"^verified_", "", name) for name in declared(reference)}
        external = [name for name in external if name in ref_names] or external
    if len(external) == 1:
        return external[0]
    if not external:
        raise TaskFormatError(where, "no instance of a design under test found in the testbench")
    names = ", ".join(external)
    raise TaskFormatError(where, f"several undefined modules instantiated ({names}); which is the design under test?")


def rename_top(reference: str, top: str, where: str) -> str:
    """Give the reference's top module the name the testbench instantiates."""
    modules = declared(reference)
    if top in modules:
        return reference
    used = set(instantiated(reference))
    roots = [name for name in modules if name not in used]
    if len(roots) > 1 and f"verified_{top}" in roots:
        roots = [f"verified_{top}"]
    if len(roots) != 1:
        found = ", ".join(roots) or "none"
        raise TaskFormatError(where, f"cannot tell which module to rename to {top!r} (top-level modules: {found})")
    return rename_module(reference, roots[0], top)


def _bundle_data(folder: Path, testbench: str) -> tuple[dict[str, str], list[str]]:
    """Data files the testbench reads, and the names it reads that the folder lacks."""
    files: dict[str, str] = {}
    missing: list[str] = []
    for name in data_file_names(testbench):
        path = folder / name
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise TaskFormatError(str(folder / TESTBENCH), f"reads {name!r}, which is outside the design folder")
        if path.is_file():
            files[name] = read_text(path)
        else:
            missing.append(name)
    return files, missing


def data_file_names(testbench: str) -> list[str]:
    """Files read by $readmemh/$readmemb or opened with mode "r" (string literal or `define)."""
    code = strip_comments(testbench)
    defines = {name: value for name, value in _DEFINE.findall(code)}
    names: list[str] = []
    for match in [*_READMEM.finditer(code), *_FOPEN_READ.finditer(code)]:
        token = match.group(1)
        literal = defines.get(token[1:], "") if token.startswith("`") else token
        if literal.startswith('"') and len(literal) > 2:
            names.append(literal[1:-1])
    return list(dict.fromkeys(names))


def _code_only(source: str) -> str:
    return _STRING.sub('""', strip_comments(source))


def _drop_parameter_lists(code: str) -> str:
    """Replace every `#( ... )` (balanced) with a space so `Type #(...) inst (` reads `Type inst (`."""
    out: list[str] = []
    index = 0
    for match in re.finditer(r"#\s*\(", code):
        if match.start() < index:
            continue
        depth, end = 0, match.end() - 1
        while end < len(code):
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
            if depth == 0:
                break
        out.append(code[index : match.start()] + " ")
        index = end
    out.append(code[index:])
    return "".join(out)
