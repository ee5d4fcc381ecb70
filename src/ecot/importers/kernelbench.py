"""KernelBench importer: one GPU-domain task per problem file.

Layout (the KernelBench repository or its dataset folder): `level<N>/<id>_<Name>.py` anywhere below
the root, each file defining `class Model(nn.Module)`, `get_inputs()` and `get_init_inputs()`.

| KernelBench | ecot task |
|---|---|
| `level1/19_ReLU.py` | id `kernelbench/level1/19_ReLU` |
| the file | bundle file `model.py` (the reference Model) and, inside the prompt, its source |
| level | tags `["kernelbench", "level1"]` |
| - | reference: the same module with `Model` renamed `ModelNew` (a PyTorch solution: correct by construction, no speedup) |
| KernelBench's correctness check | options `atol = rtol = 1e-2` (its tolerance), 5 trials |

The reference runs the reference's own operations, which the verdict recognises: it never gets a speedup.
A file without `class Model`, `get_inputs` or `get_init_inputs` is an error naming the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.importers import read_text, skip_unread
from ecot.tasks.suite import parse_task

LEVEL_DIR = re.compile(r"^level(\d+)$")
KERNELBENCH_TOLERANCE = 1e-2
KERNELBENCH_TRIALS = 5

PROMPT = """You write custom GPU kernels to replace the PyTorch operators in the given architecture and get
speedups. You may replace any of the operators (or fuse several, or change the algorithm, e.g. an online
softmax), using Triton kernels, inline CUDA (torch.utils.cpp_extension.load_inline) or PyTorch.

Optimize the architecture named Model below. Name your optimized architecture ModelNew: the same
constructor arguments and forward signature, the same outputs within atol = rtol = 1e-2. Output the
complete module (imports, kernels, ModelNew) in one code block; do not define get_inputs.

```python
{source}```
"""


def import_kernelbench(root: Path) -> list[Task]:
    """Every problem of every level folder below `root`, sorted by level and problem number."""
    root = Path(root)
    levels = sorted((p for p in root.rglob("level*") if p.is_dir() and LEVEL_DIR.match(p.name)), key=_level_key)
    paths = [(path, folder.name) for folder in levels for path in sorted(folder.glob("*.py"), key=_problem_key)]
    skip_unread(root, [path for path, _ in paths], lambda path: "not a .py problem file directly inside a level<N> folder")
    return [import_problem(path, level) for path, level in paths]


def import_problem(path: Path, level: str) -> Task:
    source = read_text(path)
    for needed, pattern in (("class Model", r"^class\s+Model\s*\("), ("get_inputs", r"^def\s+get_inputs\s*\("),
                            ("get_init_inputs", r"^def\s+get_init_inputs\s*\(")):
        if not re.search(pattern, source, re.M):
            raise TaskFormatError(str(path), f"not a KernelBench problem: no `{needed}` at the top level")
    record = {
        "id": f"kernelbench/{level}/{re.sub(r'[^A-Za-z0-9_.-]', '_', path.stem)}",
        "domain": "gpu",
        "prompt": PROMPT.format(source=source if source.endswith("\n") else source + "\n"),
        "files": {"model.py": source},
        "reference": as_model_new(source),
        "options": {"atol": KERNELBENCH_TOLERANCE, "rtol": KERNELBENCH_TOLERANCE, "trials": KERNELBENCH_TRIALS},
        "tags": ["kernelbench", level],
    }
    return parse_task(record, str(path))


def as_model_new(source: str) -> str:
    """The reference module as a candidate: `Model` renamed `ModelNew` everywhere it is named
    (class statement, super() calls), the input helpers dropped (the harness owns the inputs)."""
    renamed = re.sub(r"\bModel\b", "ModelNew", source)
    return re.sub(r"^def (get_inputs|get_init_inputs)\(", r"def _unused_\1(", renamed, flags=re.M)


def _level_key(path: Path) -> tuple[int, str]:
    m = LEVEL_DIR.match(path.name)
    return (int(m.group(1)) if m else 0, str(path))


def _problem_key(path: Path) -> tuple[int, str]:
    m = re.match(r"(\d+)_", path.name)
    return (int(m.group(1)) if m else 1 << 30, path.name)
