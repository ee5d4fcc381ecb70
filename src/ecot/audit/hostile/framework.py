"""The cross-domain hostile conformance suite: one list of attack classes, run against every backend.

Each domain supplies, in `hostile/<domain>.py`, a `CASES` mapping from every `Attack` to one or more
`Case`s (a candidate written the way that domain's hostile candidate would write it, and what counts
as contained) or to `NotApplicable` with the reason the class cannot arise there. runner.py judges
every (domain, attack) pair, for tests/conformance/hostile/test_hostile.py and for `ecot audit hostile`;
a domain that leaves an attack out fails the completeness test.

Most cases are oracles: the candidate is right only if its attack worked, so a contained attack shows
up as a failing label and an escape as Pass. A `Case` with `then` runs a second, wrong candidate in the
same worker right after the hostile one: the second must still fail (no state survives a job). A `Case`
with `twin` also runs an honest candidate doing what the attack imitates, under the same task and
options: it must Pass, so the check that contains the attack is not one that fails everything.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import Enum

from ecot.core.outcome import PASS, Outcome


class Attack(str, Enum):  # noqa: UP042 -- StrEnum would change str() of the members that ids print
    """What a candidate optimised for Pass tries. The first group was found by hostile testing (the
    cases reproducing those findings are test_hostile.FINDINGS); the second was contained before."""

    TAKEOVER = "takeover"  # ptrace, /proc/<pid>/mem or signals against the process that judges it
    LINK_RACE = "link_race"  # an output swapped for a link or pipe to a host file between check and open
    READ_REFERENCE = "read_reference"  # the task's reference, expected outputs, other tasks, bundled suites
    FORGE_CHANNEL = "forge_channel"  # writes into the harness's own result channel (fds, status lines)
    INSTRUMENTATION = "instrumentation"  # switches off what counts or times it (valgrind requests, timers)
    HIDE_FROM_CHECKS = "hide_from_checks"  # a construct that makes a static check skip instead of fail
    EARLY_EXIT = "early_exit"  # ends the run before the expected samples/tests ran, so a summary looks clean
    DISK_FILL = "disk_fill"  # writes past the job's writable space
    PERSIST = "persist"  # leaves something behind that changes the verdict of a later candidate
    FORK_BOMB = "fork_bomb"
    MEMORY_BOMB = "memory_bomb"
    ENDLESS_LOOP = "endless_loop"
    OUTPUT_FLOOD = "output_flood"
    NETWORK = "network"
    READ_SECRETS = "read_secrets"  # host files (/etc/shadow, /root) and the host's environment
    WRITE_OUTSIDE = "write_outside"  # files outside the work dir
    FORGED_PRINT = "forged_print"  # prints imitating a passing summary ("PASS", "Mismatches: 0")
    SHORTCUT = "shortcut"  # an answer that passes a fixed comparison without doing the work: zeros or a constant,
    # the input itself, a result cached from an earlier call, a write into the input, only the sizes it was shown


def not_pass(outcome: Outcome) -> bool:
    return outcome.label != PASS


def label_in(*labels: str) -> Callable[[Outcome], bool]:
    def check(outcome: Outcome) -> bool:
        return outcome.label in labels

    check.__name__ = f"label in {labels}"
    return check


# What no stored or printed text may hold (issue 26): control characters but newline and tab (ESC starts
# the escape sequences that rewrite a terminal), lone surrogates (no UTF-8 encoder takes them) and
# bidirectional overrides. Written here independently of ecot's own cleaner.
_UNSAFE_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def texts_of(outcome: Outcome) -> list[str]:
    return [outcome.label, outcome.diagnostic, outcome.log, *outcome.tool_versions.values(), *outcome.tool_versions,
            *outcome.metrics, *(v for v in outcome.metrics.values() if isinstance(v, str))]


def cleaned(check: Callable[[Outcome], bool]) -> Callable[[Outcome], bool]:
    """`check`, and every text of the outcome is clean: what a candidate wrote reached none raw."""

    def both(outcome: Outcome) -> bool:
        return check(outcome) and not any(_UNSAFE_TEXT.search(text) for text in texts_of(outcome))

    both.__name__ = f"{getattr(check, '__name__', 'check')} with clean text"
    return both


@contextlib.contextmanager
def nothing() -> Iterator[None]:
    yield


@dataclass(frozen=True)
class Case:
    """One hostile candidate for one task, and what counts as contained."""

    name: str
    task_id: str
    candidate: str
    contained: Callable[[Outcome], bool] = not_pass  # judged on `then`'s outcome when `then` is set
    then: str | None = None  # a wrong candidate run next in the same worker
    wall_s: float | None = None  # a shorter limit for candidates that hang
    options: Mapping[str, object] = field(default_factory=dict)
    host: Callable[[], AbstractContextManager[None]] = nothing  # host-side check around the run (files, processes)
    twin: str | None = None  # an honest candidate under the same task and options: it must Pass


@dataclass(frozen=True)
class NotApplicable:
    """Why an attack class cannot arise in a domain (kept short and checkable)."""

    reason: str


Entry = Case | Sequence[Case] | NotApplicable
DomainCases = Mapping[Attack, Entry]


def cases_of(entry: Entry) -> list[Case]:
    if isinstance(entry, NotApplicable):
        return []
    return [entry] if isinstance(entry, Case) else list(entry)
