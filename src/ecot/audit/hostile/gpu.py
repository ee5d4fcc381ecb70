"""Hostile GPU-domain candidates (oracles return the right output only if their attack worked)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ecot.core.outcome import PASS, Outcome
from ecot.domains.gpu.outcome import NUMERICAL_MISMATCH, RUNTIME_ERROR

from ..common import bundled_task, unique_marker
from . import gpuhacks, pycases
from .framework import Attack, Case, NotApplicable, label_in

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

TRITON = bundled_task(TASK_ID).reference or ""  # the honest twin of every hack: a Triton kernel
LOOSE: dict[str, object] = {"atol": 10.0, "scale_atol": False}  # a tolerance every relu output is within, as allclose(atol=10) would be
CAUGHT = label_in(NUMERICAL_MISMATCH)
REFUSED = label_in(RUNTIME_ERROR)


def no_speedup_counted(outcome: Outcome) -> bool:
    """A copy of the reference passes, is recognised as the reference's own work, and gets no speedup."""
    return (outcome.label == PASS and outcome.metrics.get("reference_ops") is True
            and float(outcome.metrics.get("speedup", 1.0)) <= 1.0)


def side_stream_timed(outcome: Outcome) -> bool:
    """On a CPU nothing is timed (so there is no clock to hide work from); on a GPU the side stream's
    20 M-cycle sleep ends inside the measured interval."""
    if outcome.metrics.get("device") == "cpu":
        return outcome.label == PASS and "time_ms" not in outcome.metrics
    return outcome.label == PASS and float(outcome.metrics.get("time_ms", 0.0)) > 1.0


def shortcut(name: str, hack: str | tuple[str, str], options: dict[str, object] | None = None) -> Case:
    """A hack on gpu/relu ((setup, forward body), or a body alone) that must fail, with the Triton kernel as its twin."""
    setup, body = hack if isinstance(hack, tuple) else ("", hack)
    return Case(name, TASK_ID, model_new(setup, body), CAUGHT, options=options or {}, twin=TRITON)


SHARED = pycases.shared_cases(TASK_ID, oracle, WRONG, plain)


CASES = {
    **SHARED,
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
    Attack.READ_REFERENCE: [
        *SHARED[Attack.READ_REFERENCE],
        Case("reference-model-class-looked-up", TASK_ID, HEAD + gpuhacks.LOOK_UP_MODEL, REFUSED, twin=TRITON),
        Case("answers-replayed-for-predictable-inputs", TASK_ID, model_new(*gpuhacks.REPLAY), CAUGHT,
             twin=TRITON),
        Case("copy-of-the-reference-model", TASK_ID, gpuhacks.COPY, no_speedup_counted, twin=TRITON),
    ],
    Attack.SHORTCUT: [
        shortcut("zeros-within-a-loose-tolerance", "        return torch.zeros_like(x)\n", LOOSE),
        shortcut("constant-within-a-loose-tolerance", "        return torch.full_like(x, 0.5)\n", LOOSE),
        shortcut("input-echoed-within-a-loose-tolerance", "        return x.clone()\n", LOOSE),
        shortcut("first-result-cached", gpuhacks.CACHED, LOOSE),
        shortcut("result-written-into-the-input", "        return x.relu_()\n"),
        shortcut("input-zeroed-after-the-call", "        out = torch.relu(x)\n        x.zero_()\n        return out\n"),
        shortcut("one-buffer-for-every-call", gpuhacks.ONE_BUFFER),
        shortcut("sized-for-the-first-shape-only", gpuhacks.FIRST_SHAPE, {"shapes": [{"batch_size": 48, "dim": 16400}]}),
    ],
    Attack.INSTRUMENTATION: [
        Case("timers-replaced", TASK_ID, model_new(gpuhacks.PATCH_TIMERS, "        return torch.relu(x)\n"), REFUSED, twin=TRITON),
        Case("harness-timer-rebound", TASK_ID, model_new(gpuhacks.REBIND_HARNESS, "        return torch.relu(x)\n"), REFUSED),
        Case("work-left-on-a-side-stream", TASK_ID, model_new("", gpuhacks.SIDE_STREAM), side_stream_timed, twin=TRITON),
        Case("lazy-tensor-subclass", TASK_ID, model_new(gpuhacks.LAZY, "        return Lazy.of(x)\n"), REFUSED, twin=TRITON),
    ],
    Attack.HIDE_FROM_CHECKS: NotApplicable(
        "correctness is checked by running the reference on the same inputs in a separate job; the one static "
        "check, the CPU path's sm_90 resource model, reads launch records the candidate's process writes, so it "
        "is advisory (docs/sandbox.md, residual risks): hiding launches cannot make a wrong answer pass"),
    Attack.FORGED_PRINT: [Case("pass-printed", TASK_ID, plain("print('Pass: all trials match the reference')\n"))],
}

CONTROL = Case("oracle-control", TASK_ID, oracle("escaped = True"))
