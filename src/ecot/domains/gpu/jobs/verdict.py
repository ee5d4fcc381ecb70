"""The verdict job (trusted; a fresh fork the candidate never ran in): run the reference Model on the
same seeded inputs (gpu_reference: in its own dtype and in float64), load what ModelNew returned
(weights_only, plain file), and compare.

Checks, in order: every trial's outputs against the reference's float64 values (gpu_compare), then the
canaries (gpu_canary: constant, all-zero and echoed-input outputs, results cached from an earlier call),
outputs that alias the inputs, storage reused across calls, inputs modified in place, and - when the
reference ignores or echoes its inputs on the task's own distribution - the stress trial. It reports
whether ModelNew ran every operation of the reference (no speedup is then counted). With CUDA and a
correct candidate it times the reference, eagerly and through torch.compile, and checks the
candidate's last timed output.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ecot.domains.gpu.jobs import canary, common
from ecot.domains.gpu.jobs import compare as cmp
from ecot.domains.gpu.jobs import reference as gpu_reference

MAX_OUTPUT_BYTES = 4 << 30


def main() -> None:
    import torch

    job = common.read_job()
    torch.set_num_threads(int(job.get("threads", 1)))
    with open("model.py", encoding="utf-8") as handle:
        module = common.load_module(handle.read(), "model.py", "ecot_reference")
    seed, device = int(job["seed"]), job["device"]
    inputs = common.Inputs(module, seed, int(job["trials"]), job["shapes"])
    tol = gpu_reference.Tolerance(job.get("atol"), job.get("rtol"), bool(job.get("scale_atol", True)))
    cand, problem = load_candidate("cand_out.pt")
    if problem:
        common.emit(job["tag"], {"verdict": "unreadable", "diagnostic": problem})
        return
    watched = {t: common.as_outputs(c) for t, c in enumerate(cand["trials"])}
    ref = gpu_reference.run(module, inputs, seed, device, tol, watched)
    found = judge(inputs, ref, cand, tol)
    if found is not None:
        common.emit(job["tag"], {"verdict": "mismatch", "diagnostic": found.diagnostic, "metrics": found.metrics})
        return
    common.emit(job["tag"], _passed(job, inputs, ref, cand))


def _passed(job: dict[str, Any], inputs: common.Inputs, ref: gpu_reference.ReferenceRuns, cand: dict[str, Any]) -> dict[str, Any]:
    metrics: dict[str, Any] = {"trials": len(ref.trials), "shape_sets": len(inputs.shapes),
                               "float64_reference": not ref.fallbacks}
    result: dict[str, Any] = {"verdict": "pass", "metrics": metrics, "notes": []}
    if ref.fallbacks:
        more = f" (and {len(ref.fallbacks) - 1} more)" if len(ref.fallbacks) > 1 else ""
        result["notes"].append(f"judged against the reference in its own dtype where float64 was not usable: "
                               f"{ref.fallbacks[0]}{more}")
    if ref.degenerate:
        result["notes"].append("the reference's outputs do not depend on its inputs (even on the stress trial), "
                               "so a constant answer cannot be told apart from a kernel")
        metrics["degenerate_reference"] = True
    if "ops" in cand:
        metrics["reference_ops"] = canary.covers(cand.get("ops"), ref.ops)
        if metrics["reference_ops"]:
            result["notes"].append(f"ModelNew runs every operation of the reference ({canary.trace_text(ref.ops)}): "
                                   "it does all of the reference's work, so no speedup is counted")
    if job["device"] == "cuda" and job.get("timing"):
        result.update(_timing(job, ref, inputs))
    return result


def load_candidate(path: str) -> tuple[dict[str, Any], str]:
    """The candidate's outputs, refusing anything but a plain, loadable tensor file."""
    import torch

    if os.path.islink(path) or not os.path.isfile(path):
        return {}, "ModelNew's outputs were never saved (the candidate stopped or removed them)"
    if os.path.getsize(path) > MAX_OUTPUT_BYTES:
        return {}, "ModelNew's saved outputs are too large to load"
    try:
        data = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as err:  # noqa: BLE001 - a file the candidate tampered with
        return {}, f"ModelNew's saved outputs cannot be read ({type(err).__name__}: {str(err)[:200]})"
    if not isinstance(data, dict) or not isinstance(data.get("trials"), list):
        return {}, "ModelNew's saved outputs are malformed"
    return data, ""


def judge(inputs: common.Inputs, ref: gpu_reference.ReferenceRuns, cand: dict[str, Any],
          tol: gpu_reference.Tolerance) -> cmp.Mismatch | None:
    if len(cand["trials"]) != len(ref.trials):
        return cmp.Mismatch(f"ModelNew ran {len(cand['trials'])} trials of {len(ref.trials)}", {})
    outputs = {t: common.as_outputs(c) for t, c in enumerate(cand["trials"])}
    for trial in range(len(ref.trials)):
        found = _trial(inputs, ref, outputs, trial, tol)
        if found is not None:
            return cmp.Mismatch(found.diagnostic, {**found.metrics, "trial": trial})
    return _side_effects(inputs, ref, cand) or _stress(ref, cand, tol)


def _trial(inputs: common.Inputs, ref: gpu_reference.ReferenceRuns, outputs: dict[int, list[Any]], trial: int,
           tol: gpu_reference.Tolerance) -> cmp.Mismatch | None:
    where = f"in trial {trial}" + (f" (shape set {inputs.shape_of(trial)})" if inputs.shape_of(trial) else "")
    values, mine = ref.values(trial), outputs[trial]
    found = cmp.compare_outputs(ref.trials[trial], mine, tol.atol, tol.rtol, tol.scale_atol, where, values)
    if found is not None:
        return found
    for index, (r, v, c) in enumerate(zip(ref.trials[trial], values, mine)):
        echoed = [i for o, i in ref.echoed[trial] if o == index]
        hack = canary.output_hack(r, v, c) or (canary.echo_text(echoed[0]) if echoed else None)
        if hack is not None:
            return cmp.Mismatch(f"output {index} of ModelNew {where} (shape {cmp.shape_text(c.shape)}) {hack}", {"output": index})
    same_set = [t for t in range(trial) if inputs.shape_of(t) == inputs.shape_of(trial)]
    text = canary.cached(trial, {t: outputs[t] for t in same_set}, {t: ref.trials[t] for t in [*same_set, trial]}, mine)
    return cmp.Mismatch(text, {}) if text else None


def _side_effects(inputs: common.Inputs, ref: gpu_reference.ReferenceRuns, cand: dict[str, Any]) -> cmp.Mismatch | None:
    for out, inp in canary.new_pairs(cand.get("aliases"), ref.aliases):
        return cmp.Mismatch(f"output {out} of ModelNew shares memory with input {inp} (it returns a view of its input "
                            "or writes its result into it); the reference returns a new tensor", {"output": out})
    for out, old in canary.new_pairs(cand.get("reused"), ref.reused):
        return cmp.Mismatch(f"output {out} of ModelNew shares memory with its output {old} of the call before (it "
                            "returns a buffer it overwrites on every call, so a caller's earlier result changes); the "
                            "reference returns a new tensor", {"output": out})
    return cmp.mutated_inputs(inputs.trial(0), ref.after, list(cand.get("inputs_after") or []))


def _stress(ref: gpu_reference.ReferenceRuns, cand: dict[str, Any], tol: gpu_reference.Tolerance) -> cmp.Mismatch | None:
    if ref.stress is None or ref.degenerate:
        return None
    if cand.get("stress") is None:
        return cmp.Mismatch(f"ModelNew failed on inputs from another distribution: {cand.get('stress_error')}", {})
    found = cmp.compare_outputs(ref.stress, common.as_outputs(cand["stress"]), tol.atol, tol.rtol, tol.scale_atol,
                                "on inputs from another distribution (N(0, 16))")
    if found is None:
        return None
    why = "equals one of its inputs" if ref.echoes else "is constant"
    return cmp.Mismatch(f"{found.diagnostic} (on the task's own inputs the reference's output {why})", found.metrics)


def _timing(job: dict[str, Any], ref: gpu_reference.ReferenceRuns, inputs: common.Inputs) -> dict[str, Any]:
    """Reference timings (on the first shape set's trials) and the check of the candidate's last timed output."""
    import torch

    from ecot.domains.gpu.jobs.timing import Timer

    timed, problem = load_candidate("cand_timed.pt")
    if problem or "output" not in timed:
        return {"timing_note": "the candidate was not timed"}
    trial = int(timed.get("trial", 0))
    if not 0 <= trial < inputs.base:
        return {"timed_mismatch": f"the candidate's timing names trial {trial}, which was never timed"}
    found = cmp.compare_outputs(ref.trials[trial], common.as_outputs(timed["output"]), job.get("atol"), job.get("rtol"),
                                bool(job.get("scale_atol", True)), "of the last timed run", ref.values(trial))
    if found is not None:
        return {"timed_mismatch": found.diagnostic + " (cached or stale results across timing runs?)"}
    sets = [common.to_device(inputs.trial(t), "cuda") for t in range(inputs.base)]
    model, flush = ref.model, bool(job.get("flush_l2", True))
    timer, n, warm = Timer(), int(job.get("timing_trials", 20)), int(job.get("warmup", 3))
    eager, _ = timer.measure(lambda *x: model(*x), sets, warm, n, flush)
    out: dict[str, Any] = {"reference_timing": eager}
    if job.get("compare_compile", True):
        try:
            compiled: Callable[..., Any] = torch.compile(model)  # the wrapper it returns is unannotated
            out["compile_timing"], _ = timer.measure(lambda *x: compiled(*x), sets, warm, n, flush)
        except Exception as err:  # noqa: BLE001 - torch.compile cannot handle every reference
            out["compile_note"] = f"torch.compile failed: {type(err).__name__}: {str(err)[:200]}"
    return out


if __name__ == "__main__":
    main()
