"""x86-64 assembly superoptimization (SuperCoder style): the candidate replaces gcc -O3's assembly
of a C function and must stay equivalent on every input while running faster.

Per evaluation: the task's fixed cases plus random cases (seeded from the candidate's own text, so
repeatable but unknowable in advance) run through the -O3 baseline program in one work dir; the
candidate is assembled (`as`), linked statically with the task's C driver (asm_link.py) and, once
the host has read the program and found nothing in it that could switch callgrind off
(asm_elf.py), run on the same cases in another. The program's first instruction installs a
system-call filter (asm_seccomp.py). Expected outputs stay on the host, and the verdict compares
output lines there, so anything the candidate prints can only pass by being right. Passing
candidates are then measured, on the very bytes the host checked: callgrind counts the
instructions executed on a fixed workload (deterministic on a noisy machine) and the wall time of
repeated runs is compared with the baseline's in the same sandbox session.

Options (task.toml [options]): function (required), driver, baseline, tests, random_cases,
speed ("both", "callgrind", "wall", "off"), speed_cases, bench_ms. See docs/domains/asm.md.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome, truncate_log
from ecot.core.task import Task
from ecot.domains import budget
from ecot.domains.asm import link as asm_link
from ecot.domains.asm import logs, prep
from ecot.domains.asm.domain import AsmLabel
from ecot.domains.asm.elf import FORBIDDEN_CODE, check_program
from ecot.domains.asm.options import AsmOptions
from ecot.domains.asm.speed import measure
from ecot.domains.base import Backend, tool_version
from ecot.domains.budget import CpuBudget

ASSEMBLY_ERROR = AsmLabel.ASSEMBLY_ERROR.value
LINK_ERROR = AsmLabel.LINK_ERROR.value
RUNTIME_ERROR = AsmLabel.RUNTIME_ERROR.value
OUTPUT_MISMATCH = AsmLabel.OUTPUT_MISMATCH.value
PAST_END_NOTE = "<past the end>"


class AsmBackend(Backend[AsmOptions]):
    domain = "asm"
    options_model = AsmOptions
    tools = ("gcc", "as", "ld", "addr2line")
    optional_tools = ("valgrind",)  # without it no instruction counts
    install_hint = "install the Debian packages gcc, binutils and valgrind (`make setup`)"

    def tool_versions(self) -> dict[str, str]:
        versions = super().tool_versions()
        if shutil.which("valgrind"):
            versions["valgrind"] = tool_version("valgrind")
        return versions

    def __init__(self) -> None:
        self._prepared: dict[str, prep.Prepared] = {}

    def prepared(self, task: Task, spec: AsmOptions) -> prep.Prepared:
        key = prep.task_key(task)
        if key not in self._prepared:
            if len(self._prepared) > 256:  # each holds a static baseline program (~0.8 MB)
                self._prepared.clear()
            self._prepared[key] = prep.build(task, spec)
        return self._prepared[key]

    def evaluate(self, task: Task, spec: AsmOptions, candidate: str) -> Outcome:
        built = self.prepared(task, spec)
        seed = prep.candidate_seed(task, candidate)
        expected, inputs, cpu_s = prep.reference_outputs(task, spec, built, seed, spec.random_cases)
        allowed = budget.from_reference(spec, cpu_s, task.limits.cpu_s, "the baseline's run on the same cases")
        with sandbox.workdir("ecot-asm-") as work:
            outcome, program = judge(task, spec, built, candidate, seed, expected, inputs, work, allowed)
        if outcome.passed and program is not None and spec.speed != "off":
            outcome = measure(task, spec, built, program, outcome)
        return outcome


def judge(
    task: Task,
    spec: AsmOptions,
    built: prep.Prepared,
    candidate: str,
    seed: int,
    expected: list[str],
    inputs: list[str],
    work: Path,
    allowed: CpuBudget | None = None,
) -> tuple[Outcome, bytes | None]:
    """Assemble, link and check the candidate, run it on the cases (within `allowed`, a CPU budget below
    the task's, if given) and compare its output lines on the host: the outcome, and the program's bytes
    as read before it first ran (None if it never ran)."""
    sandbox.write_files(work, {prep.SOLUTION: candidate})
    program = build_program(task, spec, built, candidate, work)
    if isinstance(program, Outcome):
        return program, None
    argv = prep.run_argv("prog", seed, spec.random_cases, False, prep.timeout_ms(task))
    result = sandbox.run(argv, work, task.limits, stdin=task.files[spec.tests].encode(),
                         cpu_s=allowed.cpu_s if allowed is not None else None)
    return _run_outcome(task, spec, candidate, result, expected, inputs, work, allowed), program


def build_program(task: Task, spec: AsmOptions, built: prep.Prepared, candidate: str, work: Path) -> bytes | Outcome:
    """`as`, then `ld` in the work dir, then the linked program as the host read it (no link
    followed) and checked it, before anything of the candidate has run; or the outcome that ends
    here. The objects to link are written only once `as` succeeded: the most common failure then
    costs no megabyte of libc object written and deleted."""
    last = sandbox.run(["as", "--64", "-g", "-o", "solution.o", prep.SOLUTION], work, task.limits)
    if not last.ok:
        if last.timed_out:
            return Outcome(TIMEOUT, f"the assembler did not finish within {task.limits.wall_s:g} s", truncate_log(last.output))
        return Outcome(ASSEMBLY_ERROR, logs.assembly_diagnostic(last.output, prep.SOLUTION), truncate_log(last.output))
    prep.link_inputs(work, built)
    link = asm_link.link_argv(asm_link.toolchain(task.limits), ["driver.o", "solution.o", "guard.o"], "prog")
    last = sandbox.run(link, work, task.limits)
    if not last.ok:
        if last.timed_out:
            return Outcome(TIMEOUT, f"the linker did not finish within {task.limits.wall_s:g} s", truncate_log(last.output))
        return Outcome(LINK_ERROR, logs.link_diagnostic(last.output, spec.function), truncate_log(last.output))
    program = sandbox.read_job_file(work, "prog", prep.OBJECT_BYTES)
    if program is None or len(program) >= prep.OBJECT_BYTES:  # a partial read could miss what check_program seeks
        return Outcome(LINK_ERROR, "the linker left no program, or one of 64 MiB or more", truncate_log(last.output))
    problem = check_program(program)
    if problem is not None:
        where = _locate(task, candidate, hex(problem.address), work) if problem.address is not None else ""
        where = " past the end of the submitted code" if where == PAST_END_NOTE else where
        why = f": {problem.why}" if problem.why else ""
        return Outcome(FORBIDDEN_CODE, f"the program contains {problem.what}{where}{why}; it was not run",
                       truncate_log(last.output))
    _read_only(work / "prog")
    return program


def _read_only(path: Path) -> None:
    """chmod 0555 through a descriptor opened without following links."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, 0o555)
    finally:
        os.close(fd)


def _run_outcome(
    task: Task, spec: AsmOptions, candidate: str, result: sandbox.ExecResult, expected: list[str], inputs: list[str], work: Path,
    allowed: CpuBudget | None = None,
) -> Outcome:
    log = truncate_log(result.output)
    cases = len(expected)
    metrics: dict[str, Any] = {"cases": cases, "run_s": round(result.wall_s, 4)}
    if result.output_overflow:
        return Outcome(RESOURCE_LIMIT, f"the program's output exceeded {task.limits.output_kb} KiB and was stopped", log, metrics)
    # The candidate's process can print markers and lines too: a forged marker only turns this into a
    # failure, and only output lines equal to the host's expected ones (and exit status 0) pass.
    marker = logs.last_marker(result.stderr)
    timed_marker = marker is not None and marker.kind == "TIMEOUT"
    if allowed is not None and not timed_marker and _spent(result, allowed):
        return Outcome(TIMEOUT, allowed.exceeded("the test program"), log, metrics)
    if timed_marker or result.timed_out or result.signal == signal.SIGXCPU:
        index = marker.int("case") if marker is not None and timed_marker else -1
        where = f" on case {index} ({_input(inputs, index)})" if index >= 0 else ""
        return Outcome(TIMEOUT, f"`{spec.function}` did not return within {task.limits.wall_s:g} s{where}", log, metrics)
    if marker is not None and marker.kind in ("SIGNAL", "ABI", "ALIGN"):
        return Outcome(RUNTIME_ERROR, _fault(task, spec, candidate, marker, inputs, work), log, metrics)
    if result.signal:
        name = logs.signal_name(result.signal)
        return Outcome(RUNTIME_ERROR, f"the test program was killed by {name}", log, metrics)
    if result.returncode != 0:
        diagnostic = f"the test program exited with status {result.returncode} (did the function call exit?)"
        return Outcome(RUNTIME_ERROR, diagnostic, log, metrics)
    got = logs.output_lines(result.stdout)
    diff = logs.first_difference(expected, got)
    if diff is not None:
        metrics["first_mismatch"] = diff.index
        return Outcome(OUTPUT_MISMATCH, _mismatch(spec, diff, inputs, len(got), cases), log, metrics)
    return Outcome(PASS, f"all {cases} cases match the C function", log, metrics)


def _spent(result: sandbox.ExecResult, allowed: CpuBudget) -> bool:
    """The run ended by its CPU budget: SIGXCPU at the soft limit, or SIGKILL at the hard one (a program
    that ignored SIGXCPU), by the kernel's count of its CPU time."""
    if result.signal == signal.SIGXCPU:
        return True
    return result.signal == signal.SIGKILL and result.cpu_s is not None and result.cpu_s >= allowed.cpu_s


def _mismatch(spec: AsmOptions, diff: logs.Difference, inputs: list[str], printed: int, cases: int) -> str:
    if diff.got is None:
        return (f"the program printed results for {printed} of {cases} cases and stopped; "
                f"case {diff.index} ({_input(inputs, diff.index)}) expected {logs.clip(diff.expected)}")
    if diff.index >= cases:
        return f"the program printed more lines than there are cases: {logs.clip(diff.got)}"
    return (f"case {diff.index} ({_input(inputs, diff.index)}): `{spec.function}` returned {logs.clip(diff.got)}, "
            f"expected {logs.clip(diff.expected)}")


def _input(inputs: list[str], index: int) -> str:
    if 0 <= index < len(inputs):
        return f"input {logs.clip(inputs[index], 200)}"
    return "an input the harness could not name"


def _fault(task: Task, spec: AsmOptions, candidate: str, marker: logs.Marker, inputs: list[str], work: Path) -> str:
    index = marker.int("case")
    on_case = f" on case {index} ({_input(inputs, index)})" if index >= 0 else ""
    if marker.kind == "ABI":
        reg = marker.fields.get("reg", "?")
        if reg == "rsp":
            return f"calling convention violated{on_case}: %rsp was not restored when `{spec.function}` returned"
        return (f"calling convention violated{on_case}: callee-saved register %{reg} holds {marker.fields.get('got')} "
                f"after `{spec.function}` returned (it must be preserved: push/pop it or use a caller-saved register)")
    if marker.kind == "ALIGN":
        return (f"stack misaligned{on_case}: %rsp was not 16-byte aligned at a call `{spec.function}` made "
                "(the System V ABI requires it before every call)")
    where = _locate(task, candidate, marker.fields.get("rip", ""), work)
    if where == PAST_END_NOTE:
        return f"execution ran past the end of the submitted code (a missing ret?){on_case}"
    return f"{logs.describe_fault(marker)}{where}{on_case}"


def _locate(task: Task, candidate: str, rip: str, work: Path) -> str:
    """' at solution.s:14 (`movq (%rdi), %rax`)' from the faulting instruction address."""
    if not re.fullmatch(r"0x[0-9a-f]+", rip):
        return ""
    result = sandbox.run(["addr2line", "-f", "-e", "prog", rip], work, task.limits)
    lines = result.stdout.split("\n")
    if not result.ok or len(lines) < 2:
        return f" at {rip}"
    function, place = lines[0].strip(), lines[1].strip()
    if function == prep.PAST_END:
        return PAST_END_NOTE
    match = re.search(rf"{re.escape(prep.SOLUTION)}:(\d+)", place)
    if match:
        number = int(match.group(1))
        source = candidate.splitlines()
        text = " ".join(source[number - 1].split()) if 0 < number <= len(source) else ""
        quoted = f" (`{text}`)" if text else ""
        return f" at {prep.SOLUTION}:{number}{quoted}"
    if function and function != "??":
        return f" at {rip} in `{function}` (outside the submitted assembly: a call with bad arguments?)"
    return f" at {rip} (outside the program's code: a jump or return to a bad address?)"
