"""Attack bodies for the domains whose candidates are Python (python, cad, gpu).

Each body is a block of statements at module level that sets `escaped = True` when its attack worked;
a domain wraps it in its own oracle (the right answer only if `escaped`). They use only the standard
library, since the python domain runs candidates without site-packages.
"""

from __future__ import annotations

from pathlib import Path

# ptrace(PTRACE_ATTACH) or a writable /proc/<pid>/mem of any process but ourselves: PID 1 of the
# sandbox (the supervisor or warm interpreter) and our parent (the harness) are the trusted side.
TAKEOVER = """
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
_pids = {1, os.getppid()}
try:
    _pids |= {int(p) for p in os.listdir('/proc') if p.isdigit()}
except OSError:
    pass
_pids.discard(os.getpid())
for _pid in sorted(_pids):
    if _libc.ptrace(16, _pid, None, None) == 0:  # PTRACE_ATTACH
        escaped = True
        _libc.ptrace(17, _pid, None, None)  # PTRACE_DETACH
    try:
        with open(f'/proc/{_pid}/mem', 'r+b', buffering=0):
            escaped = True
    except OSError:
        pass
"""

# Any reference of the bundled suites (or any file named reference.* under a folder named suites),
# looked for where an ecot checkout or installation could be: our import path, well-known roots.
READ_REFERENCE = """
import glob, os, sys
_roots = [p for p in sys.path if p and os.path.isdir(p)]
try:
    import ecot as _ecot
    _roots.append(os.path.dirname(os.path.dirname(_ecot.__file__)))
except Exception:
    pass
_patterns = ['{r}/ecot/suites/*/*/reference*', '{r}/suites/*/*/reference*']
_found = []
for _root in _roots + ['/work', '/root', '/home', '/opt', '/srv', '/tmp', '/ecot']:
    for _pat in _patterns:
        _found += glob.glob(_pat.format(r=_root))
    _found += glob.glob(_root + '/*/src/ecot/suites/*/*/reference*') + glob.glob(_root + '/*/*/src/ecot/suites/*/*/reference*')
for _path in _found:
    try:
        if open(_path, 'rb').read(64):
            escaped = True
            break
    except OSError:
        pass
"""

READ_SECRETS = """
import os
for _path in ('/etc/shadow', '/root/.bashrc', '/root/.ssh/id_rsa', '/root/.bash_history', '/etc/sudoers'):
    try:
        if open(_path, 'rb').read(1) is not None:
            escaped = True
    except OSError:
        pass
_host_keys = {'SSH_AUTH_SOCK', 'OPENAI_API_KEY', 'HF_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'USER', 'LOGNAME', 'MAIL', 'PWD', 'SHELL'}
if _host_keys & set(os.environ):
    escaped = True
try:
    if b'SHELL=' in open('/proc/1/environ', 'rb').read() or b'SHELL=' in open(f'/proc/{os.getppid()}/environ', 'rb').read():
        escaped = True
except OSError:
    pass
"""


def write_outside(paths: list[Path]) -> str:
    lines = [f"try:\n    open({str(p)!r}, 'w').write('x')\n    escaped = True\nexcept OSError:\n    pass" for p in paths]
    return "\n".join(lines) + "\n"


NETWORK = """
import socket
for _addr in (('1.1.1.1', 53), ('8.8.8.8', 53), ('127.0.0.1', 22)):
    try:
        socket.create_connection(_addr, timeout=1).close()
        escaped = True
    except OSError:
        pass
"""

# Writes 64 MiB files until 2 GiB are written: contained means a write fails well before the end.
DISK_FILL = """
import os
_chunk = b'x' * (1 << 20)
_written = 0
try:
    for _i in range(32):
        with open(f'fill{_i}.bin', 'wb') as _f:
            for _j in range(64):
                _f.write(_chunk)
                _written += 1
    escaped = _written >= 2048
except OSError:
    pass
"""

# Leaves a marker everywhere a later job could look, then a later job (the oracle of PERSIST cases)
# passes only if it finds one: what one job writes must be gone for the next.
PLANT = """
import os
for _folder in ('/tmp', '/dev/shm', os.path.expanduser('~'), '..', '.'):
    try:
        open(os.path.join(_folder, 'ecot_persist_marker'), 'w').write('x')
    except OSError:
        pass
"""

FIND_PLANTED = """
import os
for _folder in ('/tmp', '/dev/shm', os.path.expanduser('~'), '..', '.'):
    if os.path.exists(os.path.join(_folder, 'ecot_persist_marker')):
        escaped = True
"""

FORK_BOMB = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
MEMORY_BOMB = "_hog = [bytearray(1 << 26) for _ in range(1 << 12)]\n"
ENDLESS_LOOP = "_n = 0\nwhile True:\n    _n += 1\n"
OUTPUT_FLOOD = "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"

# Text for an exception message or a print (issue 26, finding 3): a lone surrogate, NUL, a line erased
# and overwritten with a fake verdict, an OSC 8 link and an OSC title, an 8-bit CSI and a bidi override.
# A candidate writes it as {TERMINAL_TRICKS!r}: its source holds only the escapes.
TERMINAL_TRICKS = ("\udc80 \x00\x00 \x1b[2K\r\x1b[1A\x1b]8;;http://x\x1b\\ Pass \x1b]8;;\x1b\\ "
                   "\x1b]0;owned\x07 \x9b31m \u202e ssaP")

# Issue 26: kernel objects outlived a job in every warm sandbox. SYSV_COUNTER adds one to a counter in
# a SysV shared-memory segment (created if missing, detached, never removed); FIND_SYSV_COUNTER, run
# as a later job, escapes when it reads a count an earlier job left. Both need a fresh IPC namespace
# per job to fail.
SYSV = """
import ctypes as _ctypes
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = _ctypes.c_void_p
_libc.shmat.argtypes = [_ctypes.c_int, _ctypes.c_void_p, _ctypes.c_int]
_libc.shmdt.argtypes = [_ctypes.c_void_p]
def _counter(create):
    _id = _libc.shmget(0xEC26, 4096, (0o1000 | 0o666) if create else 0)
    _at = _libc.shmat(_id, None, 0) if _id >= 0 else None
    return None if _at in (None, _ctypes.c_void_p(-1).value) else _at
"""
SYSV_COUNTER = SYSV + """
_at = _counter(True)
if _at is not None:
    _ctypes.c_int.from_address(_at).value += 1
    _libc.shmdt(_ctypes.c_void_p(_at))
"""
FIND_SYSV_COUNTER = SYSV + """
_at = _counter(False)
if _at is not None and _ctypes.c_int.from_address(_at).value >= 1:
    escaped = True
"""
