"""The import graph keeps the layers of docs/architecture.md: no upward import, no circle, the code that
runs inside the sandbox imports nothing of the host side, and no module outside a domain's folder
imports it. Files and functions stay small enough to read whole."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "ecot"
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

# Lowest first; a module may import from its own layer or a lower one.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("sandboxed",),
    ("sandbox",),
    ("mutators",),
    ("domains",),
    ("tasks", "importers"),
    ("executors", "generators", "store"),
    ("run",),
    ("icwm", "export", "serve"),
    ("train", "bench", "report", "audit"),
    ("cli", "campaign", "__main__"),
)
LAYER_OF = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_names(path: Path) -> Iterator[str]:
    """Every absolute module name an import statement anywhere in the file names (top level and inside
    functions), with `from X import Y` giving X.Y when that is a module of ours, else X."""
    this = module_name(path)
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = this.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                yield child if child in modules() else base


def ours(name: str) -> str | None:
    """The module of ours that an imported name loads (its longest known prefix), else None."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules():
            return candidate
    return None


@cache
def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in modules().items():
        targets = {ours(imported) for imported in imported_names(path)}
        edges[name] = {t for t in targets if t is not None and t != name and t != "ecot"}
    return edges


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYER_OF[parts[1]] if len(parts) > 1 else 0  # the bare `ecot` package is the root


def test_every_module_has_a_layer() -> None:
    unplaced = sorted({m.split(".")[1] for m in modules() if "." in m} - set(LAYER_OF))
    assert not unplaced, f"top-level modules or packages outside every layer: {unplaced} (add them to LAYERS)"


def test_no_upward_import() -> None:
    upward = [
        f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})"
        for source, targets in graph().items()
        for target in sorted(targets)
        if "." in source and layer(target) > layer(source)
    ]
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def in_sandbox(module: str) -> bool:
    parts = module.split(".")
    return parts[1:2] == ["sandboxed"] or (len(parts) > 3 and parts[1] == "domains" and parts[3] == "jobs")


def allowed_inside_sandbox(source: str, target: str) -> bool:
    """Sandboxed code may use sandboxed/ and its own jobs package, nothing else of ours."""
    if target.split(".")[1:2] == ["sandboxed"]:
        return True
    jobs = ".".join(source.split(".")[:4])
    return source.split(".")[1] == "domains" and (target == jobs or target.startswith(jobs + "."))


def test_sandboxed_code_is_self_contained() -> None:
    jobs = [m for m in modules() if in_sandbox(m)]
    assert any(".gpu.jobs." in m for m in jobs) and any(m.startswith("ecot.sandboxed.") for m in jobs)
    leaks = [
        f"{source} imports {target}"
        for source in jobs
        for target in sorted(graph()[source])
        if not allowed_inside_sandbox(source, target)
    ]
    assert not leaks, "code that runs inside the sandbox imports host-side modules:\n" + "\n".join(leaks)


def named_domain(module: str) -> str | None:
    """The domain whose folder holds a module (`ecot.domains.<name>.…`), else None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "domains" and parts[2] in domain_folders() else None


@cache
def domain_folders() -> frozenset[str]:
    return frozenset(path.parent.name for path in (PACKAGE / "domains").glob("*/domain.py"))


# The hostile suite's per-domain case files attack one built-in backend each and name its labels: they are
# that domain's tests, shipped so `ecot audit hostile` can run them, not code that reads a domain's facts.
HOSTILE_CASES = "ecot.audit.hostile."


def test_a_domain_is_reached_only_through_its_descriptor() -> None:
    """No module outside a domain's folder imports it (the registry names it by a string): bench, run,
    icwm, report, export and cli read metrics, prompts, hints, previews and traces from its `Domain`."""
    assert {"rtl", "cad", "python"} <= domain_folders()
    leaks = [
        f"{source} imports {target}"
        for source, targets in graph().items()
        for target in sorted(targets)
        if named_domain(target) is not None and named_domain(source) != named_domain(target)
        and not source.startswith(HOSTILE_CASES)
    ]
    assert not leaks, "modules that import a named domain instead of reading its descriptor:\n" + "\n".join(leaks)


def test_the_import_reader_sees_a_named_domain() -> None:
    assert named_domain("ecot.domains.cad.render") == "cad" and named_domain("ecot.domains.base") is None
    assert named_domain("ecot.bench.metrics") is None


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the components with more than one module (the import circles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def without_parent_packages(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's __init__ importing its own submodules (to re-export them) is not a circle with
    them: a submodule loading its parent package is Python's doing, not an import of the code."""
    return {source: {t for t in targets if not source.startswith(t + ".")} for source, targets in edges.items()}


def test_no_import_circles() -> None:
    circles = strongly_connected(without_parent_packages(graph()))
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_the_circle_finder_finds_circles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert strongly_connected(edges) == expected


def test_the_import_reader_sees_function_level_imports() -> None:
    names = set(imported_names(PACKAGE / "executors" / "local.py"))
    assert "ecot.executors.ray" in names  # imported inside make_executor
    assert {"ecot.core.errors", "ecot.executors.work"} <= names


def source_files() -> list[Path]:
    """The code a reader of the project reads: its Python and C, and the examples; not task data."""
    found = [path for pattern in ("*.py", "*.c", "*.h") for path in PACKAGE.rglob(pattern)]
    found += list((ROOT / "examples").rglob("*.py"))
    return sorted(path for path in found if "suite" not in path.relative_to(ROOT).parts)


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, lines) of each function or method, nested ones too, from its def to its last line."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None
    ]


def test_files_and_functions_stay_small() -> None:
    files = source_files()
    assert any(p.suffix == ".h" for p in files) and any("examples" in p.parts for p in files)
    big = [f"{p.relative_to(ROOT)}: {n} lines" for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]
    assert not big, f"files over {MAX_FILE_LINES} lines (split them by job):\n" + "\n".join(big)
    long = [
        f"{p.relative_to(ROOT)}: {name} has {n} lines"
        for p in files if p.suffix == ".py"
        for name, n in long_functions(p.read_text(encoding="utf-8")) if n > MAX_FUNCTION_LINES
    ]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long)


def test_the_size_reader_counts_whole_functions() -> None:
    source = "def outer():\n    def inner():\n        return 1\n\n    return inner\n"
    assert sorted(long_functions(source)) == [("inner", 2), ("outer", 5)]
