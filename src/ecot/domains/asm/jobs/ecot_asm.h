/* ecot x86-64 asm harness: every asm task's driver.c includes it (written into the sandbox as
 * ecot_asm.h by domains/asm/driver.py, the system-call filter's entry point appended).
 *
 * A task's driver.c includes it, declares the function under test, defines a `Case` struct and four
 * hooks, and ends with `ECOT_DRIVER(Case)`:
 *
 *     static int  read_case(Case *c, const char *line);   one fixed test per stdin line; 0 rejects it
 *     static void gen_case(Case *c);                      a random case (ecot_rand, ecot_range, ...)
 *     static void show_case(const Case *c);               describe the input with ecot_show(...)
 *     static void run_case(Case *c);                      call through ECOT_CALL and ecot_out(...) the result
 *
 * The harness owns main(): `prog run SEED NRAND SHOW TIMEOUT_MS` reads the fixed cases from stdin,
 * adds NRAND random cases drawn from SEED and prints one output line per case (with SHOW=1 it also
 * prints each input on stderr); `prog bench SEED NRAND REPS` runs all cases REPS times silently, then
 * once more printing their results, so a program that stops early or computes nothing cannot pass
 * the benchmark off as fast (the host compares those lines with the baseline's). The program's
 * entry point comes first of all: it installs the system-call filter (domains/asm/seccomp.py).
 *
 * Calls go through an assembly trampoline that loads canary values into the callee-saved registers
 * and checks them (and the stack pointer) afterwards, so an ABI violation is reported even when it
 * would not crash this driver. ECOT_CALLBACK wraps a C callback in a stub that checks the stack is
 * 16-byte aligned at the call. Faults print one `@ECOT-SIGNAL` line (signal, fault address,
 * instruction address, case index) from an alternate signal stack, which works even when the
 * candidate broke %rsp.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

typedef int64_t i64;
typedef uint64_t u64;

volatile long ecot_case_idx = -1; /* global: the callback stub reads it */
static int ecot_printing;
static u64 ecot_state;

/* ---- random inputs (splitmix64) ---- */
static __attribute__((unused)) u64 ecot_rand(void) {
    u64 z = (ecot_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static __attribute__((unused)) i64 ecot_range(i64 lo, i64 hi) { /* inclusive */
    u64 span = (u64)hi - (u64)lo + 1;
    return span ? (i64)((u64)lo + ecot_rand() % span) : (i64)ecot_rand();
}
static __attribute__((unused)) u64 ecot_bits(void) { /* random value with a random number of significant bits */
    int k = (int)(ecot_rand() % 65);
    u64 v = ecot_rand();
    return k == 64 ? v : (v & ((1ULL << k) - 1));
}

/* ---- parsing fixed cases ---- */
static __attribute__((unused)) int ecot_next_i64(const char **p, i64 *v) {
    char *end;
    long long x = strtoll(*p, &end, 0);
    if (end == *p) return 0;
    *v = (i64)x;
    *p = end;
    return 1;
}
static __attribute__((unused)) int ecot_next_u64(const char **p, u64 *v) {
    char *end;
    while (**p == ' ' || **p == '\t') (*p)++;
    if (**p == '-') return 0;
    unsigned long long x = strtoull(*p, &end, 0);
    if (end == *p) return 0;
    *v = (u64)x;
    *p = end;
    return 1;
}

/* ---- output ---- */
static __attribute__((unused)) void ecot_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static __attribute__((unused)) void ecot_out(const char *fmt, ...) {
    if (!ecot_printing) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
}
static int ecot_showing;
static __attribute__((unused)) void ecot_show(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static __attribute__((unused)) void ecot_show(const char *fmt, ...) {
    if (!ecot_showing) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* ---- async-signal-safe reporting ---- */
static __attribute__((unused)) void ecot_put(const char *s) { ssize_t r = write(2, s, strlen(s)); (void)r; }
static __attribute__((unused)) void ecot_put_hex(u64 v) {
    char buf[19] = "0x";
    int n = 0;
    char tmp[16];
    do { tmp[n++] = "0123456789abcdef"[v & 15]; v >>= 4; } while (v);
    for (int i = 0; i < n; i++) buf[2 + i] = tmp[n - 1 - i];
    buf[2 + n] = 0;
    ecot_put(buf);
}
static __attribute__((unused)) void ecot_put_dec(long v) {
    char tmp[24];
    int n = 0, neg = v < 0;
    unsigned long u = neg ? 0UL - (unsigned long)v : (unsigned long)v;
    do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (neg) tmp[n++] = '-';
    char buf[24];
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    ecot_put(buf);
}

static __attribute__((unused)) void ecot_on_signal(int sig, siginfo_t *info, void *raw) {
    ucontext_t *uc = (ucontext_t *)raw;
    if (sig == SIGALRM) {
        ecot_put("\n@ECOT-TIMEOUT case=");
        ecot_put_dec(ecot_case_idx);
        ecot_put("\n");
        _exit(124);
    }
    ecot_put("\n@ECOT-SIGNAL sig=");
    ecot_put_dec(sig);
    ecot_put(" addr=");
    ecot_put_hex((u64)(uintptr_t)info->si_addr);
    ecot_put(" rip=");
    ecot_put_hex((u64)uc->uc_mcontext.gregs[REG_RIP]);
    ecot_put(" rsp=");
    ecot_put_hex((u64)uc->uc_mcontext.gregs[REG_RSP]);
    ecot_put(" code=");
    ecot_put_dec(info->si_code);
    ecot_put(" case=");
    ecot_put_dec(ecot_case_idx);
    ecot_put("\n");
    _exit(128 + sig);
}

static __attribute__((unused)) void ecot_install_handlers(long timeout_ms) {
    static char altstack[1 << 16];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = ecot_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS, SIGALRM};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
    if (timeout_ms > 0) {
        struct itimerval it = {{0, 0}, {timeout_ms / 1000, (timeout_ms % 1000) * 1000}};
        setitimer(ITIMER_REAL, &it, NULL);
    }
}

/* ---- calling convention checks ---- */
void *ecot_target;
void *ecot_cb_target;
u64 ecot_saved[8];   /* rbx rbp r12 r13 r14 r15, return address, rsp */
u64 ecot_after[7];   /* rbx rbp r12 r13 r14 r15 rsp after the call */
long ecot_misaligned = -1;
void ecot_trampoline(void);
void ecot_cb_stub(void);
__asm__(
    ".text\n"
    ".globl ecot_trampoline\n.type ecot_trampoline,@function\n"
    "ecot_trampoline:\n"
    "  movq %rbx, ecot_saved+0(%rip)\n  movq %rbp, ecot_saved+8(%rip)\n"
    "  movq %r12, ecot_saved+16(%rip)\n  movq %r13, ecot_saved+24(%rip)\n"
    "  movq %r14, ecot_saved+32(%rip)\n  movq %r15, ecot_saved+40(%rip)\n"
    "  popq %r11\n  movq %r11, ecot_saved+48(%rip)\n  movq %rsp, ecot_saved+56(%rip)\n"
    "  movabsq $0x5ab1c0de5ab1c001, %rbx\n  movabsq $0x5ab1c0de5ab1c002, %rbp\n"
    "  movabsq $0x5ab1c0de5ab1c003, %r12\n  movabsq $0x5ab1c0de5ab1c004, %r13\n"
    "  movabsq $0x5ab1c0de5ab1c005, %r14\n  movabsq $0x5ab1c0de5ab1c006, %r15\n"
    "  call *ecot_target(%rip)\n"
    "  movq %rbx, ecot_after+0(%rip)\n  movq %rbp, ecot_after+8(%rip)\n"
    "  movq %r12, ecot_after+16(%rip)\n  movq %r13, ecot_after+24(%rip)\n"
    "  movq %r14, ecot_after+32(%rip)\n  movq %r15, ecot_after+40(%rip)\n"
    "  movq %rsp, ecot_after+48(%rip)\n"
    "  movq ecot_saved+0(%rip), %rbx\n  movq ecot_saved+8(%rip), %rbp\n"
    "  movq ecot_saved+16(%rip), %r12\n  movq ecot_saved+24(%rip), %r13\n"
    "  movq ecot_saved+32(%rip), %r14\n  movq ecot_saved+40(%rip), %r15\n"
    "  movq ecot_saved+56(%rip), %rsp\n  pushq ecot_saved+48(%rip)\n"
    "  ret\n"
    ".size ecot_trampoline, .-ecot_trampoline\n"
    ".globl ecot_cb_stub\n.type ecot_cb_stub,@function\n"
    "ecot_cb_stub:\n"
    "  movq %rsp, %r11\n  andq $15, %r11\n  cmpq $8, %r11\n  jne 1f\n"
    "  jmp *ecot_cb_target(%rip)\n"
    "1:\n  movq ecot_case_idx(%rip), %r11\n  movq %r11, ecot_misaligned(%rip)\n"
    "  jmp *ecot_cb_target(%rip)\n"
    ".size ecot_cb_stub, .-ecot_cb_stub\n");

static const char *const ecot_reg_names[6] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};

static __attribute__((unused)) void ecot_check_abi(void) {
    for (int i = 0; i < 6; i++) {
        u64 want = 0x5ab1c0de5ab1c001ULL + (u64)i;
        if (ecot_after[i] != want) {
            ecot_put("\n@ECOT-ABI reg=");
            ecot_put(ecot_reg_names[i]);
            ecot_put(" expected=");
            ecot_put_hex(want);
            ecot_put(" got=");
            ecot_put_hex(ecot_after[i]);
            ecot_put(" case=");
            ecot_put_dec(ecot_case_idx);
            ecot_put("\n");
            _exit(3);
        }
    }
    if (ecot_after[6] != ecot_saved[7]) {
        ecot_put("\n@ECOT-ABI reg=rsp expected=");
        ecot_put_hex(ecot_saved[7]);
        ecot_put(" got=");
        ecot_put_hex(ecot_after[6]);
        ecot_put(" case=");
        ecot_put_dec(ecot_case_idx);
        ecot_put("\n");
        _exit(3);
    }
    if (ecot_misaligned >= 0) {
        ecot_put("\n@ECOT-ALIGN case=");
        ecot_put_dec(ecot_misaligned);
        ecot_put("\n");
        _exit(3);
    }
}

/* Call FN(args...) through the checking trampoline; the value is FN's return value. */
#define ECOT_CALL(fn, ...)                                                                   \
    ({                                                                                        \
        ecot_target = (void *)(fn);                                                           \
        __typeof__(&fn) volatile ecot_f_ = (__typeof__(&fn))(void *)ecot_trampoline;         \
        __typeof__(fn(__VA_ARGS__)) ecot_r_ = ecot_f_(__VA_ARGS__);                           \
        ecot_check_abi();                                                                     \
        ecot_r_;                                                                              \
    })
#define ECOT_CALL_VOID(fn, ...)                                                              \
    do {                                                                                      \
        ecot_target = (void *)(fn);                                                           \
        __typeof__(&fn) volatile ecot_f_ = (__typeof__(&fn))(void *)ecot_trampoline;         \
        ecot_f_(__VA_ARGS__);                                                                 \
        ecot_check_abi();                                                                     \
    } while (0)
/* A pointer to CB that checks the stack alignment at each call (one callback at a time). */
#define ECOT_CALLBACK(cb) (ecot_cb_target = (void *)(cb), (__typeof__(&cb))(void *)ecot_cb_stub)

/* ---- main ---- */
typedef struct {
    size_t size;
    int (*read)(void *, const char *);
    void (*gen)(void *);
    void (*show)(const void *);
    void (*run)(void *);
} ecot_task_t;

static long ecot_load(const ecot_task_t *t, char **cases, long extra) {
    long n = 0, cap = 64 + extra;
    char *buf = calloc((size_t)cap, t->size);
    char *line = NULL;
    size_t len = 0;
    ssize_t got;
    while ((got = getline(&line, &len, stdin)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = 0;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, (size_t)cap * t->size);
            memset(buf + (size_t)n * t->size, 0, (size_t)(cap - n) * t->size);
        }
        if (!t->read(buf + (size_t)n * t->size, line)) {
            fprintf(stderr, "@ECOT-BADCASE line=%ld\n", n + 1);
            exit(2);
        }
        n++;
    }
    free(line);
    if (n + extra > cap) {
        buf = realloc(buf, (size_t)(n + extra) * t->size);
        memset(buf + (size_t)n * t->size, 0, (size_t)extra * t->size);
    }
    *cases = buf;
    return n;
}

static __attribute__((unused)) int ecot_main(int argc, char **argv, const ecot_task_t *t) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s run SEED NRAND SHOW [TIMEOUT_MS] | bench SEED NRAND REPS\n", argv[0]);
        return 2;
    }
    int bench = strcmp(argv[1], "bench") == 0;
    ecot_state = strtoull(argv[2], NULL, 10);
    long nrand = atol(argv[3]);
    long arg4 = atol(argv[4]);
    ecot_install_handlers(!bench && argc > 5 ? atol(argv[5]) : 0);
    char *cases;
    long nfixed = bench ? 0 : ecot_load(t, &cases, nrand);
    if (bench) cases = calloc((size_t)nrand + 1, t->size);
    for (long i = 0; i < nrand; i++) t->gen(cases + (size_t)(nfixed + i) * t->size);
    long total = nfixed + nrand;
    if (bench) {
        for (long r = 0; r < arg4; r++)
            for (long i = 0; i < total; i++) {
                ecot_case_idx = i;
                t->run(cases + (size_t)i * t->size);
            }
    }
    ecot_printing = 1;
    ecot_showing = !bench && arg4 != 0;
    for (long i = 0; i < total; i++) {
        ecot_case_idx = i;
        if (ecot_showing) {
            t->show(cases + (size_t)i * t->size);
            fputc('\n', stderr);
        }
        t->run(cases + (size_t)i * t->size);
        fputc('\n', stdout);
    }
    fflush(stdout);
    fflush(stderr);
    return 0;
}

#define ECOT_DRIVER(CaseType)                                                                      \
    static int ecot_read_(void *c, const char *l) { return read_case((CaseType *)c, l); }         \
    static void ecot_gen_(void *c) { gen_case((CaseType *)c); }                                    \
    static void ecot_show_(const void *c) { show_case((const CaseType *)c); }                      \
    static void ecot_run_(void *c) { run_case((CaseType *)c); }                                    \
    int main(int argc, char **argv) {                                                              \
        static const ecot_task_t task = {sizeof(CaseType), ecot_read_, ecot_gen_, ecot_show_, ecot_run_}; \
        return ecot_main(argc, argv, &task);                                                       \
    }
