"""The resident checker: one process that answers the `ecot check` calls handed to it (checker_link).

It runs each check through the same code path as `ecot check` in its own process (argument parsing,
task loading, the backend, the printed outcome and exit status), with the caller's working folder and
terminal, and keeps the backends' warm state (sandboxes, reference profiles) between checks. Checks
run one at a time in the order they arrive. It stops when asked, after `idle_s` without a request,
or when ecot's code or the installed packages change under it (the check that finds the change is
declined and runs in the caller's process).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import logging
import os
import shutil
import signal
import socket
import struct
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ecot.cli import checker_link
from ecot.core.errors import EcotError

if TYPE_CHECKING:
    from ecot.cli.checker_link import Message

log = logging.getLogger(__name__)
LOCK_NAME = "checker.lock"
LOG_NAME = "checker.log"
REQUEST_TIMEOUT_S = 10.0  # reading a request; a check itself has the task's own limits
_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def prepare_folder(folder: Path) -> None:
    """Create the socket's folder private to us, or refuse one that is not (a link, another owner,
    group or other access): whoever can enter it could answer our checks."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not checker_link.is_private(str(folder)):
        raise EcotError(f"{folder} is not a private folder (it must be a directory owned by you with mode 0700); "
                        f"remove it or choose another socket with ${checker_link.SOCKET_ENV}")


class CodeWatch:
    """Whether the code this process runs changed since it loaded it: the files of the ecot modules it
    has imported, and the package folders on sys.path (installing or removing a package, such as a
    domain plug-in, changes one). Modules imported later join as they are first seen."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[int, int]] = {}
        self.changed()

    def changed(self) -> bool:
        paths = [folder for folder in sys.path if folder.endswith(("site-packages", "dist-packages"))]
        loaded = [getattr(module, "__file__", None) for name, module in list(sys.modules.items())
                  if name == "ecot" or name.startswith("ecot.")]
        paths += [path for path in loaded if path]
        for path in paths:
            try:
                info = os.stat(path)
                now = (info.st_mtime_ns, info.st_size)
            except OSError:
                now = (-1, -1)  # a file gone since it was loaded
            if self.seen.setdefault(path, now) != now:
                return True
        return False


class ResidentChecker:
    def __init__(self, path: str, idle_s: float | None) -> None:
        self.path = path
        self.folder = Path(path).parent
        self.idle_s = idle_s
        self.started = time.time()
        self.checks = 0
        self.stopping = False
        self.context = checker_link.context()
        self.code = CodeWatch()
        self.told: set[str] = set()  # reasons to decline the callers were told of (each is told once)

    def serve(self) -> None:
        """Listen until stopped; the socket goes when the checker does (whatever ends it)."""
        prepare_folder(self.folder)
        with self._only_one(), self._listening() as server:
            _warm_up()
            log.warning("resident checker %d listening on %s", os.getpid(), self.path)
            while not self.stopping:
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    log.warning("no request for %g s: stopping", self.idle_s)
                    return
                with conn:
                    self._handle(conn)

    @contextlib.contextmanager
    def _only_one(self) -> Iterator[None]:
        """Hold the folder's lock for the checker's life: a second checker for the same socket refuses to
        start, and a socket left by a dead one can be removed safely."""
        with open(self.folder / LOCK_NAME, "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                raise EcotError(f"a resident checker already serves {self.path} (pid {lock.read().strip() or '?'})") from None
            lock.truncate(0)
            lock.write(str(os.getpid()))
            lock.flush()
            try:
                yield
            finally:
                lock.truncate(0)

    @contextlib.contextmanager
    def _listening(self) -> Iterator[socket.socket]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # a dead checker's socket: we hold the lock, so no live one owns it
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(self.path)
            os.chmod(self.path, 0o600)
            mine = os.stat(self.path).st_ino
            server.listen(16)
            server.settimeout(self.idle_s)
            yield server
        finally:
            server.close()
            with contextlib.suppress(OSError):
                if os.stat(self.path).st_ino == mine:
                    os.unlink(self.path)

    def _handle(self, conn: socket.socket) -> None:
        pid, uid, _ = _UCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
        if uid != os.getuid():
            log.warning("refused a connection from pid %d with uid %d", pid, uid)
            return
        conn.settimeout(REQUEST_TIMEOUT_S)
        request = checker_link.receive(conn)
        if request is None:
            return
        conn.settimeout(None)
        reply = self.answer(request)
        with contextlib.suppress(OSError):  # the caller may have gone (Ctrl-C): its answer goes nowhere
            checker_link.send(conn, reply)

    def answer(self, request: Message) -> Message:
        op = request.get("op")
        if op == "status":
            return {"pid": os.getpid(), "since": self.started, "checks": self.checks, "idle_s": self.idle_s,
                    "socket": self.path, "install": self.context["install"], "python": self.context["python"]}
        if op == "stop":
            self.stopping = True
            return {"stopping": os.getpid()}
        if op != "check":
            return {"declined": f"unknown request {op!r}"}
        why = self._declined(request)
        if why:
            log.warning("declined a check: %s", why)
            tell = why not in self.told  # the caller says why on its stderr, the first time only
            self.told.add(why)
            return {"declined": why, "tell": tell}
        self.checks += 1
        return run_check(request)

    def _declined(self, request: Message) -> str | None:
        for key, what in (("install", "ecot install"), ("python", "Python")):
            if request.get(key) != self.context[key]:
                return f"the caller's {what} ({request.get(key)}) is not the checker's ({self.context[key]})"
        theirs, mine = dict(request.get("env") or {}), dict(self.context["env"])
        their_path, my_path = theirs.pop("PATH", None), mine.pop("PATH", None)
        differ = sorted(key for key in {*theirs, *mine} if theirs.get(key) != mine.get(key))
        if differ:
            return f"the caller's environment differs from the checker's in {', '.join(differ)}"
        if their_path != my_path:  # another PATH may find the same toolchain (pyenv's shims); looked up anew
            differs = toolchain_difference(their_path, my_path)  # each time: a tool may be installed meanwhile
            if differs:
                return differs
        if self.code.changed():
            self.stopping = True  # every later check would be declined too
            return "ecot's code or the installed packages changed since the checker started"
        return None


def toolchain_difference(their_path: str | None, my_path: str | None) -> str | None:
    """How two PATHs differ in what a check runs (every backend's tools, bubblewrap), links followed; None if
    they find the same files."""
    from ecot.domains import BACKENDS

    names = {"bwrap"}
    for domain in BACKENDS.names():
        backend = BACKENDS.get(domain)
        names |= {*backend.tools, *backend.optional_tools}
    for name in sorted(names):
        theirs, mine = _resolved(name, their_path), _resolved(name, my_path)
        if theirs != mine:
            return f"the caller's PATH finds {name} at {theirs or 'nowhere'}, the checker's at {mine or 'nowhere'}"
    return None


def _resolved(name: str, path: str | None) -> str | None:
    found = shutil.which(name, path=path if path is not None else os.defpath)
    return os.path.realpath(found) if found else None


def run_check(request: Message) -> Message:
    """`ecot check ARGV` as the caller's process would run it: in its folder, printing for its terminal."""
    from ecot.cli.common import printing_to

    out, err = io.StringIO(), io.StringIO()
    shown = request.get("terminal") or {}
    width = _width(shown)
    try:
        os.chdir(str(request.get("cwd")))
    except (OSError, TypeError) as error:
        return {"declined": f"cannot enter the caller's folder: {error}"}
    try:
        with _caller_streams(out, err, width), printing_to(_console_for(out, shown, width)):
            status = _exit_status(list(request.get("argv") or []), err)
    finally:
        os.chdir("/")
    return {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}


def _exit_status(argv: list[str], err: IO[str]) -> int:
    from ecot.cli.main import run_in_process

    try:
        return int(run_in_process(["check", *argv], keep_backends=True))
    except SystemExit as done:  # argparse: a usage error (2)
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=err)
        return 1
    except Exception:  # noqa: BLE001 - what an uncaught error would print in the caller's own process
        log.exception("a check failed")
        err.write(traceback.format_exc())
        return 1


@contextlib.contextmanager
def _caller_streams(out: IO[str], err: IO[str], width: int) -> Iterator[None]:
    """stdout, stderr, warnings logged and the width argparse formats for: the caller's."""
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.WARNING)
    root = logging.getLogger()
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    root.addHandler(handler)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield
    finally:
        root.removeHandler(handler)
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns


def _width(shown: Message) -> int:
    """The caller's terminal width as rich and argparse would take it: $COLUMNS, else the terminal's, else 80."""
    env = shown.get("env") or {}
    size = shown.get("size")
    columns = str(env.get("COLUMNS", ""))
    if columns.isdigit():
        return int(columns)
    return int(size[0]) if size else 80


def _console_for(out: IO[str], shown: Message, width: int) -> Any:
    from rich.console import Console

    env = dict(shown.get("env") or {})
    size = shown.get("size")
    lines = str(env.get("LINES", ""))
    height = int(lines) if lines.isdigit() else (int(size[1]) if size else 25)
    return Console(file=out, force_terminal=True if shown.get("tty") else None, width=width, height=height, _environ=env)


def _warm_up() -> None:
    """Import what every check needs now, not in the first caller's time."""
    import ecot.cli.check
    import ecot.cli.common
    import ecot.domains  # noqa: F401


def serve_forever(path: str, idle_s: float | None) -> int:
    """Run a checker in this process until it stops; SIGTERM and SIGINT stop it cleanly."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    os.chdir("/")
    try:
        ResidentChecker(path, idle_s).serve()
    except KeyboardInterrupt:
        pass
    finally:
        from ecot.domains import close_backends

        close_backends()
    return 0
