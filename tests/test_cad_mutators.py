"""CAD bug operators on the bundled references, and the repair generator driven by the real CAD backend."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from random import Random

import pytest

from ecot.core.errors import ToolMissingError
from ecot.core.outcome import PASS, no_code
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.domains import get_backend
from ecot.domains.cad.mutators.text import dimensions, evaluate, python_source, statement
from ecot.generators.repair import RepairGenerator, RepairOptions
from ecot.mutators import MUTATORS, MutationSet
from ecot.mutators.base import clashes, compose
from ecot.tasks.suite import bundled_suite_path, load_suite

COMMENT_OR_STRING = re.compile(r'#[^\n]*|"[^"\n]*"|\'[^\'\n]*\'')
# The label each operator earns on a task where it applies (checked on the real backend below).
EXPECTED = {
    "missing_paren": {"Syntax_Error"}, "missing_comma": {"Syntax_Error"}, "unterminated_string": {"Syntax_Error"},
    "misspelled_method": {"Runtime_Error"}, "wrong_keyword": {"Runtime_Error"}, "missing_argument": {"Runtime_Error"},
    "undefined_name": {"Runtime_Error"}, "fillet_too_large": {"Geometry_Error"}, "tangent_feature": {"Geometry_Error"},
    "detached_feature": {"Geometry_Error"}, "wrong_dimension": {"Shape_Mismatch"}, "wrong_position": {"Shape_Mismatch"},
    "missing_feature": {"Shape_Mismatch"}, "wrong_operation": {"Shape_Mismatch"},
    "wrong_workplane": {"Shape_Mismatch", "Geometry_Error", "Runtime_Error"},
}


@pytest.fixture(scope="module")
def cad() -> MutationSet:
    return MUTATORS.get("cad")


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(load_suite(bundled_suite_path("cad")))


@pytest.fixture(scope="module")
def backend():
    try:
        return get_backend("cad")
    except ToolMissingError as err:
        pytest.skip(f"the CAD backend needs the missing tool '{err.tool}'")


def reference(task: Task) -> str:
    return (task.reference or "").strip() + "\n"


def test_the_set_covers_the_issue_taxonomy(cad: MutationSet) -> None:
    assert set(EXPECTED) == {m.kind for m in cad.mutations}
    assert cad.fence == "python" and all(m.why and m.example for m in cad.mutations)
    assert {m.category for m in cad.mutations} == {"syntax", "structural", "semantic"}


def test_every_operator_applies_somewhere_never_in_comments_and_deterministically(cad: MutationSet, tasks: list[Task]) -> None:
    for mutation in cad.mutations:
        hits = 0
        for task in tasks:
            ref = reference(task)
            masked = [m.span() for m in COMMENT_OR_STRING.finditer(ref) if m.group(0).startswith("#")]
            for site in mutation.sites(ref):
                assert not any(s <= site.start < e for s, e in masked), f"{mutation.kind} edits a comment in {task.id}"
            first, again = mutation.apply(ref, Random(3)), mutation.apply(ref, Random(3))
            assert first == again
            if first is not None:
                hits += 1
                assert first.code != ref and first.description and first.kind == mutation.kind
        assert hits >= 3, f"{mutation.kind} applies to only {hits} bundled tasks"


def test_bugs_compose_and_revert(cad: MutationSet, tasks: list[Task]) -> None:
    for task in tasks[:10]:
        ref = reference(task)
        bugs = [a for m in cad.mutations if (a := m.apply(ref, Random(task.id))) is not None]
        disjoint = []
        for bug in bugs:
            if not any(clashes(ref, bug, other) for other in disjoint):
                disjoint.append(bug)
        assert compose(ref, []) == ref
        both = compose(ref, disjoint[:2])
        assert both != ref and compose(ref, disjoint[:1]) != both


def test_text_helpers_read_dimensions_and_statements() -> None:
    code = "import cadquery as cq\nw = 10.0  # width\nh = w / 4 + 1\nr = (\n    cq.Workplane()\n    .box(w, w, h)\n)\n"
    src = python_source(code)
    assert dimensions(src) == {"w": 10.0, "h": 3.5}
    assert evaluate("__import__('os')", {}) is None and evaluate("2 ** -0.5", {}) == pytest.approx(0.7071, abs=1e-4)
    start, end = statement(src, src.text.index(".box"))
    assert src.text[start:end].startswith("r = (") and src.text[start:end].endswith(")")


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_operator_earns_its_label_on_the_real_backend(kind: str, cad: MutationSet, tasks: list[Task], backend) -> None:
    mutation = cad.by_kind(kind)
    task = next(t for t in tasks if mutation.sites(reference(t)))
    applied = mutation.apply(reference(task), Random(7))
    assert applied is not None
    outcome = backend.run(task, applied.code)
    assert outcome.label in EXPECTED[kind], f"{kind} on {task.id}: {outcome.label}: {outcome.diagnostic}"


def drive(generator: RepairGenerator, task: Task, backend) -> list[Turn]:
    turns: list[Turn] = []
    while len(turns) < 5:
        gen = asyncio.run(generator.generate([], task, turns, 0))
        outcome = backend.run(task, gen.code) if gen.code is not None else no_code()
        turns.append(Turn(len(turns), gen.reasoning, gen.code, gen.raw, outcome))
        if outcome.passed:
            break
    return turns


def test_repair_trajectories_start_broken_quote_the_checks_and_reach_pass(tasks: list[Task], backend) -> None:
    generator = RepairGenerator(RepairOptions(seed=1, max_bugs=2, wrong_fix_rate=0.0))
    chosen = [replace(t, limits=t.limits.scaled(wall_s=8.0, cpu_s=8.0)) for t in tasks[::9]]
    for task in chosen:
        turns = drive(generator, task, backend)
        assert turns[-1].outcome.label == PASS, f"{task.id}: {[t.outcome.label for t in turns]}"
        assert "```python" in turns[0].raw and "`result`" in turns[0].reasoning
        for before, after in zip(turns, turns[1:]):
            assert before.outcome.diagnostic.strip()[:60] in after.reasoning
