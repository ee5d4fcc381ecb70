"""The device side's machinery: run each part of a step as a child process under the call's time budget,
pack the step's files into $OUT after every part, keep the call's status file current.

A part is one command (an `ecot` subcommand, pytest, or a campaign worker). Each runs in a process
group of its own with a wall limit of min(its cap, what is left of the call's budget); at the limit the
whole group is ended, the part is recorded as cut, and the next part runs. Whatever a part leaves in
its step's folder is packed at once, so a call stopped at any point still returns every finished part.
Standard library only: this runs before the carried wheels are installed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ecot.campaign.layout import STEP_FILES, Profile, archive_name, log_name, status_name

PACK_RESERVE_S = 8.0  # kept back from the last part: packing and the status file
GRACE_S = 10.0  # between SIGTERM and SIGKILL of a part's process group


@dataclass
class Part:
    """One command of a step. `command` is built when the part starts (earlier parts may change its inputs)."""

    name: str
    step: str
    command: Callable[[Context], list[str]]
    log: str | None = None  # file in the step's folder that gets the part's output (else only the call log)
    before: Callable[[Context], None] | None = None  # in-process preparation (joining the model, unpacking)
    after: Callable[[Context], None] | None = None  # in-process collection (copying outputs into the step's folder)
    needs: Callable[[Context], str | None] | None = None  # why the part cannot run now (then it is skipped), or None


@dataclass
class Context:
    repo: Path
    carry: Path  # this call's carry folder
    out: Path
    scratch: Path  # outlives the call while the machine stays warm: staged model part, installed wheels
    profile: Profile
    call: int
    started: float = field(default_factory=time.monotonic)
    status: dict[str, Any] = field(default_factory=dict)
    log: TextIO | None = None

    def work(self, step: str) -> Path:
        folder = self.scratch / "work" / step
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def left(self) -> float:
        return self.profile.budget_s[self.call] - (time.monotonic() - self.started)

    def python_path(self) -> str:
        entries = [self.scratch / "hidden", self.repo / "src", self.scratch / "shim", self.scratch / "site"]
        inherited = os.environ.get("PYTHONPATH")
        return os.pathsep.join([*(str(p) for p in entries), *([inherited] if inherited else [])])

    def env(self) -> dict[str, str]:
        env = dict(os.environ, PYTHONPATH=self.python_path(), ECOT_CACHE=str(self.scratch / "cache"),
                   HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1", TOKENIZERS_PARALLELISM="false",
                   MPLBACKEND="Agg")
        if self.profile.device == "cuda":
            # the device has no bubblewrap: its documented explicit mode, chosen here and nowhere in the product.
            # It runs only this repo's own references, planted bugs and canaries, never a model's code.
            env["ECOT_SANDBOX"] = "rlimits"
        return env

    def say(self, text: str) -> None:
        line = f"[campaign {time.monotonic() - self.started:6.1f}s] {text}"
        print(line, flush=True)
        if self.log is not None:
            self.log.write(line + "\n")
            self.log.flush()


def python() -> str:
    return sys.executable


def run_parts(context: Context, parts: list[Part]) -> dict[str, Any]:
    """Every part in order; the status file and the step archives are current after each one."""
    context.out.mkdir(parents=True, exist_ok=True)
    context.status.update({"call": context.call, "profile": context.profile.name, "parts": [], "finished": False})
    with (context.out / log_name(context.call)).open("a", encoding="utf-8") as log:
        context.log = log
        for part in parts:
            record = run_part(context, part)
            context.status["parts"].append(record)
            pack(context, part.step)
            write_status(context)
        context.status["finished"] = True
        context.status["wall_s"] = round(time.monotonic() - context.started, 1)
        write_status(context)
        context.log = None
    return context.status


def run_part(context: Context, part: Part) -> dict[str, Any]:
    record: dict[str, Any] = {"name": part.name, "step": part.step}
    limit = min(context.profile.caps_s.get(part.name, 60.0), context.left() - PACK_RESERVE_S)
    if limit < 5:
        context.say(f"{part.name}: skipped, {max(0.0, context.left()):.0f}s left of the call's budget")
        return {**record, "skipped": "no time left in this call's budget"}
    reason = part.needs(context) if part.needs is not None else None
    if reason:
        context.say(f"{part.name}: skipped, {reason}")
        return {**record, "skipped": reason}
    started = time.monotonic()
    try:
        if part.before is not None:
            part.before(context)
        command = part.command(context)
        context.say(f"{part.name}: {' '.join(command)} (limit {limit:.0f}s)")
        code, cut = execute(context, command, limit, context.work(part.step) / part.log if part.log else None)
        if part.after is not None:
            part.after(context)
    except Exception as err:  # one broken part must not cost the others: named in the status, and on we go
        context.say(f"{part.name}: failed before or after its command: {type(err).__name__}: {err}")
        return {**record, "error": f"{type(err).__name__}: {err}", "wall_s": round(time.monotonic() - started, 1)}
    wall = round(time.monotonic() - started, 1)
    context.say(f"{part.name}: exit {code}{' (cut at its time limit)' if cut else ''} after {wall}s")
    return {**record, "rc": code, "timed_out": cut, "wall_s": wall}


def execute(context: Context, command: list[str], limit: float, own_log: Path | None) -> tuple[int | None, bool]:
    """(exit status, cut at the limit); output goes to the part's log (when it has one) and the call log."""
    target = own_log.open("w", encoding="utf-8") if own_log else None
    sink: TextIO | None = target or context.log
    try:
        process = subprocess.Popen(command, cwd=context.repo, env=context.env(), stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            return process.wait(timeout=limit), False
        except subprocess.TimeoutExpired:
            end_group(process)
            return process.returncode, True
    finally:
        if target is not None and own_log is not None:
            target.close()
            copy_into_log(context, own_log)


def end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGINT to the part's own process group (pytest then still writes its report, a worker keeps the batches
    it flushed), SIGTERM and SIGKILL after grace periods: nothing the part started stays."""
    for sig, wait in ((signal.SIGINT, GRACE_S), (signal.SIGTERM, GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def copy_into_log(context: Context, own_log: Path) -> None:
    if context.log is None:
        return
    context.log.write(f"----- {own_log.name} -----\n")
    with own_log.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            context.log.write(line)
    context.log.flush()


def pack(context: Context, step: str) -> Path | None:
    """$OUT/<step>.tar.gz with the step's files as they are now (written beside, then renamed)."""
    work = context.work(step)
    present = [name for name in STEP_FILES[step] if (work / name).is_file()]
    if not present:
        return None
    target = context.out / archive_name(step)
    temp = target.with_name(f".{target.name}.tmp")
    with tarfile.open(temp, "w:gz") as archive:
        for name in present:
            archive.add(work / name, arcname=name, recursive=False)
    temp.replace(target)
    return target


def write_status(context: Context) -> None:
    target = context.out / status_name(context.call)
    temp = target.with_name(f".{target.name}.tmp")
    temp.write_text(json.dumps(context.status, indent=1, default=str) + "\n", encoding="utf-8")
    temp.replace(target)
