"""The one sandboxed runner every backend uses for untrusted work (see runner.py and docs/sandbox.md).

Host side only: the code that runs inside the sandbox, trusted, lives in ecot.sandboxed."""

from ecot.sandbox.runner import (
    ExecResult,
    Gate,
    SandboxError,
    Step,
    bwrap_available,
    prestart,
    read_job_file,
    run,
    run_steps,
    warn_unisolated_once,
    workdir,
    write_files,
)
from ecot.sandbox.server import close_servers

__all__ = [
    "ExecResult",
    "Gate",
    "SandboxError",
    "Step",
    "bwrap_available",
    "close_servers",
    "prestart",
    "read_job_file",
    "run",
    "run_steps",
    "warn_unisolated_once",
    "workdir",
    "write_files",
]
