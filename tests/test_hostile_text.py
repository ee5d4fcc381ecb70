"""Text a candidate can influence (issue 26, finding 3): cleaned where an Outcome is built, so the store,
export, terminal and report neither crash nor are spoofed by it, and one trajectory's failure costs no
other trajectory its turns. The per-domain hostile cases (hostile/*.py, FORGED_PRINT) run real candidates."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ecot.core.clean import MAX_LINE, clean, encodable
from ecot.core.outcome import INFRA_ERROR, LOG_LIMIT, PASS, Outcome
from ecot.core.task import Task
from ecot.core.trajectory import Message, Trajectory, TrajectoryStatus, Turn
from ecot.generators.base import Generation, Generator
from ecot.run.loop import BaseEnvironment, LoopSettings, SynthesisLoop
from ecot.store import TrajectoryStore
from ecot.tasks.suite import bundled_suite_path

TRICKS = ("\udc80 \x00\x00 \x1b[2K\r\x1b[1A\x1b]8;;http://x\x1b\\python/caesar  Pass\x1b]8;;\x1b\\ "
          "\x1b]0;owned\x07 \x1bP+q\x1b\\ \x9b31m \x85 \u202e ssaP <b>bold</b>")
# independent of ecot's cleaner: what no stored or printed text may hold
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def is_clean(text: str) -> bool:
    return UNSAFE.search(text) is None


def strings(value: object) -> list[str]:
    """Every string in a decoded JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in strings(v))]
    return [s for v in value for s in strings(v)] if isinstance(value, list) else []


# -- the cleaner ------------------------------------------------------------------------------------
def test_escape_sequences_go_controls_and_surrogates_become_visible_and_lines_stay() -> None:
    cleaned = clean(f"line one\ttab\r\nline two {TRICKS}\nend")
    assert cleaned == ("line one\ttab\nline two \ufffd \ufffd\ufffd \npython/caesar  Pass   \ufffd31m \ufffd \ufffd ssaP "
                       "<b>bold</b>\nend")
    assert clean("\x1b]8;;http://unterminated link\nnext line") == "\nnext line"  # an OSC ends at the line's end
    assert clean("progress 10%\rprogress 90%") == "progress 10%\nprogress 90%"  # no line overwrites another


def test_cleaning_is_idempotent_on_any_text() -> None:
    pool = [chr(c) for c in (*range(0, 0x40), *range(0x7f, 0xa0), 0x2028, 0x202e, 0x2067, 0xd800, 0xdfff)] + ["a", "[", "]", "\\"]
    chooser = random.Random(26)
    for _ in range(2000):
        text = "".join(chooser.choice(pool) for _ in range(chooser.randrange(0, 300)))
        once = clean(text, 120, max_line=50)  # caps above the marker's length, as every cap ecot uses
        assert clean(once, 120, max_line=50) == once and is_clean(once) and len(once) <= 120


def test_long_lines_and_long_texts_keep_head_and_tail_with_a_marker() -> None:
    long_line = "a" * 5000 + "END"
    cut = clean(f"first\n{long_line}\nlast")
    first, middle, last = cut.split("\n")
    assert (first, last) == ("first", "last") and len(middle) <= MAX_LINE
    assert middle.startswith("aaa") and middle.endswith("END") and "characters cut" in middle
    assert len(clean("x\n" * 10000, 500)) <= 500


# -- where outcomes are built -----------------------------------------------------------------------
def test_every_text_of_an_outcome_is_cleaned_when_it_is_built() -> None:
    trace = json.dumps({"events": [{"value": TRICKS}]}, ensure_ascii=False)
    outcome = Outcome("Runtime_Error", TRICKS, TRICKS * 2000, {"stage": TRICKS, TRICKS: 1, "trace": trace},
                      {"python3": TRICKS})
    texts = [outcome.diagnostic, outcome.log, *map(str, outcome.metrics), outcome.metrics["stage"],
             outcome.metrics["trace"], *outcome.tool_versions.values()]
    assert all(is_clean(text) for text in texts)
    assert len(outcome.log) <= LOG_LIMIT and "characters cut" in outcome.log
    assert json.loads(str(outcome.metrics["trace"]))["events"][0]["value"].endswith("<b>bold</b>")  # still JSON
    assert Outcome.from_dict(json.loads(json.dumps(outcome.to_dict()))) == outcome


def test_the_store_keeps_a_models_answer_with_lone_surrogates(tmp_path: Path) -> None:
    assert encodable("ok \udc80 \ud800x") == "ok \ufffd \ufffdx"
    with TrajectoryStore(tmp_path / "s.db") as store:
        run = store.begin_run({"note": TRICKS})
        prompt: list[Message] = [{"role": "user", "content": TRICKS}]
        traj = store.trajectory(run, "python/caesar", "python", 0, prompt, {"model": TRICKS})
        turn = Turn(0, TRICKS, f"# {TRICKS}\n", TRICKS, Outcome("Runtime_Error", TRICKS, TRICKS), reasoning_content=TRICKS)
        stored = store.append_turn(traj, turn)
        loaded = next(store.iter_trajectories(run, finished_only=False))
        assert loaded.turns == [stored] and stored.raw.startswith("\ufffd") and encodable(stored.raw) == stored.raw
        assert is_clean(stored.outcome.diagnostic) and is_clean(stored.outcome.log)


# -- one trajectory's failure costs the others nothing ------------------------------------------------
class Answers(Generator):
    name = "answers"

    async def generate(self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0) -> Generation:
        return Generation("", f"code of {task.id}", f"```python\ncode of {task.id}\n```")


class PassingEnvironment(BaseEnvironment):
    source = "real"

    async def observe(self, task: Task, code: str) -> Outcome:
        return Outcome(PASS, f"{task.id} passed")


class RefusingStore(TrajectoryStore):
    """A real store that fails on one task: its turns (`append`) or its end (`finish`)."""

    def __init__(self, path: Path, task_id: str, where: str) -> None:
        super().__init__(path)
        self.task_id, self.where, self.refused = task_id, where, 0

    def append_turn(self, trajectory: Trajectory, turn: Turn) -> Turn:
        if self.where == "append" and trajectory.task_id == self.task_id and turn.outcome.label == PASS:
            self.refused += 1
            raise UnicodeEncodeError("utf-8", "\udc80", 0, 1, "surrogates not allowed")
        return super().append_turn(trajectory, turn)

    def finish(self, trajectory: Trajectory, status: TrajectoryStatus | str) -> None:
        if self.where == "finish" and trajectory.task_id == self.task_id:
            raise RuntimeError(f"cannot finish {TRICKS}")
        super().finish(trajectory, status)


def tasks() -> list[Task]:
    return [Task(id=f"python/t{i}", domain="python", prompt="p", files={}) for i in range(3)]


@pytest.mark.parametrize("where", ["append", "finish"])
def test_a_turn_or_trajectory_ecot_fails_on_leaves_the_others_stored(tmp_path: Path, where: str) -> None:
    with RefusingStore(tmp_path / "s.db", "python/t1", where) as store:
        loop = SynthesisLoop(Answers(), PassingEnvironment(), store, LoopSettings(max_rounds=1))
        run = store.begin_run({"x": 1})
        summary = asyncio.run(loop.run(run, tasks()))
        stored = {t.task_id: t for t in store.iter_trajectories(run, finished_only=False)}
    assert [stored[f"python/t{i}"].passed for i in (0, 2)] == [True, True]
    if where == "append":  # the refused turn is replaced by one that says why; the trajectory ends
        turns = stored["python/t1"].turns
        assert [t.outcome.label for t in turns] == [INFRA_ERROR] and "could not be stored" in turns[0].outcome.diagnostic
        assert summary.statuses[TrajectoryStatus.ERROR] == 1 and summary.harness_errors
    else:
        assert summary.statuses[TrajectoryStatus.CRASHED] == 1 and is_clean(summary.crashes[0])
        assert summary.statuses[TrajectoryStatus.PASSED] == 2


# -- the real thing: ecot synth, export, report and check on a hostile candidate ----------------------
HOSTILE = f"def caesar(text, shift):\n    # {TRICKS!r} \udc80 in a comment\n    raise ValueError({TRICKS!r})\n"


def ecot(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ECOT_CHECKER": "off", "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "ecot", *argv], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=600, errors="replace", check=False)


def two_task_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    for name in ("caesar", "fizzbuzz"):
        shutil.copytree(bundled_suite_path("python") / name, suite / name)
    honest = (suite / "fizzbuzz" / "reference.py").read_text()
    with (tmp_path / "answers.jsonl").open("w") as handle:  # json.dumps writes the surrogate as an escape
        handle.write(json.dumps({"task_id": "python/caesar", "content": f"```python\n{HOSTILE}```"}) + "\n")
        handle.write(json.dumps({"task_id": "python/fizzbuzz", "content": f"```python\n{honest}```"}) + "\n")
    return suite


def test_a_run_with_a_hostile_candidate_stores_exports_reports_and_resumes(tmp_path: Path) -> None:
    suite = two_task_suite(tmp_path)
    synth = ("synth", str(suite), "--generator", "replay", "--gen-opt", f"path={tmp_path / 'answers.jsonl'}",
             "--store", "s.db", "--out", "corpus", "--max-rounds", "1", "--workers", "1")
    first = ecot(*synth, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    with sqlite3.connect(tmp_path / "s.db") as db:
        rows = db.execute("SELECT t.task_id, u.idx, u.label, u.diagnostic, u.log, u.raw FROM turns u "
                          "JOIN trajectories t ON t.id = u.trajectory_id ORDER BY t.task_id, u.idx").fetchall()
    assert [row[:3] for row in rows] == [("python/caesar", 0, "Runtime_Error"), ("python/caesar", 1, "Runtime_Error"),
                                         ("python/fizzbuzz", 0, "Pass")]
    assert all(is_clean(text) for row in rows for text in row[3:5]) and "\ufffd in a comment" in rows[0][5]
    again = ecot(*synth, cwd=tmp_path)  # a rerun resumes: both trajectories are finished, nothing is added
    assert again.returncode == 0 and "added 0 turns" in again.stdout, again.stdout[-2000:] + again.stderr[-2000:]
    samples = [json.loads(line) for p in (tmp_path / "corpus").rglob("*.jsonl") for line in p.read_text().splitlines()]
    assert len(samples) >= 2 and all(is_clean(text) for text in strings(samples))
    report = ecot("report", "--store", "s.db", "--out", "report", cwd=tmp_path)
    assert report.returncode == 0, report.stderr[-2000:]
    pages = "".join(p.read_text() for p in (tmp_path / "report").rglob("*.html"))
    assert "ValueError" in pages and is_clean(pages.replace("\n", "").replace("\t", ""))
    assert "<b>bold</b>" not in pages and "&lt;b&gt;bold&lt;/b&gt;" in pages


def test_ecot_check_prints_and_writes_only_clean_text(tmp_path: Path) -> None:
    candidate = tmp_path / "caesar.py"
    candidate.write_text(HOSTILE.replace("\udc80", ""), encoding="utf-8")
    text = ecot("check", "python/caesar", str(candidate), cwd=tmp_path)
    assert text.returncode == 1 and is_clean(text.stdout.replace("\n", "")), repr(text.stdout)
    lines = text.stdout.splitlines()
    assert lines[0].startswith("python/caesar  Runtime_Error")
    assert not any(line.startswith("python/caesar  Pass") for line in lines)  # the fake line stays indented
    as_json = ecot("check", "python/caesar", str(candidate), "--json", cwd=tmp_path)
    written = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and written["label"] == "Runtime_Error" and "Pass" in written["diagnostic"]
    assert all(is_clean(text) for text in strings(written))
