"""GPU kernels, KernelBench style: a candidate `ModelNew` (Triton, inline CUDA or PyTorch) against the
reference `Model` of the task's model.py, on seeded inputs from its `get_inputs()`/`get_init_inputs()`.

One evaluation is a short pipeline of sandboxed jobs, each a fresh fork of a warm Python that already
imported torch, each in its own work dir (gpu_runner):

1. plan (trusted, once per task and process): the device and, on a CPU, the scale-down of the sizes;
2. candidate: draw the seeded inputs with model.py's own get_inputs() (from a copy without the Model
   class), import the candidate and run ModelNew on every trial (Triton through its instrumented
   CPU interpreter without a GPU; for real with one, then timed); save the outputs;
3. compile (CPU path, Triton launches only): build each launch for a CUDA target (sm_90 by default)
   and check shared memory, registers and threads against the target's limits;
   inline CUDA without a GPU: nvcc compiles the device code instead (gpu_cuda);
4. verdict (trusted, a fork the candidate never ran in): run the reference on the same inputs and
   compare; with CUDA, time the reference and torch.compile.

Labels: Pass, Compilation_Error, Runtime_Error, Memory_Fault, Numerical_Mismatch, Timeout (and the
common Infra_Error / No_Code). Options: see options.GpuOptions and docs/domains/gpu.md.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import re
import secrets
import shutil
from collections import OrderedDict
from contextlib import ExitStack
from typing import Any

from ecot import sandbox
from ecot.core.errors import ToolMissingError
from ecot.core.outcome import Outcome, infra_error
from ecot.core.task import Limits, Task
from ecot.domains.base import Backend, tool_version
from ecot.domains.gpu import outcome as out
from ecot.domains.gpu.jobs import cuda as gpu_cuda
from ecot.domains.gpu.jobs import limits as gpu_limits
from ecot.domains.gpu.jobs.common import without_class
from ecot.domains.gpu.options import GpuOptions
from ecot.domains.gpu.runner import JobResult, JobRunner, gpu_device_nodes, job_file, strip_tag, warm_runners

PLAN_CACHE_TASKS = 1024
GPU_CANDIDATE_WALL_S = 300.0
COMPILE_CACHE_ENTRIES = 512


class GpuBackend(Backend[GpuOptions]):
    domain = "gpu"
    optional_tools = ("nvcc",)  # CUDA kernels are compiled only where it is
    options_model = GpuOptions
    install_hint = "install the ml extra (`pip install -e .[ml]`: torch and triton)"

    def __init__(self) -> None:
        self._plans: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._compiled: OrderedDict[str, dict[str, Any]] = OrderedDict()  # same source and launches: same kernels
        self._runners = warm_runners()  # sandboxed interpreters that imported torch once

    def prepare(self) -> None:
        """Start the warm interpreter this machine's tasks use by default (importing torch takes seconds)."""
        self._runners.get(bool(gpu_device_nodes())).start()

    def close(self) -> None:
        self._runners.close()
        self._plans.clear()
        self._compiled.clear()

    def check_tools(self) -> None:
        for package in ("torch", "triton", "numpy"):
            if importlib.util.find_spec(package) is None:
                raise ToolMissingError(package, self.install_hint)

    def tool_versions(self) -> dict[str, str]:
        found = {}
        for package in ("torch", "triton"):
            try:
                found[package] = importlib.metadata.version(package)
            except importlib.metadata.PackageNotFoundError:
                found[package] = "missing"
        if shutil.which("nvcc"):
            found["nvcc"] = tool_version("nvcc")
        return found

    def evaluate(self, task: Task, opts: GpuOptions, candidate: str) -> Outcome:
        model = task.files.get(opts.model_file)
        if model is None:
            raise ValueError(f"task {task.id}: the bundle has no {opts.model_file} (the reference Model)")
        with ExitStack() as stack:
            jobs = JobRunner(stack, self._runners, gpu=opts.device != "cpu" and bool(gpu_device_nodes()))
            plan, failure = self._plan(task, opts, model, jobs)
            if failure is not None:
                return failure
            return self._judge(task, opts, model, candidate, {**plan, "seed": _evaluation_seed(opts)}, jobs, stack)

    # -- 1. plan ----------------------------------------------------------------------------------------
    def _plan(self, task: Task, opts: GpuOptions, model: str, jobs: JobRunner) -> tuple[dict[str, Any], Outcome | None]:
        """The device and the sizes (scaled down on a CPU): one planning job per task and process."""
        key = hashlib.sha256(json.dumps([model, opts.__dict__, jobs.gpu], default=str).encode()).hexdigest()
        if key in self._plans:
            self._plans.move_to_end(key)
            return self._plans[key], None
        job = {**_plan_fields(opts), "device": opts.device, "sizes": None}
        result = jobs.run("inputs", job, _trusted_limits(task), feeds={"model.py": model.encode()})
        if result.report is None:
            why = "timed out" if result.exec.timed_out else _last_line(result.exec.stderr)
            return {}, infra_error(f"task {task.id}: the reference cannot run on this machine: {why}",
                                   strip_tag(result.exec.output, jobs.tag))
        self._plans[key] = result.report
        while len(self._plans) > PLAN_CACHE_TASKS:
            self._plans.popitem(last=False)
        return result.report, None

    # -- 2-4. candidate, compile, verdict ------------------------------------------------------------------
    def _judge(self, task: Task, opts: GpuOptions, model: str, candidate: str, plan: dict[str, Any], jobs: JobRunner,
               stack: ExitStack) -> Outcome:
        device = plan["device"]
        job = {"seed": plan["seed"], "device": device, "trials": opts.trials, "shapes": _shapes(plan),
               "race_check": opts.race_check, "threads": opts.threads, "timing": opts.timing,
               "timing_trials": opts.timing_trials, "warmup": opts.warmup, "flush_l2": opts.flush_l2}
        env = {"TRITON_INTERPRET": "1"} if device == "cpu" else {}
        limits = _output_room(task.limits, plan, opts)
        if device == "cuda":  # Triton JIT, nvcc builds of load_inline (a minute) and timing come on top
            limits = limits.scaled(wall_s=max(limits.wall_s, GPU_CANDIDATE_WALL_S), cpu_s=max(limits.cpu_s, GPU_CANDIDATE_WALL_S))
        cand = jobs.run("candidate", job, limits, files={"candidate.py": candidate.encode()},
                        feeds={"inputs.py": without_class(model).encode()}, env=env)
        log = out.joined_log(strip_tag(cand.exec.output, jobs.tag))
        metrics: dict[str, Any] = {"device": device, "seed": plan["seed"], **_plan_metrics(plan, opts)}
        notes: list[str] = []
        launches = job_file(cand.folder, "launches.jsonl", 1 << 20) if device == "cpu" and opts.resource_check else None
        if launches is not None:
            failed = self._resources(task, opts, candidate, launches, jobs, log, metrics, notes)
            if failed is not None:
                return _finish(failed, metrics, notes)
        failed = out.candidate_outcome(task, cand, log)
        if failed is not None:
            return _finish(failed, metrics, notes)
        report = cand.report or {}
        if report.get("kind") == "needs_gpu":
            return _finish(self._nvcc_check(task, opts, cand, stack, log), metrics, notes)
        if (report.get("timing") or {}).get("forged_intervals"):
            report["tampered"] = [*report.get("tampered", []), "CUDA events (an interval longer than the host measured)"]
        if report.get("tampered"):
            what = ", ".join(report["tampered"])
            return _finish(Outcome(out.RUNTIME_ERROR, f"reward hack: the candidate replaced timing function(s) {what}, "
                                   "which would make any measured speedup meaningless", log), metrics, notes)
        return _finish(self._verdict(task, opts, model, plan, cand, jobs, log), metrics, notes)

    def _resources(self, task: Task, opts: GpuOptions, candidate: str, recorded: bytes, jobs: JobRunner, log: str,
                   metrics: dict[str, Any], notes: list[str]) -> Outcome | None:
        target = gpu_limits.arch(opts.target)
        job = {"target": target.name, "max_kernels": opts.max_kernels}
        limits = Limits(wall_s=opts.compile_wall_s, cpu_s=opts.compile_wall_s, memory_mb=max(task.limits.memory_mb, 4096),
                        output_kb=4096, file_mb=256, procs=64)
        key = hashlib.sha256(b"\0".join([candidate.encode(), recorded, json.dumps(job).encode()])).hexdigest()
        report = self._compiled.get(key)
        if report is None:
            result = jobs.run("compile_check", job, limits, files={"launches.jsonl": recorded},
                              feeds={"source.py": candidate.encode()})
            if result.report is None:
                why = "timed out" if result.exec.timed_out else _last_line(result.exec.stderr)
                notes.append(f"resource check for {target.name} skipped: the compile job {why}")
                return None
            report = self._compiled[key] = result.report
            while len(self._compiled) > COMPILE_CACHE_ENTRIES:
                self._compiled.popitem(last=False)
        failed, found, more = out.compile_outcome(report, target, log)
        metrics.update(found)
        notes.extend(more)
        return failed

    def _nvcc_check(self, task: Task, opts: GpuOptions, cand: JobResult, stack: ExitStack, log: str) -> Outcome:
        if shutil.which("nvcc") is None:
            return infra_error("the candidate builds CUDA code (load_inline) and this machine has neither a GPU nor "
                               "the tool 'nvcc' to check it", log)
        target = gpu_limits.arch(opts.target)
        sources = job_file(cand.folder, "cuda_sources.jsonl", 4 << 20) or b""
        entries = [json.loads(line) for line in sources.decode("utf-8", "replace").splitlines() if line.strip()]
        summary = []
        for entry in entries:
            code = gpu_cuda.device_code(str(entry.get("cuda", "")))
            if code.kernels == 0:
                continue
            folder = stack.enter_context(sandbox.workdir("ecot-nvcc-"))
            (folder / "kernels.cu").write_text(code.text)
            argv = ["nvcc", f"-arch={target.name}", "--cubin", "-Xptxas", "-v", "-std=c++17", "-o", "k.cubin", "kernels.cu"]
            result = sandbox.run(argv, folder, Limits(wall_s=120, cpu_s=120, memory_mb=4096, file_mb=256), proc_fs=True)
            if (found := gpu_cuda.shared_overflow(result.output)) is not None:
                usage = gpu_limits.Usage(gpu_limits.demangle(found[0]), static_shared=found[1])
                overflow = gpu_limits.check(usage, target)
                if overflow is not None:
                    return Outcome(out.MEMORY_FAULT, overflow.diagnostic, out.joined_log(log, result.output), usage.metrics())
            if result.returncode != 0 and not gpu_cuda.inconclusive(result.output, code):
                first = gpu_cuda.first_error(result.output).replace("kernels.cu", "cuda_sources")
                source = f"load_inline('{entry.get('name')}')"
                return Outcome(out.COMPILATION_ERROR, f"nvcc ({target.name}) rejects the CUDA source of {source}: {first}",
                               out.joined_log(log, result.output))
            for usage in gpu_limits.read_ptxas(result.output):
                overflow = gpu_limits.check(usage, target)
                if overflow is not None:
                    return Outcome(out.MEMORY_FAULT, overflow.diagnostic, out.joined_log(log, result.output), usage.metrics())
                summary.append(f"`{usage.kernel}` {usage.registers} registers, {usage.static_shared} B static shared memory")
        done = "; ".join(summary) or "no kernel could be compiled on its own"
        return infra_error(f"the CUDA source compiles for {target.name} ({done}), but there is no GPU here to run it: "
                           "correctness not checked", log)

    def _verdict(self, task: Task, opts: GpuOptions, model: str, plan: dict[str, Any], cand: JobResult, jobs: JobRunner,
                 log: str) -> Outcome:
        job = {"seed": plan["seed"], "device": plan["device"], "trials": opts.trials, "shapes": _shapes(plan),
               "atol": opts.atol, "rtol": opts.rtol, "scale_atol": opts.scale_atol, "threads": opts.threads,
               "timing": opts.timing, "timing_trials": opts.timing_trials, "warmup": opts.warmup,
               "flush_l2": opts.flush_l2, "compare_compile": opts.compare_compile}
        report = cand.report or {}
        wanted = {"cand_out.pt": report.get("outputs_file"), "cand_timed.pt": (report.get("timing") or {}).get("timed_file")}
        copies = {}
        for name, produced in wanted.items():
            if not (isinstance(produced, str) and re.fullmatch(r"(out|timed)_[0-9a-f]{16}\.pt", produced)):
                continue  # only the names the job's own pattern gives are read back
            if (data := job_file(cand.folder, produced)) is not None:
                copies[name] = data
        limits = _output_room(_trusted_limits(task), plan, opts)
        if plan["device"] == "cuda" and opts.timing and opts.compare_compile:
            limits = limits.scaled(wall_s=max(limits.wall_s, 600.0), cpu_s=max(limits.cpu_s, 600.0))  # torch.compile
        result = jobs.run("verdict", job, limits, files=copies, feeds={"model.py": model.encode()})
        outcome = out.verdict_outcome(result.report, result, log)
        if outcome.passed and result.report is not None:
            timing = (cand.report or {}).get("timing")
            speed = out.speed_metrics(timing, result.report)
            outcome = Outcome(outcome.label, outcome.diagnostic + _speed_text(speed), outcome.log, {**outcome.metrics, **speed})
        return outcome


def _evaluation_seed(opts: GpuOptions) -> int:
    """The seed of one evaluation's models and inputs: drawn here, on the host, from the system's randomness
    (os.urandom), so no candidate can learn the inputs it will be judged on; a task may pin it."""
    return opts.seed if opts.seed is not None else secrets.randbits(62)


def _shapes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The shape sets of the jobs: the planned sizes first, then each further shape set the task declares."""
    return [plan.get("sizes") or {}, *(plan.get("shapes") or [])]


def _plan_fields(opts: GpuOptions) -> dict[str, Any]:
    return {"seed": opts.seed or 0, "shapes": opts.shapes, "cpu_scale": opts.cpu_scale, "cpu_sizes": opts.cpu_sizes,
            "threads": opts.threads, "cpu_max_elements": opts.cpu_max_elements, "cpu_max_flops": opts.cpu_max_flops}


def _plan_metrics(plan: dict[str, Any], opts: GpuOptions) -> dict[str, Any]:
    """cpu_shrink: elements at the task's sizes / elements at the CPU sizes; cpu_scale: the task's divisor."""
    if plan.get("device") != "cpu":
        return {}
    found = {"cpu_shrink": int(plan.get("factor") or 1), "cpu_elements": int(plan.get("elements") or 0)}
    return {**found, "cpu_scale": opts.cpu_scale} if opts.cpu_scale else found


def _trusted_limits(task: Task) -> Limits:
    """The reference's own jobs: at least a minute, so a slow reference is not blamed on the candidate."""
    base = task.limits
    file_mb = max(base.file_mb, 1024)  # the verdict job reads the candidate's outputs and writes none of its own
    return base.scaled(wall_s=max(base.wall_s, 60.0), cpu_s=max(base.cpu_s, 60.0), memory_mb=max(base.memory_mb, 2048),
                       file_mb=file_mb, disk_mb=max(base.disk_mb, 2 * file_mb + 64))


def _output_room(limits: Limits, plan: dict[str, Any], opts: GpuOptions) -> Limits:
    """A file limit that holds the outputs the candidate job saves for the verdict job (every trial's,
    the stress trial's and the inputs after trial 0: at most (trials + shape sets) x the largest planned
    input + output elements, at 8 bytes each); a reference the CPU planner cannot shrink is not an Infra_Error."""
    elements = int(plan.get("elements") or 0)
    needed_mb = -(-elements * 8 * (opts.trials + 1 + len(opts.shapes)) // (1 << 20)) + 16
    if needed_mb <= limits.file_mb:
        return limits
    return limits.scaled(file_mb=needed_mb, disk_mb=max(limits.disk_mb, 2 * needed_mb + 64))


def _finish(outcome: Outcome, metrics: dict[str, Any], notes: list[str]) -> Outcome:
    log = outcome.log + ("\n[ecot] " + "\n[ecot] ".join(notes) if notes else "")
    return Outcome(outcome.label, outcome.diagnostic, log, {**metrics, **outcome.metrics})


def _speed_text(speed: dict[str, Any]) -> str:
    if "speedup" not in speed:
        return ""
    text = f"; {speed['time_ms']:.4g} ms vs {speed['ref_time_ms']:.4g} ms eager: speedup {speed['speedup']:.3g}x"
    if "speedup_vs_compile" in speed:
        text += f", {speed['speedup_vs_compile']:.3g}x over torch.compile"
    return text


def _last_line(text: str) -> str:
    return next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "no output")[:400]
