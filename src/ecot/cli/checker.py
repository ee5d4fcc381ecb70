"""A resident checker for one-shot `ecot check` calls: start it, stop it, ask how it is.

A one-shot `ecot check` spends most of its time starting Python, importing ecot and starting sandboxes
before any toolchain runs. `ecot checker start` starts one process that has done all that; while it
runs, `ecot check` hands it its command line and prints its answer (the same output and exit status as
a check in its own process). Without a checker, or when it declines (another ecot install, Python or
environment, or ecot's code changed), `ecot check` runs in its own process as before;
ECOT_CHECKER=off always does.

The socket is $ECOT_CHECKER_SOCKET, else $XDG_RUNTIME_DIR/ecot/checker.sock, else
$TMPDIR/ecot-<uid>/checker.sock, in a folder only you can enter; its log is checker.log beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from ecot.cli import checker_link
from ecot.cli.checker_server import LOG_NAME, prepare_folder, serve_forever
from ecot.core.errors import EcotError

START_WAIT_S = 60.0
STOP_WAIT_S = 30.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start the resident checker in the background (it prints where it listens)")
    start.add_argument("--idle-minutes", type=float, default=60.0,
                       help="stop after this many minutes without a request (0: never; default 60)")
    start.add_argument("--foreground", action="store_true", help="serve in this process (under a service manager) instead")
    actions.add_parser("stop", help="stop the resident checker")
    actions.add_parser("status", help="whether a resident checker runs, and its pid, age and checks served (exit 1: none)")


def run(args: argparse.Namespace) -> int:
    path = checker_link.socket_path()
    if args.action == "start":
        return _start(path, args.idle_minutes, args.foreground)
    if args.action == "stop":
        return _stop(path)
    return _status(path)


def _start(path: str, idle_minutes: float, foreground: bool) -> int:
    if idle_minutes < 0:
        raise EcotError(f"--idle-minutes must be 0 (never) or more, not {idle_minutes:g}")
    idle_s = idle_minutes * 60 or None
    if foreground:
        return serve_forever(path, idle_s)
    running = checker_link.exchange({"op": "status"}, path, timeout_s=5)
    if running is not None:
        print(f"a resident checker already runs: pid {running.get('pid')}, socket {path}")
        return 0
    folder = Path(path).parent
    prepare_folder(folder)
    command = [sys.executable, "-m", "ecot", "checker", "start", "--foreground", "--idle-minutes", repr(idle_minutes)]
    with open(folder / LOG_NAME, "ab") as log:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, cwd="/")
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        answer = checker_link.exchange({"op": "status"}, path, timeout_s=5)
        if answer is not None:
            idle = f"stops after {idle_minutes:g} min idle" if idle_s else "runs until stopped"
            print(f"resident checker ready: pid {answer.get('pid')}, socket {path} ({idle}; `ecot checker stop` ends it)")
            return 0
        if child.poll() is not None:
            raise EcotError(f"the resident checker exited at start (status {child.returncode}): {_log_tail(folder / LOG_NAME)}")
        time.sleep(0.05)
    child.terminate()
    raise EcotError(f"the resident checker did not answer within {START_WAIT_S:g} s; see {folder / LOG_NAME}")


def _stop(path: str) -> int:
    answer = checker_link.exchange({"op": "stop"}, path, timeout_s=STOP_WAIT_S)
    if answer is None:
        print(f"no resident checker answers at {path}")
        return 0
    deadline = time.monotonic() + STOP_WAIT_S
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    if os.path.exists(path):
        raise EcotError(f"the resident checker (pid {answer.get('stopping')}) did not stop within {STOP_WAIT_S:g} s")
    print(f"resident checker stopped (pid {answer.get('stopping')})")
    return 0


def _status(path: str) -> int:
    answer = checker_link.exchange({"op": "status"}, path, timeout_s=5)
    if answer is None:
        print(f"no resident checker runs at {path}")
        return 1
    age = time.time() - float(answer.get("since", time.time()))
    idle = answer.get("idle_s")
    stops = f"stops after {idle / 60:g} min idle" if idle else "runs until stopped"
    print(f"resident checker pid {answer.get('pid')}, socket {path}, up {age:.0f} s, {answer.get('checks')} checks, {stops}")
    print(f"ecot from {answer.get('install')}, python {answer.get('python')}")
    return 0


def _log_tail(log: Path, lines: int = 5) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:]) or "(empty log)"
