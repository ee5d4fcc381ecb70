"""The repair generator driven against the real RTL backend: a tiny generate -> run -> append loop."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import pytest

from ecot.core.errors import EcotError, ToolMissingError
from ecot.core.extract import extract_code, split_thinking
from ecot.core.outcome import NO_CODE, PASS, Outcome, infra_error, no_code
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.domains import get_backend
from ecot.generators import GENERATORS
from ecot.generators.repair import RepairGenerator, RepairOptions
from ecot.mutators import MUTATORS
from ecot.tasks.suite import bundled_suite_path, load_suite

MAX_TURNS = 5  # the first attempt plus K=4 corrections
RTL = MUTATORS.get("rtl")


@pytest.fixture(scope="module")
def backend():
    try:
        return get_backend("rtl")
    except ToolMissingError as err:
        pytest.skip(f"RTL toolchain missing: {err.tool}")


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    """A spread of the bundled suite (every third task), with short limits so a hung design costs little."""
    suite = [t for t in load_suite(bundled_suite_path("rtl")) if t.reference]
    return [replace(t, limits=t.limits.scaled(wall_s=5.0, cpu_s=5.0)) for t in suite[::3]]


def drive(generator: RepairGenerator, task: Task, sample: int, backend) -> list[Turn]:
    turns: list[Turn] = []
    while len(turns) < MAX_TURNS:
        gen = asyncio.run(generator.generate([], task, turns, sample))
        outcome = backend.run(task, gen.code) if gen.code is not None else no_code()
        turns.append(Turn(len(turns), gen.reasoning, gen.code, gen.raw, outcome))
        if outcome.passed:
            break
    return turns


def fingerprint(turns: list[Turn]) -> list[tuple]:
    return [(t.reasoning, t.code, t.raw, t.outcome.label, t.outcome.diagnostic) for t in turns]


@pytest.fixture(scope="module")
def runs(tasks: list[Task], backend) -> dict[tuple[str, int], list[Turn]]:
    generator = RepairGenerator.from_options({"seed": "0"})
    return {(t.id, s): drive(generator, t, s, backend) for t in tasks for s in range(2)}


def test_planted_bugs_fail_first_and_most_trajectories_reach_pass(runs) -> None:
    first = Counter(turns[0].outcome.label for turns in runs.values())
    rounds = Counter(len(turns) - 1 if turns[-1].outcome.passed else "never" for turns in runs.values())
    print(f"\nturn-0 labels: {dict(first)}; correction rounds to Pass: {dict(rounds)}")
    assert sum(n for label, n in first.items() if label != PASS) >= 0.75 * len(runs)
    assert len(first) >= 2  # several kinds of failure, not one
    assert sum(n for r, n in rounds.items() if r != "never") >= 0.8 * len(runs)


def test_reruns_are_identical(runs, tasks: list[Task], backend) -> None:
    fresh = RepairGenerator.from_options({"seed": "0"})
    for task in tasks[:4]:
        for sample in range(2):
            assert fingerprint(drive(fresh, task, sample, backend)) == fingerprint(runs[(task.id, sample)])


def test_each_correction_quotes_the_real_observation(runs) -> None:
    for turns in runs.values():
        for before, turn in zip(turns, turns[1:]):
            assert before.outcome.label in turn.reasoning
            assert before.outcome.diagnostic.strip() in turn.reasoning
            assert turn.code != before.code  # every correction changes the design


def test_answer_format_exercises_extraction(runs) -> None:
    turn = next(iter(runs.values()))[0]
    reasoning, answer = split_thinking(turn.raw)
    assert turn.raw.startswith("<think>\n") and "\n</think>\n\n" in turn.raw and "```verilog\n" in answer
    assert reasoning == turn.reasoning and extract_code(answer, "rtl") == turn.code


def test_first_turn_plans_the_design(runs, tasks: list[Task]) -> None:
    for task in tasks:
        reasoning = runs[(task.id, 0)][0].reasoning
        module = task.option("top") or task.id.split("/")[-1]
        assert f"`{module}`" in reasoning and "input" in reasoning and reasoning.startswith(("I need", "The task"))


def test_resume_from_a_prefix_reproduces_the_next_turn(runs, tasks: list[Task]) -> None:
    long = [(key, turns) for key, turns in runs.items() if len(turns) >= 3]
    assert long, "no trajectory needed three turns"
    by_id = {t.id: t for t in tasks}
    for (task_id, sample), turns in long:
        resumed = RepairGenerator(RepairOptions(seed=0))  # a new process would start with an empty plan cache too
        gen = asyncio.run(resumed.generate([], by_id[task_id], turns[:2], sample))
        assert (gen.reasoning, gen.code, gen.raw) == (turns[2].reasoning, turns[2].code, turns[2].raw)


def test_no_code_turns_change_nothing(tasks: list[Task], backend) -> None:
    task = tasks[0]
    silent = RepairGenerator(RepairOptions(no_code_rate=1.0))
    gen = silent.answer(task, (), 0)
    assert gen.code is None and "```" not in split_thinking(gen.raw)[1]
    loud = RepairGenerator()
    first = loud.answer(task, (), 0)
    real = Turn(0, first.reasoning, first.code, first.raw, backend.run(task, first.code or ""))
    skipped = Turn(1, "", None, "no code", no_code())
    after_gap = loud.answer(task, [real, skipped], 0)
    direct = loud.answer(task, [real], 0)
    assert after_gap.code == direct.code  # the code-less turn was not counted as a fix
    assert NO_CODE in after_gap.reasoning and real.outcome.diagnostic in after_gap.reasoning
    stuck = drive(silent, task, 0, backend)
    assert [t.outcome.label for t in stuck] == [NO_CODE] * MAX_TURNS


def test_infra_errors_resubmit_the_same_code(tasks: list[Task], backend) -> None:
    task = tasks[0]
    generator = RepairGenerator()
    first = generator.answer(task, (), 0)
    broken = Turn(0, first.reasoning, first.code, first.raw, infra_error("sandbox could not start"))
    again = generator.answer(task, [broken], 0)
    assert again.code == first.code and "harness" in again.reasoning


def test_wrong_fixes_cost_a_round_then_get_undone(tasks: list[Task], backend) -> None:
    generator = RepairGenerator(RepairOptions(wrong_fix_rate=1.0, max_bugs=1, seed=4))
    undone = []
    for task in tasks:
        for sample in range(4):
            plan = generator.plan(task, sample, RTL)
            if plan.bugs and plan.bugs[0].decoy is not None:
                turns = drive(generator, task, sample, backend)
                undone.append(any("did not fix it" in t.reasoning for t in turns))
                assert turns[-1].outcome.passed, [t.outcome.label for t in turns]
                break
        if len(undone) >= 2:
            break
    assert undone and all(undone)


def test_plans_are_pure_functions_of_task_sample_and_seed(tasks: list[Task]) -> None:
    task = tasks[0]
    plans = {s: RepairGenerator(RepairOptions(seed=1)).plan(task, s, RTL) for s in range(6)}
    assert plans[0] == RepairGenerator(RepairOptions(seed=1)).plan(task, 0, RTL)
    assert len({repr(p.bugs) for p in plans.values()}) > 1  # samples differ
    assert all(1 <= len(p.bugs) <= 3 for p in plans.values())
    assert all(len(RepairGenerator(RepairOptions(max_bugs=1)).plan(task, s, RTL).bugs) == 1 for s in range(6))


def test_options_provenance_and_errors(tasks: list[Task]) -> None:
    generator = GENERATORS.get("repair").from_options({"seed": "7", "max_bugs": "2", "wrong_fix_rate": "0.5"})
    assert isinstance(generator, RepairGenerator) and generator.synthetic
    meta = generator.provenance()
    assert meta["generator"] == "repair" and meta["synthetic"] is True and meta["seed"] == 7 and meta["max_bugs"] == 2
    for bad in ({"max_bugs": "0"}, {"wrong_fix_rate": "1.5"}, {"no_code_rate": "-0.1"}, {"seed": "x"}, {"sed": "1"}):
        with pytest.raises(EcotError):
            RepairGenerator.from_options(bad)
    unknown = replace(tasks[0], id="no_such_domain/x", domain="no_such_domain")
    with pytest.raises(EcotError, match="'no_such_domain'"):
        RepairGenerator().answer(unknown)
    with pytest.raises(EcotError, match="reference"):
        RepairGenerator().answer(replace(tasks[0], reference=None))


def test_another_process_writes_the_same_turn(tasks: list[Task]) -> None:
    """Stable hashing, not Python's per-process salted hash(): a resumed run in a new process agrees."""
    task = tasks[1]
    script = (
        "import hashlib, sys\n"
        "from ecot.generators.repair import RepairGenerator, RepairOptions\n"
        "from ecot.tasks.suite import bundled_suite_path, load_suite\n"
        "task = next(t for t in load_suite(bundled_suite_path('rtl')) if t.id == sys.argv[1])\n"
        "print(hashlib.sha256(RepairGenerator(RepairOptions(seed=3)).answer(task, (), 1).raw.encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    done = subprocess.run([sys.executable, "-c", script, task.id], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    here = hashlib.sha256(RepairGenerator(RepairOptions(seed=3)).answer(task, (), 1).raw.encode()).hexdigest()
    assert done.stdout.strip() == here


def test_falls_back_to_a_clean_rewrite_when_fixed_code_still_fails(tasks: list[Task], backend) -> None:
    task = tasks[0]
    generator = RepairGenerator(RepairOptions(max_bugs=1, wrong_fix_rate=0.0))
    first = generator.answer(task, (), 0)
    turn0 = Turn(0, first.reasoning, first.code, first.raw, backend.run(task, first.code or ""))
    fixed = generator.answer(task, [turn0], 0)
    assert fixed.code == (task.reference or "").strip() + "\n"  # one bug, reverted
    # An observation that still fails although every planted bug is gone (e.g. a flaky bench).
    still = Turn(1, fixed.reasoning, fixed.code, fixed.raw, Outcome("Simulation_Mismatch", "MISMATCH signal=y"))
    rewrite = generator.answer(task, [turn0, still], 0)
    assert rewrite.code == fixed.code and "rewrite" in rewrite.reasoning and "MISMATCH signal=y" in rewrite.reasoning
