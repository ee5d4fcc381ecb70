"""A suite's errata: the tasks an audit found weak or broken, in a JSON file that `ecot import` writes
beside the suite it imports and `ecot bench` reads, so that such tasks are flagged in every report and
never scored as if their tests were sound.

    {"errata": 1, "ecot_version": "...", "settings": {...}, "audited": 50,
     "tasks": {"rtllm/multi_booth_8bit": {"flags": ["weak_tests"], "score": 0.0, "note": "...",
                                           "survivors": ["inverted_reset at line 12: ..."]}}}

Only flagged tasks are listed. `not_run_here` (the harness could not judge the reference on the
auditing machine) is a fact about that machine, not the task, and never enters the errata.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ecot.audit.hostile.report import clean_text
from ecot.audit.verdicts import AuditSettings, Flag, SuiteAudit, TaskAudit
from ecot.core.errors import EcotError
from ecot.tasks.suite import TASK_FILE

ERRATA_VERSION = 1
ERRATA_FILE = "errata.json"  # inside a suite folder; beside a JSONL suite or a single task: <name>.errata.json
SURVIVORS_LISTED = 5
TEXT_LIMIT = 400  # characters of a note or a survivor's description


class Erratum(BaseModel):
    model_config = ConfigDict(extra="ignore")

    flags: list[str]
    score: float | None = None  # the mutation score, where measured
    note: str = ""  # one line: what is wrong
    survivors: list[str] = Field(default_factory=list)  # the first surviving mutants, described

    @field_validator("flags", "survivors")
    @classmethod
    def _clean_lines(cls, lines: list[str]) -> list[str]:
        return [clean_text(line, TEXT_LIMIT) for line in lines]

    @field_validator("note")
    @classmethod
    def _clean_note(cls, note: str) -> str:
        """An errata file travels with a suite that may come from anywhere: its text is printed."""
        return clean_text(note, TEXT_LIMIT)


class Errata(BaseModel):
    model_config = ConfigDict(extra="ignore")

    errata: int = ERRATA_VERSION
    ecot_version: str = ""
    settings: AuditSettings = Field(default_factory=AuditSettings)
    audited: int = 0
    tasks: dict[str, Erratum] = Field(default_factory=dict)


def from_audit(report: SuiteAudit) -> Errata:
    tasks = {}
    for task in report.tasks:
        flags = [f for f in task.flags(report.settings.weak_below) if f != Flag.NOT_RUN_HERE]
        if flags:
            tasks[task.task_id] = erratum(task, flags)
    audited = sum(t.skipped is None for t in report.tasks)
    return Errata(ecot_version=report.ecot_version, settings=report.settings, audited=audited, tasks=tasks)


def erratum(task: TaskAudit, flags: Sequence[Flag]) -> Erratum:
    survivors = [f"{m.kind} at line {m.line}: {m.description}" for m in task.survivors[:SURVIVORS_LISTED]]
    return Erratum(flags=[f.value for f in flags], score=None if task.score is None else round(task.score, 3),
                   note=note(task, flags), survivors=survivors)


def note(task: TaskAudit, flags: Iterable[Flag]) -> str:
    """One line saying what the flags mean for this task."""
    ref = task.reference
    parts = []
    for flag in flags:
        if flag == Flag.NO_REFERENCE:
            parts.append("no reference to audit against")
        elif flag in (Flag.REFERENCE_FAILS, Flag.NONDETERMINISTIC) and ref is not None:
            shown = ", ".join(ref.labels)
            parts.append(f"reference runs: {shown}" + (f" ({ref.diagnostic.splitlines()[0][:160]})" if ref.diagnostic else ""))
        elif flag == Flag.NEAR_LIMIT and ref is not None:
            parts.append(f"the reference takes {ref.limit_share:.0%} of its time limit")
        elif flag == Flag.WEAK_TESTS:
            parts.append(f"the tests pass {len(task.survivors)} of {len(task.survivors) + task.count('killed')} wrong mutants")
        elif flag == Flag.UNMEASURED:
            parts.append("no mutant built and was judged")
        elif flag == Flag.DRIFT and task.drift is not None and task.drift.flips:
            flips = task.drift.flips
            parts.append(f"{len(flips)} of {task.drift.compared} verdicts flip between tool versions ({flips[0].tool})")
    return "; ".join(dict.fromkeys(parts))


def errata_path(suite: Path) -> Path:
    """Where a suite's errata live: errata.json in a folder of task folders, else <name>.errata.json beside it."""
    suite = Path(suite)
    if suite.is_dir() and not (suite / TASK_FILE).is_file():
        return suite / ERRATA_FILE
    return suite.with_name(f"{suite.stem if suite.is_file() else suite.name}.errata.json")


def write_errata(errata: Errata, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(errata.model_dump_json(indent=1) + "\n", encoding="utf-8")


def read_errata(path: Path) -> Errata:
    """The errata in `path`; a malformed file is an error naming it."""
    try:
        return Errata.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as err:
        raise EcotError(f"{path}: not an ecot errata file ({type(err).__name__}: {str(err).splitlines()[0]})") from None


def suite_errata(suites: Iterable[str | Path], extra: Iterable[Path] = ()) -> dict[str, Erratum]:
    """task id -> erratum, from the errata beside each suite that has one, then the files in `extra`."""
    found = [errata_path(Path(s)) for s in suites]
    merged: dict[str, Erratum] = {}
    for path in [p for p in found if p.is_file()] + list(extra):
        merged.update(read_errata(path).tasks)
    return merged
