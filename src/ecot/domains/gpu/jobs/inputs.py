"""The planning job (trusted: only the reference runs here): pick the device and, on a CPU, the sizes.

CPU scale-down: the module-level size constants of the reference (ints >= 16, and tuples/lists of
ints) shrink so a CPU run takes milliseconds while the task keeps its structure. With the task's
`cpu_scale` option every such constant is divided by that factor. Otherwise the planner halves the
largest constant whose halving the reference still accepts, again and again, until the inputs plus
outputs hold at most `cpu_max_elements` elements and the forward pass costs at most `cpu_max_flops`
(both measured on PyTorch's meta device, so nothing is allocated); a constant whose halving breaks the
model (GroupNorm's channels below its groups, a kernel larger than its input) stays. A real forward at
the chosen sizes confirms the plan. The reported factor is the ratio of elements, full / scaled.
"""

from __future__ import annotations

import types
from typing import Any

from ecot.domains.gpu.jobs.common import (
    MIN_SCALED,
    Inputs,
    apply_sizes,
    emit,
    load_module,
    read_job,
    scaled_sizes,
    size_constants,
)

MAX_STEPS = 64  # halvings: far more than any budget needs
MAX_CPU_ELEMENTS = 1 << 26  # above this even an unscaled CPU run is hopeless


def measure(module: types.ModuleType) -> tuple[int, int | None]:
    """(input + output elements, forward FLOPs or None) of the module at its current sizes, on meta."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):
        init = list(module.get_init_inputs())
        inputs = list(module.get_inputs())
        elements = _numel(inputs)
        try:
            model = module.Model(*init)
            with torch.no_grad(), FlopCounterMode(display=False) as counter:
                out = model(*inputs)
        except Exception:  # noqa: BLE001 - no meta kernel for some op: fall back to the inputs alone
            return elements, None
    return elements + _numel(out), int(counter.get_total_flops())


def _numel(value: Any) -> int:
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(_numel(v) for v in value)
    return 0


def choose_scale(module: types.ModuleType, job: dict[str, Any], constants: dict[str, Any]) -> dict[str, Any]:
    overrides = dict(job.get("cpu_sizes") or {})
    if job.get("cpu_scale"):
        sizes = {**scaled_sizes(constants, int(job["cpu_scale"])), **overrides}
        return _plan(module, sizes, constants, "the task's cpu_scale")
    return _shrink(module, constants, overrides, int(job["cpu_max_elements"]), int(job["cpu_max_flops"]))


def _shrink(module: types.ModuleType, constants: dict[str, Any], overrides: dict[str, Any], max_elements: int,
            max_flops: int) -> dict[str, Any]:
    """Halve the largest size constant whose halving the reference still accepts, until the budget holds."""
    sizes = {**constants, **overrides}
    apply_sizes(module, sizes)
    elements, flops = measure(module)
    exact = flops is not None  # with a working meta forward, shapes that stop fitting show up as errors
    why = "automatic"
    for _ in range(MAX_STEPS):
        if elements <= max_elements and (flops is None or flops <= max_flops):
            break
        for trial in _halvings(sizes, overrides):
            apply_sizes(module, trial)
            try:
                got = measure(module)
            except Exception:  # noqa: BLE001 - the shrunken sizes do not fit together: try another one
                continue
            if exact and got[1] is None:
                continue
            sizes, (elements, flops) = trial, got
            break
        else:
            why = f"no size can shrink further ({elements} elements, {flops} FLOPs, over the CPU budget)"
            break
    return _plan(module, sizes, constants, why)


def _halvings(sizes: dict[str, Any], overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """Candidate next steps: halve one constant (largest first); then every constant holding the largest
    value (sizes that must stay equal, e.g. a broadcast); then all of them at once."""
    names = sorted((n for n in sizes if n not in overrides), key=lambda n: -_largest(sizes[n]))
    steps = [{**sizes, n: _halved(sizes[n])} for n in names]
    if names:
        top = _largest(sizes[names[0]])
        steps.append({**sizes, **{n: _halved(sizes[n]) for n in names if _largest(sizes[n]) == top}})
        steps.append({**sizes, **{n: _halved(sizes[n]) for n in names}})
    return [step for step in steps if step != sizes]


def _largest(value: Any) -> int:
    return max(value) if isinstance(value, list) else int(value)


def _halved(value: Any) -> Any:
    if isinstance(value, list):
        top = max(value)
        return [v // 2 if v == top and v >= MIN_SCALED else v for v in value]
    return value // 2 if value >= MIN_SCALED else value


def _plan(module: types.ModuleType, sizes: dict[str, Any], constants: dict[str, Any], why: str) -> dict[str, Any]:
    apply_sizes(module, sizes)
    try:
        elements, flops = measure(module)
    except Exception:  # noqa: BLE001 - only informative here
        elements, flops = -1, None
    apply_sizes(module, constants)
    try:
        full, _ = measure(module)
    except Exception:  # noqa: BLE001
        full = -1
    apply_sizes(module, sizes)
    factor = max(1, round(full / elements)) if full > 0 and elements > 0 else 1
    return {"sizes": sizes, "factor": factor, "elements": elements, "flops": flops, "why": why}


def validate(module: types.ModuleType, job: dict[str, Any], plan: dict[str, Any], constants: dict[str, Any]) -> dict[str, Any]:
    """Run the reference for real at the planned sizes; if that fails, fall back to the task's own sizes."""
    from ecot.domains.gpu.jobs.common import build_model, forward

    try:
        apply_sizes(module, plan["sizes"])
        inputs = Inputs(module, int(job["seed"]), 1)
        model = build_model(module.Model, inputs.init(), int(job["seed"]), "cpu")
        forward(model, inputs.trial(0), int(job["seed"]), 0)
        return plan
    except Exception as err:  # noqa: BLE001
        if plan["sizes"] == constants or job.get("cpu_scale"):
            raise
        return {**_plan(module, dict(constants), constants, f"unscaled: the scaled reference failed ({type(err).__name__})")}


def cpu_plan(module: types.ModuleType, job: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The CPU sizes for one shape set: `given` overrides size constants at the task's own sizes, and the
    set is scaled like the task's own sizes (the task's cpu_sizes pin only the constants it leaves alone)."""
    constants = {**size_constants(vars(module)), **given}
    apply_sizes(module, constants)
    pins = {k: v for k, v in (job.get("cpu_sizes") or {}).items() if k not in given}
    plan = choose_scale(module, {**job, "cpu_sizes": pins}, constants)
    if plan["elements"] > MAX_CPU_ELEMENTS:
        raise RuntimeError(f"the reference cannot be scaled below {plan['elements']} elements ({plan['why']}); "
                           "too large for the CPU path")
    return validate(module, job, plan, constants)


def main() -> None:
    import torch

    job = read_job()
    torch.set_num_threads(int(job.get("threads", 1)))
    with open("model.py", encoding="utf-8") as handle:
        source = handle.read()
    module = load_module(source, "model.py", "ecot_reference")
    device = job["device"]
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    variants = [dict(v) for v in job.get("shapes") or []]
    plan: dict[str, Any] = {"sizes": dict(job.get("sizes") or {}), "factor": job.get("factor", 1), "why": "given"}
    if device == "cpu" and job.get("sizes") is None:
        named = {name: getattr(module, name) for variant in variants for name in variant if hasattr(module, name)}
        loaded = {**size_constants(vars(module)), **named}  # what each shape set starts from
        plan = cpu_plan(module, job, {})
        shapes = []
        for variant in variants:
            apply_sizes(module, loaded)
            shapes.append(cpu_plan(module, job, variant))
        plan["shapes"] = [s["sizes"] for s in shapes]
        plan["elements"] = max([plan["elements"], *(s["elements"] for s in shapes)])
    else:  # on the GPU every shape set runs at the sizes the task wrote
        plan["shapes"] = variants
    emit(job["tag"], {"device": device, **plan})


if __name__ == "__main__":
    main()
