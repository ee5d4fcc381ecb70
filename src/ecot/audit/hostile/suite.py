"""Which domains the hostile suite covers, the cases it knows fail, and lookups of its cases.

A domain's cases live in `<domain>.py` of this package (`CASES`, `CONTROL`); they are imported only when
asked for, since building some of them needs the domain's toolchain (the asm payloads are compiled C).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType

from ecot.audit.hostile.framework import Attack, Case, DomainCases, NotApplicable, cases_of

DOMAINS = ("rtl", "gpu", "cad", "firmware", "asm", "python")

# (domain, case name) -> why that case is not contained yet. Reported on its own, never hidden.
KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("firmware", "harness_start_time_rewritten"): (
        "privileged candidate sharing the harness's registers and memory: it reads TIM5 under FAULTMASK (neither "
        "trapped nor logged) and moves back the start time the harness keeps across the call; the fix is running "
        "candidate code unprivileged (CONTROL.nPRIV) with trapped PPB access and deprivileged ISRs, the harness's "
        "measurements kept in runtime memory unprivileged code cannot write"),
}


@dataclass(frozen=True)
class Listed:
    """One case with the domain and attack class it is listed under."""

    domain: str
    attack: Attack
    case: Case

    @property
    def id(self) -> str:
        return f"{self.domain}-{self.attack.value}-{self.case.name}"

    @property
    def known_failure(self) -> str | None:
        return KNOWN_FAILURES.get((self.domain, self.case.name))


def case_module(domain: str) -> ModuleType | None:
    """The domain's module of cases, None while it has none (the completeness test then fails)."""
    name = f"{__package__}.{domain}"
    return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None


def domain_cases(domain: str) -> DomainCases:
    module = case_module(domain)
    cases: DomainCases = module.CASES if module is not None else {}
    return cases


def control_of(domain: str) -> Case:
    """The domain's positive control: its oracle with a harmless 'attack', which must Pass."""
    module = case_module(domain)
    if module is None:
        raise KeyError(f"no hostile cases for domain {domain!r}")
    control: Case = module.CONTROL
    return control


def listed_cases(domain: str) -> list[Listed]:
    return [Listed(domain, attack, case) for attack, entry in domain_cases(domain).items() for case in cases_of(entry)]


def not_applicable(domain: str) -> dict[Attack, str]:
    """The attack classes that cannot arise in the domain, with the reason."""
    return {attack: entry.reason for attack, entry in domain_cases(domain).items() if isinstance(entry, NotApplicable)}


def find_case(domain: str, attack: str, name: str) -> Listed:
    for listed in listed_cases(domain):
        if listed.attack.value == attack and listed.case.name == name:
            return listed
    raise KeyError(f"no hostile case {domain}/{attack}/{name}")
