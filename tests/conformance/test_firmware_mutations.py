"""The firmware mutation set for the offline repair generator: operators on the bundled references,
their labels on the real toolchain, and repair trajectories that reach Pass."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections import Counter
from random import Random

import pytest

from ecot.core.outcome import PASS, no_code
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.generators.repair import RepairGenerator
from ecot.mutators import CATEGORIES, MUTATORS, MutationSet, compose
from ecot.mutators.base import clashes

from .common import bundled_task, bundled_tasks, describe, evaluate, skip_unless_tools

COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
FIRMWARE: MutationSet = MUTATORS.get("firmware")


def reference(task: Task) -> str:
    return (task.reference or "").strip() + "\n"


def test_the_set_covers_the_firmware_taxonomy() -> None:
    kinds = [m.kind for m in FIRMWARE.mutations]
    assert len(kinds) >= 15 and len(set(kinds)) == len(kinds)
    assert {m.category for m in FIRMWARE.mutations} == set(CATEGORIES)
    assert all(m.why and m.example for m in FIRMWARE.mutations)
    assert FIRMWARE.fence == "c" and FIRMWARE.domain == "firmware"
    required = {"missing_clock_enable", "wrong_register", "wrong_bit_mask", "missing_volatile", "off_by_one",
                "wrong_shift", "wrong_wait_flag"}
    assert required <= set(kinds)


def test_every_operator_applies_somewhere_and_changes_the_code() -> None:
    tasks = bundled_tasks("firmware")
    for mutation in FIRMWARE.mutations:
        applied = [(t, a) for t in tasks if (a := mutation.apply(reference(t), Random(3))) is not None]
        assert applied, f"{mutation.kind} applies to no bundled firmware task"
        for task, a in applied:
            assert a.code != reference(task) and a.description
            assert a.kind == mutation.kind and 1 <= a.line <= reference(task).count("\n") + 1


def test_operators_never_edit_comments_and_are_deterministic() -> None:
    for task in bundled_tasks("firmware"):
        ref = reference(task)
        comments = [m.span() for m in COMMENT.finditer(ref)]
        for mutation in FIRMWARE.mutations:
            for site in mutation.sites(ref):
                for span in site.spans(ref):
                    inside = [c for c in comments if c[0] <= span.start < c[1] or c[0] < span.end <= c[1]]
                    assert not inside, f"{mutation.kind} edits a comment in {task.id}"
            assert mutation.apply(ref, Random(7)) == mutation.apply(ref, Random(7))


def test_disjoint_bugs_compose() -> None:
    composed = 0
    for task in bundled_tasks("firmware"):
        ref, rng = reference(task), Random(task.id)
        chosen = []
        for bug in (a for m in FIRMWARE.mutations if (a := m.apply(ref, rng)) is not None):
            if not any(clashes(ref, bug, other) for other in chosen):
                chosen.append(bug)
        if len(chosen) >= 2:
            both = compose(ref, chosen[:2])
            assert both != compose(ref, chosen[:1]) != ref
            composed += 1
    assert composed >= 20


# (operator, task, labels it may earn): seeded placements checked on the real toolchain
LABELLED = [
    ("missing_clock_enable", "firmware/gpio_led_toggle", {"Register_Mismatch"}),
    ("clock_enable_late", "firmware/tim3_pwm", {"Register_Mismatch"}),
    ("wrong_register", "firmware/gpio_usart_pins", {"Register_Mismatch"}),
    ("wrong_peripheral", "firmware/traffic_light_fsm", {"Register_Mismatch"}),
    ("missing_volatile", "firmware/systick_ms_tick", {"Timeout"}),
    ("wrong_wait_flag", "firmware/uart2_puts", {"Timeout", "Output_Mismatch"}),
    ("misnamed_handler", "firmware/exti_button_irq", {"Hard_Fault"}),
    ("link_overflow", "firmware/uart2_rx_irq_ring", {"Link_Error"}),
    ("wrong_function_name", "firmware/crc16_ccitt", {"Link_Error"}),
    ("missing_semicolon", "firmware/isqrt_u32", {"Compilation_Error"}),
]


@pytest.mark.parametrize(("kind", "task_id", "labels"), LABELLED, ids=[f"{k}@{t}" for k, t, _ in LABELLED])
def test_operators_earn_their_labels(kind: str, task_id: str, labels: set[str]) -> None:
    task = bundled_task(task_id)
    applied = FIRMWARE.by_kind(kind).apply(reference(task), Random(1))
    assert applied is not None, f"{kind} does not apply to {task_id}"
    outcome = evaluate(task, applied.code)
    assert outcome.label in labels, f"{kind}: {applied.description}: {describe(outcome)}"


def drive(generator: RepairGenerator, task: Task, backend, max_turns: int = 5) -> list[Turn]:
    turns: list[Turn] = []
    while len(turns) < max_turns:
        gen = asyncio.run(generator.generate([], task, turns, 0))
        outcome = backend.run(task, gen.code) if gen.code is not None else no_code()
        turns.append(Turn(len(turns), gen.reasoning, gen.code, gen.raw, outcome))
        if outcome.passed:
            break
    return turns


def test_repair_trajectories_reach_pass() -> None:
    backend = skip_unless_tools("firmware")
    generator = RepairGenerator.from_options({"seed": "0"})
    tasks = list(bundled_tasks("firmware"))[::5]
    runs = {t.id: drive(generator, t, backend) for t in tasks}
    first = Counter(turns[0].outcome.label for turns in runs.values())
    passed = [tid for tid, turns in runs.items() if turns[-1].outcome.label == PASS]
    assert sum(n for label, n in first.items() if label != PASS) >= 0.75 * len(runs), first
    assert len(passed) == len(runs), {tid: [t.outcome.label for t in turns] for tid, turns in runs.items()}
    for turns in runs.values():  # each correction quotes the real verdict of the turn before it
        for before, after in itertools.pairwise(turns):
            assert before.outcome.label in after.reasoning and before.outcome.diagnostic.strip() in after.reasoning
