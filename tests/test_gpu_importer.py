"""The KernelBench importer, on the public levels 1 and 2 in ../shared (read in place, never copied),
and a sample of their references evaluated against themselves on the CPU path."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecot.core.errors import TaskFormatError, ToolMissingError
from ecot.core.outcome import PASS
from ecot.domains import get_backend as _get_backend
from ecot.importers import import_tasks
from ecot.importers.kernelbench import as_model_new, import_problem


def get_backend(domain: str):
    """The backend, or a skip naming the missing package (torch, triton, numpy)."""
    try:
        return _get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"the gpu backend needs the missing tool '{err.tool}'")


DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "kernelbench"


@pytest.fixture(scope="module")
def tasks() -> dict[str, object]:
    if not DATA.is_dir():
        pytest.skip(f"the KernelBench data is not at {DATA}")
    return {t.id: t for t in import_tasks("kernelbench", DATA)}


def test_every_problem_of_levels_1_and_2_is_imported(tasks: dict) -> None:
    levels = [t.tags[1] for t in tasks.values()]
    assert levels.count("level1") == 100 and levels.count("level2") == 100
    relu = tasks["kernelbench/level1/19_ReLU"]
    assert relu.domain == "gpu" and relu.tags == ("kernelbench", "level1")
    assert "class Model(" in relu.files["model.py"] and "class Model(" in relu.prompt
    assert relu.options == {"atol": 0.01, "rtol": 0.01, "trials": 5}
    assert "class ModelNew(" in relu.reference and "def get_inputs(" not in relu.reference


def test_reference_rename_reaches_super_calls() -> None:
    source = "class Model(nn.Module):\n    def __init__(self):\n        super(Model, self).__init__()\n\ndef get_inputs():\n    return []\n"
    renamed = as_model_new(source)
    assert "class ModelNew(nn.Module)" in renamed and "super(ModelNew, self)" in renamed and "def _unused_get_inputs(" in renamed


def test_a_file_that_is_not_a_problem_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "level1" / "1_Nothing.py"
    bad.parent.mkdir()
    bad.write_text("import torch\n")
    with pytest.raises(TaskFormatError, match="no `class Model`"):
        import_problem(bad, "level1")


@pytest.mark.parametrize(
    "task_id",
    [
        "kernelbench/level1/1_Square_matrix_multiplication_",
        "kernelbench/level1/23_Softmax",
        "kernelbench/level1/54_conv_standard_3D__square_input__square_kernel",
        "kernelbench/level1/100_HingeLoss",
        "kernelbench/level2/12_Gemm_Multiply_LeakyReLU",
        "kernelbench/level2/83_Conv3d_GroupNorm_Min_Clamp_Dropout",
    ],
)
def test_references_pass_against_themselves_on_the_cpu(tasks: dict, task_id: str) -> None:
    task = tasks[task_id]
    outcome = get_backend("gpu").run(task, task.reference)
    assert outcome.label == PASS, f"{task_id}: {outcome.label}: {outcome.diagnostic}"
    assert outcome.metrics["cpu_elements"] <= 1 << 18 or outcome.metrics["cpu_shrink"] > 1
