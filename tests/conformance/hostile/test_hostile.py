"""Every attack class against every backend (see framework.py for the case format)."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import importlib.util
from typing import Any

import pytest

from ecot.core.outcome import PASS, Outcome
from ecot.core.trajectory import REAL
from ecot.domains import get_backend
from ecot.icwm.base import Prediction
from ecot.icwm.environment import WorldModelEnvironment
from scripted_world_model import ScriptedWorldModel

from ..common import bundled_task, describe, evaluate, skip_unless_isolated, with_changes
from .framework import Attack, Case, DomainCases, NotApplicable, cases_of

DOMAINS = ("rtl", "gpu", "cad", "firmware", "asm", "python")

# (domain, case name) -> why that case is not contained yet. None of FINDINGS may ever be listed here.
KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("firmware", "harness_start_time_rewritten"): (
        "privileged candidate sharing the harness's registers and memory: it reads TIM5 under FAULTMASK (neither "
        "trapped nor logged) and moves back the start time the harness keeps across the call; the fix is running "
        "candidate code unprivileged (CONTROL.nPRIV) with trapped PPB access and deprivileged ISRs, the harness's "
        "measurements kept in runtime memory unprivileged code cannot write"),
}

# The cases that reproduce the findings of hostile testing that this suite was written for (issue 15).
FINDINGS: dict[tuple[str, str], str] = {
    ("cad", "ptrace-or-mem-of-any-other-process"): "1: the candidate takes over the warm interpreter",
    ("gpu", "ptrace-or-mem-of-any-other-process"): "1: the candidate takes over the warm interpreter",
    ("cad", "takeover-then-wrong-answer"): "1: a takeover changes later verdicts in the same worker",
    ("gpu", "takeover-then-wrong-answer"): "1: a takeover changes later verdicts in the same worker",
    **{("gpu", f"outputs-swapped-for-host-links-{i}"): "2: host files leak through a symlink race" for i in range(3)},
    ("cad", "bundled-suites"): "3: jobs can read every reference",
    ("gpu", "bundled-suites"): "3: jobs can read every reference",
    ("python", "timers_off_slow_then_forged_records"): "4: Timeout becomes Pass through the result fd",
    ("asm", "toggle_collect_around_slow_loop"): "5: a client request forges the speedup",
    ("rtl", "unparsable_line"): "6: a line Yosys cannot parse skips the structural checks",
    ("rtl", "finish_at_zero"): "7: an early $finish ends the run before any sample",
    ("python", "two_gigabytes"): "8: no per-job disk quota",
    # issue 26, finding 1: kernel objects outlived a job in every warm sandbox
    ("python", "caesar_answers_in_sysv_shm"): "26.1: answers cached in SysV shared memory pass a later do-nothing candidate",
    ("cad", "counter-in-sysv-shm"): "26.1: a SysV shared-memory counter survives into the next job of the warm interpreter",
}


def _module(domain: str) -> Any:
    name = f"{__package__}.{domain}"
    return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None


def domain_cases(domain: str) -> DomainCases:
    """The domain's cases ({} while its module is missing: the completeness test then fails)."""
    module = _module(domain)
    return module.CASES if module is not None else {}


def control_of(domain: str) -> Case:
    module = _module(domain)
    assert module is not None, f"no hostile/{domain}.py"
    return module.CONTROL  # type: ignore[no-any-return]


def _params() -> list[Any]:
    params = []
    for domain in DOMAINS:
        for attack, entry in domain_cases(domain).items():
            for case in cases_of(entry):
                marks = []
                if (domain, case.name) in KNOWN_FAILURES:
                    marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[(domain, case.name)], strict=True))
                params.append(pytest.param(domain, attack, case, id=f"{domain}-{attack.value}-{case.name}", marks=marks))
    return params


def run_case(case: Case, candidate: str) -> Any:
    task = with_changes(bundled_task(case.task_id), dict(case.options) or None, case.wall_s)
    return evaluate(task, candidate)


@pytest.mark.parametrize(("domain", "attack", "case"), _params())
def test_attack_is_contained(domain: str, attack: Attack, case: Case) -> None:
    skip_unless_isolated()
    with case.host():
        outcome = run_case(case, case.candidate)
        if case.then is not None:
            outcome = run_case(case, case.then)
    assert case.contained(outcome), f"{domain} / {attack.value} / {case.name} escaped: {describe(outcome)}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_oracle_control_passes(domain: str) -> None:
    """Positive control: the domain's oracle passes when its 'attack' is harmless, so a failing label in
    the cases above means the sandbox refused, not that the oracle is broken."""
    case = control_of(domain)
    outcome = run_case(case, case.candidate)
    assert outcome.label == "Pass", describe(outcome)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_attack_class_is_covered(domain: str) -> None:
    cases = domain_cases(domain)
    missing = [a.value for a in Attack if a not in cases]
    assert not missing, f"{domain} has no case (or NotApplicable) for: {missing}"
    for attack, entry in cases.items():
        if isinstance(entry, NotApplicable):
            assert len(entry.reason) > 20, f"{domain}/{attack.value}: a reason is a sentence"
        else:
            assert cases_of(entry), f"{domain}/{attack.value}: an empty case list tests nothing"


def test_every_finding_has_its_case_and_none_is_a_known_failure() -> None:
    names = {(d, c.name) for d in DOMAINS for e in domain_cases(d).values() for c in cases_of(e)}
    assert set(FINDINGS) <= names, f"findings without their case: {sorted(set(FINDINGS) - names)}"
    assert not set(FINDINGS) & set(KNOWN_FAILURES)
    assert set(KNOWN_FAILURES) <= names, "a known failure names no case"


def test_cases_are_unique() -> None:
    names = [f"{d}-{a.value}-{c.name}" for d in DOMAINS for a, e in domain_cases(d).items() for c in cases_of(e)]
    assert len(names) == len(set(names))
    assert all(dataclasses.is_dataclass(c) for d in DOMAINS for e in domain_cases(d).values() for c in cases_of(e))


class _Backends:
    """The real backends, called directly (what the executor does in a worker)."""

    async def observe(self, task: Any, code: str) -> Outcome:
        return await asyncio.to_thread(get_backend(task.domain).run, task, code)


FORGING = (Attack.TAKEOVER, Attack.FORGE_CHANNEL, Attack.EARLY_EXIT, Attack.READ_REFERENCE)


@pytest.mark.parametrize(("domain", "attack", "case"),
                         [p for p in _params() if p.values[1] in FORGING and p.values[2].then is None])
def test_a_world_model_pass_is_rerun_for_real(domain: str, attack: Attack, case: Case) -> None:
    """Against the world-model environment: a model that predicts Pass for every hostile candidate
    changes nothing, since a predicted Pass is always re-run on the real backend."""
    skip_unless_isolated()
    model = ScriptedWorldModel(lambda code: Prediction(Outcome(PASS, "predicted"), 1.0), frozenset(DOMAINS))
    environment = WorldModelEnvironment(model, real=_Backends())
    task = with_changes(bundled_task(case.task_id), dict(case.options) or None, case.wall_s)
    with case.host():
        outcome, source = asyncio.run(environment.observe_sourced(task, case.candidate))
    assert source == REAL and environment.stats.verified == 1
    assert case.contained(outcome), f"{domain} / {attack.value} / {case.name} escaped: {describe(outcome)}"
