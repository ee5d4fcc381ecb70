"""Speed of a passing asm candidate against the gcc -O3 baseline: callgrind instruction counts
(deterministic, the headline metric) and wall time of repeated runs (noisy, for reference).

Instructions: callgrind counts the whole program on a fixed workload (the task's cases plus
`speed_cases` random ones from a fixed seed). The driver's share is the same for every correct
candidate, so the function's count is the candidate's total minus the baseline's driver overhead
(the baseline's total minus its count with `--toggle-collect` on the function). Counting the whole
program keeps work done in constructors, helpers or tail-jumped code on the candidate's bill.
The counted run's output is checked too: a candidate wrong on those inputs fails after all.
"""

from __future__ import annotations

import secrets
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.backends import asm_logs as logs
from ecot.backends import asm_prep as prep
from ecot.outcome import Outcome
from ecot.task import Task

OUTPUT_MISMATCH = "Output_Mismatch"
BENCH_ROUNDS = 3
CALIBRATION_REPS = 8


def measure(task: Task, spec: prep.AsmSpec, built: prep.Prepared, work: Path, passed: Outcome) -> Outcome:
    metrics: dict[str, Any] = dict(passed.metrics)
    notes: list[str] = []
    if spec.counts_instructions() and shutil.which("valgrind") is None:
        notes.append("valgrind is not installed: no instruction counts (install the Debian package valgrind)")
    elif spec.counts_instructions():
        problem = _instructions(task, spec, built, work, metrics, notes)
        if problem is not None:
            return problem
    if spec.times_wall():
        _wall(task, spec, built, work, metrics, notes)
    return replace(passed, diagnostic=_summary(spec, passed.diagnostic, metrics), metrics=metrics,
                   log=passed.log + "".join(f"\n[ecot] {n}" for n in notes))


def _summary(spec: prep.AsmSpec, said: str, metrics: dict[str, Any]) -> str:
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
def _callgrind(
    task: Task, spec: prep.AsmSpec, work: Path, objects: list[str], before: tuple[sandbox.Step, ...] = ()
) -> tuple[str | None, sandbox.ExecResult]:
    """Link the objects statically and count the program under callgrind: the callgrind file's text
    (None if a step failed) and the last step's result. Static linking skips the dynamic loader,
    which would cost valgrind four times as long and add instructions unrelated to the function."""
    out = f"cg_{secrets.token_hex(8)}.out"  # a name the program cannot know in advance
    link = sandbox.Step(["gcc", "-static", *prep.LINK_FLAGS, "-o", "counted", *objects])
    # no address-space randomization: it moves the stack and changes the startup code's count by a few
    argv = ["setarch", "x86_64", "-R", "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
            "--dump-line=no", "--dump-instr=no", "--compress-strings=no", "--compress-pos=no"]
    # random cases only (stdin empty): heavy fixed cases, there to reach corner values, would only slow
    # callgrind down; a fixed HOME: the environment's size shows up in the startup code's count
    count = sandbox.Step([*argv, *prep.run_argv("counted", prep.SPEED_SEED, spec.speed_cases, False, 0)], stdin=b"")
    results = sandbox.run_steps([*before, link, count], work, task.limits, env={"HOME": "/tmp"}, proc_fs=True)
    path = work / out
    done = len(results) == len(before) + 2 and results[-1].ok
    text = path.read_text(errors="replace") if done and path.is_file() else None
    return text, results[-1]


def _baseline_counts(task: Task, spec: prep.AsmSpec, built: prep.Prepared) -> tuple[int, int]:
    """(instructions inside the function, the rest of the program) of the baseline, once per task."""
    if built.base_instructions is None or built.base_overhead is None:
        expected, _ = prep.reference_outputs(task, spec, built, prep.SPEED_SEED, spec.speed_cases, tests="")
        # the same work dir prefix as a candidate's: the path's length shows in the startup code's count
        with sandbox.workdir("ecot-asm-") as work:
            (work / "driver.o").write_bytes(built.driver_o)
            (work / "guard.o").write_bytes(built.guard_o)
            sandbox.write_files(work, {prep.SOLUTION: task.files[spec.baseline]})
            assemble = sandbox.Step(["as", "--64", "-g", "-o", "solution.o", prep.SOLUTION])
            text, result = _callgrind(task, spec, work, ["driver.o", "solution.o", "guard.o"], (assemble,))
        total = logs.callgrind_total(text) if text else None
        inside = logs.callgrind_inclusive(text, spec.function) if text else None
        if total is None or inside is None:
            raise RuntimeError(f"callgrind failed on the baseline of {task.id}: {result.output[-1500:]}")
        built.speed_expected = expected
        built.base_instructions, built.base_overhead = inside, total - inside
    return built.base_instructions, built.base_overhead


def _instructions(
    task: Task, spec: prep.AsmSpec, built: prep.Prepared, work: Path, metrics: dict[str, Any], notes: list[str]
) -> Outcome | None:
    base_inside, overhead = _baseline_counts(task, spec, built)
    text, result = _callgrind(task, spec, work, ["driver.o", "solution.o", "guard.o"])
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
    mine = max(total - overhead, 1)
    metrics.update(instructions=mine, baseline_instructions=base_inside, speedup=round(base_inside / mine, 3))
    return None


# -- wall time -------------------------------------------------------------------------------------
def _bench_step(program: str, spec: prep.AsmSpec, reps: int) -> sandbox.Step:
    # the speed workload's random cases: the ones the callgrind run verified
    return sandbox.Step(prep.bench_argv(program, prep.SPEED_SEED, spec.speed_cases, reps))


def _reps(task: Task, spec: prep.AsmSpec, built: prep.Prepared, work: Path) -> int:
    """Repetitions that make one baseline run last about bench_ms (calibrated once per task)."""
    if built.bench_reps is None:
        runs = sandbox.run_steps([_bench_step("base", spec, CALIBRATION_REPS)] * 2, work, task.limits)
        seconds = max(min(r.wall_s for r in runs) - 0.001, 1e-5)
        built.bench_reps = int(min(max(CALIBRATION_REPS * spec.bench_ms / 1000 / seconds, 1), 1_000_000))
    return built.bench_reps


def _wall(task: Task, spec: prep.AsmSpec, built: prep.Prepared, work: Path, metrics: dict[str, Any], notes: list[str]) -> None:
    prep.place_program(work, "base", built.base_prog)
    reps = _reps(task, spec, built, work)
    base_times: list[float] = []
    prog_times: list[float] = []
    for round_index in range(BENCH_ROUNDS):
        runs = sandbox.run_steps([_bench_step("base", spec, reps), _bench_step("prog", spec, reps)], work, task.limits)
        if len(runs) < 2 or not runs[1].ok:
            notes.append("the candidate failed or timed out in the wall-time benchmark; no wall time reported")
            return
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
