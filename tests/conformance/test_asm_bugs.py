"""Planted asm bugs: each mutation of a bundled reference must earn exactly its expected label, and the
diagnostic must say what an engineer needs (the line, the signal, the register, the case).

Speed measurement is switched off (speed="off"): it only runs on a Pass and is tested separately.
Labels were established with GNU as/ld 2.40, gcc 12.2 and valgrind 3.19 on x86-64.
"""

from __future__ import annotations

import re
import shutil

import pytest

from ecot.core.outcome import PASS, TIMEOUT
from ecot.domains.asm.backend import ASSEMBLY_ERROR, LINK_ERROR, OUTPUT_MISMATCH, RUNTIME_ERROR

from .common import (
    BugCase,
    bundled_task,
    compose,
    describe,
    evaluate,
    regex_sub,
    replace_all,
    replace_once,
    run_bug,
    with_changes,
)

OFF = {"speed": "off"}
HANG_WALL_S = 2.0

ASM_BUGS: tuple[tuple[BugCase, str], ...] = (
    # (case, a regex the diagnostic must match)
    (BugCase("asm/popcount64", "misspelled_mnemonic", replace_once("\tmovabsq\t$0x3333", "\tmovabq\t$0x3333"), ASSEMBLY_ERROR, OFF),
     r"solution\.s:11: .*no such instruction"),
    (BugCase("asm/popcount64", "bad_register", replace_once("\tandq\t%rdx, %rax", "\tandq\t%rdz, %rax"), ASSEMBLY_ERROR, OFF),
     r"solution\.s:\d+: bad register name"),
    (BugCase("asm/fib", "wrong_operand_count", replace_once("\taddq\t%rax, %rdx", "\taddq\t%rax"), ASSEMBLY_ERROR, OFF),
     r"operands"),
    (BugCase("asm/fib", "wrong_symbol_name", replace_all("fib", "fib_fast"), LINK_ERROR, OFF),
     r"undefined reference to `fib`"),
    (BugCase("asm/gcd", "missing_globl", replace_once("\t.globl\tgcd\n", ""), LINK_ERROR, OFF),
     r"undefined reference to `gcd`.*\.globl"),
    (BugCase("asm/gcd", "defines_main", replace_all("gcd", "main"), LINK_ERROR, OFF),
     r"undefined reference to `gcd`|multiple definition of `main`"),
    (BugCase("asm/popcount64", "missing_ret", regex_sub(r"\tret\n", ""), RUNTIME_ERROR, OFF),
     r"ran past the end .*missing ret"),
    (BugCase("asm/fib", "clobbered_callee_saved", replace_all("%rdx", "%rbx"), RUNTIME_ERROR, OFF),
     r"callee-saved register %rbx"),
    (BugCase("asm/count_if", "misaligned_stack",
             compose(replace_once("\tsubq\t$8, %rsp\n", ""), replace_once("\taddq\t$8, %rsp\n", "")), RUNTIME_ERROR, OFF),
     r"stack misaligned"),
    (BugCase("asm/count_if", "unbalanced_stack", replace_once("\tpopq\t%rbx\n", ""), RUNTIME_ERROR, OFF),
     r"SIG(SEGV|BUS|ILL)|%rsp|callee-saved"),
    (BugCase("asm/sum_array", "null_dereference", replace_once("\taddq\t(%r8), %rax", "\txorl\t%r8d, %r8d\n\taddq\t(%r8), %rax"),
             RUNTIME_ERROR, OFF),
     r"SIGSEGV \(address not mapped\) accessing address 0x0 at solution\.s:\d+ \(`addq\s*\(%r8\), %rax`\) "
     r"on case 1 \(input n=1 a=\[5\]\)"),
    (BugCase("asm/gcd", "divide_by_zero", replace_once("\ttestq\t%rsi, %rsi\n\tje\t.Ldone\n", ""), RUNTIME_ERROR, OFF),
     r"SIGFPE \(integer divide by zero\) at solution\.s:\d+"),
    (BugCase("asm/argmax", "wrong_condition", replace_all("cmovg", "cmovge"), OUTPUT_MISMATCH, OFF),
     r"case \d+ \(input n=\d+ a=\[.*\]\): `argmax` returned \d+, expected \d+"),
    (BugCase("asm/fib", "infinite_loop", replace_once("\tjne\t.Lpair", "\tjmp\t.Lpair"), TIMEOUT, OFF, HANG_WALL_S),
     r"did not return within .* on case \d+"),
    (BugCase("asm/sum_squares", "wrong_operand_size", replace_once("\timulq\t%rcx, %rax\n\tmovabsq", "\timull\t%ecx, %eax\n\tmovabsq"),
             OUTPUT_MISMATCH, OFF),
     r"`sum_squares` returned \d+, expected \d+"),
    (BugCase("asm/sign_of", "swapped_operation", replace_once("\tsarq\t$63, %rdi", "\tshrq\t$63, %rdi"), OUTPUT_MISMATCH, OFF),
     r"returned 1, expected -1"),
    (BugCase("asm/reverse_array", "wrong_register", replace_once("\tmovq\t%rdx, (%rdi)", "\tmovq\t%rax, (%rdi)"), OUTPUT_MISMATCH, OFF),
     r"`reverse_array` returned"),
)


@pytest.mark.parametrize("case,pattern", [pytest.param(c, p, id=c.name) for c, p in ASM_BUGS])
def test_planted_asm_bug_earns_its_label(case: BugCase, pattern: str) -> None:
    outcome = run_bug(case)
    assert outcome.label == case.expected_label, describe(outcome)
    assert re.search(pattern, outcome.diagnostic, re.S), describe(outcome)


INTEL_SIGN_OF = """\t.intel_syntax noprefix
\t.text
\t.globl\tsign_of
sign_of:
\txor\teax, eax
\ttest\trdi, rdi
\tsetg\tal
\tsar\trdi, 63
\tor\trax, rdi
\tret
"""


def test_intel_syntax_is_accepted() -> None:
    outcome = evaluate(with_changes(bundled_task("asm/sign_of"), OFF), INTEL_SIGN_OF)
    assert outcome.label == PASS, describe(outcome)


def test_random_cases_depend_on_the_candidate_text() -> None:
    """A lookup table of the fixed cases' answers fails on the random cases drawn for it."""
    task = with_changes(bundled_task("asm/bswap_loop"), OFF)
    lines = [ln for ln in task.files["tests.txt"].splitlines() if ln.strip()]
    table = "".join(
        f"\tmovabsq\t${int(x, 0)}, %rcx\n\tcmpq\t%rcx, %rdi\n\tjne\t1f\n"
        f"\tmovabsq\t${int.from_bytes(int(x, 0).to_bytes(8, 'little'), 'big')}, %rax\n\tret\n1:\n"
        for x in lines
    )
    candidate = f"\t.text\n\t.globl\tbswap_loop\nbswap_loop:\n{table}\txorl\t%eax, %eax\n\tret\n"
    outcome = evaluate(task, candidate)
    assert outcome.label == OUTPUT_MISMATCH, describe(outcome)
    first_random = len(lines)
    assert int(outcome.metrics["first_mismatch"]) >= first_random, describe(outcome)


SLOW_POPCOUNT = """\t.text
\t.globl\tpopcount64
popcount64:
\txorl\t%eax, %eax
\tmovl\t$64, %ecx
1:
\tmovq\t%rdi, %rdx
\tandl\t$1, %edx
\taddq\t%rdx, %rax
\tshrq\t%rdi
\tsubl\t$1, %ecx
\tjne\t1b
\tret
"""


def needs_valgrind() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("instruction counts need the missing tool 'valgrind'")


def test_correct_but_slower_passes_with_the_speedup_metric() -> None:
    """Callgrind counts instructions deterministically: a loop over all 64 bits loses to gcc's early exit."""
    needs_valgrind()
    task = with_changes(bundled_task("asm/popcount64"), {"speed": "callgrind"})
    outcome = evaluate(task, SLOW_POPCOUNT)
    assert outcome.label == PASS, describe(outcome)
    assert outcome.metrics["slower"] is True and float(outcome.metrics["speedup"]) < 1.0, outcome.metrics
    assert "correct but slower than gcc -O3" in outcome.diagnostic
    again = evaluate(task, SLOW_POPCOUNT)
    assert again.metrics["instructions"] == outcome.metrics["instructions"]  # deterministic


def test_reference_speedup_and_wall_time_are_reported() -> None:
    needs_valgrind()
    task = with_changes(bundled_task("asm/bswap_loop"), {"speed": "both"})
    outcome = evaluate(task, task.reference or "")
    assert outcome.label == PASS, describe(outcome)
    metrics = outcome.metrics
    assert float(metrics["speedup"]) > 5 and metrics["slower"] is False, metrics
    assert int(metrics["baseline_instructions"]) > int(metrics["instructions"]) > 0
    assert float(metrics["wall_ns_per_case"]) > 0 and float(metrics["baseline_wall_ns_per_case"]) > 0
    assert "faster than gcc -O3" in outcome.diagnostic
