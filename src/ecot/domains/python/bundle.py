"""The harness files a python job gets: our stdlib-only modules as source, plus their bytecode.

The harness runs under /usr/bin/python3 -B, which reads `__pycache__` but never writes it, so without
bytecode every job would compile the harness again (about 10 ms of its CPU). The bytecode is compiled
once per process by that same interpreter, as unchecked-hash .pyc files: it is used whatever the
sources' timestamps, and both come from here. The job imports the modules before any candidate code
runs, so what the candidate later does to these files changes nothing.
"""

from __future__ import annotations

import logging
import subprocess
import tempfile
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
COMPILE = (
    "import py_compile, sys\n"
    "for path in sys.argv[1:]:\n"
    "    print(py_compile.compile(path, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH))\n"
)


@cache
def source(name: str) -> str:
    """jobs/<name>.py of this package, as text to copy into the sandbox (never imported here)."""
    return (HERE / "jobs" / f"{name}.py").read_text(encoding="utf-8")


def texts(names: tuple[str, ...]) -> dict[str, str]:
    """The modules as the job sees them: jobs/<name>.py becomes ecot_<name>.py."""
    return {f"ecot_{name}.py": source(name) for name in names}


@cache
def bytecode(interpreter: str, names: tuple[str, ...]) -> dict[str, bytes]:
    """Relative path -> .pyc bytes for the modules, compiled by `interpreter`; {} if that fails (the
    job then compiles them itself, only slower)."""
    with tempfile.TemporaryDirectory(prefix="ecot-pyc-") as tmp:
        paths = []
        for name, text in texts(names).items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
            paths.append(name)
        argv = [interpreter, "-S", "-s", "-c", COMPILE, *paths]
        done = subprocess.run(argv, cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            log.warning("could not precompile the python harness with %s: %s", interpreter, done.stderr.strip()[-300:])
            return {}
        found = [Path(tmp) / line.strip() for line in done.stdout.splitlines() if line.strip()]
        return {str(path.relative_to(tmp)): path.read_bytes() for path in found}


def write_bytecode(work: Path, files: dict[str, bytes]) -> None:
    for relpath, data in files.items():
        target = work / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
