"""The link between a one-shot `ecot check` and the resident checker (`ecot checker start`).

A one-shot check spends most of its time before any toolchain runs: starting Python, importing ecot
(pydantic above all) and starting sandboxes. A resident checker has done all that once; `ecot check`
sends it its command line and prints what comes back, exactly what a check in its own process would
print. This module runs before argparse is imported, so it uses only what Python loads at start
(os, sys, stat, marshal) and _socket (the socket module would import enum and selectors).

Trust: the socket lives in a folder only this user can enter (a real directory, owned by our uid,
mode 0700; a link or a looser folder is never used), and the checker answers only peers with its own
uid (SO_PEERCRED). Candidates run in sandboxes under another uid with a private /tmp and cannot reach
it. Both ends are the same user, so marshal (built in, no import cost) carries the messages.
"""

from __future__ import annotations

import _socket
import marshal
import os
import stat
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see above)
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    Message: TypeAlias = dict[str, Any]

SOCKET_ENV = "ECOT_CHECKER_SOCKET"  # where the socket is; default: $XDG_RUNTIME_DIR/ecot or $TMPDIR/ecot-<uid>
SWITCH_ENV = "ECOT_CHECKER"  # "off": every `ecot check` runs in its own process
MAX_MESSAGE = 64 << 20
# Besides its command line, what a check's result may depend on: a checker declines a caller whose
# values differ from its own (then the caller checks in its own process). Of PATH only what it finds
# matters: the checker compares the toolchain binaries each PATH resolves to.
CONTEXT_ENV = ("PATH", "HOME", "TMPDIR", "XDG_CACHE_HOME", "PYTHONPATH")
# What rich reads to decide colours and width; the checker prints for the caller's terminal.
TERMINAL_ENV = ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


def socket_path() -> str:
    given = os.environ.get(SOCKET_ENV)
    if given:
        return given
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = os.path.join(runtime, "ecot") if runtime else os.path.join(os.environ.get("TMPDIR") or "/tmp", f"ecot-{os.getuid()}")
    return os.path.join(folder, "checker.sock")


def is_private(folder: str) -> bool:
    """A folder only we can enter: a directory (not a link to one), owned by our uid, no group or other bits."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def context() -> Message:
    """The facts a checker must share with its caller: the same ecot, Python and environment."""
    ecot_file = sys.modules["ecot"].__file__ or ""
    env = {
        key: value
        for key, value in os.environ.items()
        if key in CONTEXT_ENV or (key.startswith("ECOT_") and not key.startswith(SWITCH_ENV))
    }
    return {"install": os.path.dirname(os.path.realpath(ecot_file)), "python": os.path.realpath(sys.executable), "env": env}


def terminal() -> Message:
    """Where the caller prints: whether stdout is a terminal, its size (the first of stdin, stdout,
    stderr that is a terminal, as rich looks for it) and the environment rich reads."""
    size = None
    for fd in (0, 1, 2):
        try:
            size = tuple(os.get_terminal_size(fd))
            break
        except OSError:
            continue
    env = {key: os.environ[key] for key in TERMINAL_ENV if key in os.environ}
    return {"tty": os.isatty(1), "size": size, "env": env}


def send(sock: Any, message: Message) -> None:
    data = marshal.dumps(message)
    sock.sendall(len(data).to_bytes(4, "big") + data)


def receive(sock: Any) -> Message | None:
    """One message, or None when the peer closed early or sent something that is not one."""
    head = _read(sock, 4)
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    body = _read(sock, size) if size <= MAX_MESSAGE else None
    if body is None:
        return None
    try:
        message = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    return message if isinstance(message, dict) else None


def _read(sock: Any, size: int) -> bytes | None:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def exchange(request: Message, path: str | None = None, timeout_s: float | None = None) -> Message | None:
    """Send one request to the checker at `path` and return its answer; None when there is no checker
    there (no socket, a refused connection, a folder that is not private) or it hung up."""
    path = path or socket_path()
    if not is_private(os.path.dirname(path) or "."):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        sock.connect(path)
        send(sock, request)
        return receive(sock)
    except OSError:
        return None
    finally:
        sock.close()


def check_resident(argv: list[str]) -> int | None:
    """Run `ecot check ARGV` on the resident checker and print its answer; returns the exit status, or
    None when no checker answered or it declined (the caller then checks in its own process).
    Help is printed locally: argparse formats it for this process's terminal."""
    if os.environ.get(SWITCH_ENV) == "off" or "-h" in argv or "--help" in argv:
        return None
    try:
        request = {"op": "check", "argv": list(argv), "cwd": os.getcwd(), "terminal": terminal(), **context()}
    except OSError:  # the working folder is gone: let the in-process check report what fails
        return None
    reply = exchange(request)
    if reply is not None and reply.get("declined") and reply.get("tell"):
        sys.stderr.write(f"ecot check: the resident checker declined: {reply['declined']}; checking in this process "
                         "(slower; the checker says so once)\n")
    if reply is None or not isinstance(reply.get("status"), int):
        return None
    sys.stdout.write(str(reply.get("stdout", "")))
    sys.stdout.flush()
    sys.stderr.write(str(reply.get("stderr", "")))
    return int(reply["status"])
