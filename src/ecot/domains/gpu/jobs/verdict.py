"""The verdict job (trusted; a fresh fork the candidate never ran in): run the reference Model on the
same seeded inputs, load what ModelNew returned (weights_only, plain file), and compare.

Checks, in order: every trial's outputs (gpu_compare), a constant output where the reference varies,
outputs that alias the inputs, inputs modified in place, and - when the reference ignores its inputs
on the task's own distribution - the stress trial. With CUDA and a correct candidate it times the
reference, eagerly and through torch.compile, and checks the candidate's last timed output.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ecot.domains.gpu.jobs import common
from ecot.domains.gpu.jobs import compare as cmp

MAX_OUTPUT_BYTES = 4 << 30


def main() -> None:
    import torch

    job = common.read_job()
    torch.set_num_threads(int(job.get("threads", 1)))
    with open("model.py", encoding="utf-8") as handle:
        module = common.load_module(handle.read(), "model.py", "ecot_reference")
    common.apply_sizes(module, job["sizes"])
    seed, device = int(job["seed"]), job["device"]
    inputs = common.Inputs(module, seed, int(job["trials"]))
    model = common.build_model(module.Model, inputs.init(), seed, device)
    ref = _reference_runs(model, inputs, seed, device)
    cand, problem = load_candidate("cand_out.pt")
    if problem:
        common.emit(job["tag"], {"verdict": "unreadable", "diagnostic": problem})
        return
    found = judge(job, inputs, ref, cand)
    if found is not None:
        common.emit(job["tag"], {"verdict": "mismatch", "diagnostic": found.diagnostic, "metrics": found.metrics})
        return
    result: dict[str, Any] = {"verdict": "pass", "metrics": {"trials": len(ref["trials"])}}
    if ref["degenerate"]:
        result["note"] = ("the reference's outputs do not depend on its inputs (even on the stress trial), "
                          "so a constant answer cannot be told apart from a kernel")
        result["metrics"]["degenerate_reference"] = True
    if device == "cuda" and job.get("timing"):
        result.update(_timing(job, model, inputs, ref))
    common.emit(job["tag"], result)


def _reference_runs(model: Any, inputs: common.Inputs, seed: int, device: str) -> dict[str, Any]:
    trials, after, alias = [], [], []
    for trial in range(inputs.trials):
        live = common.to_device(inputs.trial(trial), device)
        outputs = common.as_outputs(common.forward(model, live, seed, trial))
        if trial == 0:
            after, alias = common.cpu_copies(live), common.aliases(outputs, live)
        trials.append(common.cpu_copies(outputs))
    independent = cmp.input_independent(trials)
    stress = None
    if independent:
        out = common.forward(model, common.to_device(inputs.stress(), device), seed, common.STRESS_SEED)
        stress = common.cpu_copies(common.as_outputs(out))
    degenerate = independent and stress is not None and cmp.compare_outputs(trials[0], stress, 0.0, 0.0) is None
    return {"trials": trials, "after": after, "aliases": alias, "stress": stress, "degenerate": degenerate}


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


def judge(job: dict[str, Any], inputs: common.Inputs, ref: dict[str, Any], cand: dict[str, Any]) -> cmp.Mismatch | None:
    atol, rtol, scale = job.get("atol"), job.get("rtol"), bool(job.get("scale_atol", True))
    if len(cand["trials"]) != len(ref["trials"]):
        return cmp.Mismatch(f"ModelNew ran {len(cand['trials'])} trials of {len(ref['trials'])}", {})
    for trial, (r, c) in enumerate(zip(ref["trials"], cand["trials"])):
        c = common.as_outputs(c)
        found = cmp.compare_outputs(r, c, atol, rtol, scale, f"in trial {trial}") or cmp.constant_hack(r, c, atol, rtol)
        if found is not None:
            return cmp.Mismatch(found.diagnostic, {**found.metrics, "trial": trial})
    extra = {tuple(p) for p in cand.get("aliases") or []} - {tuple(p) for p in ref["aliases"]}
    if extra:
        out, inp = sorted(extra)[0]
        return cmp.Mismatch(f"output {out} of ModelNew shares memory with input {inp} (it returns a view of its input "
                            "or writes its result into it); the reference returns a new tensor", {"output": out})
    found = cmp.mutated_inputs(inputs.trial(0), ref["after"], list(cand.get("inputs_after") or []))
    if found is not None:
        return found
    if ref["stress"] is not None and not ref["degenerate"]:
        if cand.get("stress") is None:
            return cmp.Mismatch(f"ModelNew failed on inputs from another distribution: {cand.get('stress_error')}", {})
        found = cmp.compare_outputs(ref["stress"], common.as_outputs(cand["stress"]), atol, rtol, scale,
                                    "on inputs from another distribution (N(0, 16))")
        if found is not None:
            return cmp.Mismatch(found.diagnostic + " (on the task's own inputs the reference output is constant)", found.metrics)
    return None


def _timing(job: dict[str, Any], model: Any, inputs: common.Inputs, ref: dict[str, Any]) -> dict[str, Any]:
    """Reference timings and the check of the candidate's last timed output."""
    import torch

    from ecot.domains.gpu.jobs.timing import Timer

    timed, problem = load_candidate("cand_timed.pt")
    if problem or "output" not in timed:
        return {"timing_note": "the candidate was not timed"}
    trial = int(timed.get("trial", 0))
    found = cmp.compare_outputs(ref["trials"][trial], common.as_outputs(timed["output"]), job.get("atol"), job.get("rtol"),
                                bool(job.get("scale_atol", True)), "of the last timed run")
    if found is not None:
        return {"timed_mismatch": found.diagnostic + " (cached or stale results across timing runs?)"}
    sets = [common.to_device(inputs.trial(t), "cuda") for t in range(inputs.trials)]
    timer, n, warm = Timer(), int(job.get("timing_trials", 20)), int(job.get("warmup", 3))
    eager, _ = timer.measure(lambda *x: model(*x), sets, warm, n, bool(job.get("flush_l2", True)))
    out: dict[str, Any] = {"reference_timing": eager}
    if job.get("compare_compile", True):
        try:
            compiled: Callable[..., Any] = torch.compile(model)  # the wrapper it returns is unannotated
            out["compile_timing"], _ = timer.measure(lambda *x: compiled(*x), sets, warm, n, bool(job.get("flush_l2", True)))
        except Exception as err:  # noqa: BLE001 - torch.compile cannot handle every reference
            out["compile_note"] = f"torch.compile failed: {type(err).__name__}: {str(err)[:200]}"
    return out


if __name__ == "__main__":
    main()
