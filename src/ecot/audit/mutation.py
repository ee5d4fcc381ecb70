"""The mutants a suite audit runs against a task's tests: every bug the domain's own mutators can plant
in the task's reference, once each, in a reproducible order.

Syntax bugs are left out: a compiler rejects them whatever the tests check. A mutant whose text equals
the reference's after normalisation (layout only: blank lines, runs of spaces, trailing blanks; for
Python, the same syntax tree) cannot be told apart by any test and is counted as equivalent, never
run. So is a second mutant with the same text as an earlier one. The order interleaves the kinds of
bug, so that the first N mutants span as many operators as the reference offers, and is shuffled with
a seed derived from the task id and the audit's seed (the same audit draws the same mutants).
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
from dataclasses import dataclass
from itertools import zip_longest
from random import Random

from ecot.core.domain import get_domain
from ecot.core.errors import UnknownNameError
from ecot.mutators import MUTATORS, MutationSet
from ecot.mutators.base import make_applied

SKIPPED_CATEGORIES = frozenset({"syntax"})  # caught by any compiler: they say nothing about the tests
DIFF_LIMIT = 2000  # characters of a mutant's diff kept in a report


@dataclass(frozen=True)
class Mutant:
    """One planted bug: what it is, where, and the whole mutated text."""

    kind: str
    category: str
    line: int  # 1-based line of the reference it changes
    description: str
    code: str

    def diff(self, reference: str) -> str:
        """A unified diff from the reference, for a person judging whether a survivor is really wrong."""
        lines = difflib.unified_diff(reference.splitlines(), self.code.splitlines(), "reference", "mutant", n=1, lineterm="")
        text = "\n".join(lines)
        return text if len(text) <= DIFF_LIMIT else text[: DIFF_LIMIT - 4] + "\n..."


@dataclass(frozen=True)
class Draw:
    """Every distinct mutant of a reference, in the order an audit runs them."""

    mutants: tuple[Mutant, ...]
    offered: int  # mutants the mutators offered (every non-syntax operator at every site)
    equivalent: int  # of those, identical to the reference after normalisation
    duplicates: int  # of those, identical to an earlier mutant after normalisation


def mutation_set(domain: str) -> MutationSet | None:
    """The domain's mutators, or None when it has none."""
    try:
        return MUTATORS.get(domain)
    except UnknownNameError:
        return None


def draw(task_id: str, domain: str, reference: str, seed: int = 0) -> Draw:
    """Every distinct non-syntax mutant of `reference`, kinds interleaved, order seeded by (task, seed)."""
    mset = mutation_set(domain)
    if mset is None:
        return Draw((), 0, 0, 0)
    language = get_domain(domain).language
    original = normalise(reference, language)
    seen = {original}
    by_kind: dict[str, list[Mutant]] = {}
    offered = equivalent = duplicates = 0
    for mutation in mset.mutations:
        if mutation.category in SKIPPED_CATEGORIES:
            continue
        for site in mutation.sites(reference):
            applied = make_applied(mutation, reference, site)
            offered += 1
            key = normalise(applied.code, language)
            if key in seen:
                equivalent += key == original
                duplicates += key != original
                continue
            seen.add(key)
            by_kind.setdefault(mutation.kind, []).append(
                Mutant(mutation.kind, mutation.category, applied.line, applied.description, applied.code))
    rng = Random(stable_seed(task_id, seed))
    kinds = sorted(by_kind)
    rng.shuffle(kinds)
    for kind in kinds:
        rng.shuffle(by_kind[kind])
    order = [m for row in zip_longest(*(by_kind[k] for k in kinds)) for m in row if m is not None]
    return Draw(tuple(order), offered, equivalent, duplicates)


def normalise(code: str, language: str = "") -> str:
    """The text with layout differences removed; for Python, its syntax tree (when it parses)."""
    if language == "python":
        try:
            return ast.dump(ast.parse(code))
        except (SyntaxError, ValueError):
            pass
    lines = (re.sub(r"(?<=\S)[ \t]+", " ", line).rstrip() for line in code.splitlines())
    return "\n".join(line for line in lines if line)


def stable_seed(*parts: object) -> int:
    """A seed that is the same in every process (Python's hash() is salted per process)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")
