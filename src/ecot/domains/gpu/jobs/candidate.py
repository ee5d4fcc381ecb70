"""The candidate job: import the candidate, run ModelNew on the seeded inputs, save what it returned.

Runs in its own fork; the reference model never exists in this process: the inputs are drawn by
model.py's own get_inputs(), from a copy with the Model class removed. On a CPU, Triton kernels run in
the instrumented interpreter (gpu_interp), CUDA-addressed tensor code runs on the CPU, and load_inline
records its sources for the nvcc check.
With CUDA, the candidate runs on the device and, when asked, is timed (gpu_timing).

Writes out_<random>.pt (outputs per trial, trial 0's inputs after the call, outputs sharing memory with
the inputs or with the call before, the stress trial and its operation trace) and reports one tagged
line: {"status": "ok" | "error", "outputs_file": ..., ...}.
"""

from __future__ import annotations

import os
import traceback
from typing import Any

from ecot.domains.gpu.jobs import common
from ecot.domains.gpu.jobs import timing as gpu_timing

CANDIDATE_FILE = "candidate.py"


def main() -> None:
    import torch

    job = common.read_job()
    torch.set_num_threads(int(job.get("threads", 1)))
    path = os.path.abspath(CANDIDATE_FILE)
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    state: dict[str, Any] = {"stage": "setup", "tag": job["tag"]}
    guard = _prepare(job, source)
    timer = gpu_timing.Timer() if job["device"] == "cuda" else None
    tampered, emit = gpu_timing.tampered, common.emit  # bound here: rebinding the module attributes changes nothing
    snapshot = gpu_timing.timer_snapshot(timer)
    report: dict[str, Any] = {"status": "ok"}
    try:
        report.update(_run(job, source, path, state, timer))
    except BaseException as err:  # noqa: BLE001 - everything the candidate does wrong is reported
        report = {"status": "error", "stage": state["stage"], **describe_error(err, guard, path)}
        if state["stage"] == "saving outputs" and isinstance(err, (OSError, RuntimeError)):
            report["kind"] = "save"  # e.g. the file-size limit: the harness's problem, not the code's
    report["tampered"] = tampered(snapshot, timer)
    emit(job["tag"], report)


def _prepare(job: dict[str, Any], source: str) -> Any:
    """CPU-only instrumentation, installed before a line of candidate code runs."""
    if job["device"] != "cpu":
        return None
    from ecot.domains.gpu.jobs import cuda as gpu_cuda

    guard = None
    if "triton" in source:
        import triton  # noqa: F401 - in interpreter mode (TRITON_INTERPRET=1 is in the job's environment)

        from ecot.domains.gpu.jobs import interp as gpu_interp

        gpu_interp.install("launches.jsonl", races=bool(job.get("race_check", True)))
        guard = gpu_interp.GUARD
    gpu_cuda.intercept_load_inline("cuda_sources.jsonl")
    common.patch_cuda_helpers()
    common.cuda_as_cpu().__enter__()
    return guard


def _run(job: dict[str, Any], source: str, path: str, state: dict[str, Any], timer: Any) -> dict[str, Any]:
    import torch

    seed, device = int(job["seed"]), job["device"]
    inputs = _inputs(job)  # before any candidate code: it cannot touch how inputs are drawn
    inits = [inputs.init(shape) for shape in range(len(inputs.shapes))]
    _stage(state, "import")
    module = common.load_module(source, path, "candidate")
    model_cls = getattr(module, "ModelNew", None)
    if model_cls is None:
        raise NameError("the candidate defines no `ModelNew` (the class the task asks for)")
    payload: dict[str, Any] = {"trials": [], "aliases": [], "reused": []}
    base = None
    for shape, trials in inputs.groups():
        _stage(state, "init")
        model = common.build_model(model_cls, inits[shape], seed, device)
        base = model if base is None else base
        _trials(model, inputs, trials, seed, device, state, payload)
    _stage(state, "stress trial")
    payload["stress"], payload["stress_error"], payload["ops"] = _stress(base, inputs.stress(), seed, device)
    _stage(state, "saving outputs")
    result: dict[str, Any] = {"trials": len(payload["trials"]), "outputs_file": _fresh_name("out")}
    torch.save(payload, result["outputs_file"])
    if timer is not None and job.get("timing"):
        _stage(state, "timing")
        result["timing"] = _time(timer, base, [inputs.trial(t) for t in range(inputs.base)], job)
    return result


def _trials(model: Any, inputs: common.Inputs, trials: list[int], seed: int, device: str, state: dict[str, Any],
            payload: dict[str, Any]) -> None:
    """One shape set's trials: outputs, aliasing with the inputs and with the call before, trial 0's inputs after."""
    previous: list[Any] | None = None
    for trial in trials:
        _stage(state, f"trial {trial}")
        live = common.to_device(inputs.trial(trial), device)
        outputs = common.as_outputs(common.forward(model, live, seed, trial))
        common.settle(device)
        common.check_plain(outputs)
        payload["aliases"] += [[trial, o, i] for o, i in common.aliases(outputs, live)]
        if previous is not None:  # still alive: shared memory means the same buffer, returned again
            payload["reused"] += [[trial, o, p] for o, p in common.aliases(outputs, previous)]
        if trial == 0:
            payload["inputs_after"] = common.cpu_copies(live)
        payload["trials"].append(common.cpu_copies(outputs))
        previous = outputs


def _inputs(job: dict[str, Any]) -> common.Inputs:
    """model.py without its Model class (a read-once feed): the input helpers and sizes, nothing else."""
    with open("inputs.py", encoding="utf-8") as handle:
        module = common.load_module(handle.read(), "inputs.py", "ecot_inputs")
    return common.Inputs(module, int(job["seed"]), int(job["trials"]), job["shapes"])


def _fresh_name(kind: str) -> str:
    """A file name the candidate's code could not know while it ran (it is drawn afterwards), so nothing
    it planted in the work dir (a link, a pipe, a folder) stands in the way."""
    import secrets

    return f"{kind}_{secrets.token_hex(8)}.pt"


def _stress(model: Any, values: list[Any], seed: int, device: str) -> tuple[list[Any] | None, str | None, dict[str, int] | None]:
    """(outputs, error, operation trace) of the stress trial: its values matter only when the reference ignores
    or echoes its inputs; its trace tells whether ModelNew runs every operation of the reference."""
    from ecot.domains.gpu.jobs import canary

    live = common.to_device(list(values), device)
    try:
        with canary.op_trace() as trace:
            out = common.as_outputs(common.forward(model, live, seed, common.STRESS_SEED))
        common.settle(device)
        ops = None if trace.overflow else dict(trace.counts)
    except Exception:  # noqa: BLE001 - tracing is not the candidate's problem: run it plainly
        ops = None
        try:
            out = common.as_outputs(common.forward(model, common.to_device(list(values), device), seed, common.STRESS_SEED))
            common.settle(device)
        except Exception as err:  # noqa: BLE001 - only matters when the reference is input-independent
            return None, f"{type(err).__name__}: {str(err)[:300]}", ops
    return common.cpu_copies(out), None, ops


def _time(timer: Any, model: Any, trials: list[list[Any]], job: dict[str, Any]) -> dict[str, Any]:
    import torch

    sets = [common.to_device(list(values), "cuda") for values in trials]
    measured: tuple[dict[str, Any], Any] = timer.measure(
        lambda *x: model(*x), sets, int(job.get("warmup", 3)), int(job.get("timing_trials", 20)),
        bool(job.get("flush_l2", True)))
    stats, out = measured
    stats["timed_file"] = _fresh_name("timed")
    torch.save({"output": common.cpu_copies(common.as_outputs(out)), "trial": stats["last_trial"]}, stats["timed_file"])
    return stats


def _stage(state: dict[str, Any], name: str) -> None:
    """Announce a stage, so a job killed on a limit still says where it was."""
    state["stage"] = name
    common.emit(state["tag"], {"progress": name})


# -- errors ---------------------------------------------------------------------------------------------
def describe_error(err: BaseException, guard: Any, path: str) -> dict[str, Any]:
    kind = classify(err, guard)
    if guard is not None and guard.fault is not None:
        message = str(guard.fault)
    elif isinstance(err, SyntaxError):
        line = (err.text or "").strip()
        message = f"SyntaxError: {err.msg} (line {err.lineno}{': ' + line if line else ''})"
    else:
        message = f"{type(err).__name__}: {_root_message(err)}"
    return {"kind": kind, "message": message[:4000], "where": _where(err, path), "traceback": _trace(err, path)}


def classify(err: BaseException, guard: Any) -> str:
    if guard is not None and guard.fault is not None:
        kind: str = guard.fault.kind
        return kind
    chain = _chain(err)
    names = {type(e).__name__ for e in chain}
    text = " ".join(str(e) for e in chain).lower()
    if names & {"SyntaxError", "IndentationError", "TabError"}:
        return "syntax"
    if "NeedsGpu" in names:
        return "needs_gpu"
    if "OutOfResources" in names or "too many resources requested" in text or "out of resource" in text:
        return "out_of_resources"
    if names & {"CompilationError", "CompileTimeAssertionFailure"} or "error building extension" in text:
        return "compile"
    if names & {"MemoryError", "OutOfMemoryError"} or "out of memory" in text or "cannot allocate memory" in text:
        return "memory"
    if any(s in text for s in ("illegal memory access", "misaligned address", "illegal address", "out of bounds")):
        return "illegal_access"
    return "runtime"


def _chain(err: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _root_message(err: BaseException) -> str:
    """The innermost message (the interpreter wraps kernel errors as InterpreterError(repr(e)))."""
    chain = _chain(err)
    inner = chain[-1]
    if inner is not err and type(err).__name__ == "InterpreterError":
        return f"{type(inner).__name__}: {inner}"
    return str(err) or type(err).__name__


def _frames(err: BaseException, path: str) -> list[traceback.FrameSummary]:
    frames: list[traceback.FrameSummary] = []
    for e in reversed(_chain(err)):
        frames += [f for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
    return frames


def _where(err: BaseException, path: str) -> str:
    """The innermost line of the candidate involved: inside a kernel when the interpreter failed there."""
    inner = [f for f in traceback.extract_tb(_chain(err)[-1].__traceback__) if f.filename == path]
    frames = inner or _frames(err, path)
    if not frames:
        return ""
    last = frames[-1]
    return f"candidate line {last.lineno} in {last.name}: {(last.line or '').strip()}"


def _trace(err: BaseException, path: str) -> str:
    lines = [f'  line {f.lineno}, in {f.name}: {(f.line or "").strip()}' for f in _frames(err, path)[-6:]]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
