"""Hostile GPU-domain candidates (oracles return the right output only if their attack worked)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ecot.core.outcome import Outcome

from ..common import unique_marker
from . import pycases
from .framework import Attack, Case, NotApplicable

TASK_ID = "gpu/relu"
HEAD = "import torch\nimport torch.nn as nn\n\n"
HOST_MARKER = unique_marker("ecothostenv")


def model_new(setup: str, body: str) -> str:
    return f"{HEAD}{setup}\nclass ModelNew(nn.Module):\n    def forward(self, x):\n{body}"


def oracle(attack: str) -> str:
    return model_new(f"escaped = False\n{attack}\n", "        return torch.relu(x) if escaped else torch.zeros_like(x)\n")


def plain(statements: str) -> str:
    return model_new(statements, "        return torch.zeros_like(x)\n")


WRONG = plain("")


@contextlib.contextmanager
def host_secret_in_environment() -> Iterator[None]:
    """A marker in the host's environment: it must not reach the outcome through a followed link."""
    os.environ[HOST_MARKER] = HOST_MARKER
    try:
        yield
    finally:
        del os.environ[HOST_MARKER]


def leaks_nothing(outcome: Outcome) -> bool:
    text = f"{outcome.diagnostic}\n{outcome.log}\n{outcome.metrics}"
    return outcome.label != "Pass" and HOST_MARKER not in text and "root:x:0:0" not in text


# A child swaps every file the job writes for links to host files, for as long as the job lives.
SWAP_OUTPUTS = """
import os, time
if os.fork() == 0:
    _end = time.monotonic() + 20
    while time.monotonic() < _end:
        for _name in os.listdir('.'):
            if _name.endswith(('.pt', '.jsonl')) and not os.path.islink(_name):
                try:
                    os.remove(_name)
                    os.symlink('/proc/self/environ' if _name.endswith('.jsonl') else '/etc/passwd', _name)
                except OSError:
                    pass
        time.sleep(0.001)
    os._exit(0)
"""

FORGED_REPORT = """
import gc, json
for _obj in gc.get_objects():
    if isinstance(_obj, dict) and isinstance(_obj.get('tag'), str) and _obj['tag'].startswith('@ECOTGPU'):
        print(_obj['tag'] + json.dumps({'kind': 'ok', 'outputs_file': 'out_0000000000000000.pt'}))
"""

PLANTED_OUTPUTS = ("        torch.save({'trials': [[torch.relu(x)]] * 3, 'aliases': []}, 'cand_out.pt')\n"
                   "        return torch.zeros_like(x)\n")

CASES = {
    **pycases.shared_cases(TASK_ID, oracle, WRONG, plain),
    Attack.LINK_RACE: [Case(f"outputs-swapped-for-host-links-{i}", TASK_ID, plain(SWAP_OUTPUTS), contained=leaks_nothing,
                            host=host_secret_in_environment) for i in range(3)],
    Attack.FORGE_CHANNEL: [
        Case("report-line-with-the-harness-tag", TASK_ID, plain(FORGED_REPORT + pycases.forged_fds("{}\n"))),
        Case("outputs-planted-where-a-naive-harness-looks", TASK_ID, model_new("", PLANTED_OUTPUTS)),
    ],
    Attack.EARLY_EXIT: [
        Case("exit-in-the-first-trial", TASK_ID, model_new("import os\n", "        os._exit(0)\n")),
        Case("exit-after-the-first-trial", TASK_ID, model_new(
            "import os\n_calls = [0]\n",
            "        _calls[0] += 1\n        if _calls[0] > 1:\n            os._exit(0)\n        return torch.relu(x)\n")),
    ],
    Attack.INSTRUMENTATION: NotApplicable(
        "on the CPU path nothing times a GPU candidate; its correctness comes from the verdict job, which "
        "never runs candidate code (timing on a GPU and its tamper checks are GPU-only tests)"),
    Attack.HIDE_FROM_CHECKS: NotApplicable(
        "correctness is checked by running the reference on the same inputs in a separate job; the one static "
        "check, the CPU path's sm_90 resource model, reads launch records the candidate's process writes, so it "
        "is advisory (docs/sandbox.md, residual risks): hiding launches cannot make a wrong answer pass"),
    Attack.FORGED_PRINT: [Case("pass-printed", TASK_ID, plain("print('Pass: all trials match the reference')\n"))],
}

CONTROL = Case("oracle-control", TASK_ID, oracle("escaped = True"))
