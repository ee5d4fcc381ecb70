"""Where each GPU-kernel mistake can be made in a KernelBench-style candidate (Triton or PyTorch).

Every finder searches the comment- and string-masked Python text (`Source(text, PY_MASK)`) and
describes the bug from the buggy code's side. They are regex readers for the code styles of Triton
tutorials and KernelBench solutions, not a parser; anything unusual simply yields no site.
"""

from __future__ import annotations

import re

from ecot.core.domain import PYTHON_MASK
from ecot.mutators.base import Site, Source, split_top_level

PY_MASK = PYTHON_MASK  # comments and strings, blanked before a scan
IDENT = r"[A-Za-z_]\w*"


def clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _calls(src: Source, name: str) -> list[tuple[int, int]]:
    """(open paren, close paren) of every call to `name` (e.g. `tl.load`)."""
    found = []
    for m in src.finditer(rf"(?<![\w.]){re.escape(name)}\s*\("):
        close = src.closing(m.end() - 1)
        if close is not None:
            found.append((m.end() - 1, close))
    return found


def _kwarg(src: Source, start: int, end: int, key: str) -> tuple[int, int] | None:
    """Span of `, key=<value>` at the top level of the argument list between start and end."""
    m = re.compile(rf",\s*{key}\s*=").search(src.masked, start, end)
    if m is None or src.depth_at(m.start()) != src.depth_at(start + 1):
        return None
    depth, pos = 0, m.end()
    while pos < end:
        char = src.masked[pos]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            break
        pos += 1
    return m.start(), pos


# -- syntax -----------------------------------------------------------------------------------------
def missing_colon(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"^[ \t]*(?:def|for|if|while|class)\b[^\n]*(:)[ \t]*$", re.M):
        head = clip(src.text[m.start() : m.start(1)].strip())
        sites.append(Site(m.start(1), m.end(1), "", f"drops the colon that ends `{head}`"))
    return sites


def unbalanced_paren(src: Source) -> list[Site]:
    sites = []
    for name in ("tl.load", "tl.store", "tl.arange"):
        for open_, close in _calls(src, name):
            call = clip(src.text[open_ - len(name) : close + 1])
            sites.append(Site(close, close + 1, "", f"never closes the parenthesis of `{call}`"))
    return sites


# -- structural: memory and resources ------------------------------------------------------------------
def missing_mask(src: Source) -> list[Site]:
    sites = []
    for name in ("tl.load", "tl.store"):
        for open_, close in _calls(src, name):
            span = _kwarg(src, open_, close, "mask")
            if span is None:
                continue
            spans = [span]
            other = _kwarg(src, open_, close, "other")
            if other is not None:
                spans.append(other)
            first, *rest = sorted(spans)
            pointer = clip(src.text[open_ + 1 : close].split(",")[0])
            verb = "loads" if name == "tl.load" else "stores"
            note = f"{verb} `{pointer}` without a mask, so the last block runs past the end of the tensor"
            sites.append(Site(first[0], first[1], "", note, more=tuple((s, e, "") for s, e in rest)))
    return sites


def wrong_stride(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"\b({IDENT})\.stride\(\s*([01])\s*\)"):
        other = "1" if m.group(2) == "0" else "0"
        note = f"passes `{m.group(1)}.stride({other})` where the kernel expects `{m.group(1)}.stride({m.group(2)})`"
        sites.append(Site(m.start(2), m.end(2), other, note))
    return sites


_TILE = re.compile(r"\b(BLOCK_[MNK])\s*=\s*(\d+)")
_TILE_TUPLE = re.compile(r"\b(BLOCK_M\s*,\s*BLOCK_N)\s*=\s*(\d+)\s*,\s*(\d+)")


def oversized_tile(src: Source) -> list[Site]:
    """Tiles of a tl.dot kernel eight times larger in M and N: far past the shared memory of an SM."""
    if "tl.dot" not in src.masked:
        return []
    sites = []
    for m in src.finditer(_TILE_TUPLE):
        note = f"uses {m.group(2)}x{m.group(3)} -> 256x256 tiles: each pipeline stage needs its own copy in shared memory"
        sites.append(Site(m.start(2), m.end(3), "256, 256", note))
    launch = [m for m in src.finditer(_TILE) if src.depth_at(m.start()) > 0]
    big = {"BLOCK_M": "256", "BLOCK_N": "256", "BLOCK_K": "128"}
    edits = [(m.start(2), m.end(2), big[m.group(1)]) for m in launch if m.group(2) != big[m.group(1)]]
    if len(edits) >= 2:
        note = "launches with BLOCK_M=256, BLOCK_N=256, BLOCK_K=128: the staged tiles need more shared memory than an SM has"
        sites.append(Site(*edits[0], note, more=tuple(edits[1:])))
    return sites


def non_pow2_block(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"triton\.next_power_of_2\(\s*({IDENT})\s*\)"):
        note = f"uses `{m.group(1)}` itself as the block size; tl.arange needs a power of two"
        sites.append(Site(m.start(), m.end(), m.group(1), note))
    for m in src.finditer(r"\bBLOCK_SIZE\s*=\s*(1024|512|256|128)\b"):
        wrong = str(int(m.group(1)) - 24)
        sites.append(Site(m.start(1), m.end(1), wrong, f"sets BLOCK_SIZE to {wrong}, which is not a power of two"))
    return sites


def wrong_dtype(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"tl\.(zeros|full)\([^\n]*dtype\s*=\s*tl\.(float32)"):
        sites.append(Site(m.start(2), m.end(2), "float16",
                          f"accumulates in float16 (`tl.{m.group(1)}(..., dtype=tl.float16)`), which overflows and rounds"))
    for m in src.finditer(r"\.to\(\s*tl\.(float32)\s*\)"):
        sites.append(Site(m.start(1), m.end(1), "float16", "converts the loaded values to float16 instead of float32"))
    for m in src.finditer(r"torch\.(empty|zeros)\([^\n]*dtype\s*=\s*torch\.(float32)"):
        sites.append(Site(m.start(2), m.end(2), "float16", f"allocates the result as float16 (`torch.{m.group(1)}`)"))
    return sites


# -- timing: concurrency ------------------------------------------------------------------------------
def missing_atomic(src: Source) -> list[Site]:
    sites = []
    for open_, close in _calls(src, "tl.atomic_add"):
        args = src.text[open_ + 1 : close]
        parts = [p.strip() for p in split_top_level(args)]
        if len(parts) != 2 or re.match(r"\s*\w+\s*=(?!=)", parts[1]):  # a keyword argument (mask=, sem=)
            continue
        ptr, value = parts
        new = f"tl.store({ptr}, tl.load({ptr}) + {value})"
        note = f"adds into `{clip(ptr)}` with a plain load and store instead of tl.atomic_add: programs race"
        sites.append(Site(open_ - len("tl.atomic_add"), close + 1, new, note))
    return sites


# -- semantic ----------------------------------------------------------------------------------------
def broadcast_index(src: Source) -> list[Site]:
    """Figure 3's bug: a per-row (or per-column) operand read with the flat element index."""
    sites = []
    for m in src.finditer(rf"^[ \t]*({IDENT})\s*=\s*({IDENT})\s*(//|%)\s*{IDENT}\s*$", re.M):
        derived, flat = m.group(1), m.group(2)
        for use in src.finditer(rf"tl\.load\(\s*({IDENT})\s*\+\s*({re.escape(derived)})\b"):
            note = (f"indexes `{use.group(1)}` with the flat index `{flat}` instead of `{derived}` "
                    f"(`{flat} {m.group(3)} ...`), as if it had one value per element")
            sites.append(Site(use.start(2), use.end(2), flat, note))
    return sites


def wrong_reduction_dim(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"\b(axis|dim)\s*=\s*(-1|0|1)\b"):
        line = src.line(m.start())
        if not re.search(r"\b(sum|max|min|mean|argmax|argmin|softmax|log_softmax|cumsum|prod|norm|amax|chunk|cat)\b", line):
            continue
        new = {"0": "1", "1": "0", "-1": "0"}[m.group(2)]
        sites.append(Site(m.start(2), m.end(2), new, f"reduces over {m.group(1)}={new} instead of {m.group(1)}={m.group(2)}"))
    return sites


def drop_keepdim(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r",\s*keepdim\s*=\s*True"):
        sites.append(Site(m.start(), m.end(), "", "drops keepdim=True, so the reduced result no longer broadcasts against its input"))
    return sites


def off_by_one_bounds(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"\b({IDENT}(?:\[[^\]\n]*\])?)\s*(<)(?![<=])\s*({IDENT})"):
        line = src.line(m.start())
        if "mask" not in line and "tl.where" not in line:
            continue
        note = f"bounds `{m.group(1)} <= {m.group(3)}`: one element past the end is in range"
        sites.append(Site(m.start(2), m.end(2), "<=", note))
    return sites


def wrong_grid(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(r"triton\.cdiv\(\s*([^,()\n]+?)\s*,\s*([^,()\n]+?)\s*\)"):
        new = f"{m.group(1)} // {m.group(2)}"
        note = f"launches `{new}` programs, rounding down, so the last partial block is never computed"
        sites.append(Site(m.start(), m.end(), new, note))
    return sites


def inplace_output(src: Source) -> list[Site]:
    sites = []
    for m in src.finditer(rf"^([ \t]*)({IDENT})\s*=\s*torch\.empty_like\(\s*({IDENT})\s*\)", re.M):
        note = f"writes the result into the input `{m.group(3)}` (`{m.group(2)} = {m.group(3)}`) instead of a new tensor"
        sites.append(Site(m.end(2), m.end(), f" = {m.group(3)}", note))
    return sites


_SWAPS = {"torch.sum": "torch.mean", "torch.mean": "torch.sum", "torch.relu": "torch.sigmoid",
          "torch.amax": "torch.amin", "torch.max": "torch.min", "tl.maximum": "tl.minimum", "tl.max": "tl.min",
          "tl.exp": "tl.exp2", "torch.softmax": "torch.log_softmax"}


def wrong_op(src: Source) -> list[Site]:
    sites = []
    for old, new in _SWAPS.items():
        for m in src.finditer(rf"(?<![\w.]){re.escape(old)}\("):
            sites.append(Site(m.start(), m.end() - 1, new, f"calls `{new}` where it needs `{old}`"))
    return sites
