"""RTL bug operators on the bundled tasks' references, judged by the real RTL toolchain."""

from __future__ import annotations

import re
from collections import Counter
from random import Random

import pytest

from ecot.core.errors import ToolMissingError, UnknownNameError
from ecot.core.task import Task
from ecot.domains import get_backend
from ecot.mutators import CATEGORIES, MUTATORS, MutationSet, compose
from ecot.mutators.base import clashes, line_in
from ecot.tasks.suite import bundled_suite_path, load_suite

COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


@pytest.fixture(scope="module")
def rtl() -> MutationSet:
    return MUTATORS.get("rtl")


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return [t for t in load_suite(bundled_suite_path("rtl")) if t.reference]


def reference(task: Task) -> str:
    return (task.reference or "").strip() + "\n"


def test_registry_holds_a_full_taxonomy(rtl: MutationSet) -> None:
    kinds = [m.kind for m in rtl.mutations]
    assert len(kinds) >= 14 and len(set(kinds)) == len(kinds)
    assert {m.category for m in rtl.mutations} == set(CATEGORIES)
    assert all(m.why and m.example for m in rtl.mutations)
    assert rtl.fence == "verilog" and rtl.domain == "rtl"
    with pytest.raises(UnknownNameError, match="no_such_domain"):
        MUTATORS.get("no_such_domain")


def test_every_operator_applies_somewhere_and_changes_the_code(rtl: MutationSet, tasks: list[Task]) -> None:
    for mutation in rtl.mutations:
        applied = [(t, a) for t in tasks if (a := mutation.apply(reference(t), Random(5))) is not None]
        assert applied, f"{mutation.kind} applies to no bundled task"
        for task, a in applied:
            assert a.code != reference(task), f"{mutation.kind} proposed an edit that changes nothing in {task.id}"
            assert a.kind == mutation.kind and a.category == mutation.category
            assert a.description and 1 <= a.line <= reference(task).count("\n") + 1
            assert a.original != a.mutated or "\n" in a.spans[0].old


def test_operators_never_edit_comments_and_are_deterministic(rtl: MutationSet, tasks: list[Task]) -> None:
    for task in tasks:
        ref = reference(task)
        comments = [m.span() for m in COMMENT.finditer(ref)]
        for mutation in rtl.mutations:
            for site in mutation.sites(ref):
                for span in site.spans(ref):
                    inside = [c for c in comments if c[0] <= span.start < c[1] or c[0] < span.end <= c[1]]
                    assert not inside, f"{mutation.kind} edits a comment in {task.id}: {ref[span.start:span.end]!r}"
            first, again = mutation.apply(ref, Random(11)), mutation.apply(ref, Random(11))
            assert first == again


def test_bugs_compose_and_revert_one_at_a_time(rtl: MutationSet, tasks: list[Task]) -> None:
    checked = 0
    for task in tasks:
        ref = reference(task)
        rng = Random(task.id)
        bugs = [a for m in rtl.mutations if (a := m.apply(ref, rng)) is not None]
        disjoint = []
        for bug in bugs:
            if not any(clashes(ref, bug, other) for other in disjoint):
                disjoint.append(bug)
        if len(disjoint) < 2:
            continue
        both = compose(ref, disjoint)
        assert compose(ref, []) == ref
        for bug in disjoint:
            rest = [b for b in disjoint if b is not bug]
            assert compose(ref, rest) != both  # reverting one bug changes the code
            if "\n" in bug.spans[0].old:
                continue  # whole lines removed: nothing left to point at
            line = line_in(bug, disjoint)  # where the bug sits once the others shifted the text
            assert bug.mutated.splitlines()[0].strip() in both.splitlines()[line - 1], (task.id, bug.kind)
        checked += 1
    assert checked >= 5


@pytest.fixture(scope="module")
def backend():
    try:
        return get_backend("rtl")
    except ToolMissingError as err:
        pytest.skip(f"RTL toolchain missing: {err.tool}")


def test_planted_bugs_fail_on_the_real_toolchain(rtl: MutationSet, tasks: list[Task], backend) -> None:
    """Each operator breaks some design for real; syntax operators break the parse."""
    labels: dict[str, Counter] = {}
    for mutation in rtl.mutations:
        seen: Counter = Counter()
        for task in [t for t in tasks if mutation.sites(reference(t))][:3]:
            applied = mutation.apply(reference(task), Random(3))
            assert applied is not None
            seen[backend.run(task, applied.code).label] += 1
        labels[mutation.kind] = seen
        assert sum(n for label, n in seen.items() if label != "Pass") >= 1, (mutation.kind, seen)
        if mutation.category == "syntax":
            assert seen["Syntax_Error"] >= 2, (mutation.kind, seen)
        if mutation.kind in ("wrong_module_name", "wrong_port_name", "identifier_typo", "reg_wire_mismatch"):
            assert seen["Elaboration_Error"] >= 2, (mutation.kind, seen)
    print({kind: dict(seen) for kind, seen in labels.items()})
