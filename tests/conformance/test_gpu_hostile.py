"""Hostile GPU-domain candidates: contained, labelled, and unable to disturb the jobs that follow theirs."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from ecot.core.outcome import PASS, TIMEOUT, Outcome
from ecot.domains.gpu.outcome import MEMORY_FAULT, NUMERICAL_MISMATCH

from .common import bundled_task, describe, evaluate, processes_matching, skip_unless_isolated, unique_marker

HEAD = "import torch\nimport torch.nn as nn\n\n"


def candidate(setup: str, body: str = "        return torch.relu(x)\n") -> str:
    return f"{HEAD}{setup}\nclass ModelNew(nn.Module):\n    def forward(self, x):\n{body}"


def run(code: str, wall_s: float | None = None) -> Outcome:
    task = bundled_task("gpu/relu")
    if wall_s is not None:
        task = dataclasses.replace(task, limits=task.limits.scaled(wall_s=wall_s, cpu_s=wall_s))
    return evaluate(task, code)


@pytest.fixture(autouse=True)
def _isolated() -> None:
    skip_unless_isolated()


def test_endless_forward_times_out() -> None:
    start = time.monotonic()
    outcome = run(candidate("", "        while True:\n            pass\n"), wall_s=3.0)
    assert outcome.label == TIMEOUT and "trial 0" in outcome.diagnostic, describe(outcome)
    assert time.monotonic() - start < 30


def test_memory_hog_is_a_memory_fault() -> None:
    outcome = run(candidate("", "        hog = torch.empty(1 << 34, dtype=torch.uint8)\n        hog.fill_(1)\n        return torch.relu(x)\n"))
    assert outcome.label == MEMORY_FAULT, describe(outcome)


def test_escaped_processes_end_with_the_job() -> None:
    marker = unique_marker()
    # the marker is the sleeper's argv[0] (sleep refuses an extra operand); it lets go of the job's output
    setup = (f"import subprocess\nsubprocess.Popen(['{marker}', '600'], executable='sleep', start_new_session=True,\n"
             "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n")
    outcome = run(candidate(setup))
    assert outcome.label == PASS, describe(outcome)
    time.sleep(0.5)
    assert processes_matching(marker) == []


def test_files_outside_the_work_dir_stay_untouched() -> None:
    target = Path("/etc/ecot_gpu_pwned")
    setup = f"try:\n    open({str(target)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
    outcome = run(candidate(setup))
    assert not target.exists(), "a candidate wrote outside its work dir"
    assert outcome.label == PASS, describe(outcome)


@pytest.mark.parametrize(
    "sabotage",
    [
        "import os\nos.symlink('/etc/passwd', 'cand_out.pt')\n",
        "import os\nos.mkfifo('source.py')\nos.mkfifo('launches.jsonl')\n",
        "import os\nos.mkdir('model.py')\nos.mkdir('cand_out.pt')\n",
    ],
    ids=["symlinked-outputs", "fifos-named-like-feeds", "folder-named-like-the-reference"],
)
def test_leftovers_cannot_block_or_feed_later_jobs(sabotage: str) -> None:
    """Each job gets a fresh folder; the host copies only regular files it expects between them."""
    outcome = run(candidate(sabotage))
    assert outcome.label == PASS, describe(outcome)


def test_planted_outputs_file_is_ignored() -> None:
    """The candidate saves right answers where a naive harness would look, and returns wrong ones: the
    harness saves under a name drawn after the candidate ran, and only that file reaches the verdict."""
    body = ("        torch.save({'trials': [[torch.relu(x)]] * 3, 'aliases': []}, 'cand_out.pt')\n"
            "        return torch.zeros_like(x)\n")
    outcome = run(candidate("", body))
    assert outcome.label == NUMERICAL_MISMATCH, describe(outcome)


def test_a_crash_of_the_interpreter_process_is_labelled() -> None:
    outcome = run(candidate("import os, signal\n", "        os.kill(os.getpid(), signal.SIGSEGV)\n"))
    assert outcome.label == MEMORY_FAULT and "SIGSEGV" in outcome.diagnostic, describe(outcome)
