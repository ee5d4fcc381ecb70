"""The resident checker (`ecot checker start`) is a channel verdicts travel through. Hostile candidates
judged by it are contained as when judged directly, although there one warm process judges every
candidate in turn and rtl runs Yosys beside the simulation; and nothing in a sandbox, nor another
user, can reach its socket or be answered by it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ecot.core.outcome import PASS, Outcome
from ecot.domains import find_domain
from resident_checker import checks_served, ecot, log_of, running_checker

from ..common import FIXTURE_SUITES, bundled_task, describe, skip_unless_isolated
from .framework import Attack, Case, cases_of
from .python import TASK as PY_TASK
from .python import oracle
from .test_hostile import domain_cases

CHANNEL_DOMAINS = ("rtl", "python")


def _params() -> list[Any]:
    """Every case of these domains that runs the bundled task as it is (a changed task or a shorter wall
    limit cannot be given on the command line)."""
    return [
        pytest.param(domain, attack, case, id=f"{domain}-{attack.value}-{case.name}")
        for domain in CHANNEL_DOMAINS
        for attack, entry in domain_cases(domain).items()
        for case in cases_of(entry)
        if not case.options and case.wall_s is None
    ]


@pytest.fixture(scope="module")
def resident(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    skip_unless_isolated()
    if shutil.which("iverilog") is None or shutil.which("yosys") is None:
        pytest.skip("the rtl toolchain (iverilog, yosys) is missing")
    with running_checker(tmp_path_factory.mktemp("channel")) as env:
        yield env


def judged(env: dict[str, str], task_id: str, candidate: str, folder: Path) -> Outcome:
    """`ecot check TASK FILE --json` in a fresh process, answered by the resident checker (a task of a
    fixture suite is named by its folder)."""
    path = folder / f"candidate{find_domain(bundled_task(task_id).domain).suffix}"
    path.write_text(candidate, encoding="utf-8")
    prefix, name = task_id.split("/", 1)
    task = str(FIXTURE_SUITES[prefix] / name) if prefix in FIXTURE_SUITES else task_id
    done = ecot(["check", task, str(path), "--json"], env, timeout=300)
    assert done.returncode in (0, 1), f"ecot check failed: {done.stderr[-2000:]}"
    return Outcome.from_dict(json.loads(done.stdout))


@pytest.mark.parametrize(("domain", "attack", "case"), _params())
def test_attack_is_contained_through_the_resident_checker(resident: dict[str, str], tmp_path: Path, domain: str,
                                                          attack: Attack, case: Case) -> None:
    before = checks_served(resident)
    with case.host():
        outcome = judged(resident, case.task_id, case.candidate, tmp_path)
        if case.then is not None:
            outcome = judged(resident, case.task_id, case.then, tmp_path)
    assert checks_served(resident) == before + (1 if case.then is None else 2), "a check bypassed the resident checker"
    assert case.contained(outcome), f"{domain} / {attack.value} / {case.name} escaped: {describe(outcome)}"


def reach_socket(path: str) -> str:
    """A candidate (run by the checker itself) that is right only if it reached the checker's socket, at
    the path it really has or at the default places, and got an answer to a status request."""
    places = [path, f"/tmp/ecot-{os.getuid()}/checker.sock", f"/run/user/{os.getuid()}/ecot/checker.sock"]
    return oracle(f"""
import marshal, socket
for place in {places!r}:
    try:
        link = socket.socket(socket.AF_UNIX)
        link.connect(place)
        request = marshal.dumps({{"op": "status"}})
        link.sendall(len(request).to_bytes(4, "big") + request)
        escaped = escaped or bool(link.recv(4))
    except OSError:
        pass
""")


def test_a_candidate_cannot_reach_the_checker_that_judges_it(resident: dict[str, str], tmp_path: Path) -> None:
    outcome = judged(resident, PY_TASK, reach_socket(resident["ECOT_CHECKER_SOCKET"]), tmp_path)
    assert outcome.label != PASS, f"a sandboxed candidate talked to the resident checker: {describe(outcome)}"
    control = judged(resident, PY_TASK, oracle("escaped = True"), tmp_path)
    assert control.label == PASS, f"the oracle itself is broken: {describe(control)}"


PEER = """
import marshal, socket, sys
link = socket.socket(socket.AF_UNIX)
try:
    link.connect(sys.argv[1])
except PermissionError:
    print("no entry")
    raise SystemExit
request = marshal.dumps({"op": "status"})
try:
    link.sendall(len(request).to_bytes(4, "big") + request)
    print(f"answered {len(link.recv(1 << 16))} bytes")
except (BrokenPipeError, ConnectionResetError):  # hung up on before the request was even read
    print("answered 0 bytes")
"""


def test_another_user_is_kept_out_and_never_answered() -> None:
    python = "/usr/bin/python3"
    if os.getuid() != 0 or not os.path.exists(python):
        pytest.skip("acting as another user needs root and a system python3 any user can run")
    skip_unless_isolated()
    outer = Path(tempfile.mkdtemp(prefix="ecot-peer-", dir="/tmp"))  # others may pass through, not list
    outer.chmod(0o711)
    try:
        with running_checker(outer) as env:
            socket = Path(env["ECOT_CHECKER_SOCKET"])

            def as_nobody() -> str:
                return subprocess.run([python, "-I", "-c", PEER, str(socket)], capture_output=True, text=True, timeout=30,
                                      cwd="/", preexec_fn=lambda: os.setuid(65534), check=True).stdout.strip()

            assert as_nobody() == "no entry"  # the checker's folder (0700) keeps everyone else out
            socket.parent.chmod(0o711)  # opened up by mistake: the checker must still answer only its own user
            socket.chmod(0o666)
            try:
                assert as_nobody() == "answered 0 bytes"
            finally:
                socket.chmod(0o600)
                socket.parent.chmod(0o700)
            assert checks_served(env) == 0
            assert "refused a connection from pid" in log_of(env) and "with uid 65534" in log_of(env)
    finally:
        shutil.rmtree(outer, ignore_errors=True)
