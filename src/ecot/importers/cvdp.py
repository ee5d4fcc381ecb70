"""CVDP importer (NVIDIA's Comprehensive Verilog Design Problems): non-agentic code generation JSONL.

One task per datapoint, from a JSONL file or a folder of them:
    id               -> task id cvdp/<id>
    categories       -> tags (cid003, easy, ...), plus "cvdp"
    input.prompt     -> the prompt, followed by the files of input.context (given RTL, documents)
    output.context   -> the reference: the Verilog files the design must produce (several are joined
                        into one design, in the harness's VERILOG_SOURCES order)
    harness.files    -> src/.env (SIM, TOPLEVEL_LANG, VERILOG_SOURCES, TOPLEVEL, MODULE): the options;
                        src/test_runner.py: read, never run (cvdp_runner: time scale, parameter sets,
                        plusargs); the other src/ files (cocotb test modules, helpers, data): the bundle;
                        Dockerfile, docker-compose.yml: not used
The tasks use the cocotb testbench kind (docs/domains/rtl.md): the same tests, run by ecot in its
sandbox, with the verdict read from its own report rather than cocotb's results.xml. Given RTL that the
harness compiles (listed in VERILOG_SOURCES, not among the outputs) joins the bundle as a helper source.
CVDP's harness applies no structural checks, so the tasks set synth = "warn" (like RTLLM).

A datapoint that cannot become such a task is skipped and named in a warning, with the reason: an agentic
one (a system message and a patch, no input.prompt), a harness that is not cocotb on Icarus with Verilog,
or a runner whose settings are computed at run time.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.importers import TAG_NO_REFERENCE, skipped
from ecot.importers.cvdp_runner import RunnerProblem, read_runner
from ecot.tasks.suite import parse_task

log = logging.getLogger(__name__)

VERILOG = (".v", ".sv", ".vh", ".svh")
NOT_USED = ("Dockerfile", "docker-compose.yml", "src/.env", "src/test_runner.py")
LIMITS = {"wall_s": 60.0, "cpu_s": 60.0}  # CVDP's tests run thousands of cycles in Python


class Skipped(ValueError):
    """A datapoint that is well formed but cannot be a cocotb task here; the message says why."""


def import_cvdp(source: Path) -> list[Task]:
    """Every usable datapoint of a CVDP JSONL file (or of each *.jsonl in a folder), sorted by id."""
    source = Path(source)
    files = sorted(source.rglob("*.jsonl")) if source.is_dir() else [source]
    tasks: list[Task] = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise TaskFormatError(where, f"not JSON: {err.msg}") from None
            if not isinstance(row, dict):
                raise TaskFormatError(where, "a CVDP datapoint is a JSON object")
            try:
                tasks.append(import_datapoint(row, where))
            except Skipped as why:
                skipped(f"{row.get('id', '?')} ({where})", str(why))
    return sorted(tasks, key=lambda task: task.id)


def import_datapoint(row: dict[str, Any], where: str) -> Task:
    if not isinstance(row.get("input"), dict) or "prompt" not in row["input"]:
        raise Skipped("an agentic datapoint (no input.prompt); only non-agentic code generation is imported"
                      if "system_message" in row or "patch" in row else "no input.prompt")
    harness = _harness_files(row, where)
    env = _read_env(harness.get("src/.env"))
    top = env.get("TOPLEVEL", "")
    _check_harness(env, top)
    try:
        runner = read_runner(harness.get("src/test_runner.py", ""))
    except RunnerProblem as problem:
        raise Skipped(str(problem)) from None
    sources = [_code_path(path) for path in env.get("VERILOG_SOURCES", "").split()]
    output = row.get("output")
    outputs = _files(output.get("context") if isinstance(output, dict) else None, where, "output.context")
    given = _files(row["input"].get("context"), where, "input.context")
    produced = [name for name in sources if name in outputs] or [name for name in outputs if name.endswith(VERILOG)]
    if not produced:
        raise Skipped("no design to write: none of VERILOG_SOURCES is among the outputs")
    modules = [name.strip() for name in env.get("MODULE", "").split(",") if name.strip()]
    bundle = {_bundle_name(name): text for name, text in harness.items() if name.startswith("src/") and name not in NOT_USED}
    bundle |= {name: given[name] for name in sources if name in given and name not in produced}
    reference = _joined(produced, outputs)
    options: dict[str, Any] = {"testbench_kind": "cocotb", "top": top, "test_modules": modules,
                               "design_file": produced[0], "synth": "warn"}
    if runner.timescale:
        options["timescale"] = runner.timescale
    if runner.parameter_sets:
        options["parameters"] = runner.parameter_sets
    if runner.plusargs:
        options["plusargs"] = runner.plusargs
    tags = ["cvdp", *(str(c) for c in row.get("categories", []) if isinstance(c, str))]
    if reference is None:
        tags.append(TAG_NO_REFERENCE)
    record = {
        "id": "cvdp/" + re.sub(r"[^A-Za-z0-9_.\-]", "_", str(row.get("id", ""))),
        "domain": "rtl",
        "prompt": _prompt(str(row["input"]["prompt"]), given, produced),
        "files": bundle,
        "reference": reference,
        "options": options,
        "limits": LIMITS,
        "tags": tags,
    }
    return parse_task(record, where)


def _harness_files(row: dict[str, Any], where: str) -> dict[str, str]:
    harness = row.get("harness")
    files = harness.get("files") if isinstance(harness, dict) else None
    if not isinstance(files, dict) or "src/.env" not in files:
        raise Skipped("no cocotb harness (harness.files with src/.env)")
    return _files(files, where, "harness.files")


def _check_harness(env: dict[str, str], top: str) -> None:
    simulator = env.get("SIM", "icarus").lower()
    if simulator != "icarus":
        raise Skipped(f"the harness simulates with {simulator!r}; cocotb tasks run on Icarus")
    if env.get("TOPLEVEL_LANG", "verilog").lower() != "verilog":
        raise Skipped(f"the design language is {env['TOPLEVEL_LANG']!r}, not Verilog")
    if not re.fullmatch(r"[A-Za-z_][\w$]*", top):
        raise Skipped(f"src/.env names no usable TOPLEVEL ({top!r})")
    if not env.get("MODULE"):
        raise Skipped("src/.env names no test MODULE")


def _read_env(text: str | None) -> dict[str, str]:
    """`NAME = value` lines of a docker env file (quotes allowed, comments skipped)."""
    env: dict[str, str] = {}
    for line in (text or "").splitlines():
        if "=" not in line or line.lstrip().startswith("#"):
            continue
        name, value = line.split("=", 1)
        try:
            parts = shlex.split(value)
        except ValueError:
            parts = value.split()
        env[name.strip()] = " ".join(parts)
    return env


def _files(value: object, where: str, field: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise TaskFormatError(where, f"{field} must map file names to text")
    return dict(value)


def _code_path(path: str) -> str:
    """/code/rtl/x.sv (where CVDP's container mounts the design) -> rtl/x.sv."""
    return str(PurePosixPath(path).relative_to("/code")) if path.startswith("/code/") else path.lstrip("/")


def _bundle_name(name: str) -> str:
    """src/test_x.py -> test_x.py: the harness's folder is the tests' folder (PYTHONPATH=/src)."""
    return name.removeprefix("src/")


def _joined(produced: list[str], outputs: dict[str, str]) -> str | None:
    texts = [outputs[name] for name in produced if outputs.get(name, "").strip()]
    if not texts:
        return None
    if len(texts) == 1:
        return texts[0]
    return "\n".join(f"// {name}\n{outputs[name].rstrip()}\n" for name in produced if name in outputs)


def _prompt(prompt: str, given: dict[str, str], produced: list[str]) -> str:
    parts = [prompt.strip()]
    for name, text in given.items():
        fence = "verilog" if name.endswith(VERILOG) else ""
        parts.append(f"`{name}`:\n```{fence}\n{text.rstrip()}\n```")
    if len(produced) == 1:
        parts.append(f"Answer with the complete Verilog of `{produced[0]}`.")
    else:
        parts.append(f"Answer with the complete Verilog of {', '.join(f'`{n}`' for n in produced)}, in one listing.")
    return "\n\n".join(parts) + "\n"
