"""A job that creates every kind of kernel object it can, and a job that looks for them afterwards.

PLANT and PROBE are standard-library Python sources (ctypes for the calls Python does not wrap), run
as jobs: PLANT leaves a SysV shared-memory segment (MEGABYTES of it touched, then detached), a SysV
semaphore set and message queue, a POSIX message queue, keys in every keyring a process can reach, a
background process holding an abstract unix socket, a memfd and a POSIX timer, and a TCP connection
in TIME_WAIT. PROBE prints one JSON object: the name of every such object it can still see (and the
descriptors it was started with beyond 0-2), so `found == []` means nothing survived.
"""

from __future__ import annotations

import json
from typing import Any

KEY = 0x0EC07  # the SysV key both jobs use
MEGABYTES = 32
PORT = 47311  # the loopback port left in TIME_WAIT

COMMON = f"""
import ctypes, json, os, socket, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.syscall.restype = ctypes.c_long
KEY, SIZE, PORT = {KEY}, {MEGABYTES} << 20, {PORT}
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
ADD_KEY, KEYCTL = {{'x86_64': (248, 250), 'aarch64': (217, 219)}}[os.uname().machine]
KEYRINGS = {{'session': -3, 'user': -4, 'user_session': -5, 'process': -2, 'thread': -1}}
KEYCTL_GET_PERSISTENT, KEYCTL_SEARCH = 22, 10
ABSTRACT = b'\\0ecot-kernel-objects'

def keyrings():
    rings = dict(KEYRINGS)
    persistent = libc.syscall(KEYCTL, KEYCTL_GET_PERSISTENT, ctypes.c_long(-1), ctypes.c_long(-4))
    if persistent > 0:
        rings['persistent'] = persistent
    return rings
"""

PLANT = COMMON + """
out = {}
shm = libc.shmget(KEY, SIZE, IPC_CREAT | 0o666)
if shm >= 0:
    address = libc.shmat(shm, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(address, 0x5A, SIZE)  # touched: the pages are really allocated
        libc.shmdt(ctypes.c_void_p(address))
out['sysv_shm'] = shm
out['sysv_sem'] = libc.semget(KEY, 1, IPC_CREAT | 0o666)
msq = libc.msgget(KEY, IPC_CREAT | 0o666)
message = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + 5)
ctypes.c_long.from_buffer(message).value = 1
out['sysv_msg'] = msq if msq < 0 else libc.msgsnd(msq, message, 5, IPC_NOWAIT)
mq = libc.mq_open(b'/ecot-kernel-objects', os.O_CREAT | os.O_RDWR, 0o666, None)
out['posix_mq'] = mq if mq < 0 else libc.mq_send(mq, b'answer', 6, 0)
for name, ring in keyrings().items():
    out['key_' + name] = libc.syscall(ADD_KEY, b'user', b'ecot-kernel-objects', b'answer', 6, ctypes.c_long(ring))
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    listener.bind(('127.0.0.1', PORT))
    listener.listen(1)
    client = socket.create_connection(('127.0.0.1', PORT), timeout=2)
    served, _ = listener.accept()
    served.close()  # the side that closes first keeps the port in TIME_WAIT
    time.sleep(0.05)
    client.close()
    out['time_wait'] = 0
except OSError as err:
    out['time_wait'] = -err.errno
listener.close()
ready_r, ready_w = os.pipe()
if os.fork() == 0:  # a background process: a session of its own, an abstract socket, a memfd, a timer
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the job ends when its main process does: nothing of ours holds its pipes
            os.dup2(null, fd)
        holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        holder.bind(ABSTRACT)
        holder.listen(1)
        memfd = os.memfd_create('ecot-kernel-objects')
        os.write(memfd, b'answer')
        timer = ctypes.c_void_p()
        libc.timer_create(1, None, ctypes.byref(timer))  # CLOCK_MONOTONIC, SIGALRM on expiry (never armed)
        os.write(ready_w, b'1')
        while True:
            holder.accept()[0].close()
    os._exit(0)
os.read(ready_r, 1)
print(json.dumps(out))
"""

PROBE = COMMON + """
fds = []
for fd in range(3, 1024):
    try:
        os.fstat(fd)
        fds.append(fd)
    except OSError:
        pass
found = []
if libc.shmget(KEY, 0, 0) >= 0:
    found.append('sysv_shm')
if libc.semget(KEY, 0, 0) >= 0:
    found.append('sysv_sem')
if libc.msgget(KEY, 0) >= 0:
    found.append('sysv_msg')
if libc.mq_open(b'/ecot-kernel-objects', os.O_RDONLY, 0, None) >= 0:
    found.append('posix_mq')
for name, ring in keyrings().items():
    if libc.syscall(KEYCTL, KEYCTL_SEARCH, ctypes.c_long(ring), b'user', b'ecot-kernel-objects', 0) > 0:
        found.append('key_' + name)
probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    probe.connect(ABSTRACT)
    found.append('abstract_socket_and_its_process')
except OSError:
    pass
probe.close()
port = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    port.bind(('127.0.0.1', PORT))
except OSError as err:
    if err.errno == 98:  # EADDRINUSE: the port an earlier job left in TIME_WAIT
        found.append('time_wait')
port.close()
print(json.dumps({'found': found, 'fds': fds}))
"""


def planted(stdout: str) -> dict[str, Any]:
    """What PLANT made (each object's id or return code: negative where the kernel refused it)."""
    made: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return made


def probed(stdout: str) -> dict[str, Any]:
    seen: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return seen


def shmem_kb() -> int:
    """The host's shared memory (/proc/meminfo Shmem): SysV segments and every tmpfs page."""
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("Shmem:"):
                return int(line.split()[1])
    raise RuntimeError("no Shmem line in /proc/meminfo")
