"""The asm mutation set: x86-64 assembly bug operators, what each asm outcome label implies, and a
first-person optimization plan read off the task and the reference assembly."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from ecot.domains.asm.mutators import ops
from ecot.mutators.base import Category, LabelEvidence, Mutation, MutationSet, Site, Source

AsmSource = partial(Source, pattern=ops.ASM_COMMENTS)


def _on_asm(find: Callable[[Source], list[Site]]) -> Callable[[Source], list[Site]]:
    """Operators receive a Source masked for C comments; re-mask it for assembly (`#` comments)."""
    return lambda src: find(AsmSource(src.text))


MUTATIONS: tuple[Mutation, ...] = (
    # syntax: the assembler rejects the text
    Mutation("misspelled_mnemonic", "syntax", _on_asm(ops.misspelled_mnemonic),
             "The assembler only knows real mnemonics; a transposed one is an unknown instruction.",
             "`movq %rdi, %rax` -> `omvq %rdi, %rax`"),
    Mutation("bad_register", "syntax", _on_asm(ops.bad_register),
             "A register name with its letters swapped names no register at all.",
             "`%rdi` -> `%rid`"),
    Mutation("missing_operand", "syntax", _on_asm(ops.missing_operand),
             "Two-operand instructions need both a source and a destination.",
             "`addq %rdx, %rax` -> `addq %rdx`"),
    # structural: symbols, the calling convention and the stack
    Mutation("wrong_symbol_name", "structural", _on_asm(ops.wrong_symbol_name),
             "The driver calls the function by the C name, so any other symbol leaves that call undefined at link time.",
             "`popcount64:` -> `popcount64_opt:` (with its .globl/.type/.size)"),
    Mutation("missing_globl", "structural", _on_asm(ops.missing_globl),
             "Without `.globl` the label is local to the object file and the linker cannot see it.",
             "`.globl popcount64` deleted"),
    Mutation("missing_ret", "structural", _on_asm(ops.missing_ret),
             "Without `ret` the CPU keeps executing whatever bytes follow the function.",
             "`ret` deleted"),
    Mutation("clobbered_callee_saved", "structural", _on_asm(ops.clobbered_callee_saved),
             "rbx, rbp and r12-r15 belong to the caller: a function may use them only after saving them.",
             "a temporary in `%rcx` moved to `%rbx` without push/pop"),
    Mutation("misaligned_stack", "structural", _on_asm(ops.misaligned_stack),
             "The ABI wants %rsp 16-byte aligned at every call; an odd number of 8-byte slots breaks that.",
             "`subq $8, %rsp` / `addq $8, %rsp` padding deleted"),
    Mutation("unbalanced_stack", "structural", _on_asm(ops.unbalanced_stack),
             "Every push needs its pop before `ret`, or `ret` jumps to a saved register instead of the return address.",
             "`popq %rbx` deleted"),
    # semantic: the code runs and computes something else
    Mutation("wrong_condition", "semantic", _on_asm(ops.wrong_condition),
             "The neighbouring condition code differs exactly at the boundary (equal values, or signed vs unsigned).",
             "`cmovg` -> `cmovge`, `jne` -> `je`, `jbe` -> `jb`"),
    Mutation("off_by_one_immediate", "semantic", _on_asm(ops.off_by_one_immediate),
             "A constant off by one moves a loop bound or a comparison by exactly one step.",
             "`cmpq $1, %rsi` -> `cmpq $2, %rsi`"),
    Mutation("swapped_operation", "semantic", _on_asm(ops.swapped_operation),
             "The neighbouring operation computes something close but wrong.",
             "`addq` -> `subq`, `shrq` -> `sarq`, `andq` -> `orq`"),
    Mutation("wrong_register", "semantic", _on_asm(ops.wrong_register),
             "Reading the wrong register uses a value that belongs to another part of the computation.",
             "`addq %rdx, %rax` -> `addq %rcx, %rax`"),
    Mutation("wrong_operand_size", "semantic", _on_asm(ops.wrong_operand_size),
             "A 32-bit operation writes only the low half and zeroes the upper 32 bits.",
             "`imulq %rcx, %rax` -> `imull %ecx, %eax`"),
)


def _suspects(*categories: Category) -> tuple[Category, ...]:
    return categories


EVIDENCE = {
    "Assembly_Error": LabelEvidence(
        "The assembler rejected the text, so the problem is in how an instruction is written: its mnemonic, a "
        "register name or its operands.", _suspects("syntax", "structural")),
    "Link_Error": LabelEvidence(
        "It assembled but did not link: the driver could not find the function, so its name or its `.globl` "
        "declaration is wrong.", _suspects("structural", "syntax")),
    "Runtime_Error": LabelEvidence(
        "The function crashed or broke the calling convention: a bad address, execution running past a missing "
        "`ret`, a callee-saved register or the stack pointer left changed, or a misaligned stack at a call.",
        _suspects("structural", "semantic")),
    "Output_Mismatch": LabelEvidence(
        "It runs and returns, but with a wrong value on some inputs: a wrong register, condition code, "
        "constant, operation or operand size.", _suspects("semantic", "structural")),
    "Timeout": LabelEvidence(
        "The function never returned: a loop whose exit condition never becomes true.", _suspects("semantic", "structural")),
    "Resource_Limit": LabelEvidence(
        "The program hit a resource limit, which points at a loop that runs away.", _suspects("semantic",)),
}
DEFAULT_EVIDENCE = LabelEvidence("The assembly did not pass its checks.", _suspects("semantic", "structural"))

CLUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"no such instruction", ("misspelled_mnemonic",)),
    (r"bad register name", ("bad_register",)),
    (r"number of operands|operand type mismatch|too few operands", ("missing_operand",)),
    (r"undefined reference", ("wrong_symbol_name", "missing_globl")),
    (r"callee-saved register", ("clobbered_callee_saved",)),
    (r"stack misaligned", ("misaligned_stack",)),
    (r"past the end|missing ret", ("missing_ret",)),
    (r"%rsp was not restored|outside the program's code", ("unbalanced_stack", "missing_ret")),
)


def describe(prompt: str, reference: str) -> list[str]:
    """A first-person plan: what the C function does, what gcc made of it, and the approach taken."""
    src = Source(reference, ops.ASM_COMMENTS)
    names = ops.function_names(src)
    name = names[0] if names else "the function"
    first = " ".join(prompt.strip().split("\n", 1)[0].split())
    plan = [f"The task: {first}" if first else f"I need to write `{name}` in x86-64 assembly."]
    baseline = re.search(r"```asm\n(.*?)```", prompt, re.S)
    if baseline:
        count = len(ops.instructions(Source(baseline.group(1), ops.ASM_COMMENTS)))
        loops = "with a loop" if re.search(r"^\s*j[a-z]+\s+\.L", baseline.group(1), re.M) else "without loops"
        plan.append(f"gcc -O3 emits {count} instructions for it, {loops}; that is the count to beat.")
    idea = re.match(r"\s*#\s*(.+)", reference)
    if idea:
        plan.append(f"My approach: {idea.group(1).strip().rstrip('.')}.")
    plan.extend(_shape(src))
    plan.append("I'll keep the System V ABI: arguments in rdi, rsi, rdx, rcx, result in rax, and rbx, rbp, r12-r15 "
                "preserved. Let me write it out.")
    return plan


def _shape(src: Source) -> list[str]:
    insns = ops.instructions(src)
    mnemonics = [i.mnemonic for i in insns]
    lines = []
    saved = [m.group(1) for m in src.finditer(r"pushq\s+%(\w+)")]
    if saved:
        lines.append(f"It calls out, so I save {', '.join('%' + r for r in saved)} and keep the stack aligned.")
    if any(m.startswith(("cmov", "set")) for m in mnemonics):
        lines.append("Conditional moves and setcc replace the data-dependent branches.")
    if _has_loop(src):
        lines.append("There is one loop; I keep its body as short as possible and test the exit at the bottom.")
    else:
        lines.append("It needs no loop at all: straight-line code.")
    lines.append(f"That comes to {len(insns)} instructions.")
    return lines


def _has_loop(src: Source) -> bool:
    """A jump back to a label defined above it."""
    labels = {m.group(1): m.start() for m in src.finditer(r"^(\.?\w+):", re.M)}
    return any(labels.get(m.group(1), len(src.text)) < m.start() for m in src.finditer(r"^\s*j[a-z]+\s+(\.?\w+)", re.M))


ASM_MUTATIONS = MutationSet(
    artifact="routine",
    domain="asm",
    mutations=MUTATIONS,
    evidence=EVIDENCE,
    default_evidence=DEFAULT_EVIDENCE,
    describe=describe,
    names=lambda code: set(re.findall(r"%([a-z0-9]+)", code)) | set(ops.function_names(AsmSource(code))),
    # logic and calling-convention mistakes dominate real superoptimization attempts; a syntax error
    # hides every other bug behind it, so it is planted less often
    weights={"syntax": 0.5, "structural": 1.0, "semantic": 1.5},
    clues=CLUES,
)
