"""The reference's runs in the verdict job (trusted: this process never runs candidate code).

For every trial: the reference Model on the trial's inputs in its own dtype (shapes, dtypes, aliasing,
inputs changed in place), and a float64 copy of it on float64 copies of the same inputs. An output is
judged against the float64 values when the reference's own output agrees with them within the task's
tolerance; where it does not (an op without a float64 kernel, random ops that draw differently in
float64, TF32 convolutions), against the reference's own output, and the verdict says so.

When the reference's outputs do not depend on the task's inputs, or equal one of them, on every trial
(a clamp of inputs that never reach the bound, a ReLU of non-negative inputs), it also runs on the
stress inputs (another distribution), where a constant or an echoed input is wrong.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ecot.domains.gpu.jobs import canary, common
from ecot.domains.gpu.jobs import compare as cmp


@dataclass
class Tolerance:
    atol: float | None
    rtol: float | None
    scale_atol: bool = True


@dataclass
class ReferenceRuns:
    model: Any = None  # built for the first shape set: the one that is timed
    trials: list[list[Any]] = field(default_factory=list)  # its outputs per trial, on the CPU
    truth: list[list[Any]] = field(default_factory=list)  # float64 outputs where they agree, else None
    after: list[Any] = field(default_factory=list)  # trial 0's inputs after the call
    aliases: set[tuple[int, int]] = field(default_factory=set)  # (output, input) sharing memory
    reused: set[tuple[int, int]] = field(default_factory=set)  # (output, earlier output) sharing memory
    ops: dict[str, int] = field(default_factory=dict)  # trial 0's operation trace
    stress: list[Any] | None = None
    degenerate: bool = False  # constant on the stress inputs too: a truly constant reference
    echoes: bool = False  # an output equal to an input on every trial of the task's sizes
    echoed: list[list[tuple[int, int]]] = field(default_factory=list)  # (candidate output, input) equal where ours differ
    fallbacks: list[str] = field(default_factory=list)  # why an output was judged without float64

    def values(self, trial: int) -> list[Any]:
        """What candidate outputs are judged against: float64 where it agreed, else the reference's own."""
        return [t if t is not None else r for r, t in zip(self.trials[trial], self.truth[trial])]


def run(module: Any, inputs: common.Inputs, seed: int, device: str, tol: Tolerance,
        watched: dict[int, list[Any]] | None = None) -> ReferenceRuns:
    """`watched`: the candidate's outputs per trial, compared with each trial's inputs while they are at hand."""
    runs = ReferenceRuns()
    echoed = []
    for shape, trials in inputs.groups():
        model = common.build_model(module.Model, inputs.init(shape), seed, device)
        double = _float64_copy(model, runs)
        runs.model = runs.model if shape else model
        previous: list[Any] | None = None
        for trial in trials:
            pristine = inputs.trial(trial)
            wide = [_float64(v, device) for v in pristine]  # copies, before the reference can change its inputs
            same = _equal_pairs((watched or {}).get(trial) or [], pristine)
            live = common.to_device(pristine, device)
            outputs = _forward(model, live, seed, trial, runs if trial == 0 else None)
            runs.aliases.update((o, i) for o, i in common.aliases(outputs, live))
            if previous is not None:
                runs.reused.update((o, p) for o, p in common.aliases(outputs, previous))
            if trial == 0:
                runs.after = common.cpu_copies(live)
            native = common.cpu_copies(outputs)
            runs.trials.append(native)
            if shape == 0:
                echoed.append(_echoes(outputs, wide))
            double = _truth(runs, double, wide, seed, trial, device, tol)
            runs.echoed.append([(o, i) for o, i in same if o < len(native)
                                and not _equal_pairs([native[o], runs.truth[-1][o]], [wide[i]])])
            previous = outputs
    _stress(runs, inputs, seed, device, all(echoed))
    return runs


def _forward(model: Any, live: list[Any], seed: int, trial: int, traced: ReferenceRuns | None) -> list[Any]:
    if traced is None:
        return common.as_outputs(common.forward(model, live, seed, trial))
    with canary.op_trace() as trace:
        outputs = common.as_outputs(common.forward(model, live, seed, trial))
    traced.ops = {} if trace.overflow else dict(trace.counts)
    return outputs


def _float64(value: Any, device: str) -> Any:
    """A copy of an input on the device, widened to float64 when it is floating."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device, torch.float64, copy=True) if value.is_floating_point() else value.to(device, copy=True)
    return value


def _float64_copy(model: Any, runs: ReferenceRuns) -> Any:
    try:
        return copy.deepcopy(model).double()
    except Exception as err:  # noqa: BLE001 - a model that cannot be copied or widened: its own dtype only
        runs.fallbacks.append(f"the reference cannot be copied to float64 ({type(err).__name__})")
        return None


def _truth(runs: ReferenceRuns, double: Any, wide: list[Any], seed: int, trial: int, device: str, tol: Tolerance) -> Any:
    """Appends the trial's float64 values (None where unusable); returns the float64 model, or None once it failed."""
    import torch

    native = runs.trials[-1]
    found: list[Any] = [None] * len(native)
    runs.truth.append(found)
    if double is None:
        return None
    try:
        given = [v.clone() if isinstance(v, torch.Tensor) else v for v in wide]  # `wide` stays pristine
        outputs = common.as_outputs(common.forward(double, given, seed, trial))
    except Exception as err:  # noqa: BLE001 - an op without a float64 kernel
        runs.fallbacks.append(f"the reference fails in float64 ({type(err).__name__}: {str(err)[:120]})")
        return None
    for index, (ref, value) in enumerate(zip(native, outputs)):
        if not (isinstance(ref, torch.Tensor) and ref.is_floating_point() and isinstance(value, torch.Tensor)
                and value.is_floating_point() and value.shape == ref.shape):
            continue
        value = value.detach().to("cpu", torch.float64)
        atol, rtol = cmp.tolerance(ref.dtype, tol.atol, tol.rtol)
        off = cmp.compare_tensor(value, ref, atol, rtol, tol.scale_atol)
        if off is None:
            found[index] = value
        else:
            runs.fallbacks.append(f"output {index} in trial {trial}: the reference's own output is off its float64 "
                                  f"values by up to {off.metrics['max_abs_err']:.3g}")
    return double


def _echoes(outputs: list[Any], inputs: list[Any]) -> bool:
    return bool(_equal_pairs(outputs, inputs))


def _equal_pairs(outputs: list[Any], inputs: list[Any]) -> list[tuple[int, int]]:
    """(output, input) pairs holding the same values (an output compared on the input's device, in its dtype)."""
    import torch

    return [(o, i) for o, out in enumerate(outputs) for i, inp in enumerate(inputs)
            if isinstance(out, torch.Tensor) and isinstance(inp, torch.Tensor) and out.shape == inp.shape
            and out.numel() > 0 and out.is_floating_point() == inp.is_floating_point()
            and torch.equal(out.to(inp.device, inp.dtype), inp)]


def _stress(runs: ReferenceRuns, inputs: common.Inputs, seed: int, device: str, echoes: bool) -> None:
    base = runs.trials[: inputs.base]
    independent = cmp.input_independent(base)
    runs.echoes = echoes and not independent
    if not (independent or runs.echoes):
        return
    out = common.forward(runs.model, common.to_device(inputs.stress(), device), seed, common.STRESS_SEED)
    runs.stress = common.cpu_copies(common.as_outputs(out))
    runs.degenerate = independent and cmp.compare_outputs(base[0], runs.stress, 0.0, 0.0) is None
