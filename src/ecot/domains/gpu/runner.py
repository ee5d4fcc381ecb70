"""Host side of the GPU domain's jobs: each job runs in a fresh fork of a warm, sandboxed Python that
already imported torch, in a fresh work dir of its own. Files pass between jobs only through the host,
which reads the regular files it expects (sandbox.read_job_file, never through a link) and nothing else,
so a file (or pipe, or link) the candidate leaves behind can neither feed nor block a later job.

On a machine with NVIDIA device nodes the warm Python also sees /dev/nvidia* (bubblewrap `--dev-bind`)
and /sys read-only, which CUDA needs; elsewhere nothing changes.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import stat
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.task import Limits
from ecot.sandbox import ExecResult
from ecot.sandbox.warm import WarmPython, WarmSet

CPU_PRELOAD = ("torch", "ecot.domains.gpu.jobs.preload")  # Triton in interpreter mode, meta kernels warm
GPU_PRELOAD = ("torch", "ecot.domains.gpu.jobs.preload_cuda")  # Triton compiler mode, its key hashed
MAX_COPY_BYTES = 64 << 30
CUDA_ADDRESS_SPACE_MB = 1 << 22


def gpu_device_nodes() -> list[str]:
    return sorted(p for p in glob.glob("/dev/nvidia*") if stat.S_ISCHR(os.stat(p).st_mode))


class DeviceWarmPython(WarmPython):
    """A warm Python whose sandbox also holds the NVIDIA device nodes and a read-only /sys."""

    def _command(self) -> list[str]:
        args = super()._command()
        if not self.isolated:
            return args
        extra = [a for node in gpu_device_nodes() for a in ("--dev-bind", node, node)] + ["--ro-bind", "/sys", "/sys"]
        for i in range(len(args) - 1):
            if args[i] == "--dev" and args[i + 1] == "/dev":
                return args[: i + 2] + extra + args[i + 2 :]
        return args


def warm_runners() -> WarmSet[bool]:
    """A backend's warm Pythons for GPU-domain jobs, keyed by whether they hold the device nodes."""
    return WarmSet(lambda gpu: DeviceWarmPython(GPU_PRELOAD) if gpu else WarmPython(CPU_PRELOAD))


@dataclass
class JobResult:
    exec: ExecResult
    report: dict[str, Any] | None
    progress: str  # the last stage the job announced
    folder: Path


class JobRunner:
    """Runs the jobs of one evaluation; their folders live until the ExitStack closes."""

    def __init__(self, stack: ExitStack, runners: WarmSet[bool], gpu: bool) -> None:
        self.stack = stack
        self.gpu = gpu
        self.tag = f"@ECOTGPU{secrets.token_hex(8)}@"
        self.runner = runners.get(gpu)

    def run(self, module: str, job: Mapping[str, Any], limits: Limits, *, files: Mapping[str, bytes] | None = None,
            feeds: Mapping[str, bytes] | None = None, env: Mapping[str, str] | None = None) -> JobResult:
        folder = self.stack.enter_context(sandbox.workdir("ecot-gpu-"))
        for name, data in (files or {}).items():
            (folder / name).write_bytes(data)
        all_feeds = {"job.json": json.dumps({**job, "tag": self.tag}).encode(), **(feeds or {})}
        code = f"from ecot.domains.gpu.jobs.{module} import main\nmain()\n"
        if self.gpu:  # CUDA reserves tens of GB of address space: RLIMIT_AS cannot bound a CUDA process
            limits = limits.scaled(memory_mb=max(limits.memory_mb, CUDA_ADDRESS_SPACE_MB), file_mb=max(limits.file_mb, 65536))
        environment = {"OMP_NUM_THREADS": "1", "TRITON_DEFAULT_FP_FUSION": "1", **(env or {})}
        result = self.runner.run(folder, code, limits, feeds=all_feeds, env=environment, filename=f"<{module}>")
        report, progress = self.read(result.stdout)
        return JobResult(result, report, progress, folder)

    def read(self, stdout: str) -> tuple[dict[str, Any] | None, str]:
        report, progress = None, ""
        for line in stdout.splitlines():
            if not line.startswith(self.tag):
                continue
            try:
                data = json.loads(line[len(self.tag) :])
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and set(data) == {"progress"}:
                progress = str(data["progress"])
            elif isinstance(data, dict):
                report = data
        return report, progress


def job_file(folder: Path, name: str, max_bytes: int = MAX_COPY_BYTES) -> bytes | None:
    """The bytes of folder/name when it is a plain file within max_bytes (never through a link or pipe)."""
    data = sandbox.read_job_file(folder, name, max_bytes + 1)
    return None if data is None or len(data) > max_bytes else data


def strip_tag(text: str, tag: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(tag))
