"""The offline default generator: plant realistic bugs into the reference, then repair them turn by turn.

Turn 0 submits the reference with 1..max_bugs bugs from the domain's mutation set (ecot.mutators)
and a first-person design plan. Every later turn reads the *real* outcome of the previous one,
picks the remaining bug the evidence points at, explains it in the first person and submits the
code with that bug reverted. Some semantic bugs first get a plausible wrong fix (wrong_fix_rate),
and some turns answer without a code block (no_code_rate).

Output is a pure function of (task, sample, seed, options, earlier turns): the plan is recomputed
from a stable hash on every call and the repair state is replayed from the recorded outcomes, so
a killed and resumed run regenerates exactly the same turns.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from random import Random
from typing import Any, ClassVar, Self

from pydantic import Field

from ecot.core.errors import EcotError, UnknownNameError
from ecot.core.extract import extract_code
from ecot.core.outcome import NO_CODE, Outcome
from ecot.core.task import Task
from ecot.core.trajectory import Message, Turn
from ecot.generators.base import Generation, Generator
from ecot.generators.options import GeneratorOptions
from ecot.generators.repair_text import ANSWERS, Writer, named_lines
from ecot.mutators import CATEGORIES, MUTATORS, Applied, MutationSet, compose
from ecot.mutators.base import Mutation, clashes, line_in, make_applied, touched_lines

PLAN_VERSION = 1  # bump when the plan or the replay rule changes: old trajectories no longer resume


@dataclass(frozen=True)
class Bug:
    applied: Applied
    decoy: Applied | None = None  # a plausible wrong fix tried before the real one


@dataclass(frozen=True)
class Plan:
    reference: str
    bugs: tuple[Bug, ...]


@dataclass(frozen=True)
class State:
    """How far the repair has got: which bugs are still in the code, and any wrong fix in place."""

    remaining: tuple[int, ...]
    decoy: int | None = None  # bug whose wrong fix is in the code now
    tried: frozenset[int] = frozenset()  # bugs whose wrong fix was already tried
    submitted: bool = False  # some turn has carried code

    def active(self, plan: Plan) -> list[Applied]:
        edits = [plan.bugs[i].applied for i in self.remaining]
        decoy = plan.bugs[self.decoy].decoy if self.decoy is not None else None
        return edits + ([decoy] if decoy is not None else [])

    def code(self, plan: Plan) -> str:
        return compose(plan.reference, self.active(plan))


@dataclass(frozen=True)
class Action:
    """One turn's decision: what kind of move, on which bug, and the state it leads to."""

    kind: str  # initial | fix | decoy | undo_decoy | rewrite | resubmit_infra | resubmit_pass
    bug: int | None
    before: State
    after: State


class RepairOptions(GeneratorOptions):
    """The repair generator's options (`--gen-opt key=value`; docs/repair-generator.md)."""

    owner: ClassVar[str] = "repair generator"

    seed: int = 0
    max_bugs: int = Field(default=3, ge=1)  # bugs planted at turn 0: 1 to this many
    wrong_fix_rate: float = Field(default=0.25, ge=0.0, le=1.0)  # share of semantic bugs first given a plausible wrong fix
    no_code_rate: float = Field(default=0.0, ge=0.0, le=1.0)  # share of turns answered without a code block


class RepairGenerator(Generator):
    name = "repair"
    synthetic = True

    def __init__(self, options: RepairOptions | None = None) -> None:
        self.options = options or RepairOptions()
        self.seed, self.max_bugs = self.options.seed, self.options.max_bugs
        self.wrong_fix_rate, self.no_code_rate = self.options.wrong_fix_rate, self.options.no_code_rate

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        return cls(RepairOptions.from_table(options))

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "seed": self.seed,
            "max_bugs": self.max_bugs,
            "wrong_fix_rate": self.wrong_fix_rate,
            "no_code_rate": self.no_code_rate,
            "plan_version": PLAN_VERSION,
        }

    async def generate(
        self, messages: Sequence[Message], task: Task, turns: Sequence[Turn] = (), sample: int = 0
    ) -> Generation:
        return self.answer(task, turns, sample)

    def answer(self, task: Task, turns: Sequence[Turn] = (), sample: int = 0) -> Generation:
        """The synchronous core of generate()."""
        mset = mutation_set(task.domain)
        plan = self.plan(task, sample, mset)
        state = replay(plan, turns, mset, task)
        evidence = last_real(turns)
        action = decide(plan, state, evidence, mset, task)
        rng = Random(stable_seed(task.id, sample, self.seed, len(turns), "turn"))
        writer = Writer(mset, task, rng)
        reasoning = writer.reasoning(action.kind, turns, evidence, self._bug_view(plan, action))
        code = action.after.code(plan)
        with_code = rng.random() >= self.no_code_rate
        answer = rng.choice(ANSWERS[action.kind]).format(artifact=mset.artifact)
        answer = f"{answer}\n\n```{mset.fence}\n{code}```\n" if with_code else writer.codeless_answer(action.kind)
        raw = f"<think>\n{reasoning}\n</think>\n\n{answer}"
        return Generation(reasoning=reasoning, code=extract_code(answer, task.domain), raw=raw, usage={})

    def plan(self, task: Task, sample: int, mset: MutationSet) -> Plan:
        if task.reference is None or not task.reference.strip():
            raise EcotError(f"task {task.id}: the repair generator needs a reference solution to plant bugs into")
        return _plan(task.id, task.domain, task.reference, sample, self.seed, self.max_bugs, self.wrong_fix_rate)

    @staticmethod
    def _bug_view(plan: Plan, action: Action) -> dict[str, Any]:
        """What the writer needs about the bug this action touches, in the coordinates of the code it sees."""
        if action.bug is None:
            return {}
        bug = plan.bugs[action.bug]
        before = action.before.active(plan)
        view: dict[str, Any] = {"bug": bug.applied, "line": line_in(bug.applied, before)}
        if bug.decoy is not None:
            decoy_edits = before if action.kind == "undo_decoy" else action.after.active(plan)
            view.update(decoy=bug.decoy, decoy_line=line_in(bug.decoy, decoy_edits))
        return view


def mutation_set(domain: str) -> MutationSet:
    try:
        return MUTATORS.get(domain)
    except UnknownNameError:
        known = ", ".join(MUTATORS.names()) or "none"
        message = f"the repair generator has no bug operators for domain '{domain}' (domains with operators: {known})"
        raise EcotError(message) from None


def stable_seed(*parts: object) -> int:
    """A seed that is the same in every process (Python's hash() is salted per process)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


# -- the plan -------------------------------------------------------------------------------------
@lru_cache(maxsize=1024)  # pure, so caching only saves time; bounded so long runs do not grow
def _plan(
    task_id: str, domain: str, reference: str, sample: int, seed: int, max_bugs: int, wrong_fix_rate: float
) -> Plan:
    rng = Random(stable_seed(task_id, sample, seed, "plan"))
    return make_plan(reference.strip() + "\n", mutation_set(domain), rng, max_bugs, wrong_fix_rate)


def make_plan(reference: str, mset: MutationSet, rng: Random, max_bugs: int, wrong_fix_rate: float) -> Plan:
    """1..max_bugs bugs at distinct places (category by the set's weights, then an operator, then a
    site), and maybe one semantic bug whose first fix is a decoy."""
    usable = [m for m in mset.mutations if m.sites(reference)]
    wanted = rng.randint(1, max_bugs)
    chosen: list[Applied] = []
    for _ in range(6 * max_bugs):  # bounded: a small reference may not have room for every bug
        if len(chosen) == wanted or not usable:
            break
        present = [c for c in CATEGORIES if any(m.category == c for m in usable)]
        category = rng.choices(present, weights=[mset.weights.get(c, 1.0) for c in present])[0]
        mutation = rng.choice([m for m in usable if m.category == category])
        applied = mutation.apply(reference, rng)
        if applied is not None and not any(clashes(reference, applied, other) for other in chosen):
            chosen.append(applied)
    semantic = [m for m in usable if m.category == "semantic"]
    bugs, decoy = [], None
    for applied in chosen:  # at most one wrong fix per trajectory, so K rounds still reach the end
        if decoy is None and applied.category == "semantic" and rng.random() < wrong_fix_rate:
            decoy = _decoy(reference, semantic, chosen, rng)
            bugs.append(Bug(applied, decoy))
        else:
            bugs.append(Bug(applied))
    return Plan(reference, tuple(bugs))


def _decoy(reference: str, semantic: list[Mutation], bugs: list[Applied], rng: Random) -> Applied | None:
    """A plausible wrong fix: another logic change somewhere no planted bug sits."""
    taken = {line for bug in bugs for line in touched_lines(reference, bug)}
    candidates = [
        make_applied(mutation, reference, site)
        for mutation in semantic
        for site in mutation.sites(reference)
    ]
    free = [c for c in candidates if not touched_lines(reference, c) & taken and not any(c.overlaps(b) for b in bugs)]
    return rng.choice(free) if free else None


# -- replay and decision --------------------------------------------------------------------------
def last_real(turns: Sequence[Turn]) -> Outcome | None:
    """The latest outcome that judged code (a No_Code turn ran nothing)."""
    for turn in reversed(turns):
        if turn.outcome.label != NO_CODE:
            return turn.outcome
    return None


def replay(plan: Plan, turns: Sequence[Turn], mset: MutationSet, task: Task) -> State:
    """Re-derive the repair state by re-deciding every earlier turn from the outcomes it saw."""
    state = State(remaining=tuple(range(len(plan.bugs))))
    for index, turn in enumerate(turns):
        action = decide(plan, state, last_real(turns[:index]), mset, task)
        if turn.outcome.label != NO_CODE:  # a turn without code changed nothing
            state = action.after
    return state


def decide(plan: Plan, state: State, evidence: Outcome | None, mset: MutationSet, task: Task) -> Action:
    if not state.submitted or evidence is None:
        return Action("initial", None, state, replace(state, submitted=True))
    if evidence.passed:
        return Action("resubmit_pass", None, state, state)
    if evidence.is_infra:
        return Action("resubmit_infra", None, state, state)
    if state.decoy is not None:
        bug = state.decoy
        return Action("undo_decoy", bug, state, replace(state, decoy=None, remaining=_without(state.remaining, bug)))
    if not state.remaining:
        return Action("rewrite", None, state, state)
    bug = pick_bug(plan, state, evidence, mset, task)
    if plan.bugs[bug].decoy is not None and bug not in state.tried:
        return Action("decoy", bug, state, replace(state, decoy=bug, tried=state.tried | {bug}))
    return Action("fix", bug, state, replace(state, remaining=_without(state.remaining, bug)))


def _without(items: tuple[int, ...], item: int) -> tuple[int, ...]:
    return tuple(i for i in items if i != item)


def pick_bug(plan: Plan, state: State, evidence: Outcome, mset: MutationSet, task: Task) -> int:
    """Follow the evidence: a message that names the mistake outright, then the label's suspect
    categories, then the line and the names the diagnostic mentions."""
    suspects = mset.for_label(evidence.label).suspects
    active = state.active(plan)
    named = named_lines(evidence, task)
    words = set(re.findall(r"[A-Za-z_]\w+", evidence.diagnostic)) & mset.names(plan.reference)
    clued = mset.clued_kinds(evidence.diagnostic + "\n" + evidence.log[:2000])

    def key(index: int) -> tuple[bool, int, int, bool, int]:
        bug = plan.bugs[index].applied
        rank = suspects.index(bug.category) if bug.category in suspects else len(suspects)
        line = line_in(bug, active)
        last = line + max(bug.mutated.count("\n"), bug.original.count("\n"))
        # a parser often reports a mistake on the line after it, so that line counts as a hit
        distance = min((max(line - n, n - last - 1, 0) for n in named), default=99)
        mentioned = any(re.search(rf"\b{re.escape(w)}\b", bug.mutated + bug.original) for w in words)
        return (bug.kind not in clued, rank, min(distance, 3), not mentioned, index)

    return min(state.remaining, key=key)
