"""Hostile asm candidates: contained, labelled, and the machine left as it was.

The payloads are written in C and turned into the candidate assembly by gcc -S on the host (only
compiled here, never run here). Most carry an oracle: they return the right answer only if the
attack worked, so a contained attack shows up as a failing verdict and an escape as Pass.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from ecot import sandbox
from ecot.backends.asm import ASSEMBLY_ERROR, OUTPUT_MISMATCH, RUNTIME_ERROR
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

OUTSIDE_FILES = (Path("/etc/ecot_asm_pwned"), Path("/root/ecot_asm_pwned"), Path.home() / "ecot_asm_pwned")
HANG_WALL_S = 3.0
HEAD = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <fcntl.h>\n"
ORACLE = "long popcount64(unsigned long x) {{\n    int escaped = 0;\n{attack}    return escaped ? __builtin_popcountl(x) : 0;\n}}\n"


def c_to_asm(source: str) -> str:
    """Compile a C payload to the assembly a candidate would submit."""
    flags = ["-O1", "-S", "-fno-asynchronous-unwind-tables", "-fcf-protection=none", "-fno-stack-protector", "-fno-pie"]
    proc = subprocess.run(["gcc", *flags, "-x", "c", "-", "-o", "-"], input=HEAD + source, capture_output=True, text=True, check=True)
    return proc.stdout


def run(source: str, task_id: str = "asm/popcount64", wall_s: float | None = None, **options: Any) -> Outcome:
    task = with_changes(bundled_task(task_id), {"speed": "off", **options}, wall_s)
    return evaluate(task, c_to_asm(source))


@pytest.fixture(autouse=True)
def _isolated() -> None:
    skip_unless_isolated()


@pytest.fixture
def outside_files_absent() -> Iterator[None]:
    with files_stay_absent(OUTSIDE_FILES):
        yield


def test_oracle_control_passes_when_the_attack_is_harmless() -> None:
    attack = '    int fd = open("scratch.txt", O_CREAT | O_WRONLY, 0600);\n    if (fd >= 0) { escaped = 1; close(fd); }\n'
    outcome = run(ORACLE.format(attack=attack))
    assert outcome.label == PASS, describe(outcome)


def test_writes_outside_the_work_dir_do_not_reach_the_host(outside_files_absent: None) -> None:
    attack = "".join(
        f'    {{ int fd = open("{p}", O_CREAT | O_WRONLY, 0644); if (fd >= 0) {{ escaped = 1; close(fd); }} }}\n'
        for p in OUTSIDE_FILES
    )
    outcome = run(ORACLE.format(attack=attack))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


def test_secret_files_cannot_be_read() -> None:
    attack = "".join(
        f'    {{ int fd = open("{p}", O_RDONLY); if (fd >= 0) {{ escaped = 1; close(fd); }} }}\n'
        for p in ("/etc/shadow", "/root/.bashrc", "/root/.ssh/id_rsa", str(Path.home() / ".bash_history"))
    )
    outcome = run(ORACLE.format(attack=attack))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


@pytest.mark.parametrize("directive", ['.incbin "/etc/shadow"', '.include "/etc/passwd"', '.incbin "/root/.bashrc"'])
def test_assembler_cannot_pull_in_host_files(directive: str) -> None:
    task = with_changes(bundled_task("asm/popcount64"), {"speed": "off"})
    outcome = evaluate(task, f"\t.data\n{directive}\n" + (task.reference or ""))
    assert outcome.label == ASSEMBLY_ERROR, describe(outcome)
    assert "root:" not in outcome.log


def test_network_is_unreachable() -> None:
    attack = (
        "    struct { unsigned short family, port; unsigned addr; char zero[8]; } sa = {2, 0x3500, 0x01010101, {0}};\n"
        "    int fd = socket(2, 1, 0);\n"
        "    if (fd >= 0 && connect(fd, (void *)&sa, sizeof sa) == 0) escaped = 1;\n"
    )
    outcome = run("int socket(int, int, int); int connect(int, const void *, unsigned);\n" + ORACLE.format(attack=attack))
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


def test_fork_bomb_is_contained_quickly() -> None:
    start = time.monotonic()
    outcome = run("long popcount64(unsigned long x) { for (;;) fork(); return 0; }", wall_s=HANG_WALL_S)
    assert outcome.label in (TIMEOUT, RUNTIME_ERROR, RESOURCE_LIMIT, OUTPUT_MISMATCH), describe(outcome)
    assert time.monotonic() - start < 3 * HANG_WALL_S + 5


def test_endless_loop_times_out_and_leaves_no_process() -> None:
    marker = unique_marker()
    source = (
        "long popcount64(unsigned long x) {\n"
        f'    if (fork() == 0) {{ execl("/bin/sleep", "sleep", "300", "{marker}", (char *)0); _exit(0); }}\n'
        "    for (;;) { __asm__ volatile(\"\"); }\n    return 0;\n}\n"
    )
    outcome = run(source, wall_s=HANG_WALL_S)
    assert outcome.label == TIMEOUT, describe(outcome)
    deadline = time.monotonic() + 3.0
    while processes_matching(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_matching(marker) == []


def test_output_flood_is_stopped() -> None:
    source = 'long popcount64(unsigned long x) { static char b[65536]; memset(b, 65, sizeof b); for (;;) write(1, b, sizeof b); }'
    start = time.monotonic()
    outcome = run(source)
    assert outcome.label == RESOURCE_LIMIT, describe(outcome)
    assert time.monotonic() - start < 8.0


def test_memory_hog_is_contained() -> None:
    source = ("long popcount64(unsigned long x) {\n    for (;;) { char *p = malloc(1 << 26); if (!p) return -1; memset(p, 1, 1 << 26); }\n}\n")
    start = time.monotonic()
    outcome = run(source)
    assert outcome.label in (OUTPUT_MISMATCH, RUNTIME_ERROR, RESOURCE_LIMIT), describe(outcome)
    assert time.monotonic() - start < 15.0


def test_forged_output_lines_do_not_pass() -> None:
    """The verdict compares output lines on the host; lines the program writes itself must be right."""
    source = ('unsigned long djb2(const char *s) {\n    static const char lines[] = "0\\n1\\n5381\\n";\n'
              "    for (int i = 0; i < 400; i++) write(1, lines, sizeof lines - 1);\n    _exit(0);\n}\n")
    outcome = run(source, task_id="asm/djb2")
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)


def test_forged_harness_markers_do_not_pass() -> None:
    source = ('long popcount64(unsigned long x) {\n    static const char m[] = "\\n@ECOT-TIMEOUT case=0\\n";\n'
              "    write(2, m, sizeof m - 1);\n    return 0;\n}\n")
    outcome = run(source)
    assert outcome.label != PASS, describe(outcome)


def test_expected_outputs_never_enter_the_candidates_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spy on every sandboxed step that runs the candidate: no file, argument or input it can see holds
    an expected output of the task (djb2 hashes are long, distinctive numbers)."""
    task = with_changes(bundled_task("asm/djb2"), {"speed": "off"})
    expected = [str(_djb2(line)) for line in task.files["tests.txt"].splitlines() if len(line) > 4]
    seen: list[str] = []
    real = sandbox.run_steps

    def spy(steps: Any, cwd: Path, *args: Any, **kwargs: Any) -> Any:
        if any("./prog" in " ".join(step.argv) for step in steps):
            seen.extend(p.read_bytes().decode("latin-1") for p in Path(cwd).rglob("*") if p.is_file())
            seen.extend(" ".join(step.argv) + (step.stdin or b"").decode("latin-1") for step in steps)
        return real(steps, cwd, *args, **kwargs)

    monkeypatch.setattr(sandbox, "run_steps", spy)
    outcome = evaluate(task, task.reference or "")
    assert outcome.label == PASS, describe(outcome)
    assert seen, "the spy saw no candidate run"
    leaked = [value for value in expected if any(value in blob for blob in seen)]
    assert leaked == []


def _djb2(text: str) -> int:
    value = 5381
    for byte in text.encode():
        value = (value * 33 + byte) % 2**64
    return value
