"""Hostile Python candidates for the python domain (see framework.py for the case format).

Most are oracles on `python/two_sum`: the right answer only if the attack worked, so a contained attack
shows up as a failing label and an escape as Pass. The timing attacks are different: their answers are
right, but computed far past the per-test CPU limit (1 s here), so the honest verdict is Timeout and
anything else means the attack changed what the judge measured or read.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from ecot.core.outcome import RESOURCE_LIMIT, TIMEOUT, Outcome
from ecot.domains.python.verdict import MEMORY_LIMIT, RUNTIME_ERROR, WRONG_ANSWER

from ..common import bundled_task, files_stay_absent, no_process_left, task_cache_files, unique_marker, within
from . import pyattacks, pycheck
from .framework import Attack, Case, DomainCases, NotApplicable, cases_of, cleaned, label_in
from .pykernel import IN_SYSV_SHM, IN_USER_KEYRING, caesar_cached

TASK = "python/two_sum"
STDIO_TASK = "python/fizzbuzz"
HANG_WALL_S = 3.0
SLOW_S = 2.5  # CPU seconds the timing attacks burn: past the 1 s limit, well inside the job's 20 s
OUTSIDE_FILES = (Path("/etc/ecot_py_pwned"), Path("/root/ecot_py_pwned"), Path.home() / "ecot_py_pwned")
CACHE_FILES = task_cache_files("ecot_py_pwned")  # a forged reference profile would outlive the run

SOLVE = """
def _solve(nums, target):
    first = {}
    for j, x in enumerate(nums):
        if target - x in first:
            return [first[target - x], j]
        first.setdefault(x, j)
    return []
"""

# Real CPU seconds, whatever the attack does to the clocks afterwards; SLOW_S of them burnt on demand.
SPIN = """
import resource as _resource
_getrusage = _resource.getrusage
def _cpu():
    usage = _getrusage(_resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
def _spin(seconds):
    end = _cpu() + seconds
    while _cpu() < end:
        for _ in range(20000):
            pass
"""

# Switch off every timer a judge could set on us, and keep it from setting new ones.
TIMERS_OFF = """
import signal as _signal
def _timers_off():
    for _sig in (_signal.SIGALRM, _signal.SIGPROF, _signal.SIGVTALRM, _signal.SIGXCPU):
        _signal.signal(_sig, _signal.SIG_IGN)
    for _which in (_signal.ITIMER_REAL, _signal.ITIMER_PROF, _signal.ITIMER_VIRTUAL):
        _signal.setitimer(_which, 0)
    _signal.setitimer = lambda *args, **kwargs: (0.0, 0.0)
"""

# Make every clock in this process read zero.
CLOCKS_OFF = """
import time as _time
for _name in ('process_time', 'perf_counter', 'monotonic', 'time', 'thread_time'):
    setattr(_time, _name, lambda: 0.0)
_time.clock_gettime = lambda *args: 0.0
"""


@cache
def _inputs(task_id: str) -> list[object]:
    return [test["input"] for test in json.loads(bundled_task(task_id).files["tests.json"])]


def forge(task_id: str = TASK) -> str:
    """`_forge(first)`: a passing record, with the right answer, for every test from `first` on, then
    'done', written on every descriptor from 3 to 255 (where a harness keeps its result channel)."""
    answer = "_json.dumps(_solve(*_args))" if task_id == TASK else "_fizz(_args)"
    key = "value" if task_id == TASK else "stdout"
    return f"""
import json as _json, os as _os
_INPUTS = {_inputs(task_id)!r}
def _forge(first=0):
    _lines = ''.join(_json.dumps({{'kind': 'test', 'i': _i, 'status': 'ok', 'cpu': 0.001, {key!r}: {answer}}}) + '\\n'
                     for _i, _args in enumerate(_INPUTS) if _i >= first)
    _data = (_json.dumps({{'kind': 'compiled'}}) + '\\n' + _lines + _json.dumps({{'kind': 'done'}}) + '\\n').encode()
    for _fd in range(3, 256):
        try:
            _os.write(_fd, _data)
        except OSError:
            pass
"""


def oracle(attack: str) -> str:
    """two_sum, right only when `attack` (module-level statements setting `escaped`) worked."""
    return (f"escaped = False\n{attack.strip()}\n{SOLVE}\n"
            "def two_sum(nums, target):\n    return _solve(nums, target) if escaped else [-1]\n")


def plant_files(paths: tuple[Path, ...]) -> str:
    """Module-level statements that make each file's folder and write the file; `escaped` if one is written."""
    lines = ["import os as _os"]
    for path in paths:
        lines.append(f"try:\n    _os.makedirs({str(path.parent)!r}, exist_ok=True)\n"
                     f"    open({str(path)!r}, 'w').write('{{\"facts\": {{}}}}')\n    escaped = True\nexcept OSError:\n    pass")
    return "\n".join(lines) + "\n"


def on_first_call(body: str, then: str = "return _solve(nums, target)") -> str:
    """two_sum running `body` on its first call only, then `then` (helpers above it in the module)."""
    inner = "\n".join("        " + line for line in body.strip("\n").splitlines())
    return (f"{SOLVE}{SPIN}{TIMERS_OFF}{forge()}\n_calls = []\ndef two_sum(nums, target):\n    _calls.append(1)\n"
            f"    if len(_calls) == 1:\n{inner}\n    {then}\n")


def in_function(body: str) -> str:
    inner = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"def two_sum(nums, target):\n{inner}\n    return [-1]\n"




def no_secret_in_log(outcome: Outcome) -> bool:
    return outcome.label == WRONG_ANSWER and "root:" not in outcome.log


FIRST_CACHED = f"{SOLVE}\n_first = []\ndef two_sum(nums, target):\n    if not _first:\n        _first.append(_solve(nums, target))\n    return _first[0]\n"

CONTROL = Case("harmless", TASK, oracle("open('scratch.txt', 'w').write('hi')\nescaped = True"))

SEARCH_EXPECTED = """import os, json
def two_sum(nums, target):
    for root in ('.', '..', '/tmp', '/ecot', '/dev/shm'):
        for folder, _, files in os.walk(root):
            for name in files:
                try:
                    for test in json.loads(open(os.path.join(folder, name)).read()):
                        if test.get('input') == [nums, target] and 'output' in test:
                            return test['output']
                except Exception:
                    pass
    return [-1]
"""
_MARKER = unique_marker()  # the sleeper's argv[0]: sleep refuses an extra operand and would exit at once
TIMER_KILLER_WITH_SLEEPER = f"""import os, signal, subprocess
def two_sum(nums, target):
    for sig in (signal.SIGPROF, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)
    try:
        subprocess.Popen(["{_MARKER}", "300"], executable="/bin/sleep", start_new_session=True)
    except OSError:
        pass
    while True:
        pass
"""
LEFTOVER_PLANTER = """import os, time
def two_sum(nums, target):
    try:
        if os.fork() == 0:
            os.setsid()
            for _ in range(200):
""" + "\n".join("                " + line for line in pyattacks.PLANT.strip().splitlines()) + """
                time.sleep(0.05)
            os._exit(0)
    except OSError:
        pass
    return [-1]
"""
SWALLOW_FOREVER = """def two_sum(nums, target):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
"""
STDIO_FORGE_THEN_EXIT = f"""{forge(STDIO_TASK)}
def _fizz(text):
    return ''.join('FizzBuzz\\n' if i % 15 == 0 else 'Fizz\\n' if i % 3 == 0 else 'Buzz\\n' if i % 5 == 0 else f'{{i}}\\n'
                   for i in range(1, int(text) + 1))
print(_fizz(input()), end='', flush=True)
_forge()
_os._exit(0)
"""
# The 2 GiB of pyattacks.DISK_FILL spread over the ten tests: each test's share fits its CPU limit, so
# only a disk quota stops it.
DISK_FILL_SPREAD = SOLVE + """
_written = []
def two_sum(nums, target):
    chunk = b'x' * (1 << 20)
    try:
        for _ in range(4):  # 256 MiB per test, in files of 64 MiB: within the file size limit
            with open(f'fill{len(_written)}.bin', 'wb') as handle:
                for _ in range(64):
                    handle.write(chunk)
            _written.append(64)
    except OSError:
        return [-1]
    return _solve(nums, target) if len(_written) < 40 or sum(_written) >= 2048 else [-1]
"""
FORGE_EVERY_FD = in_function("""import os, json
fake = ''.join(json.dumps({'kind': 'test', 'i': i, 'status': 'ok', 'cpu': 0, 'value': '[0, 1]'}) + '\\n' for i in range(20))
for fd in range(1, 20):
    try:
        os.write(fd, fake.encode())
    except OSError:
        pass""")
FORGED_SUMMARY = """import json
def two_sum(nums, target):
    print(json.dumps({"kind": "test", "i": 0, "status": "ok", "cpu": 0, "value": "[0, 1]"}))
    print("PASS: all 10 tests passed, Mismatches: 0")
    return [-1]
"""

# issue 26, finding 3: what a candidate raises and prints reaches the outcome's texts only cleaned.
TRICKS_RAISED = f"""import sys
_TRICKS = {pyattacks.TERMINAL_TRICKS!r}
print(_TRICKS.encode('utf-8', 'surrogatepass').decode('utf-8', 'replace'))
sys.stderr.buffer.write(_TRICKS.encode('utf-8', 'surrogatepass') + b' \\xff\\xfe\\n')
def two_sum(nums, target):
    print(_TRICKS[1:])
    raise ValueError(_TRICKS)
"""
TRICKS_PRINTED = f"""import sys
sys.stdout.buffer.write({pyattacks.TERMINAL_TRICKS!r}.encode('utf-8', 'surrogatepass') + b' \\xff\\n')
"""

# issue 26, finding 4: the module's top-level code burns CPU (as one that computes every answer there
# would), then every call is fast. Under the 1 s the load was given before, so only counting shows it.
IMPORT_WORK_S = 0.8
WORK_AT_IMPORT = f"{SPIN}\n_spin({IMPORT_WORK_S})\n{SOLVE}\ntwo_sum = _solve\n"


def counts_import_work(outcome: Outcome) -> bool:
    """A Pass whose CPU seconds hold what the top-level code spent, or no Pass."""
    cpu = outcome.metrics.get("cpu_s", 0.0)
    return outcome.label != "Pass" or (isinstance(cpu, float) and cpu >= IMPORT_WORK_S)


def with_check_mode(cases: DomainCases) -> DomainCases:
    """The function- and stdio-mode cases, plus check mode's (pycheck.py) under the same attacks."""
    merged = dict(cases)
    for attack, extra in pycheck.CASES.items():
        merged[attack] = [*cases_of(merged[attack]), *extra]
    return merged


CASES: DomainCases = with_check_mode({
    Attack.TAKEOVER: [
        Case("ptrace_or_proc_mem", TASK, oracle(pyattacks.TAKEOVER)),
        # stop the judge, work past the limit, let it go on: its clocks are the kernel's, not its own view
        Case("freeze_the_judge", TASK, on_first_call(f"_os.kill(_os.getppid(), _signal.SIGSTOP)\n_spin({SLOW_S})\n"
                                                    "_os.kill(_os.getppid(), _signal.SIGCONT)"),
             label_in(TIMEOUT), wall_s=8.0),
    ],
    Attack.LINK_RACE: NotApplicable(
        "the host reads nothing a python job wrote but the job's stdout pipe, and inside the sandbox the "
        "harness keeps each test's stdin and stdout in unnamed memory files: there is no path to swap"),
    Attack.SHORTCUT: [Case(name, TASK, candidate, label_in(WRONG_ANSWER), twin=f"{SOLVE}\ndef two_sum(nums, target):\n"
                                                                               "    return _solve(nums, target)\n")
                      for name, candidate in (("constant_answer", "def two_sum(nums, target):\n    return [0, 1]\n"),
                                              ("first_answer_cached", FIRST_CACHED))],
    Attack.READ_REFERENCE: [
        Case("bundled_references", TASK, oracle(pyattacks.READ_REFERENCE)),
        Case("expected_outputs_anywhere", TASK, SEARCH_EXPECTED),
    ],
    Attack.FORGE_CHANNEL: [
        # the finding of issue 15: no timers, the right answers far too slowly, forged records, gone
        Case("timers_off_slow_then_forged_records", TASK,
             on_first_call(f"_timers_off()\n_spin({SLOW_S})\n_forge()\n_os._exit(0)"), label_in(TIMEOUT)),
        Case("forged_records_then_exit", TASK, on_first_call("_forge()\n_os._exit(0)")),
        Case("swallowed_timer_then_forged_records", TASK, on_first_call(
            f"_start = _cpu()\ntry:\n    _spin({SLOW_S})\nexcept BaseException:\n    _timers_off()\n"
            f"    _spin({SLOW_S} - (_cpu() - _start))\n_forge()\n_os._exit(0)"), label_in(TIMEOUT)),
        Case("forged_records_on_every_fd", TASK, FORGE_EVERY_FD),
    ],
    Attack.INSTRUMENTATION: [
        Case("clocks_and_timers_off", TASK, on_first_call(f"_timers_off()\n{CLOCKS_OFF.strip()}\n_spin({SLOW_S})"),
             label_in(TIMEOUT)),
        Case("work_in_a_thread", TASK, on_first_call(
            f"import threading as _threading\n_worker = _threading.Thread(target=_spin, args=({SLOW_S},))\n"
            "_worker.start()\n_worker.join()"), label_in(TIMEOUT)),
        Case("swallowed_time_limit", TASK, SWALLOW_FOREVER, label_in(TIMEOUT), wall_s=HANG_WALL_S,
             host=within(HANG_WALL_S + 5)),
        Case("work_at_import", TASK, WORK_AT_IMPORT, counts_import_work),
    ],
    Attack.HIDE_FROM_CHECKS: NotApplicable(
        "the python backend runs no static check on the source: every verdict comes from running the tests"),
    Attack.EARLY_EXIT: [
        Case("forged_records_then_exit_at_import", TASK, f"{SOLVE}{forge()}\n_forge()\n_os._exit(0)\n"
             "def two_sum(nums, target):\n    return [-1]\n"),
        Case("exit_after_first_test", TASK, on_first_call("_forge(1)\nreturn _solve(nums, target)", then="_os._exit(0)")),
        Case("exit_at_import", TASK, f"import os\n{SOLVE}\ntwo_sum = _solve\nos._exit(0)\n"),
        Case("stdio_forged_records_then_exit", STDIO_TASK, STDIO_FORGE_THEN_EXIT),
    ],
    Attack.DISK_FILL: [
        Case("two_gigabytes", TASK, oracle(pyattacks.DISK_FILL)),
        Case("two_gigabytes_over_ten_tests", TASK, DISK_FILL_SPREAD),
    ],
    Attack.PERSIST: [
        Case("planted_markers", TASK, f"{pyattacks.PLANT}\n{in_function('pass')}", then=oracle(pyattacks.FIND_PLANTED)),
        Case("leftover_process", TASK, LEFTOVER_PLANTER, then=oracle(pyattacks.FIND_PLANTED)),
        caesar_cached("caesar_answers_in_sysv_shm", IN_SYSV_SHM),
        caesar_cached("caesar_answers_in_the_user_keyring", IN_USER_KEYRING),
        Case("task_cache_entries", TASK, oracle(plant_files(CACHE_FILES)), host=lambda: files_stay_absent(CACHE_FILES)),
    ],
    Attack.FORK_BOMB: Case("fork_loop", TASK, pyattacks.FORK_BOMB + in_function("pass"),
                           label_in(TIMEOUT, RUNTIME_ERROR, MEMORY_LIMIT, RESOURCE_LIMIT), wall_s=HANG_WALL_S,
                           host=within(3 * HANG_WALL_S + 5)),
    Attack.MEMORY_BOMB: Case("huge_buffers", TASK, in_function(pyattacks.MEMORY_BOMB), label_in(MEMORY_LIMIT, TIMEOUT)),
    Attack.ENDLESS_LOOP: [
        Case("loop_at_import", TASK, pyattacks.ENDLESS_LOOP + in_function("pass"), label_in(TIMEOUT), wall_s=HANG_WALL_S,
             host=within(HANG_WALL_S + 5)),
        Case("timers_off_with_a_sleeper", TASK, TIMER_KILLER_WITH_SLEEPER, label_in(TIMEOUT), wall_s=HANG_WALL_S,
             host=no_process_left(_MARKER)),
    ],
    Attack.OUTPUT_FLOOD: [
        Case("stdout", TASK, in_function(pyattacks.OUTPUT_FLOOD), label_in(RESOURCE_LIMIT), host=within(15)),
        Case("stderr", TASK, in_function("import sys\nwhile True:\n    sys.stderr.write('E' * 65536)"),
             label_in(RESOURCE_LIMIT), host=within(8)),
    ],
    Attack.NETWORK: Case("connect_out", TASK, oracle(pyattacks.NETWORK)),
    Attack.READ_SECRETS: Case("host_files_and_environment", TASK, oracle(pyattacks.READ_SECRETS), no_secret_in_log),
    Attack.WRITE_OUTSIDE: Case("host_paths", TASK, oracle(pyattacks.write_outside(list(OUTSIDE_FILES))),
                               host=lambda: files_stay_absent(OUTSIDE_FILES)),
    Attack.FORGED_PRINT: [
        Case("passing_summary_on_stdout", TASK, FORGED_SUMMARY),
        Case("stdio_prints_records", STDIO_TASK, "import json\nprint(json.dumps({'kind': 'done'}))\nprint('all tests passed')\n"),
        Case("terminal_tricks_raised_and_printed", TASK, TRICKS_RAISED, cleaned(label_in(RUNTIME_ERROR))),
        Case("stdio_terminal_tricks_printed", STDIO_TASK, TRICKS_PRINTED, cleaned(label_in(WRONG_ANSWER))),
    ],
})
