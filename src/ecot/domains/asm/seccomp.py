"""The system-call filter of every asm test program, installed at the program's first instruction.

Every test program (the candidate's and the -O3 baseline's, natively and under callgrind) is linked
statically with `ecot_entry` as its ELF entry point. That entry runs before anything else, before
libc's start-up code, IFUNC resolvers and constructors, so before any instruction of the candidate:
with two raw `prctl` system calls (no libc function a candidate could replace) it sets no_new_privs
and installs the seccomp filter below, then jumps to libc's `_start`.

The filter allows only what libc's start-up, the harness and valgrind itself need once the client
runs, and answers everything else with EPERM. So a candidate can not fork (a leftover process could
rewrite the callgrind file after valgrind wrote it, or dump its own counts over it), exec, signal or
trace other processes, create, rename or link files, or open anything for reading. The one `open`
allowed is valgrind's own final dump (exactly O_WRONLY|O_TRUNC on the file it created at start-up):
the programs it could reach are read-only (mode 0555) and the file it can truncate is rewritten
whole by valgrind at exit.

Executable memory: code written at run time could hold valgrind's client-request preamble, which
no scan of the program can see. Natively nothing needs new executable memory, but valgrind grows
its own arenas and translation cache with read-write-execute mappings, always in the upper half of
its address space (from 0x10_0000_0000 on), and client and valgrind mappings are made by the same
code with the same arguments. So mmap and mprotect may add PROT_EXEC only at or above that address
(and mremap may not move a mapping to a chosen address): the program itself lies far below, so any
code a candidate could create runs outside the program's segments, where callgrind's output shows
its cost (a client request's own block, or the one after it), and the host rejects any count with
cost outside the program's code (asm_speed.py).

The filter is a classic BPF program assembled here and emitted as a C initializer; `decide` runs it
in Python, so the policy is testable without a kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

# x86-64 system call numbers (asm/unistd_64.h)
NR = {
    "read": 0, "write": 1, "open": 2, "close": 3, "fstat": 5, "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12,
    "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15, "mremap": 25, "setitimer": 38, "getpid": 39,
    "exit": 60, "rt_sigtimedwait": 128, "sigaltstack": 131, "arch_prctl": 158, "gettid": 186,
    "set_tid_address": 218, "exit_group": 231, "newfstatat": 262, "set_robust_list": 273, "prlimit64": 302,
    "getrandom": 318,
}
ALLOWED = (
    "read", "write", "close", "fstat", "newfstatat", "brk", "munmap",  # stdio and malloc
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "setitimer",  # the harness's handlers and alarm
    "exit", "exit_group", "set_tid_address", "set_robust_list", "getrandom",  # libc start-up and exit
    "getpid", "gettid", "rt_sigtimedwait",  # valgrind's scheduler while the client runs
)
AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
PROT_EXEC = 0x4
EXEC_FLOOR_HIGH = 0x10  # high 32 bits of 0x10_0000_0000, valgrind's half of the address space
MREMAP_TO_ADDRESS = 0x2 | 0x4  # MREMAP_FIXED | MREMAP_DONTUNMAP
DUMP_OPEN_FLAGS = 0x201  # O_WRONLY | O_TRUNC: callgrind's final dump, nothing else
ARCH_SET_FS = 0x1002  # libc's thread pointer; the other arch_prctl codes can map the vDSO
RET_ALLOW = 0x7FFF0000
RET_DENY = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
RET_KILL = 0x80000000  # SECCOMP_RET_KILL_PROCESS: another ABI (int $0x80) has no business here
LD_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06


@dataclass(frozen=True)
class Insn:
    code: int
    k: int
    jt: int | str = 0  # a label name until assembled
    jf: int | str = 0
    label: str = ""


def _arg(index: int, high: bool = False) -> int:
    """Offset of an argument's 32-bit half in struct seccomp_data."""
    return 16 + 8 * index + (4 if high else 0)


def _program() -> list[Insn]:
    return [
        Insn(LD_ABS, 4),  # arch
        Insn(JEQ, AUDIT_ARCH_X86_64, 1, 0),
        Insn(RET, RET_KILL),
        Insn(LD_ABS, 0),  # nr
        Insn(JGE, X32_BIT, "deny", 0),
        *(Insn(JEQ, NR[name], "allow", 0) for name in ALLOWED),
        Insn(JEQ, NR["mmap"], "exec_high", 0),
        Insn(JEQ, NR["mprotect"], "exec_high", 0),
        Insn(JEQ, NR["mremap"], "mremap", 0),
        Insn(JEQ, NR["open"], "open", 0),
        Insn(JEQ, NR["arch_prctl"], "arch_prctl", 0),
        Insn(JEQ, NR["prlimit64"], "prlimit64", 0),
        Insn(RET, RET_DENY),  # everything not named above
        Insn(LD_ABS, _arg(2), label="exec_high"),  # prot of mmap and mprotect
        Insn(JSET, PROT_EXEC, 0, "allow"),
        Insn(LD_ABS, _arg(0, high=True)),  # executable: only at valgrind's addresses
        Insn(JGE, EXEC_FLOOR_HIGH, "allow", "deny"),
        Insn(LD_ABS, _arg(3), label="mremap"),  # flags
        Insn(JSET, MREMAP_TO_ADDRESS, "deny", "allow"),
        Insn(LD_ABS, _arg(1), label="open"),  # flags
        Insn(JEQ, DUMP_OPEN_FLAGS, "allow", "deny"),
        Insn(LD_ABS, _arg(0), label="arch_prctl"),  # code
        Insn(JEQ, ARCH_SET_FS, "allow", "deny"),
        Insn(LD_ABS, _arg(2), label="prlimit64"),  # new limit: reading a limit is fine, setting one is not
        Insn(JEQ, 0, 0, "deny"),
        Insn(LD_ABS, _arg(2, high=True)),
        Insn(JEQ, 0, "allow", "deny"),
        Insn(RET, RET_DENY, label="deny"),  # BPF jumps only forwards: the verdicts come last
        Insn(RET, RET_ALLOW, label="allow"),
    ]


def assemble() -> list[tuple[int, int, int, int]]:
    """(code, jt, jf, k) per instruction, with label jumps resolved to relative offsets."""
    program = _program()
    where = {insn.label: i for i, insn in enumerate(program) if insn.label}

    def offset(target: int | str, at: int) -> int:
        if isinstance(target, int):
            return target
        distance = where[target] - at - 1
        assert 0 <= distance < 256, f"BPF jump to {target} out of range"
        return distance

    return [(insn.code, offset(insn.jt, i), offset(insn.jf, i), insn.k) for i, insn in enumerate(program)]


def decide(nr: int, args: tuple[int, ...] = (), arch: int = AUDIT_ARCH_X86_64) -> int:
    """What the filter returns for one system call (a tiny interpreter of the subset used above)."""
    data = {0: nr, 4: arch}
    for index, value in enumerate((*args, 0, 0, 0, 0, 0, 0)[:6]):
        data[_arg(index)], data[_arg(index, True)] = value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF
    program, pc, acc = assemble(), 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == RET:
            return k
        if code == LD_ABS:
            acc, pc = data[k], pc + 1
            continue
        taken = {JEQ: acc == k, JGE: acc >= k, JSET: bool(acc & k)}[code]
        pc += 1 + (jt if taken else jf)


def c_source() -> str:
    """The filter, its sock_fprog and the entry point, as C for the harness header."""
    rows = ",\n".join(f"    {{0x{c:02x}, {jt}, {jf}, 0x{k:08x}u}}" for c, jt, jf, k in assemble())
    message = NO_FILTER.replace("\n", "\\n")
    return ENTRY_C.replace("@FILTER@", rows).replace("@MESSAGE@", message).replace("@LENGTH@", str(len(NO_FILTER)))


NO_FILTER = "\n@ECOT-NOFILTER the system-call filter could not be installed\n"


ENTRY_C = r"""
/* ---- the system-call filter, installed at the program's first instruction (see asm_seccomp.py) ---- */
struct ecot_bpf { unsigned short code; unsigned char jt, jf; unsigned int k; };
struct ecot_bpf_prog { unsigned short len; const struct ecot_bpf *filter; };
static const struct ecot_bpf ecot_filter[] = {
@FILTER@
};
const struct ecot_bpf_prog ecot_fprog = {sizeof ecot_filter / sizeof ecot_filter[0], ecot_filter};
static const char ecot_nofilter[] __attribute__((used)) = "@MESSAGE@";
__asm__(
    ".text\n"
    ".globl ecot_entry\n.type ecot_entry,@function\n"
    "ecot_entry:\n"
    "  movq %rdx, %r12\n"                       /* the kernel's atexit pointer, which _start passes on */
    "  movl $157, %eax\n  movl $38, %edi\n  movl $1, %esi\n" /* prctl(PR_SET_NO_NEW_PRIVS, 1) */
    "  xorl %edx, %edx\n  xorl %r10d, %r10d\n  xorl %r8d, %r8d\n  syscall\n"
    "  testq %rax, %rax\n  jnz 1f\n"
    "  movl $157, %eax\n  movl $22, %edi\n  movl $2, %esi\n" /* prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) */
    "  leaq ecot_fprog(%rip), %rdx\n  syscall\n"
    "  testq %rax, %rax\n  jnz 1f\n"
    "  movq %r12, %rdx\n  jmp _start\n"
    "1:\n  movl $1, %eax\n  movl $2, %edi\n  leaq ecot_nofilter(%rip), %rsi\n"
    "  movl $@LENGTH@, %edx\n  syscall\n"
    "  movl $231, %eax\n  movl $125, %edi\n  syscall\n  hlt\n"
    ".size ecot_entry, .-ecot_entry\n");
"""
