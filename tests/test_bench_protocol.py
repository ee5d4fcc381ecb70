"""Imported benchmarks judged by their own protocol, and the command-line fixes of issue 18: RTLLM's
structural findings are warnings unless `--strict-checks`, `ecot eval --limit`, and
`ecot check SUITE --task-id ID FILE` with FILE after the option."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ecot.cli.main import main
from ecot.domains import get_backend
from ecot.tasks.suite import bundled_suite_path, load_suite

RTLLM_ROOT = Path(os.environ.get("ECOT_RTLLM_DIR", Path(__file__).resolve().parents[2] / "shared" / "data" / "rtllm"))
RTL = bundled_suite_path("rtl")


@pytest.mark.skipif(not (RTLLM_ROOT / "Control").is_dir(), reason=f"RTLLM data not found at {RTLLM_ROOT} (set ECOT_RTLLM_DIR)")
def test_rtllm_latch_is_a_warning_unless_strict(tmp_path: Path) -> None:
    assert main(["import", "rtllm", str(RTLLM_ROOT), str(tmp_path / "own"), "--no-audit"]) == 0
    assert main(["import", "rtllm", str(RTLLM_ROOT), str(tmp_path / "strict"), "--strict-checks", "--no-audit"]) == 0
    backend = get_backend("rtl")
    own = next(t for t in load_suite(tmp_path / "own") if t.id == "rtllm/fsm")
    strict = next(t for t in load_suite(tmp_path / "strict") if t.id == "rtllm/fsm")
    warned, failed = backend.run(own, own.reference or ""), backend.run(strict, strict.reference or "")
    assert warned.passed and warned.metrics["structural_warning"] == "Synthesis_Error"
    assert "inferred latch" in warned.diagnostic and "not a failure" in warned.log
    assert failed.label == "Synthesis_Error" and "inferred latch" in failed.diagnostic


def test_eval_limit_takes_the_first_tasks_of_each_domain(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "e.jsonl"
    assert main(["eval", "--domain", "rtl", "--limit", "2", "--quiet", "--json", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["task_id"] for row in rows] == [t.id for t in load_suite(RTL)[:2]]
    assert "2/2 Pass" in capsys.readouterr().out
    assert main(["eval", "--domain", "rtl", "--limit", "0"]) == 2


def test_check_takes_the_file_after_task_id(tmp_path: Path, capsys: Any) -> None:
    task = load_suite(RTL)[0]
    candidate = tmp_path / "design.sv"
    candidate.write_text(task.reference or "")
    assert main(["check", str(RTL), "--task-id", task.id, str(candidate)]) == 0
    assert main(["check", str(RTL), str(candidate), "--task-id", task.id]) == 0
    assert capsys.readouterr().out.count(f"{task.id}  Pass") == 2
    with pytest.raises(SystemExit) as stopped:  # argparse's usage error, as before
        main(["check", str(RTL), "--task-id", task.id, str(candidate), "extra.sv"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: extra.sv" in capsys.readouterr().err


BIG_MODEL = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU over a fixed 4096 x 4096 activation: no size constant the CPU planner could shrink."""

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
'''


@pytest.mark.slow
def test_gpu_outputs_over_the_default_file_limit_are_judged_not_infra(tmp_path: Path) -> None:
    from ecot.core.errors import ToolMissingError
    from ecot.core.task import Task

    try:
        backend = get_backend("gpu")
    except ToolMissingError as err:
        pytest.skip(f"gpu backend unavailable: {err}")
    task = Task("gpu/big_relu", "gpu", "Write a faster ReLU.", files={"model.py": BIG_MODEL})
    reference = BIG_MODEL.replace("class Model(", "class ModelNew(")
    passed = backend.run(task, reference)  # 4 x 64 MB of saved outputs, over the 64 MB default file limit
    assert passed.label == "Pass", passed.diagnostic
    assert passed.metrics["cpu_shrink"] == 1 and passed.metrics["cpu_elements"] == 2 * 4096 * 4096
    wrong = backend.run(task, reference.replace("torch.relu(x)", "x"))  # the verdict reads those outputs
    assert wrong.label == "Numerical_Mismatch", wrong.diagnostic
