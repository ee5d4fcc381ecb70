"""Reading and writing task suites: a folder per task (task.toml + bundle files) or JSONL.

On-disk folder form (see docs/task-format.md):

    suite/
      <task-name>/
        task.toml        id, domain, prompt (or prompt_file), reference_file, [options], [limits], tags
        <bundle files>   everything else in the folder, by relative path
"""

from __future__ import annotations

import gzip
import json
import os
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ecot.core.errors import TaskFormatError, did_you_mean
from ecot.core.task import Limits, Task
from ecot.domains import options_model
from ecot.domains.base import check_options

TASK_FILE = "task.toml"
MAX_BUNDLE_FILE_BYTES = 4 * 1024 * 1024


class LimitsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wall_s: float = Field(default=Limits.wall_s, gt=0, le=3600)
    cpu_s: float = Field(default=Limits.cpu_s, gt=0, le=3600)
    memory_mb: int = Field(default=Limits.memory_mb, ge=16, le=65536)
    output_kb: int = Field(default=Limits.output_kb, ge=1, le=1024 * 1024)
    file_mb: int = Field(default=Limits.file_mb, ge=1, le=65536)
    procs: int = Field(default=Limits.procs, ge=1, le=4096)
    disk_mb: int = Field(default=Limits.disk_mb, ge=1, le=65536)


class TaskModel(BaseModel):
    """The validated edge form of a task (JSONL line, or task.toml plus its files)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.\-/]+$")
    domain: str = Field(min_length=1, pattern=r"^[a-z][a-z0-9_]*$")
    prompt: str = Field(min_length=1)
    files: dict[str, str] = Field(default_factory=dict)
    reference: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    limits: LimitsModel = Field(default_factory=LimitsModel)
    tags: list[str] = Field(default_factory=list)

    @field_validator("files")
    @classmethod
    def _safe_paths(cls, files: dict[str, str]) -> dict[str, str]:
        for name in files:
            parts = Path(name).parts
            if not parts or Path(name).is_absolute() or ".." in parts:
                raise ValueError(f"bundle file name {name!r} must be a relative path inside the task")
        return files

    def to_task(self) -> Task:
        return Task(
            id=self.id,
            domain=self.domain,
            prompt=self.prompt,
            files=self.files,
            reference=self.reference,
            options=self.options,
            limits=Limits(**self.limits.model_dump()),
            tags=tuple(self.tags),
        )


# The keys a task may hold at each level (task.toml also takes prompt_file and reference_file).
KNOWN_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {
    (): (*TaskModel.model_fields, "prompt_file", "reference_file"),
    ("limits",): tuple(LimitsModel.model_fields),
}


def _describe(err: ValidationError) -> str:
    """Every problem pydantic found, one after the other; an unknown key gets the closest known one."""
    problems = []
    for error in err.errors():
        loc = tuple(str(part) for part in error["loc"])
        message = str(error["msg"])
        if error["type"] == "extra_forbidden":
            message = "unknown key" + did_you_mean(loc[-1], KNOWN_KEYS.get(loc[:-1], ()))
        problems.append(f"field '{'.'.join(loc) or '(top level)'}': {message}")
    return "; ".join(problems)


def parse_task(data: Any, where: str) -> Task:
    if not isinstance(data, dict):
        raise TaskFormatError(where, f"expected an object, got {type(data).__name__}")
    try:
        task = TaskModel.model_validate(data).to_task()
    except ValidationError as err:
        raise TaskFormatError(where, _describe(err)) from None
    check_task_options(task, where)
    return task


def check_task_options(task: Task, where: str) -> None:
    """A typo or a bad value in [options] fails here, at load, naming the file and the option
    (TaskOptionsError), rather than as an Infra_Error at evaluation time."""
    check_options(options_model(task.domain), task.options, task.files, where)


def _read_text(path: Path, where: str) -> str:
    if path.stat().st_size > MAX_BUNDLE_FILE_BYTES:
        raise TaskFormatError(where, f"file {path.name} is larger than {MAX_BUNDLE_FILE_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TaskFormatError(where, f"file {path.name} is not UTF-8 text") from None


def load_task_dir(folder: Path) -> Task:
    meta_path = folder / TASK_FILE
    where = str(meta_path)
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(str(folder), f"missing {TASK_FILE}") from None
    except tomllib.TOMLDecodeError as err:
        raise TaskFormatError(where, f"invalid TOML: {err}") from None
    meta.setdefault("id", folder.name)
    consumed = {TASK_FILE}
    for key, target in (("prompt_file", "prompt"), ("reference_file", "reference")):
        if key in meta:
            name = meta.pop(key)
            if target in meta:
                raise TaskFormatError(where, f"field '{key}': give either {key} or {target}, not both")
            source = folder / str(name)
            if not source.is_file():
                raise TaskFormatError(where, f"field '{key}': file {name!r} does not exist")
            meta[target] = _read_text(source, where)
            consumed.add(str(Path(str(name))))
    files = {
        str(p.relative_to(folder)): _read_text(p, where)
        for p in _files_under(folder)
        if str(p.relative_to(folder)) not in consumed and "__pycache__" not in p.parts
    }
    meta["files"] = {**files, **meta.get("files", {})}
    return parse_task(meta, where)


def _files_under(folder: Path) -> list[Path]:
    """Every file below `folder`, sorted as paths; os.walk rather than rglob, whose pattern matching was a
    sixth of loading a 164-task suite."""
    found = []
    for root, _dirs, names in os.walk(folder):
        found += [Path(root, name) for name in names]
    return sorted(p for p in found if p.is_file())


def _task_folders(root: Path) -> Iterator[Path]:
    """The folders below `root` that hold a task file, in path order."""
    return (Path(parent) for parent, _dirs, names in _sorted_walk(root) if TASK_FILE in names)


def read_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, value) for each non-blank line of a JSONL file (gzip-compressed if its name ends in .gz);
    bad JSON names the file and line."""
    number = 0
    try:
        with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = f"{path}:{number}"
                try:
                    yield where, json.loads(line)
                except json.JSONDecodeError as err:
                    raise TaskFormatError(where, f"invalid JSON: {err.msg}") from None
    except UnicodeDecodeError:  # a binary file (a store, a Parquet file) given where a JSONL suite goes
        raise TaskFormatError(f"{path}:{number + 1}", "not UTF-8 text (expected JSON lines)") from None
    except (gzip.BadGzipFile, EOFError) as err:
        raise TaskFormatError(str(path), f"not a complete gzip file ({err})") from None


def load_jsonl(path: Path) -> Iterator[Task]:
    for where, data in read_jsonl(path):
        yield parse_task(data, where)


def load_suite(path: Path) -> list[Task]:
    """Load tasks from a JSONL file, a single task folder, or a folder of task folders."""
    path = Path(path)
    if not path.exists():
        raise TaskFormatError(str(path), "no such file or folder")
    if path.is_file():
        found = [(where, parse_task(data, where)) for where, data in read_jsonl(path)]
    elif (path / TASK_FILE).is_file():
        found = [(str(path), load_task_dir(path))]
    else:
        folders = [f for f in _task_folders(path) if (f / TASK_FILE).is_file()]
        found = [(str(folder), load_task_dir(folder)) for folder in folders]
    if not found:
        raise TaskFormatError(str(path), "no tasks found (expected task.toml folders or a .jsonl file)")
    tasks = [task for _, task in found]
    check_unique_ids(tasks, str(path), [place for place, _ in found])
    return tasks


def first_domain(path: Path) -> str | None:
    """The domain of a suite's first task, read without loading the suite (so its workers can warm up while
    it loads); None when that is not plain to see: the full load then says what is wrong."""
    try:
        if path.is_file():
            data = next((value for _where, value in read_jsonl(path)), None)
            domain = data.get("domain") if isinstance(data, dict) else None
        else:
            first = next(_task_folders(path), None)
            domain = tomllib.loads((first / TASK_FILE).read_text(encoding="utf-8")).get("domain") if first else None
    except (OSError, TaskFormatError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return domain if isinstance(domain, str) else None


def _sorted_walk(root: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk visiting sub-folders in name order: its folders come out sorted as paths."""
    for entry in os.walk(root):
        entry[1].sort()
        yield entry


def check_unique_ids(tasks: Iterable[Task], where: str, places: Sequence[str] = ()) -> None:
    """Each id once; `places` (where each task came from: a folder, a file:line) name both of a duplicate."""
    first: dict[str, int] = {}
    for index, task in enumerate(tasks):
        if task.id in first:
            both = f" (in {places[first[task.id]]} and {places[index]})" if places else ""
            raise TaskFormatError(where, f"duplicate task id {task.id!r}{both}")
        first[task.id] = index


def write_jsonl(tasks: Iterable[Task], path: Path) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(json.dumps(task.to_dict(), ensure_ascii=False) + "\n")
            count += 1
    return count


def write_task_dir(task: Task, folder: Path, reference_name: str = "reference.txt") -> None:
    """Write one task in folder form; the reference goes to its own file."""
    import tomli_w  # only writers need it; every command reads suites

    folder.mkdir(parents=True, exist_ok=True)
    for name, text in task.files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    meta: dict[str, Any] = {"id": task.id, "domain": task.domain, "prompt": task.prompt}
    if task.reference is not None:
        (folder / reference_name).write_text(task.reference, encoding="utf-8")
        meta["reference_file"] = reference_name
    if task.tags:
        meta["tags"] = list(task.tags)
    if task.options:
        meta["options"] = dict(task.options)
    meta["limits"] = task.limits.to_dict()
    (folder / TASK_FILE).write_text(tomli_w.dumps(meta), encoding="utf-8")


DOMAINS_ROOT = Path(__file__).resolve().parents[1] / "domains"


def bundled_suite_path(domain: str) -> Path:
    """A domain's bundled suite: the `suite` folder of its package."""
    return DOMAINS_ROOT / domain / "suite"


def bundled_domains() -> list[str]:
    return sorted(p.parent.name for p in DOMAINS_ROOT.glob("*/suite") if p.is_dir() and any(p.rglob(TASK_FILE)))
