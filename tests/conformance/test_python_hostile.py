"""Hostile Python candidates: contained, labelled, and the machine left as it was.

Most carry an oracle: they answer correctly only if the attack worked, so a contained attack shows up
as Wrong_Answer and an escape as Pass.
"""

from __future__ import annotations

import dataclasses

import json
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from ecot import sandbox
from ecot.backends.python_verdict import MEMORY_LIMIT, RUNTIME_ERROR, WRONG_ANSWER
from ecot.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome

from .common import (
    files_stay_absent,
    bundled_task,
    describe,
    evaluate,
    processes_matching,
    skip_unless_isolated,
    unique_marker,
    with_changes,
)

TASK_ID = "python/two_sum"
HANG_WALL_S = 3.0
OUTSIDE_FILES = (Path("/etc/ecot_py_pwned"), Path("/root/ecot_py_pwned"), Path.home() / "ecot_py_pwned")
SOLVE = """
def _solve(nums, target):
    first = {}
    for j, x in enumerate(nums):
        if target - x in first:
            return [first[target - x], j]
        first.setdefault(x, j)
    return []
"""


def oracle(attack: str) -> str:
    """A two_sum that is right only when `attack` (statements setting `escaped`) worked."""
    body = "\n".join("    " + line for line in attack.strip("\n").splitlines())
    return f"import os, sys, socket\n{SOLVE}\ndef two_sum(nums, target):\n    escaped = False\n{body}\n    return _solve(nums, target) if escaped else [-1]\n"


def run(candidate: str, wall_s: float | None = None, task_id: str = TASK_ID) -> Outcome:
    return evaluate(with_changes(bundled_task(task_id), wall_s=wall_s), candidate)


@pytest.fixture(autouse=True)
def _isolated() -> None:
    skip_unless_isolated()


@pytest.fixture
def outside_files_absent() -> Iterator[None]:
    with files_stay_absent(OUTSIDE_FILES):
        yield


def test_oracle_control_passes_when_the_attack_is_harmless() -> None:
    outcome = run(oracle("open('scratch.txt', 'w').write('hi')\nescaped = True"))
    assert outcome.label == PASS, describe(outcome)


def test_writes_outside_the_work_dir_do_not_reach_the_host(outside_files_absent: None) -> None:
    attack = "\n".join(f"try:\n    open({str(p)!r}, 'w').write('x'); escaped = True\nexcept OSError:\n    pass" for p in OUTSIDE_FILES)
    outcome = run(oracle(attack))
    assert outcome.label == WRONG_ANSWER, describe(outcome)


def test_secret_files_cannot_be_read() -> None:
    paths = ["/etc/shadow", "/root/.bashrc", "/root/.ssh/id_rsa", str(Path.home() / ".bash_history")]
    attack = "\n".join(f"try:\n    open({p!r}).read(1); escaped = True\nexcept OSError:\n    pass" for p in paths)
    outcome = run(oracle(attack))
    assert outcome.label == WRONG_ANSWER, describe(outcome)
    assert "root:" not in outcome.log


def test_network_is_unreachable() -> None:
    attack = ("try:\n    socket.create_connection(('1.1.1.1', 53), timeout=1).close(); escaped = True\n"
              "except OSError:\n    pass")
    outcome = run(oracle(attack))
    assert outcome.label == WRONG_ANSWER, describe(outcome)


def test_expected_outputs_cannot_be_found_from_inside() -> None:
    """Search every readable file near the work dir for the tests' expected outputs and return them."""
    candidate = """import os, json
def two_sum(nums, target):
    for root in ('.', '..', '/tmp', '/ecot', '/dev/shm'):
        for folder, _, files in os.walk(root):
            for name in files:
                try:
                    text = open(os.path.join(folder, name)).read()
                    for test in json.loads(text):
                        if test.get('input') == [nums, target] and 'output' in test:
                            return test['output']
                except Exception:
                    pass
    return [-1]
"""
    outcome = run(candidate)
    assert outcome.label == WRONG_ANSWER, describe(outcome)


def test_expected_outputs_never_enter_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spy on the candidate's sandboxed run: no file it can see holds an expected output (roman_to_int:
    the inputs are letters, the outputs numbers, so any digit run of an answer would be a leak)."""
    task = bundled_task("python/roman_to_int")
    expected = {json.dumps(t["output"]) for t in json.loads(task.files["tests.json"])}
    seen: list[str] = []
    real = sandbox.run_steps

    def spy(steps: Any, cwd: Path, *args: Any, **kwargs: Any) -> Any:
        blobs = {p.name: p.read_text(errors="replace") for p in Path(cwd).rglob("*") if p.is_file()}
        if "MARKER_CANDIDATE" in blobs.get("solution.py", ""):
            seen.append("\n".join(text for name, text in blobs.items() if name.endswith(".json")))
        return real(steps, cwd, *args, **kwargs)

    monkeypatch.setattr(sandbox, "run_steps", spy)
    candidate = (task.reference or "") + "\n# MARKER_CANDIDATE\n"
    assert evaluate(task, candidate).label == PASS
    assert seen, "the spy saw no candidate run"
    assert '"output"' not in seen[0]
    leaked = [value for value in expected if len(value) >= 2 and value in seen[0]]
    assert leaked == []


def test_forged_result_records_do_not_pass() -> None:
    """Write fake 'ok' records on every descriptor, the harness's own channel included, then leave."""
    candidate = """import os, json
def two_sum(nums, target):
    fake = ''.join(json.dumps({"kind": "test", "i": i, "status": "ok", "cpu": 0, "value": "[0, 1]"}) + "\\n" for i in range(20))
    fake += json.dumps({"kind": "done"}) + "\\n"
    for fd in range(1, 20):
        try:
            os.write(fd, fake.encode())
        except OSError:
            pass
    return [0, 1]
"""
    outcome = run(candidate)
    assert outcome.label == WRONG_ANSWER, describe(outcome)


def test_forged_records_then_exit_do_not_pass() -> None:
    candidate = """import os, json
def two_sum(nums, target):
    for fd in range(3, 20):
        try:
            os.write(fd, (json.dumps({"kind": "test", "i": 0, "status": "ok", "cpu": 0, "value": "[0, 1]"}) + "\\n").encode())
        except OSError:
            pass
    os._exit(0)
"""
    outcome = run(candidate)
    assert outcome.label != PASS, describe(outcome)


def test_fork_bomb_is_contained_quickly() -> None:
    start = time.monotonic()
    outcome = run("import os\ndef two_sum(nums, target):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n",
                  wall_s=HANG_WALL_S)
    assert outcome.label in (TIMEOUT, RUNTIME_ERROR, MEMORY_LIMIT, RESOURCE_LIMIT), describe(outcome)
    assert time.monotonic() - start < 3 * HANG_WALL_S + 5


def test_timer_killers_still_time_out_and_leave_no_process() -> None:
    """Ignore the harness's timers, spawn a sleeper, spin: the job's wall limit ends it all."""
    marker = unique_marker()
    candidate = f"""import os, signal, subprocess
def two_sum(nums, target):
    for sig in (signal.SIGPROF, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)
    subprocess.Popen(["/bin/sleep", "300", "{marker}"])
    while True:
        pass
"""
    outcome = run(candidate, wall_s=HANG_WALL_S)
    assert outcome.label == TIMEOUT, describe(outcome)
    deadline = time.monotonic() + 3.0
    while processes_matching(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_matching(marker) == []


def test_swallowed_time_limit_still_times_out() -> None:
    candidate = "def two_sum(nums, target):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass\n"
    start = time.monotonic()
    outcome = run(candidate, wall_s=HANG_WALL_S)
    assert outcome.label == TIMEOUT, describe(outcome)
    assert time.monotonic() - start < HANG_WALL_S + 5


def test_stderr_flood_is_stopped() -> None:
    candidate = "import sys\ndef two_sum(nums, target):\n    while True:\n        sys.stderr.write('E' * 65536)\n"
    start = time.monotonic()
    outcome = run(candidate)
    assert outcome.label == RESOURCE_LIMIT, describe(outcome)
    assert time.monotonic() - start < 8.0


def test_memory_hog_is_labelled_memory_limit() -> None:
    # 256 MB, not the task's 1 GB: touching 1 GB costs about 0.6 s of CPU here, too near the 1 s per-test
    # CPU limit for a slow machine, where the hog would be stopped as a Timeout first
    task = bundled_task(TASK_ID)
    task = dataclasses.replace(task, limits=task.limits.scaled(memory_mb=256))
    outcome = evaluate(task, "def two_sum(nums, target):\n    hog = []\n    while True:\n        hog.append(bytearray(1 << 24))\n")
    assert outcome.label == MEMORY_LIMIT, describe(outcome)


def test_third_party_packages_are_not_importable() -> None:
    """Candidates get the standard library only (-S): whatever the host has installed stays out."""
    outcome = run(oracle("try:\n    import numpy, pydantic\n    escaped = True\nexcept ImportError:\n    pass"))
    assert outcome.label == WRONG_ANSWER, describe(outcome)
