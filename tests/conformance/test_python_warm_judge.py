"""The python domain's warm judge gives a candidate what a fresh `python3 -S -s -B` judge gives it: the
standard library only, the same hash seed and argv, no /proc, none of the interpreter's modules, and a
fresh fork every time (nothing one job changes reaches the next)."""

from __future__ import annotations

import json

import pytest

from ecot.core.task import Limits
from ecot.domains.python.jobrun import HARNESS, JobRunner
from ecot.domains.python.verdict import parse_records

from .common import skip_unless_isolated

# a stdio "candidate" that reports what it finds; a marker it leaves in a module must not reach the next job
PROBE = """
import os, sys, json
print(json.dumps({"path": sys.path, "hash": hash("ecot"), "argv": sys.argv, "proc": os.path.exists("/proc/self"),
                  "ecot": sorted(m for m in sys.modules if m.partition(".")[0] == "ecot"),
                  "marked": hasattr(json, "ECOT_MARK"), "flags": [sys.flags.no_site, sys.flags.no_user_site]}))
json.ECOT_MARK = True
"""


def facts(runner: JobRunner) -> dict[str, object]:
    spec = {"mode": "stdio", "entry": "", "tests": [""], "limits": [5.0], "load_limit": 0.0, "output_cap": 1 << 16,
            "trace": None}
    result = runner.run({"solution.py": PROBE, "spec.json": json.dumps(spec)}, HARNESS, Limits())
    [test] = [r for r in parse_records(result.stdout) if r.get("kind") == "test"]
    assert test["status"] == "ok", (test, result.stderr)
    found: dict[str, object] = json.loads(test["stdout"])
    return found


@pytest.fixture(scope="module")
def runners():
    skip_unless_isolated()
    warm, served = JobRunner(warm=True), JobRunner(warm=False)
    yield warm, served
    warm.close()
    served.close()


def test_a_candidate_finds_the_same_interpreter_warm_or_fresh(runners: tuple[JobRunner, JobRunner]) -> None:
    warm, served = runners
    assert facts(warm) == facts(served)
    assert warm._warm_judge() is not None  # the warm one really was warm
    found = facts(warm)
    assert found["proc"] is False and found["ecot"] == [] and found["marked"] is False
    assert not any("site-packages" in str(p) or p.endswith("/src") for p in found["path"])  # type: ignore[union-attr]


def test_every_warm_job_is_a_fresh_fork(runners: tuple[JobRunner, JobRunner]) -> None:
    warm, _ = runners
    assert [facts(warm)["marked"] for _ in range(3)] == [False, False, False]
