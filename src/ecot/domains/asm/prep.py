"""Per-task state of the asm backend: options, and the compiled driver and -O3 baseline program.

The driver object, the libc members it needs and the baseline program are built once per task and
process (in the sandbox: bundles may come from imported files) and copied into each evaluation's
work dir as bytes. Every program is linked statically by asm_link.py, with the harness's entry
point, which installs the system-call filter of asm_seccomp.py.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ecot import sandbox
from ecot.core.task import Task
from ecot.domains.asm import link as asm_link
from ecot.domains.asm.driver import HARNESS_H, HEADER_NAME
from ecot.domains.asm.elf import check_program
from ecot.domains.asm.options import AsmOptions

SOLUTION = "solution.s"
SPEED_SEED = 1  # the speed workload is the same for every candidate, so the baseline count is cached
PAST_END = "ecot_past_end"
# Linked right after the candidate: code that runs off its end (a missing ret) traps here at once
# instead of falling into whatever the linker placed next.
GUARD_S = f".text\n.globl {PAST_END}\n.type {PAST_END}, @function\n{PAST_END}:\n\tud2\n\tud2\n.section .note.GNU-stack,\"\",@progbits\n"
DRIVER_FLAGS = ("-O2", "-w", "-fno-pie")
OBJECT_BYTES = 64 << 20  # the most the host reads back of an object or program


@dataclass
class Prepared:
    """Built once per task: the driver object and the baseline program, plus lazily measured facts."""

    driver_o: bytes
    guard_o: bytes
    libs_o: bytes  # the libc members the start files and the driver need (asm_link.py)
    base_prog: bytes
    base_instructions: int | None = None  # callgrind count inside the function, speed workload
    base_overhead: int | None = None  # the rest of the baseline program's count (driver, libc, loader)
    speed_expected: list[str] | None = None  # baseline output on the speed workload
    bench_reps: int | None = None


def task_key(task: Task) -> str:
    body = json.dumps([task.id, dict(task.files), dict(task.options), HARNESS_H], sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()


def candidate_seed(task: Task, candidate: str) -> int:
    """Random inputs depend on the candidate itself: repeatable, yet unknowable while writing it."""
    digest = hashlib.sha256(f"{task.id}\x1f{candidate}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def build(task: Task, spec: AsmOptions) -> Prepared:
    """Compile the driver and link the -O3 baseline with it; a failure is the bundle's fault."""
    tools = asm_link.toolchain(task.limits)
    with sandbox.workdir("ecot-asm-prep-") as work:
        sandbox.write_files(work, {"driver.c": task.files[spec.driver], HEADER_NAME: HARNESS_H,
                                   "baseline.s": task.files[spec.baseline], "guard.s": GUARD_S})
        steps = [
            sandbox.Step(["gcc", *DRIVER_FLAGS, "-c", "-o", "driver.o", "driver.c"]),
            sandbox.Step(["as", "--64", "-o", "guard.o", "guard.s"]),
            sandbox.Step(["as", "--64", "-g", "-o", "baseline.o", "baseline.s"]),
        ]
        _steps_or_raise(task, steps, work)
        driver_o, guard_o = _read(task, work, "driver.o"), _read(task, work, "guard.o")
        libs_o = asm_link.libs_object(tools, [driver_o, guard_o], spec.function, task.limits)
        (work / asm_link.LIBS).write_bytes(libs_o)
        link = asm_link.link_argv(tools, ["driver.o", "baseline.o", "guard.o"], "base")
        _steps_or_raise(task, [sandbox.Step(link)], work)
        base = _read(task, work, "base")
    problem = check_program(base)
    if problem is not None:
        raise RuntimeError(f"task {task.id}: the linked baseline program has {problem.what}")
    return Prepared(driver_o=driver_o, guard_o=guard_o, libs_o=libs_o, base_prog=base)


def _steps_or_raise(task: Task, steps: list[sandbox.Step], work: Path) -> None:
    results = sandbox.run_steps(steps, work, task.limits)
    failed = next((r for r in results if not r.ok), None)
    if failed is not None or len(results) < len(steps):
        log = failed.output if failed else ""
        raise RuntimeError(f"task {task.id}: the bundled driver or baseline does not build: {log[:2000]}")


def _read(task: Task, work: Path, name: str) -> bytes:
    data = sandbox.read_job_file(work, name, OBJECT_BYTES)
    if data is None:
        raise RuntimeError(f"task {task.id}: building the driver left no {name}")
    return data


def place_program(work: Path, name: str, data: bytes) -> None:
    """Write a program the host has checked into a work dir, read-only for everyone (0555): the
    system-call filter forbids chmod, so nothing running there can rewrite it. O_EXCL|O_NOFOLLOW:
    the host never writes through a name something else created first."""
    fd = os.open(work / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o555)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def link_inputs(work: Path, built: Prepared) -> None:
    """The trusted objects a candidate's program is linked from, into a fresh work dir."""
    for name, data in (("driver.o", built.driver_o), ("guard.o", built.guard_o), (asm_link.LIBS, built.libs_o)):
        fd = os.open(work / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)


def run_argv(program: str, seed: int, count: int, show: bool, timeout_ms: int) -> list[str]:
    return [f"./{program}", "run", str(seed), str(count), "1" if show else "0", str(timeout_ms)]


def bench_argv(program: str, seed: int, count: int, reps: int) -> list[str]:
    return [f"./{program}", "bench", str(seed), str(count), str(reps)]


def timeout_ms(task: Task) -> int:
    """The driver's own alarm fires a little before the sandbox's wall limit, naming the case."""
    return max(200, int(task.limits.wall_s * 1000 * 0.9) - 100)


def reference_outputs(
    task: Task, spec: AsmOptions, prep: Prepared, seed: int, count: int, tests: str | None = None
) -> tuple[list[str], list[str], float | None]:
    """(expected output lines, input descriptions, the run's CPU seconds) of the fixed cases (or `tests`)
    plus `count` random ones, from the baseline program in its own work dir, so nothing of it reaches the
    candidate's run."""
    from ecot.domains.asm.logs import output_lines

    with sandbox.workdir("ecot-asm-ref-") as work:
        place_program(work, "base", prep.base_prog)
        argv = run_argv("base", seed, count, True, timeout_ms(task))
        stdin = task.files[spec.tests] if tests is None else tests
        result = sandbox.run(argv, work, task.limits, stdin=stdin.encode())
    if not result.ok:
        raise RuntimeError(f"task {task.id}: the baseline program failed on seed {seed}: {result.output[-2000:]}")
    expected, inputs = output_lines(result.stdout), output_lines(result.stderr)
    if len(expected) != len(inputs):
        raise RuntimeError(f"task {task.id}: the driver printed {len(expected)} outputs for {len(inputs)} inputs")
    return expected, inputs, result.cpu_s
