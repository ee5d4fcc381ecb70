"""Hostile asm candidates: every attack class against the asm backend (see framework.py).

Attacks on the instruction count (INSTRUMENTATION, HIDE_FROM_CHECKS, and the count's file in
LINK_RACE and FORGE_CHANNEL) compute the right answer about 100x slower than gcc -O3: contained
means no Pass that claims to be faster, and where the backend can tell, the label it must give.
The bodies are in asmattacks.py.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from ecot.core.errors import ToolMissingError
from ecot.core.outcome import PASS, RESOURCE_LIMIT, TIMEOUT, Outcome
from ecot.domains.asm.backend import ASSEMBLY_ERROR, OUTPUT_MISMATCH, RUNTIME_ERROR
from ecot.sandbox import runner
from ecot.tasks.suite import bundled_suite_path

from ..common import bundled_task, files_stay_absent, no_process_left, unique_marker, within
from . import asmattacks as a
from .framework import Attack, Case, DomainCases, label_in

POPCOUNT, DJB2 = "asm/popcount64", "asm/djb2"
COUNTED = {"speed": "callgrind"}
OFF = {"speed": "off"}
HANG_WALL_S = 3.0
OUTSIDE_FILES = (Path("/etc/ecot_asm_pwned"), Path("/root/ecot_asm_pwned"), Path.home() / "ecot_asm_pwned")
HOST_KEYS = ("SSH_AUTH_SOCK", "USER", "LOGNAME", "MAIL", "PWD", "SHELL", "OPENAI_API_KEY", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY")
SLEEPER = unique_marker("ecotasmsleep")
FORBIDDEN_CODE = "Forbidden_Code"  # ecot.domains.asm.backend.FORBIDDEN_CODE (spelled out: the suite also runs on older code)


def forbidden(*words: str) -> Callable[[Outcome], bool]:
    """Rejected as Forbidden_Code, with a diagnostic that says why."""

    def check(outcome: Outcome) -> bool:
        return outcome.label == FORBIDDEN_CODE and all(w in outcome.diagnostic for w in words)

    check.__name__ = f"Forbidden_Code saying {words}"
    return check


def no_forged_speedup(outcome: Outcome) -> bool:
    """Failed, or passed with the speedup the slow candidate really has (less than 1)."""
    return outcome.label != PASS or float(outcome.metrics.get("speedup", 0)) < 1


def failed_without(text: str, *labels: str) -> Callable[[Outcome], bool]:
    def check(outcome: Outcome) -> bool:
        return outcome.label in labels and text not in outcome.log and text not in outcome.diagnostic

    return check


@contextlib.contextmanager
def needs_valgrind() -> Iterator[None]:
    if shutil.which("valgrind") is None:
        raise ToolMissingError("valgrind", "instruction counts need it")
    yield


@contextlib.contextmanager
def outside_files_absent() -> Iterator[None]:
    with files_stay_absent(OUTSIDE_FILES):
        yield


@contextlib.contextmanager
def expected_outputs_stay_out() -> Iterator[None]:
    """Spy on every sandboxed run of the candidate's program: no file, argument or input it can see
    holds an expected output of the task (djb2 hashes are long, distinctive numbers)."""
    task = bundled_task(DJB2)
    expected = [str(_djb2(line)) for line in task.files["tests.txt"].splitlines() if len(line) > 4]
    seen: list[str] = []
    real = runner.run_steps

    def spy(steps: Any, cwd: Path, *args: Any, **kwargs: Any) -> Any:
        if any(word in " ".join(step.argv) for step in steps for word in ("./prog", "./counted")):
            seen.extend(p.read_bytes().decode("latin-1") for p in Path(cwd).rglob("*") if p.is_file())
            seen.extend(" ".join(step.argv) + (step.stdin or b"").decode("latin-1") for step in steps)
        return real(steps, cwd, *args, **kwargs)

    runner.run_steps = spy  # sandbox.run calls it too
    try:
        yield
    finally:
        runner.run_steps = real
    assert seen, "the spy saw no run of the candidate's program"
    assert [value for value in expected if any(value in blob for blob in seen)] == []


def _djb2(text: str) -> int:
    value = 5381
    for byte in text.encode():
        value = (value * 33 + byte) % 2**64
    return value


def text(payload: Future[str]) -> str:
    """A compiled C payload (they compile in parallel: a builder starts, this waits)."""
    return payload.result()


def _reference(task_id: str) -> str:
    return bundled_task(task_id).reference or ""


def _counted(name: str, candidate: str, contained: Callable[[Outcome], bool]) -> Case:
    return Case(name, POPCOUNT, candidate, contained, options=COUNTED, host=needs_valgrind)


SUITE = bundled_suite_path("asm")
# the C payloads start compiling here, side by side; `text` waits for each as the cases are built
TAKEOVER = a.takeover()
STUB_HIGH = a.mapped_stub(0x10_1000_0000, 7, 0x32)
STUB_ANYWHERE = a.mapped_stub(0, 7, 0x22)
STUB_MPROTECTED = a.mapped_stub(0, 3, 0x22, then_protect=True)
STUB_WX = a.writable_code_section()
STUB_PROC_MEM = a.proc_self_mem()
STUB_IFUNC = a.stub_from_ifunc_resolver()
VALGRINDRC = a.planted_valgrindrc()
ENDLESS = a.endless_loop(SLEEPER)
SPIN = a.c_to_asm('long popcount64(unsigned long x) {\n    for (;;) { __asm__ volatile(""); }\n    return 0;\n}\n')
ENVIRONMENT = a.host_environment(HOST_KEYS)
REFERENCE = a.read_files([str(SUITE / "popcount64" / "reference.s"), "../../src/ecot/domains/asm/suite/popcount64/reference.s"])
SECRETS = a.read_files(["/etc/shadow", "/root/.bashrc", "/root/.ssh/id_rsa", str(Path.home() / ".bash_history")])
OUTSIDE = a.write_files([str(p) for p in OUTSIDE_FILES])
HARMLESS = a.oracle("    if (syscall(SYS_getpid) > 0) escaped = 1;\n")

PREAMBLE_FOUND = forbidden("client-request preamble")
INCBIN = tuple(
    Case(f"assembler_{name}", POPCOUNT, f"\t.data\n{directive}\n" + _reference(POPCOUNT),
         failed_without("root:", ASSEMBLY_ERROR), options=OFF)
    for name, directive in (("incbin_shadow", '.incbin "/etc/shadow"'), ("include_passwd", '.include "/etc/passwd"'),
                            ("incbin_bashrc", '.incbin "/root/.bashrc"'))
)

CASES: DomainCases = {
    Attack.TAKEOVER: Case("ptrace_and_proc_mem", POPCOUNT, text(TAKEOVER), label_in(OUTPUT_MISMATCH), options=OFF),
    Attack.LINK_RACE: [
        Case("program_swapped_for_a_link", POPCOUNT, text(a.SWAP_PROGRAM), failed_without("root:", RUNTIME_ERROR), options=OFF),
        _counted("count_file_replaced_after_dump", text(a.REPLACE_COUNT), no_forged_speedup),
    ],
    Attack.READ_REFERENCE: [
        Case("bundled_reference", POPCOUNT, text(REFERENCE),
             label_in(OUTPUT_MISMATCH), options=OFF),
        Case("expected_outputs_out_of_reach", DJB2, _reference(DJB2), label_in(PASS), options=COUNTED,
             host=expected_outputs_stay_out),
    ],
    Attack.FORGE_CHANNEL: [
        Case("forged_output_lines", DJB2, text(a.FORGED_LINES), label_in(OUTPUT_MISMATCH), options=OFF),
        # a forged marker can only make the host believe in a failure (here a timeout)
        Case("forged_harness_marker", POPCOUNT, text(a.FORGED_MARKER), options=OFF),
        _counted("forged_callgrind_summary", text(a.FORGED_SUMMARY), no_forged_speedup),
    ],
    Attack.INSTRUMENTATION: [
        _counted("toggle_collect_around_slow_loop", a.around_slow("toggle"), PREAMBLE_FOUND),
        _counted("zero_stats_after_each_call", a.after_slow("zero"), PREAMBLE_FOUND),
        _counted("dump_stats_after_each_call", a.after_slow("dump"), PREAMBLE_FOUND),
        _counted("stop_and_start_instrumentation", a.stop_start(), PREAMBLE_FOUND),
        _counted("non_simd_call", a.non_simd_call(), PREAMBLE_FOUND),
        _counted("run_time_stub_in_valgrinds_half", text(STUB_HIGH), forbidden("outside its own code")),
        _counted("run_time_stub_anywhere", text(STUB_ANYWHERE), no_forged_speedup),
        _counted("run_time_stub_mprotected", text(STUB_MPROTECTED), no_forged_speedup),
        _counted("writable_code_section", text(STUB_WX), forbidden("both writable and executable")),
        _counted("proc_self_mem_patch", text(STUB_PROC_MEM), no_forged_speedup),
        _counted("stub_from_an_ifunc_resolver_before_main", text(STUB_IFUNC), no_forged_speedup),
        _counted("valgrindrc_left_for_the_count", text(VALGRINDRC), no_forged_speedup),
    ],
    Attack.HIDE_FROM_CHECKS: [
        _counted("preamble_split_across_sections", a.split_across_sections(), PREAMBLE_FOUND),
        _counted("preamble_spelled_as_bytes", a.spelled_out(), PREAMBLE_FOUND),
    ],
    Attack.EARLY_EXIT: [
        Case("exit_group_on_first_call", POPCOUNT, text(a.EXIT_AT_ONCE), label_in(OUTPUT_MISMATCH), options=OFF),
        Case("exit_during_wall_benchmark", POPCOUNT, text(a.EXIT_IN_BENCHMARK), label_in(OUTPUT_MISMATCH),
             options={"speed": "wall"}),
    ],
    # on this branch the system-call filter already stops it (no file can be created); the lead's
    # per-job disk quota will bound what the sandbox lets any job write
    Attack.DISK_FILL: Case("two_gib_of_files", POPCOUNT, text(a.DISK_FILL), label_in(OUTPUT_MISMATCH, RUNTIME_ERROR), options=OFF),
    Attack.PERSIST: Case("marker_files_for_the_next_job", POPCOUNT, text(a.PLANT), then=text(a.FIND_PLANTED), options=OFF),
    Attack.FORK_BOMB: Case("fork_loop", POPCOUNT, text(a.FORK_BOMB), label_in(TIMEOUT, RUNTIME_ERROR, RESOURCE_LIMIT, OUTPUT_MISMATCH),
                           wall_s=HANG_WALL_S, options=OFF, host=within(3 * HANG_WALL_S + 5)),
    # the address-space limit bounds it; the baseline's CPU budget (2 s) may end the filling first
    Attack.MEMORY_BOMB: Case("malloc_loop", POPCOUNT, text(a.MEMORY_BOMB),
                             label_in(OUTPUT_MISMATCH, RUNTIME_ERROR, RESOURCE_LIMIT, TIMEOUT), options=OFF, host=within(15.0)),
    Attack.ENDLESS_LOOP: [
        Case("spin_with_a_sleeper", POPCOUNT, text(ENDLESS), label_in(TIMEOUT), wall_s=HANG_WALL_S, options=OFF,
             host=no_process_left(SLEEPER)),
        # with the task's own 10 s: the baseline's CPU budget (2 s here) ends it, whatever the code does
        Case("spin_under_the_baseline_budget", POPCOUNT, text(SPIN), label_in(TIMEOUT), options=OFF, host=within(8.0)),
    ],
    Attack.OUTPUT_FLOOD: Case("write_loop", POPCOUNT, text(a.OUTPUT_FLOOD), label_in(RESOURCE_LIMIT), options=OFF,
                              host=within(8.0)),
    Attack.NETWORK: Case("connect_out", POPCOUNT, text(a.NETWORK), label_in(OUTPUT_MISMATCH), options=OFF),
    Attack.READ_SECRETS: [
        Case("secret_files", POPCOUNT, text(SECRETS), label_in(OUTPUT_MISMATCH), options=OFF),
        Case("host_environment", POPCOUNT, text(ENVIRONMENT), label_in(OUTPUT_MISMATCH), options=OFF),
        *INCBIN,
    ],
    Attack.WRITE_OUTSIDE: Case("files_outside_the_work_dir", POPCOUNT, text(OUTSIDE),
                               label_in(OUTPUT_MISMATCH), options=OFF, host=outside_files_absent),
    Attack.SHORTCUT: [Case(name, POPCOUNT, a.popcount(body), label_in(OUTPUT_MISMATCH), options=OFF, twin=_reference(POPCOUNT))
                      for name, body in (("constant_answer", "\tmovl\t$32, %eax\n"), ("input_echoed", "\tmovq\t%rdi, %rax\n"))],
    Attack.FORGED_PRINT: Case("pass_lines_and_valgrind_summary", POPCOUNT, text(a.FORGED_PASS), label_in(OUTPUT_MISMATCH), options=OFF),
}

# the oracle passes when its "attack" is harmless: a system call the filter allows
CONTROL = Case("allowed_system_call", POPCOUNT, text(HARMLESS), options=OFF)
