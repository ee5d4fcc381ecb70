"""Where a python job runs: a warm judge, or a fresh interpreter in the long-lived sandbox.

Both run the same harness (jobs/harness.py, the judge) under the system interpreter with the same flags
(-S -s -B: the standard library only) and the same environment, in a sandbox with the task's limits:

- warm (the default): a sandboxed /usr/bin/python3 that imported the harness's modules once
  (ecot.sandbox.warm.WarmPython) forks for every job; the fork is the judge, which forks the child
  that runs the candidate, as a fresh interpreter's judge would. A fresh interpreter pays about 15-40 ms
  of start-up and imports per job; a fork costs a few. The interpreter never runs a job itself, every
  job is a fresh fork of it, and each job gets a new IPC namespace, no /proc, none of the
  interpreter's descriptors and a private work dir (docs/sandbox.md, *Nothing outlives a job*). Its hash
  seed is fixed at start (PYTHONHASHSEED=0), as the fresh interpreter's is.
- served: `python3 -S -s -B -c MAIN` per job, with the harness copied into the job's folder (and its
  bytecode, so the job need not compile it). Used where the warm judge cannot keep namespaces of its own
  (it would be restarted after every job) or does not start.
"""

from __future__ import annotations

import logging
import threading

from ecot import sandbox
from ecot.core.task import Limits
from ecot.domains.python import bundle as python_bundle
from ecot.sandbox.spawn import in_background
from ecot.sandbox.warm import Interpreter, WarmPython

log = logging.getLogger(__name__)

INTERPRETER = "/usr/bin/python3"
FLAGS = ("-S", "-s", "-B")  # no site-packages: candidates get the standard library only
ENV = {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}  # set iteration order is repeatable
HARNESS = ("harness", "child", "jail", "values")  # jobs/<name>.py, copied in as ecot_<name>.py
CHECK_HARNESS = ("check", "checkfile")  # check mode only
TRACE_HARNESS = ("trace",)  # trace runs only
MAIN = "import sys, ecot_harness; sys.exit(ecot_harness.main('spec.json'))"  # a module, so its bytecode is used
# In a fork of the warm judge: what a fresh interpreter's job would find (the interpreter's own modules gone)
WARM_MAIN = "import sys\nfor _name in [m for m in sys.modules if m.partition('.')[0] == 'ecot']:\n    del sys.modules[_name]\n" + MAIN


def warm_interpreter() -> Interpreter:
    """The judge's interpreter: every harness module imported under its job name, before any job."""
    modules = HARNESS + CHECK_HARNESS + TRACE_HARNESS
    files = tuple((f"ecot_{name}", str(python_bundle.HERE / "jobs" / f"{name}.py")) for name in modules)
    return Interpreter(INTERPRETER, FLAGS, tuple(ENV.items()), files, proc=False, source_on_path=False)


class JobRunner:
    """One backend's way to run harness jobs: its warm judge while that works, else served jobs."""

    def __init__(self, warm: bool = True) -> None:
        self.warm = warm  # False: every job in a fresh interpreter (e.g. to measure what the warm judge saves)
        self._judge: WarmPython | None = None
        self._unusable = False
        self._lock = threading.Lock()

    def run(self, files: dict[str, str], modules: tuple[str, ...], limits: Limits) -> sandbox.ExecResult:
        """Run the harness on `files` (solution, spec, check files) under `limits`; `modules` are the
        harness modules a served job needs in its folder."""
        judge = self._warm_judge()
        with sandbox.workdir("ecot-py-") as work:
            if judge is not None:
                sandbox.write_files(work, files)
                return judge.run(work, WARM_MAIN, limits, env=ENV, filename="-c")  # sys.argv == ["-c"], as python -c
            sandbox.write_files(work, {**files, **python_bundle.texts(modules)})
            python_bundle.write_bytecode(work, python_bundle.bytecode(INTERPRETER, modules))
            return sandbox.run([INTERPRETER, *FLAGS, "-c", MAIN], work, limits, env=ENV)

    def warm_up(self) -> None:
        """Start the warm judge in the background (the first job waits for it, or runs served if it fails)."""
        if self.warm and self._judge is None:
            in_background(self._warm_judge)

    def _warm_judge(self) -> WarmPython | None:
        if not self.warm or self._unusable:
            return None
        with self._lock:
            if self._judge is None:
                judge = WarmPython((), warm_interpreter())
                try:
                    judge.start()
                except sandbox.SandboxError as err:
                    log.warning("the warm python judge did not start (%s); every job starts its own interpreter", err)
                    self._unusable = True
                    return None
                if judge.isolated and not judge.reusable:  # restarted after every job: slower than a served job
                    judge.close()
                    self._unusable = True
                    return None
                self._judge = judge
            return self._judge

    def close(self) -> None:
        with self._lock:
            if self._judge is not None:
                self._judge.close()
                self._judge = None

