"""Python candidates that keep answers in kernel objects outliving their job (issue 26): a right caesar
stores every (input, answer) in a SysV segment or the user keyring, and a later candidate that
implements nothing answers from it. Contained only where nothing a job creates survives it."""

from __future__ import annotations

from .framework import Case

# Issue 26: a right candidate keeps every (input, answer) in a kernel object that outlives its job, and
# a later candidate that implements nothing answers from it: Pass unless no such object survives a job.
CAESAR_TASK = "python/caesar"
CAESAR = """
def _caesar(text, shift):
    return ''.join(chr((ord(c) - b + shift) % 26 + b) if c.isascii() and c.isalpha() else c
                   for c in text for b in [97 if c.islower() else 65])
"""
IN_SYSV_SHM = """import ctypes, json
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_SIZE = 1 << 16
def _segment():
    shm = _libc.shmget(0xEC27, _SIZE, 0o1000 | 0o666)
    address = _libc.shmat(shm, None, 0) if shm >= 0 else None
    return None if address in (None, ctypes.c_void_p(-1).value) else address
def _load():
    address = _segment()
    try:
        return json.loads(ctypes.string_at(address, _SIZE).split(b'\\0', 1)[0] or b'{}') if address else {}
    except ValueError:
        return {}
def _store(key, answer):
    address, table = _segment(), _load()
    if address:
        table[key] = answer
        data = json.dumps(table).encode()[:_SIZE - 1] + b'\\0'
        ctypes.memmove(address, data, len(data))
"""
IN_USER_KEYRING = """import ctypes, json
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_ADD_KEY, _KEYCTL = {'x86_64': (248, 250), 'aarch64': (217, 219)}[__import__('os').uname().machine]
_USER_KEYRING, _SEARCH, _READ = -4, 10, 11
def _load():
    key = _libc.syscall(_KEYCTL, _SEARCH, ctypes.c_long(_USER_KEYRING), b'user', b'ecot-caesar', 0)
    buffer = ctypes.create_string_buffer(1 << 15)
    size = _libc.syscall(_KEYCTL, _READ, ctypes.c_long(key), buffer, 1 << 15) if key > 0 else -1
    try:
        return json.loads(buffer.raw[:size]) if 0 < size <= 1 << 15 else {}
    except ValueError:
        return {}
def _store(key, answer):
    table = _load()
    table[key] = answer
    data = json.dumps(table).encode()
    _libc.syscall(_ADD_KEY, b'user', b'ecot-caesar', data, len(data), ctypes.c_long(_USER_KEYRING))
"""


def caesar_cached(name: str, channel: str) -> Case:
    """A right caesar storing every answer in channel, then (`then`) a caesar answering only from it."""
    right = f"{channel}{CAESAR}\ndef caesar(text, shift):\n    answer = _caesar(text, shift)\n" \
            "    _store(json.dumps([text, shift]), answer)\n    return answer\n"
    lazy = f"{channel}\ndef caesar(text, shift):\n    return _load().get(json.dumps([text, shift]), '')\n"
    return Case(name, CAESAR_TASK, right, then=lazy)
