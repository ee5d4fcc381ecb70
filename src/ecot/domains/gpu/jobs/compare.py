"""Comparing ModelNew's outputs with the reference's, in the verdict job (never in the candidate's).

Outputs are compared with the reference's float64 values where the verdict job could compute them
(gpu_reference), with the reference's own output otherwise. Tolerances are dtype-aware (float32 1e-4,
float16/bfloat16 1e-2, float64 1e-6, exact for integers and booleans; the task's `atol`/`rtol`
override the floating ones). The absolute tolerance is scaled by the output's magnitude when that is
below one (`atol * min(1, max|reference|)`), so an output whose values are all smaller than atol
cannot be passed by returning zeros.

A mismatch names the first mismatching output, its shape, the max abs/rel error, the first bad
element and where the errors sit (e.g. only the last 24 columns: a boundary or mask problem).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_TOLERANCES = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2, "float64": 1e-6}


@dataclass(frozen=True)
class Mismatch:
    diagnostic: str
    metrics: dict[str, Any]


def tolerance(dtype: Any, atol: float | None = None, rtol: float | None = None) -> tuple[float, float]:
    name = str(dtype).replace("torch.", "")
    if name not in DEFAULT_TOLERANCES and not name.startswith(("float", "complex")):
        return 0.0, 0.0
    default = DEFAULT_TOLERANCES.get(name, 1e-4)
    return (default if atol is None else atol), (default if rtol is None else rtol)


def shape_text(shape: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def compare_outputs(ref: list[Any], cand: list[Any], atol: float | None, rtol: float | None,
                    scale_atol: bool = True, label: str = "", values: list[Any] | None = None) -> Mismatch | None:
    """The first difference between two output lists, or None when every output matches. `values`, when
    given, are what each output's values are compared with (the reference's float64 values); `ref`
    decides the shapes, dtypes and tolerances."""
    import torch

    where = f" {label}" if label else ""
    if len(cand) != len(ref):
        return Mismatch(f"ModelNew returned {len(cand)} output(s){where}, the reference {len(ref)}", {"outputs": len(cand)})
    for index, (r, c) in enumerate(zip(ref, cand)):
        if not isinstance(c, torch.Tensor):
            return Mismatch(f"output {index}{where} is a {type(c).__name__}, not a tensor", {"output": index})
        if tuple(c.shape) != tuple(r.shape):
            return Mismatch(_shape_diagnostic(index, where, r, c), {"output": index})
        if c.dtype != r.dtype:
            text = f"output {index}{where} has dtype {str(c.dtype)[6:]}, the reference's is {str(r.dtype)[6:]}"
            return Mismatch(text, {"output": index})
        expected = values[index] if values is not None else r
        found = compare_tensor(expected, c, *tolerance(r.dtype, atol, rtol), scale_atol=scale_atol)
        if found is not None:
            return Mismatch(f"output {index}{where} {found.diagnostic}", {"output": index, **found.metrics})
    return None


def _shape_diagnostic(index: int, where: str, ref: Any, cand: Any) -> str:
    import torch

    text = f"output {index}{where} has shape {shape_text(cand.shape)}, the reference's is {shape_text(ref.shape)}"
    try:
        broadcast = torch.broadcast_shapes(tuple(ref.shape), tuple(cand.shape))
    except RuntimeError:
        return text
    if tuple(broadcast) != tuple(ref.shape) or cand.numel() != ref.numel():
        text += f" (the two broadcast to {shape_text(broadcast)}: an unintended broadcast?)"
    return text


CHUNK = 1 << 21  # elements compared at once: the float64 copies of a chunk stay a few MB, whatever the output's size


def _chunks(n: int) -> range:
    return range(0, n, CHUNK)


def compare_tensor(ref: Any, cand: Any, atol: float, rtol: float, scale_atol: bool = True) -> Mismatch | None:
    """None when `cand` matches `ref` (same shape) within the tolerances, compared in float64 (int64 for
    integers) a chunk at a time, so a large output costs no more memory than a few of its copies."""
    import torch

    if ref.numel() == 0:
        return None
    floating = ref.is_floating_point()
    wide = torch.float64 if floating else torch.int64
    r_flat, c_flat = ref.detach().reshape(-1), cand.detach().reshape(-1)
    atol_eff = atol * min(1.0, _magnitude(r_flat)) if floating and scale_atol else (atol if floating else 0.0)
    bad = torch.empty(r_flat.numel(), dtype=torch.bool)
    for start in _chunks(r_flat.numel()):
        r, c = r_flat[start:start + CHUNK].to(wide), c_flat[start:start + CHUNK].to(wide)
        if floating:
            close = ((c - r).abs() <= atol_eff + rtol * r.abs()) | (torch.isnan(r) & torch.isnan(c)) | (torch.isinf(r) & (c == r))
            bad[start:start + CHUNK] = ~close
        else:
            bad[start:start + CHUNK] = c != r
    if not bad.any():
        return None
    return _report(ref.detach(), cand.detach(), bad.reshape(ref.shape), atol_eff, rtol if floating else 0.0)


def _magnitude(r_flat: Any) -> float:
    """max |reference| over its finite values (0 when none is finite)."""
    import torch

    top = 0.0
    for start in _chunks(r_flat.numel()):
        part = r_flat[start:start + CHUNK].to(torch.float64)
        finite = part[torch.isfinite(part)]
        if finite.numel():
            top = max(top, float(finite.abs().max()))
    return top


def _errors(r: Any, c: Any, atol: float) -> tuple[float, float]:
    """The largest finite absolute error, and the largest relative error where the reference is not ~0."""
    import torch

    max_abs, max_rel = float("-inf"), float("nan")
    r_flat, c_flat = r.reshape(-1), c.reshape(-1)
    for start in _chunks(r_flat.numel()):
        rr, cc = r_flat[start:start + CHUNK].to(torch.float64), c_flat[start:start + CHUNK].to(torch.float64)
        diff = (cc - rr).abs()
        finite = torch.isfinite(diff)
        if finite.any():
            max_abs = max(max_abs, float(diff[finite].max()))
        meaningful = finite & (rr.abs() > max(atol, 1e-12))  # relative error is noise where the reference is ~0
        if meaningful.any():
            part = float((diff[meaningful] / rr.abs()[meaningful]).max())
            max_rel = part if max_rel != max_rel else max(max_rel, part)
    return (max_abs if max_abs != float("-inf") else float("inf")), max_rel


def _report(r: Any, c: Any, bad: Any, atol: float, rtol: float) -> Mismatch:
    count, total = int(bad.sum()), bad.numel()
    max_abs, max_rel = _errors(r, c, atol)
    first = _unravel(int(bad.reshape(-1).nonzero()[0]), tuple(bad.shape))
    ref_v, cand_v = float(r[first].item()), float(c[first].item())
    text = (f"(shape {shape_text(r.shape)}) mismatches in {count} of {total} elements ({100.0 * count / total:.1f}%): "
            f"max abs error {max_abs:.4g}, max rel error {max_rel:.4g} (atol {atol:.3g}, rtol {rtol:.3g}); "
            f"first at index {list(first)}: expected {ref_v:.6g}, got {cand_v:.6g}")
    notes = [n for n in (_nonfinite(r, c), _constant(c, r), _pattern(bad)) if n]
    if notes:
        text += "; " + "; ".join(notes)
    metrics = {"mismatched": count, "elements": total, "max_abs_err": max_abs, "max_rel_err": max_rel}
    return Mismatch(text, metrics)


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return tuple(reversed(index))


def _nonfinite(r: Any, c: Any) -> str:
    import torch

    new = (~torch.isfinite(c)) & torch.isfinite(r)
    if new.any():
        kinds = "inf" if torch.isinf(c[new]).all() else "NaN/inf"
        return f"{int(new.sum())} elements are {kinds} where the reference is finite (overflow or uninitialized memory?)"
    return ""


def _constant(c: Any, r: Any) -> str:
    if c.numel() > 1 and bool((c == c.reshape(-1)[0]).all()) and not bool((r == r.reshape(-1)[0]).all()):
        return f"ModelNew's output is constant ({c.reshape(-1)[0].item():.6g} everywhere)"
    return ""


def _pattern(bad: Any) -> str:
    """Where the mismatches are, when they sit in a contiguous part of some dimension."""
    if bad.dim() == 0 or bool(bad.all()):
        return ""
    parts = []
    for dim, size in enumerate(bad.shape):
        if size < 2:
            continue
        others = [d for d in range(bad.dim()) if d != dim]
        hit = bad.any(dim=others) if others else bad
        idx = hit.nonzero().reshape(-1)
        lo, hi = int(idx.min()), int(idx.max())
        if len(idx) == hi - lo + 1 and len(idx) < size:
            edge = " (the end)" if hi == size - 1 else (" (the start)" if lo == 0 else "")
            parts.append(f"only indices {lo}..{hi} of dim {dim} (size {size}){edge}")
    return "errors at " + " and ".join(parts) if parts else ""


# -- reward-hacking checks -----------------------------------------------------------------------------
def input_independent(trials: list[list[Any]]) -> bool:
    """Whether the reference gave identical outputs on every trial (its inputs do not matter)."""
    import torch

    first = trials[0]
    return len(trials) > 1 and all(
        len(t) == len(first) and all(torch.equal(a, b) for a, b in zip(t, first)) for t in trials[1:]
    )


def mutated_inputs(pristine: list[Any], ref_after: list[Any], cand_after: list[Any]) -> Mismatch | None:
    """ModelNew changed an input in place where the reference did not (or changed it differently)."""
    import torch

    for index, (p, r, c) in enumerate(zip(pristine, ref_after, cand_after)):
        if not isinstance(p, torch.Tensor) or not isinstance(c, torch.Tensor):
            continue
        if c.shape != p.shape or c.dtype != p.dtype:
            return Mismatch(f"ModelNew replaced input {index} in place (now shape {shape_text(c.shape)})", {"input": index})
        if torch.equal(c, r):
            continue
        atol, rtol = tolerance(p.dtype)
        if compare_tensor(r, c, atol, rtol) is None:
            continue
        change = float((c.to(torch.float64) - p.to(torch.float64)).abs().max()) if p.is_floating_point() else float("nan")
        return Mismatch(f"ModelNew modified input {index} in place (max change {change:.4g}); the reference "
                        "leaves it untouched, so callers would see corrupted inputs", {"input": index})
    return None
