"""Every attack class against every backend: the cases of ecot.audit.hostile (framework.py there has the
case format), judged by its runner, the very code `ecot audit hostile` runs on a user's machine."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from ecot.audit.hostile.framework import Attack, NotApplicable, cases_of
from ecot.audit.hostile.report import Verdict
from ecot.audit.hostile.runner import judge, judge_control
from ecot.audit.hostile.suite import DOMAINS, KNOWN_FAILURES, Listed, domain_cases, listed_cases
from ecot.core.outcome import PASS, Outcome
from ecot.core.trajectory import REAL
from ecot.domains import get_backend
from ecot.icwm.base import Prediction
from ecot.icwm.environment import WorldModelEnvironment
from scripted_world_model import ScriptedWorldModel

from ..common import bundled_task, describe, skip_unless_isolated, with_changes

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

# The second round of hostile testing (issue 26); like FINDINGS, none may ever be a known failure.
FINDINGS_ROUND_2: dict[tuple[str, str], str] = {
    ("cad", "tolerances-inflated-to-reach-the-voxel-fallback"): "issue 26, 2: a solid the booleans fail on is "
    "judged by the voxel IoU",
    ("cad", "tolerances-inflated-to-blur-the-exact-iou"): "issue 26, 2: inflated tolerances make the exact IoU 1",
    ("cad", "booleans-contradict-on-a-task-that-allows-coarse-solids"): "issue 26, 2: contradicting booleans fall "
    "back to the voxel IoU",
    **{(domain, name): "issue 26, 3: surrogates, NUL and escape sequences reach stored and printed text"
       for domain, name in (("python", "terminal_tricks_raised_and_printed"), ("python", "stdio_terminal_tricks_printed"),
                            ("cad", "terminal-tricks-printed"), ("cad", "terminal-tricks-raised"),
                            ("rtl", "terminal_tricks"))},
    ("python", "work_at_import"): "issue 26, 4: CPU time spent at import is not counted",
}


def _params() -> list[Any]:
    params = []
    for domain in DOMAINS:
        for listed in listed_cases(domain):
            reason = listed.known_failure
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(listed, id=listed.id, marks=marks))
    return params


@pytest.mark.parametrize("listed", _params())
def test_attack_is_contained(listed: Listed) -> None:
    skip_unless_isolated()
    result = judge(listed)
    if result.verdict == Verdict.NOT_RUN:
        pytest.skip(f"{listed.id} needs the missing tool '{result.detail}'")
    assert result.verdict == Verdict.CONTAINED, f"{listed.id} is {result.verdict.value}: {result.detail}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_oracle_control_passes(domain: str) -> None:
    """Positive control: the domain's oracle passes when its 'attack' is harmless, so a failing label in
    the cases above means the sandbox refused, not that the oracle is broken."""
    control = judge_control(domain)
    assert control.passed, f"{control.label}: {control.detail}"


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
    findings = set(FINDINGS) | set(FINDINGS_ROUND_2)
    assert findings <= names, f"findings without their case: {sorted(findings - names)}"
    assert not findings & set(KNOWN_FAILURES)
    assert set(KNOWN_FAILURES) <= names, "a known failure names no case"


def test_cases_are_unique() -> None:
    names = [listed.id for d in DOMAINS for listed in listed_cases(d)]
    assert len(names) == len(set(names))
    assert all(dataclasses.is_dataclass(listed.case) for d in DOMAINS for listed in listed_cases(d))


class _Backends:
    """The real backends, called directly (what the executor does in a worker)."""

    async def observe(self, task: Any, code: str) -> Outcome:
        return await asyncio.to_thread(get_backend(task.domain).run, task, code)


FORGING = (Attack.TAKEOVER, Attack.FORGE_CHANNEL, Attack.EARLY_EXIT, Attack.READ_REFERENCE)


@pytest.mark.parametrize("listed", [p for p in _params() if p.values[0].attack in FORGING and p.values[0].case.then is None])
def test_a_world_model_pass_is_rerun_for_real(listed: Listed) -> None:
    """Against the world-model environment: a model that predicts Pass for every hostile candidate
    changes nothing, since a predicted Pass is always re-run on the real backend."""
    skip_unless_isolated()
    case = listed.case
    model = ScriptedWorldModel(lambda code: Prediction(Outcome(PASS, "predicted"), 1.0), frozenset(DOMAINS))
    environment = WorldModelEnvironment(model, real=_Backends())
    task = with_changes(bundled_task(case.task_id), dict(case.options) or None, case.wall_s)
    with case.host():
        outcome, source = asyncio.run(environment.observe_sourced(task, case.candidate))
    assert source == REAL and environment.stats.verified == 1
    assert case.contained(outcome), f"{listed.id} escaped: {describe(outcome)}"
