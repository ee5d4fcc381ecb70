"""Cases every Python-executing domain shares (cad, gpu): the attack bodies of pyattacks.py wrapped in
the domain's oracle, plus the host-side checks that go with them."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from ecot.core.outcome import PASS, Outcome

from ..common import files_stay_absent, no_process_left, unique_marker
from . import pyattacks
from .framework import Attack, Case

Oracle = Callable[[str], str]
OUTSIDE = (Path("/etc/ecot_hostile_pwned"), Path("/usr/ecot_hostile_pwned"), Path.home() / "ecot_hostile_pwned")


def not_pass(outcome: Outcome) -> bool:
    return outcome.label != PASS


def outside_files_absent() -> contextlib.AbstractContextManager[None]:
    return files_stay_absent(OUTSIDE)


def shared_cases(task_id: str, oracle: Oracle, wrong: str, plain: Callable[[str], str]) -> dict[Attack, list[Case]]:
    """plain(statements): a candidate that runs the statements and otherwise fails."""
    marker = unique_marker()
    # the marker is the sleeper's argv[0] (sleep refuses an extra operand: it would exit at once and leave nothing
    # to find); it lets go of the job's output, so the job ends when its code does
    leftover = (f"import subprocess\nsubprocess.Popen(['{marker}', '600'], executable='sleep', start_new_session=True,\n"
                "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n" + pyattacks.PLANT)
    return {
        Attack.TAKEOVER: [Case("ptrace-or-mem-of-any-other-process", task_id, oracle(pyattacks.TAKEOVER))],
        Attack.READ_REFERENCE: [Case("bundled-suites", task_id, oracle(pyattacks.READ_REFERENCE))],
        Attack.DISK_FILL: [Case("two-gib-of-files", task_id, oracle(pyattacks.DISK_FILL), wall_s=60.0)],
        Attack.PERSIST: [
            Case("takeover-then-wrong-answer", task_id, oracle(pyattacks.TAKEOVER), then=wrong),
            Case("planted-marker-found-later", task_id, plain(leftover), then=oracle(pyattacks.FIND_PLANTED),
                 host=no_process_left(marker, grace_s=0.3)),
            Case("counter-in-sysv-shm", task_id, plain(pyattacks.SYSV_COUNTER), then=oracle(pyattacks.FIND_SYSV_COUNTER)),
        ],
        Attack.FORK_BOMB: [Case("fork-loop", task_id, plain(pyattacks.FORK_BOMB), wall_s=5.0)],
        Attack.MEMORY_BOMB: [Case("256-gib", task_id, plain(pyattacks.MEMORY_BOMB))],
        Attack.ENDLESS_LOOP: [Case("busy-loop", task_id, plain(pyattacks.ENDLESS_LOOP), wall_s=3.0)],
        Attack.OUTPUT_FLOOD: [Case("stdout-flood", task_id, plain(pyattacks.OUTPUT_FLOOD), wall_s=10.0)],
        Attack.NETWORK: [Case("connect-out", task_id, oracle(pyattacks.NETWORK))],
        Attack.READ_SECRETS: [Case("host-files-and-environment", task_id, oracle(pyattacks.READ_SECRETS))],
        Attack.WRITE_OUTSIDE: [Case("etc-usr-home", task_id, oracle(pyattacks.write_outside(list(OUTSIDE))),
                                    host=outside_files_absent)],
    }


def forged_fds(record: str) -> str:
    """Statements writing record (a line) to every descriptor above stderr: whatever channel a harness
    kept for its results receives the forgery."""
    return (f"import os\nfor _fd in range(3, 256):\n    try:\n        os.write(_fd, {record!r}.encode())\n"
            f"    except OSError:\n        pass\n")
