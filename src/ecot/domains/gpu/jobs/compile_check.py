"""The compile job (CPU path): build the launches the candidate job recorded for a CUDA target.

Triton is imported normally here (no interpreter), the candidate module is imported from a fresh copy
of the source the host sent (never from a file the candidate job could have rewritten), and each
recorded launch is compiled for the target (gpu_compile). Reports {"results": [...]} on a tagged line.
"""

from __future__ import annotations

import json
import os
import types
from typing import Any

from ecot.domains.gpu.jobs import common

MAX_LOG_BYTES = 1 << 20


def _read_specs(path: str, limit: int) -> list[dict[str, Any]]:
    if not os.path.isfile(path) or os.path.islink(path) or os.path.getsize(path) > MAX_LOG_BYTES:
        return []
    specs = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                spec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(spec, dict) and {"name", "qualname", "args", "kwargs"} <= spec.keys():
                specs.append(spec)
    return specs[:limit]


def _stub_load_inline() -> None:
    """Importing the module must not try to build CUDA code here; calling it is never needed."""
    from torch.utils import cpp_extension

    def load_inline(name: str, *args: Any, **kwargs: Any) -> Any:
        return types.SimpleNamespace()

    cpp_extension.load_inline = load_inline


def main() -> None:
    import torch

    from ecot.domains.gpu.jobs import compile as gpu_compile
    from ecot.domains.gpu.jobs import limits as gpu_limits

    job = common.read_job()
    torch.set_num_threads(1)
    gpu_compile.fresh_triton()
    specs = _read_specs("launches.jsonl", int(job.get("max_kernels", 8)))
    with open("source.py", encoding="utf-8") as feed:
        source = feed.read()
    path = os.path.abspath("candidate.py")  # a fresh work dir: nothing of the candidate job is here
    with open(path, "x", encoding="utf-8") as handle:
        handle.write(source)
    common.patch_cuda_helpers()
    common.cuda_as_cpu().__enter__()
    _stub_load_inline()
    try:
        module = common.load_module(source, path, "candidate")
    except BaseException as err:  # noqa: BLE001 - the candidate job already reported this
        common.emit(job["tag"], {"results": [], "import_error": f"{type(err).__name__}: {str(err)[:300]}"})
        return
    target = gpu_limits.arch(job["target"])
    results = gpu_compile.compile_launches(module, specs, target)
    common.emit(job["tag"], {"results": results, "target": target.name})


if __name__ == "__main__":
    main()
