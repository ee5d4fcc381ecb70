"""Speed of a passing asm candidate against the gcc -O3 baseline: callgrind instruction counts
(deterministic, the headline metric) and wall time of repeated runs (noisy, for reference).

Both measure the program bytes the host read and checked right after linking (asm_elf.py), written
read-only into a fresh work dir that no candidate process has seen: nothing an earlier run of the
candidate left behind (a `.valgrindrc`, a planted output file, a rewritten program) reaches them.

Instructions: callgrind counts the whole program on a fixed workload (`speed_cases` random cases
from a fixed seed). The driver's share is the same for every correct
candidate, so the function's count is the candidate's total minus the baseline's driver overhead
(the baseline's total minus its count with `--toggle-collect` on the function). Counting the whole
program keeps work done in constructors, helpers or tail-jumped code on the candidate's bill.
The count is read from the file callgrind itself wrote (opened without following links): under the
program's system-call filter no process of the candidate outlives or forks beside valgrind, and
the only open it allows truncates that file, which valgrind then rewrites whole (asm_seccomp.py).
`--vgdb=no`: no gdbserver FIFOs through which a program could send callgrind monitor commands.
The counted run's output is checked too: a candidate wrong on those inputs fails after all.

Wall time: the baseline and the candidate each run a workload drawn from a fresh seed per
evaluation many times, then print their results once; the candidate's lines must equal the
baseline's, so a program that exits early or skips the work cannot look fast.
"""

from __future__ import annotations

import secrets
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.domains.asm import logs, prep
from ecot.domains.asm.domain import AsmLabel
from ecot.domains.asm.elf import FORBIDDEN_CODE, code_ranges
from ecot.domains.asm.options import AsmOptions

OUTPUT_MISMATCH = AsmLabel.OUTPUT_MISMATCH.value
BENCH_ROUNDS = 3
CALIBRATION_REPS = 8
CALLGRIND_BYTES = 16 << 20


def measure(task: Task, spec: AsmOptions, built: prep.Prepared, program: bytes, passed: Outcome) -> Outcome:
    """`program`: the candidate's linked program as the host read it before it ever ran."""
    metrics: dict[str, Any] = dict(passed.metrics)
    notes: list[str] = []
    problem: Outcome | None = None
    if spec.counts_instructions() and shutil.which("valgrind") is None:
        notes.append("valgrind is not installed: no instruction counts (install the Debian package valgrind)")
    elif spec.counts_instructions():
        problem = _instructions(task, spec, built, program, metrics, notes)
    if problem is None and spec.times_wall():
        problem = _wall(task, spec, built, program, metrics, notes)
    if problem is not None:
        return problem
    return replace(passed, diagnostic=_summary(spec, passed.diagnostic, metrics), metrics=metrics,
                   log=passed.log + "".join(f"\n[ecot] {n}" for n in notes))


def _summary(spec: AsmOptions, said: str, metrics: dict[str, Any]) -> str:
    if "speedup" in metrics:
        ratio, mine, base = metrics["speedup"], metrics["instructions"], metrics["baseline_instructions"]
        counts = f"{mine} instructions vs {base} on the speed workload"
    elif "wall_speedup" in metrics:
        ratio, counts = metrics["wall_speedup"], "wall time of repeated runs"
    else:
        return said
    metrics["slower"] = ratio < 0.995
    if ratio < 0.995:
        return f"{said}; correct but slower than gcc -O3: {ratio:.2f}x ({counts})"
    if ratio <= 1.005:
        return f"{said}; as fast as gcc -O3 ({counts})"
    return f"{said}; {ratio:.2f}x faster than gcc -O3 ({counts})"


# -- callgrind -------------------------------------------------------------------------------------
def _callgrind(task: Task, spec: AsmOptions, program: bytes) -> tuple[str | None, sandbox.ExecResult]:
    """Count a static program under callgrind in a fresh work dir: the text of the file callgrind
    wrote (None if the run failed) and the run's result. Static linking skips the dynamic loader,
    which would cost valgrind four times as long and add instructions unrelated to the function."""
    out = f"cg_{secrets.token_hex(8)}.out"  # fixed length: the name shows in the start-up code's count
    # no address-space randomization: it moves the stack and changes the startup code's count by a few
    argv = ["setarch", "x86_64", "-R", "valgrind", "--tool=callgrind", "--vgdb=no", f"--callgrind-out-file={out}",
            "--dump-line=no", "--dump-instr=no", "--compress-strings=no", "--compress-pos=no"]
    # random cases only (stdin empty): heavy fixed cases, there to reach corner values, would only slow
    # callgrind down; a fixed HOME: the environment's size shows up in the startup code's count
    argv += prep.run_argv("counted", prep.SPEED_SEED, spec.speed_cases, False, 0)
    # the same work dir prefix for baseline and candidate: the path's length shows in the count too
    with sandbox.workdir("ecot-asm-") as work:
        prep.place_program(work, "counted", program)
        result = sandbox.run(argv, work, task.limits, stdin=b"", env={"HOME": "/tmp"}, proc_fs=True)
        data = sandbox.read_job_file(work, out, CALLGRIND_BYTES) if result.ok else None
    if data is not None and len(data) >= CALLGRIND_BYTES:
        data = None  # cut short, its end could hide code that ran outside the program: no count
    return (data.decode(errors="replace") if data else None), result


def _baseline_counts(task: Task, spec: AsmOptions, built: prep.Prepared) -> tuple[int, int]:
    """(instructions inside the function, the rest of the program) of the baseline, once per task."""
    if built.base_instructions is None or built.base_overhead is None:
        expected, _, _ = prep.reference_outputs(task, spec, built, prep.SPEED_SEED, spec.speed_cases, tests="")
        text, result = _callgrind(task, spec, built.base_prog)
        total = logs.callgrind_total(text) if text else None
        inside = logs.callgrind_inclusive(text, spec.function) if text else None
        if total is None or inside is None:
            raise RuntimeError(f"callgrind failed on the baseline of {task.id}: {result.output[-1500:]}")
        foreign = logs.foreign_code(text or "", code_ranges(built.base_prog))
        if foreign is not None:
            raise RuntimeError(f"the baseline of {task.id} ran code at {foreign:#x}, outside its segments")
        built.speed_expected = expected
        built.base_instructions, built.base_overhead = inside, total - inside
    return built.base_instructions, built.base_overhead


def _instructions(
    task: Task, spec: AsmOptions, built: prep.Prepared, program: bytes, metrics: dict[str, Any], notes: list[str]
) -> Outcome | None:
    base_inside, overhead = _baseline_counts(task, spec, built)
    text, result = _callgrind(task, spec, program)
    total = logs.callgrind_total(text) if text else None
    if total is None:
        notes.append(f"callgrind could not count the candidate's instructions: {result.output.strip()[-300:]}")
        return None
    diff = logs.first_difference(built.speed_expected or [], logs.output_lines(result.stdout))
    if diff is not None:
        got = "no output" if diff.got is None else logs.clip(diff.got)
        what = (f"on the speed workload (fixed seed {prep.SPEED_SEED}), case {diff.index}: `{spec.function}` "
                f"returned {got}, expected {logs.clip(diff.expected)}")
        return Outcome(OUTPUT_MISMATCH, what, logs.clip(result.output, 4000), {**metrics, "first_mismatch": diff.index})
    untrusted = _untrusted(text or "", total - overhead, program, spec)
    if untrusted is not None:
        return Outcome(FORBIDDEN_CODE, untrusted, logs.clip(result.output, 4000), metrics)
    mine = total - overhead
    metrics.update(instructions=mine, baseline_instructions=base_inside, speedup=round(base_inside / mine, 3))
    return None


def _untrusted(text: str, mine: int, program: bytes, spec: AsmOptions) -> str | None:
    """Why a count cannot be the program's own work: code ran outside the program (made at run time,
    where a client request can hide; the filter keeps it far from the program's own code), or fewer
    instructions than calls were counted (counting was switched off)."""
    foreign = logs.foreign_code(text, code_ranges(program))
    if foreign is not None:
        return (f"the program ran code at {foreign:#x}, outside its own code (written at run time?): code made at "
                "run time can switch the instruction count off, so the count is not trusted")
    if mine < spec.speed_cases:
        return (f"callgrind counted {mine} instructions beyond the driver's own for {spec.speed_cases} calls of "
                f"`{spec.function}`, fewer than one per call: counting was switched off")
    return None


# -- wall time -------------------------------------------------------------------------------------
def _bench_step(program: str, spec: AsmOptions, seed: int, reps: int) -> sandbox.Step:
    return sandbox.Step(prep.bench_argv(program, seed, spec.speed_cases, reps))


def _reps(task: Task, spec: AsmOptions, built: prep.Prepared, work: Path) -> int:
    """Repetitions that make one baseline run last about bench_ms (calibrated once per task)."""
    if built.bench_reps is None:
        runs = sandbox.run_steps([_bench_step("base", spec, prep.SPEED_SEED, CALIBRATION_REPS)] * 2, work, task.limits)
        seconds = max(min(r.wall_s for r in runs) - 0.001, 1e-5)
        built.bench_reps = int(min(max(CALIBRATION_REPS * spec.bench_ms / 1000 / seconds, 1), 1_000_000))
    return built.bench_reps


def _wall(
    task: Task, spec: AsmOptions, built: prep.Prepared, program: bytes, metrics: dict[str, Any], notes: list[str]
) -> Outcome | None:
    seed = 2 + secrets.randbelow(1 << 62)  # a workload nobody could have computed results for in advance
    base_times: list[float] = []
    prog_times: list[float] = []
    with sandbox.workdir("ecot-asm-bench-") as work:
        prep.place_program(work, "base", built.base_prog)
        prep.place_program(work, "prog", program)
        reps = _reps(task, spec, built, work)
        for round_index in range(BENCH_ROUNDS):
            steps = [_bench_step("base", spec, seed, reps), _bench_step("prog", spec, seed, reps)]
            runs = sandbox.run_steps(steps, work, task.limits)
            if len(runs) < 2 or not runs[1].ok:
                notes.append("the candidate failed or timed out in the wall-time benchmark; no wall time reported")
                return None
            wrong = _bench_mismatch(spec, seed, runs[0], runs[1], metrics)
            if wrong is not None:
                return wrong
            base_times.append(runs[0].wall_s)
            prog_times.append(runs[1].wall_s)
            if round_index == 0 and runs[1].wall_s > 20 * runs[0].wall_s:
                break  # far slower: more rounds would only cost time
    per_case = 1e9 / (reps * max(spec.speed_cases, 1))
    metrics.update(
        wall_ns_per_case=round(min(prog_times) * per_case, 2),
        baseline_wall_ns_per_case=round(min(base_times) * per_case, 2),
        wall_speedup=round(min(base_times) / max(min(prog_times), 1e-9), 3),
    )
    return None


def _bench_mismatch(
    spec: AsmOptions, seed: int, base: sandbox.ExecResult, mine: sandbox.ExecResult, metrics: dict[str, Any]
) -> Outcome | None:
    """The benchmark's closing results must be the baseline's: an early exit or skipped work fails."""
    expected = logs.output_lines(base.stdout)
    if not base.ok or len(expected) != spec.speed_cases:
        raise RuntimeError(f"the baseline failed in the wall-time benchmark: {base.output[-1500:]}")
    diff = logs.first_difference(expected, logs.output_lines(mine.stdout))
    if diff is None:
        return None
    got = "no output" if diff.got is None else logs.clip(diff.got)
    what = (f"on the wall-time workload (seed {seed}), case {diff.index}: `{spec.function}` returned {got}, "
            f"expected {logs.clip(diff.expected)}")
    return Outcome(OUTPUT_MISMATCH, what, logs.clip(mine.output, 4000), {**metrics, "first_mismatch": diff.index})
