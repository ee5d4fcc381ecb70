"""The KernelBench subset of the first device call, and its torch.compile'd candidates.

The subset spans the kinds of levels 1 and 2 (matmul, elementwise, softmax, norms, attention, fused
operator chains), nine problems: the timed parts run two or three evaluations at a time on the one GPU,
and each compiled candidate pays a cold torch.compile in its own process. Each task is imported as
`ecot import kernelbench` does (its reference: the problem's own module, Model renamed ModelNew); the
candidate is that reference with its forward compiled by `torch.compile`, written as replay answers for
`ecot bench run --generator replay`. On a GPU the backend times both against eager PyTorch, which gives
KernelBench's fast_p of torch.compile. `compare_compile` is off for these tasks: the candidate already is
the torch.compile measurement, and compiling each reference a second time in the verdict job would
double the call's compile time.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from ecot.core.task import Task
from ecot.importers.kernelbench import import_problem
from ecot.tasks.suite import write_jsonl

SUBSET: dict[str, tuple[str, ...]] = {
    "level1": ("1_Square_matrix_multiplication_", "19_ReLU", "23_Softmax", "36_RMSNorm_", "40_LayerNorm",
               "88_MinGPTNewGelu", "97_ScaledDotProductAttention"),
    "level2": ("9_Matmul_Subtract_Multiply_ReLU", "12_Gemm_Multiply_LeakyReLU"),
}
DRY_SUBSET: dict[str, tuple[str, ...]] = {"level1": ("19_ReLU",), "level2": ("9_Matmul_Subtract_Multiply_ReLU",)}

COMPILED = '''

# --- the GPU campaign's candidate: the reference above, its forward compiled by torch.compile ---
class ModelNew(_EagerModel):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._compiled_forward = torch.compile(super().forward, backend="{backend}")

    def forward(self, *args, **kwargs):
        return self._compiled_forward(*args, **kwargs)
'''


def subset(root: Path, names: dict[str, tuple[str, ...]]) -> list[Task]:
    """The named problems of a KernelBench copy (root holds level1/, level2/ somewhere below)."""
    tasks = []
    for level, stems in names.items():
        folder = next((p for p in sorted(root.rglob(level)) if p.is_dir()), None)
        if folder is None:
            raise FileNotFoundError(f"no {level} folder below {root}")
        for stem in stems:
            task = import_problem(folder / f"{stem}.py", level)
            tasks.append(dataclasses.replace(task, options={**task.options, "compare_compile": False}))
    return tasks


def compiled_candidate(task: Task, backend: str) -> str:
    """The reference with its class renamed _EagerModel (its own super(ModelNew, self) calls included), and a
    ModelNew that builds it and runs its forward through torch.compile."""
    reference = re.sub(r"\bModelNew\b", "_EagerModel", task.reference or "")
    if "import torch\n" not in reference:
        reference = "import torch\n" + reference
    return reference.rstrip("\n") + "\n" + COMPILED.format(backend=backend)


def write(tasks: list[Task], suite: Path, answers: Path, backend: str) -> None:
    """The suite (JSONL) and one replay answer per task: the compiled candidate in a python fence."""
    write_jsonl(tasks, suite)
    with answers.open("w", encoding="utf-8") as out:
        for task in tasks:
            content = f"```python\n{compiled_candidate(task, backend)}```\n"
            out.write(json.dumps({"task_id": task.id, "turn": 0, "content": content}) + "\n")
