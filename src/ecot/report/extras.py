"""Reports other commands write, shown when present: world-model fidelity (`ecot icwm eval` writes
fidelity.json and fidelity.png) and benchmark results (`ecot bench` writes bench.json, with PNGs in
the same folder). Found next to the store unless named; read as JSON only, never imported as code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError

FIDELITY_FILE = "fidelity.json"
BENCH_FILE = "bench.json"
SEARCH_DEPTH = 3  # folders below the search root
MAX_BLOCK_ROWS = 500
MAX_DEPTH = 4


@dataclass
class Extra:
    """One found report: its JSON, where it came from, and the PNGs beside it."""

    kind: str  # "fidelity" or "bench"
    source: Path
    data: dict[str, Any]
    images: list[Path] = field(default_factory=list)
    slug: str = ""  # page name without .html, set when numbered


def discover(root: Path, name: str) -> list[Path]:
    """Files called `name` at most SEARCH_DEPTH folders below `root`, in path order."""
    if not root.is_dir():
        return []
    found = []
    for depth in range(SEARCH_DEPTH + 1):
        found += [p for p in root.glob("/".join(["*"] * depth + [name])) if p.is_file()]
    return sorted(found)


def resolve(given: Sequence[Path], name: str, default_root: Path) -> tuple[list[Path], bool]:
    """The report files: those given (a folder stands for the files below it), else those found next to
    the store. The flag says whether they were given (then a bad one is an error, not a warning)."""
    if not given:
        return discover(default_root, name), False
    paths = []
    for path in given:
        if path.is_dir():
            inside = discover(path, name)
            if not inside:
                raise EcotError(f"{path} holds no {name}")
            paths += inside
        elif path.is_file():
            paths.append(path)
        else:
            raise EcotError(f"{path} does not exist")
    return paths, True


def load(kind: str, path: Path) -> Extra:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise EcotError(f"{path}: cannot read the {kind} report ({err})") from None
    if not isinstance(data, dict):
        raise EcotError(f"{path}: a {kind} report is a JSON object, got {type(data).__name__}")
    if kind == "fidelity" and not isinstance(data.get("turns"), dict):
        raise EcotError(f"{path}: not a fidelity report of `ecot icwm eval` (no 'turns' object)")
    return Extra(kind, path, data, _images(kind, path))


def _images(kind: str, path: Path) -> list[Path]:
    """The figures that go with a report: fidelity*.png beside fidelity.json; every PNG of a bench folder."""
    pattern = "*.png" if kind == "bench" else f"{path.stem}*.png"
    return sorted(p for p in path.parent.glob(pattern) if p.is_file())


def load_all(kind: str, paths: Iterable[Path], strict: bool, warn: Any) -> list[Extra]:
    """Loaded reports, numbered for their pages; with strict=False a bad file is skipped with a warning."""
    extras = []
    for path in paths:
        try:
            extras.append(load(kind, path))
        except EcotError as err:
            if strict:
                raise
            warn(f"skipping {err}")
    for number, extra in enumerate(extras, start=1):
        extra.slug = f"{kind}-{number}"
    return extras


# -- generic JSON as tables -----------------------------------------------------------------------


@dataclass
class Block:
    """A piece of a JSON document laid out for a page: key/value pairs, a table, or preformatted text."""

    title: str
    kind: str  # "pairs", "table" or "text"
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    text: str = ""


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def blocks(value: Any, title: str = "", depth: int = 0) -> list[Block]:
    """Lay out any JSON value: scalars of an object as pairs, an object or list of flat records as one
    table, anything deeper recursively (down to MAX_DEPTH, then as JSON text)."""
    if isinstance(value, dict):
        return _object_blocks(value, title, depth)
    if isinstance(value, list) and value and all(isinstance(v, dict) and all(map(_scalar, v.values())) for v in value):
        columns = list(dict.fromkeys(k for v in value for k in v))
        rows = [[_cell(v.get(c)) for c in columns] for v in value[:MAX_BLOCK_ROWS]]
        return [Block(title, "table", columns, rows)]
    if isinstance(value, list) and all(map(_scalar, value)):
        return [Block(title, "pairs", rows=[["values", ", ".join(_cell(v) for v in value)]])]
    return [Block(title, "text", text=json.dumps(value, indent=2, ensure_ascii=False, default=str))]


def _object_blocks(value: dict[str, Any], title: str, depth: int) -> list[Block]:
    if depth >= MAX_DEPTH:
        return [Block(title, "text", text=json.dumps(value, indent=2, ensure_ascii=False, default=str))]
    flat = [[str(k), _cell(v)] for k, v in value.items() if _scalar(v) or (isinstance(v, list) and all(map(_scalar, v)))]
    nested = {k: v for k, v in value.items() if not (_scalar(v) or (isinstance(v, list) and all(map(_scalar, v))))}
    out = [Block(title, "pairs", rows=flat)] if flat else []
    records = nested and all(isinstance(v, dict) and v and all(map(_scalar, v.values())) for v in nested.values())
    if records:  # {name: {flat record}}: one table, one row per name
        columns = list(dict.fromkeys(k for v in nested.values() for k in v))
        rows = [[str(name)] + [_cell(v.get(c)) for c in columns] for name, v in list(nested.items())[:MAX_BLOCK_ROWS]]
        return out + [Block(title if not out else f"{title} (by key)".strip(), "table", ["", *columns], rows)]
    for key, child in nested.items():
        out += blocks(child, f"{title} / {key}" if title else str(key), depth + 1)
    return out


# -- the fidelity report's own layout -------------------------------------------------------------

FIDELITY_SHOWN = ("turns", "trajectories", "summary", "model")  # laid out by fidelity_view, not generically


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def fidelity_view(data: dict[str, Any]) -> dict[str, Any]:
    """The tables of `ecot icwm eval`'s terminal report: per domain, per label, and the summary."""
    turns, trajectories, speed = _dict(data.get("turns")), _dict(data.get("trajectories")), _dict(data.get("speed"))
    domains, labels = [], []
    for domain, row in turns.items():
        row = _dict(row)
        domains.append({
            "domain": domain, "turns": row.get("turns"), "accuracy": row.get("accuracy"),
            "majority": row.get("majority_baseline"), "balanced": row.get("balanced_accuracy"),
            "unique": row.get("unique_accuracy"), "agreement": _dict(trajectories.get(domain)).get("agreement"),
            "similarity": _dict(row.get("diagnostic")).get("similarity"),
            "speedup": _dict(speed.get(domain)).get("speedup_median"),
        })
        confusion = _dict(row.get("confusion"))
        for label, stats in _dict(row.get("labels")).items():
            stats = _dict(stats)
            wrong = [(k, v) for k, v in _dict(confusion.get(label)).items() if k != label]
            labels.append({
                "domain": domain, "label": label, "support": stats.get("support"), "predicted": stats.get("predicted"),
                "precision": stats.get("precision"), "recall": stats.get("recall"), "f1": stats.get("f1"),
                "confused": ", ".join(f"{k} {v}" for k, v in wrong[:3]),
            })
    summary = [(k, _cell(v)) for k, v in _dict(data.get("summary")).items() if _scalar(v)]
    return {"model": str(data.get("model", "")), "domains": domains, "labels": labels, "summary": summary}


def remainder(extra: Extra) -> dict[str, Any]:
    """What the page lays out generically: a bench report whole, a fidelity report's other sections."""
    if extra.kind != "fidelity":
        return extra.data
    return {k: v for k, v in extra.data.items() if k not in FIDELITY_SHOWN}


def headline(extra: Extra) -> list[tuple[str, str]]:
    """A few numbers for the overview's list of reports."""
    if extra.kind == "fidelity":
        summary = _dict(extra.data.get("summary"))
        keys = ("outcome_accuracy", "trajectory_agreement", "balanced_accuracy")
        return [(k, _cell(summary.get(k))) for k in keys if k in summary]
    return [(str(k), _cell(v)) for k, v in extra.data.items() if _scalar(v)][:6]
