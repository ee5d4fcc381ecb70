"""Hostile candidates for the python domain's check mode (the benchmark's own test code judges them).

HumanEval's `check(candidate)` and MBPP's asserts are Python that calls the candidate; in the benchmarks'
own harnesses they share a process with it, so a candidate can rewrite them. In ecot the check runs in
the judge and only the candidate's function runs in the child. Each case here would pass a harness
that runs the check beside the candidate (or reads its output), so a contained attack shows up as a
failing label. `HONEST_TWINS` (run by tests/conformance/test_python_checks.py) does the same harmless
part of each attack with a right answer and must pass: containment is not "anything odd fails".
"""

from __future__ import annotations

from ecot.core.outcome import TIMEOUT

from ..common import within
from . import pyattacks
from .framework import Attack, Case, label_in

PAIRS = "python/pair_sums"  # MBPP style: top-level asserts
ROOT = "python/poly_root"  # HumanEval style: `check(find_root)` after the prompt's `poly`
SLOW_S = 2.5  # past the 1 s CPU floor of the task, well inside its 20 s

PAIRS_SOLVE = """
from collections import Counter as _Counter
def _solve(nums, target):
    _counts = _Counter(nums)
    return [(a, target - a) for a in sorted(_counts)
            if target - a in _counts and (a < target - a or (a == target - a and _counts[a] > 1))]
"""
ROOT_SOLVE = """
def _bisect(coeffs, lo, hi):
    f = lambda x: sum(c * x ** i for i, c in enumerate(coeffs))
    lo, hi = float(lo), float(hi)
    if f(lo) == 0 or f(hi) == 0:
        return lo if f(lo) == 0 else hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(mid) < 0) == (f(lo) < 0):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
"""


def pairs_oracle(attack: str) -> str:
    """pair_sums, right only when `attack` (module-level statements setting `escaped`) worked."""
    return f"escaped = False\n{attack.strip()}\n{PAIRS_SOLVE}\ndef pair_sums(nums, target):\n    return _solve(nums, target) if escaped else [(0, 0)]\n"


def pairs_calling(body: str, answer: str = "return _solve(nums, target)") -> str:
    """pair_sums running `body` on every call, then `answer`."""
    inner = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"{PAIRS_SOLVE}\ndef pair_sums(nums, target):\n{inner}\n    {answer}\n"


# The check source is read by the judge after the child exists, from a descriptor the child never holds:
# no file and no object reachable in the child's memory (from its frames, which it inherited from the
# judge, and its modules; objects the judge froze before the fork are not in gc.get_objects) holds its text.
READ_CHECK = """
import gc, os, sys, types
_needle = 'pair' + '_sums([104729'
def _holds(value):
    if isinstance(value, (bytes, bytearray)):
        return _needle.encode() in value
    return isinstance(value, str) and value is not _needle and _needle in value
def _look():
    global escaped
    for _root in ('.', '..', '/tmp', '/ecot', '/dev/shm'):
        for _folder, _, _files in os.walk(_root):
            for _name in _files:
                try:
                    if _holds(open(os.path.join(_folder, _name), 'rb').read()):
                        escaped = True
                except OSError:
                    pass
    _seen, _todo = set(), [sys._getframe(), sys.modules, *gc.get_objects()]
    while _todo and len(_seen) < 400000:
        _obj = _todo.pop()
        if id(_obj) in _seen:
            continue
        _seen.add(id(_obj))
        if _holds(_obj):
            escaped = True
        if isinstance(_obj, types.FrameType):  # a running frame shows its locals and caller to attributes only
            _todo.extend([*_obj.f_locals.values(), _obj.f_globals, _obj.f_back])
        if not isinstance(_obj, (str, bytes, bytearray, int, float)):
            _todo.extend(gc.get_referents(_obj))
_look()
"""

# The judge imports what the check imports; a module planted in the work dir would run there. The fake
# `random` makes every cubic of poly_root's check (x - 1)^3 on [0, 1], whose root is the interval's end.
PLANT_RANDOM = ROOT_SOLVE + """
open('random.py', 'w').write('class Random:\\n    def __init__(self, seed=None):\\n        pass\\n'
                             '    def uniform(self, a, b):\\n        return 1.0\\n')
_calls = []
def find_root(coeffs, lo, hi):
    _calls.append(1)
    return _bisect(coeffs, lo, hi) if len(_calls) <= 3 else float(hi)
"""

# A wrong answer, with everything a check running beside it would read rewritten to agree.
PATCHED_BUILTINS = """
import builtins, math
_isinstance = builtins.isinstance
builtins.abs = lambda x: 0.0
builtins.isinstance = lambda value, kind: kind is float or _isinstance(value, kind)
builtins.AssertionError = type('AssertionError', (Exception,), {})
math.fabs = lambda x: 0.0
def check(candidate):
    return None
def poly(coeffs, x):
    return 0.0
def find_root(coeffs, lo, hi):
    return lo
"""

# A float that equals, and is near, whatever it is compared with: a check that shares the candidate's
# process and compares the candidate's own object passes it (isinstance(root, float) included).
AGREES_WITH_EVERYTHING = """
class _Agreeable(float):
    def __eq__(self, other):
        return True
    __le__ = __ge__ = __lt__ = __gt__ = __eq__
    def __ne__(self, other):
        return False
    def _zero(self, *other):
        return _Agreeable(0.0)
    __sub__ = __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __pow__ = __rpow__ = __abs__ = __neg__ = _zero
    __hash__ = float.__hash__
def find_root(coeffs, lo, hi):
    return _Agreeable(12345.0)
"""

FORGED_RECORDS = """
import json, os
_records = [{'kind': 'test', 'i': i, 'status': 'ok', 'cpu': 0.0, 'calls': 1, 'assertions': 1} for i in range(8)]
_data = ''.join(json.dumps(r) + '\\n' for r in [{'kind': 'compiled'}, *_records, {'kind': 'done'}]).encode()
for _fd in range(1, 256):
    try:
        os.write(_fd, _data)
    except OSError:
        pass
"""

FORGED_PRINTS = """
import json
print(json.dumps({'kind': 'test', 'i': 0, 'status': 'ok', 'cpu': 0.0, 'assertions': 1}))
print('all 8 tests of check.py passed; 8 passed, 0 failed')
"""

TIMERS_AND_CLOCKS_OFF = f"""
import resource, signal, time
for _sig in (signal.SIGALRM, signal.SIGPROF, signal.SIGVTALRM, signal.SIGXCPU):
    signal.signal(_sig, signal.SIG_IGN)
for _name in ('process_time', 'perf_counter', 'monotonic', 'time', 'thread_time'):
    setattr(time, _name, lambda: 0.0)
_end = resource.getrusage(resource.RUSAGE_SELF).ru_utime + {SLOW_S}
while resource.getrusage(resource.RUSAGE_SELF).ru_utime < _end:
    pass
"""

# After its sixth call the child stops reading the judge's pipe; the seventh call's arguments (100,000
# numbers) are more than the pipe holds, so a judge that wrote them without a deadline would wait for ever.
STOPS_READING = PAIRS_SOLVE + """
import os, time
_calls = []
def pair_sums(nums, target):
    _calls.append(1)
    if len(_calls) == 6:
        os.read = lambda fd, size: time.sleep(3600)
    return _solve(nums, target)
"""

CASES: dict[Attack, list[Case]] = {
    Attack.TAKEOVER: [
        Case("check_ptrace_or_proc_mem", PAIRS, pairs_oracle(pyattacks.TAKEOVER)),
        Case("check_module_planted_for_the_judge", ROOT, PLANT_RANDOM),
    ],
    Attack.READ_REFERENCE: [Case("check_source_anywhere", PAIRS, pairs_oracle(READ_CHECK))],
    Attack.FORGE_CHANNEL: [
        Case("check_forged_records_on_every_fd", PAIRS, pairs_calling(FORGED_RECORDS, "return [(0, 0)]")),
        Case("check_forged_records_then_exit", PAIRS, pairs_calling(FORGED_RECORDS + "os._exit(0)")),
    ],
    Attack.INSTRUMENTATION: [
        Case("check_patched_builtins_and_check", ROOT, PATCHED_BUILTINS),
        Case("check_agrees_with_everything", ROOT, AGREES_WITH_EVERYTHING),
        Case("check_clocks_and_timers_off", PAIRS, pairs_calling(TIMERS_AND_CLOCKS_OFF), label_in(TIMEOUT)),
        Case("check_stops_reading_its_calls", PAIRS, STOPS_READING, label_in(TIMEOUT), host=within(15)),
    ],
    Attack.EARLY_EXIT: [
        Case("check_os_exit_zero_in_a_call", PAIRS, pairs_calling("import os\nos._exit(0)")),
        Case("check_system_exit_zero_in_a_call", PAIRS, pairs_calling("raise SystemExit(0)")),
        Case("check_exit_zero_at_import", PAIRS, "import sys\nsys.exit(0)\n"),
    ],
    Attack.FORGED_PRINT: [Case("check_prints_a_passing_summary", PAIRS, pairs_calling(FORGED_PRINTS, "return [(0, 0)]"))],
}

# case name -> (task, a candidate doing the harmless part of that attack and answering right): must pass.
HONEST_TWINS: dict[str, tuple[str, str]] = {
    "check_module_planted_for_the_judge": (ROOT, ROOT_SOLVE + "open('random.py', 'w').write('uniform = None\\n')\n"
                                                  "find_root = _bisect\n"),
    "check_patched_builtins_and_check": (ROOT, ROOT_SOLVE + "import builtins\n_isinstance = builtins.isinstance\n"
                                                "builtins.isinstance = lambda value, kind: kind is float or _isinstance(value, kind)\n"
                                                "def check(candidate):\n    return None\nfind_root = _bisect\n"),
    "check_agrees_with_everything": (ROOT, ROOT_SOLVE + "class _Root(float):\n    def __repr__(self):\n        return 'root'\n"
                                            "def find_root(coeffs, lo, hi):\n    return _Root(_bisect(coeffs, lo, hi))\n"),
    "check_system_exit_zero_in_a_call": (PAIRS, pairs_calling("try:\n    raise SystemExit(0)\nexcept SystemExit:\n    pass")),
    "check_prints_a_passing_summary": (PAIRS, pairs_calling(FORGED_PRINTS)),
}
