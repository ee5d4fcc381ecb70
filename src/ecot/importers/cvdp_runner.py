"""Reading a CVDP harness's `test_runner.py` without running it: how it builds and runs the tests.

The runner calls cocotb's Python runner, `runner.build(..., timescale=(...), parameters=...)` and
`runner.test(..., plusargs=[...])`, often inside a function that pytest parametrizes
(`@pytest.mark.parametrize("WIDTH", [8, 16])`), so the tests run once per parameter set. This module
reads those calls from the syntax tree (nothing of the file runs on the host) and returns the ecot
options they amount to, or the reason they cannot be read: values computed at run time, build
defines or extra environment variables, which a task's options cannot express. Repetitions
(`parametrize("test", range(5))`, each a new random seed in CVDP) run once, with the task's seed.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field
from typing import Any

ParameterSet = dict[str, int | str]
_UNSUPPORTED = {"defines": "build defines", "build_args": "build arguments", "extra_env": "extra environment variables",
                "test_args": "simulator arguments", "test_filter": "a test filter", "testcase": "a test selection"}
Scope = ast.FunctionDef | None


class RunnerProblem(ValueError):
    """The runner does something the task's options cannot express; the message says what."""


@dataclass
class RunnerSettings:
    timescale: str | None = None
    parameter_sets: list[ParameterSet] = field(default_factory=list)
    plusargs: list[str] = field(default_factory=list)


class _Runtime:
    def __repr__(self) -> str:
        return "<computed at run time>"


RUNTIME = _Runtime()  # a value only running the file would tell


def read_runner(source: str) -> RunnerSettings:
    """The settings of a runner's build() and test() calls; RunnerProblem when they cannot be read."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise RunnerProblem(f"test_runner.py does not parse: {err.msg} (line {err.lineno})") from None
    return _Reader(tree).settings()


class _Reader:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.sweeps = _parametrized(tree)
        self.callers: dict[str, list[ast.Call]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self.callers.setdefault(node.func.id, []).append(node)

    def settings(self) -> RunnerSettings:
        builds, tests = _calls(self.tree, "build"), _calls(self.tree, "test")
        if not builds or not tests:
            raise RunnerProblem("test_runner.py calls no runner.build() and runner.test()")
        settings = RunnerSettings()
        for call, scope in [*builds, *tests]:
            for keyword in call.keywords:
                self.apply(settings, keyword, scope)
        return settings

    def apply(self, settings: RunnerSettings, keyword: ast.keyword, scope: Scope) -> None:
        name, value = keyword.arg, keyword.value
        if name in _UNSUPPORTED and self.literal(value, scope) not in ([], (), {}, "", None, False):
            raise RunnerProblem(f"test_runner.py passes {_UNSUPPORTED[name]} ({name}=...)")
        if name == "timescale":
            pair = self.literal(value, scope)
            if pair is not None and not (isinstance(pair, tuple | list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise RunnerProblem("test_runner.py computes its timescale at run time")
            settings.timescale = f"{pair[0]}/{pair[1]}".replace(" ", "") if pair is not None else None
        elif name == "parameters":
            settings.parameter_sets = self.parameter_sets(value, scope)
        elif name == "plusargs":
            plusargs = self.literal(value, scope)
            if not (isinstance(plusargs, list | tuple) and all(isinstance(arg, str) for arg in plusargs)):
                raise RunnerProblem("test_runner.py computes its plusargs at run time")
            settings.plusargs = list(plusargs)

    def parameter_sets(self, value: ast.expr, scope: Scope) -> list[ParameterSet]:
        """One set per combination of the parametrize rows the parameters use (names of one decorator
        vary together); duplicates and empty sets dropped."""
        table = self.resolve(value, scope)
        if table is None or (isinstance(table, ast.Constant) and table.value is None):
            return []
        if not isinstance(table, ast.Dict) or any(key is None for key in table.keys):
            raise RunnerProblem("test_runner.py computes its parameters at run time")
        used = {node.id for item in table.values for node in ast.walk(item) if isinstance(node, ast.Name)}
        groups = [group for group in self.sweeps if used & set(group[0])]
        sets: list[ParameterSet] = []
        for rows in itertools.product(*(group[1] for group in groups)):
            binding = {name: row[i] for (names, _), row in zip(groups, rows) for i, name in enumerate(names)}
            values: ParameterSet = {}
            for key, item in zip(table.keys, table.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    raise RunnerProblem("test_runner.py names a parameter at run time")
                found = self.value(item, scope, binding)
                if isinstance(found, bool) or not isinstance(found, int | str):
                    raise RunnerProblem(f"test_runner.py computes parameter {key.value} at run time")
                values[key.value] = found
            if values and values not in sets:
                sets.append(values)
        return sets

    def value(self, item: ast.expr, scope: Scope, binding: dict[str, Any]) -> Any:
        """One parameter's value: a name pytest parametrizes (callers pass it on by name), int()/str()
        of a value, or a literal."""
        if isinstance(item, ast.Name) and item.id in binding:
            return binding[item.id]
        if isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id in ("int", "str") and len(item.args) == 1:
            return _convert(item.func.id, self.value(item.args[0], scope, binding))
        literal = self.literal(item, scope)
        return RUNTIME if literal is None else literal

    def resolve(self, node: ast.expr, scope: Scope) -> ast.expr | None:
        """A name -> the value bound to it: assigned in its function, passed by a caller of that function
        (the first call that passes it), or the argument's default; None when it is none of these."""
        if not isinstance(node, ast.Name):
            return node
        if scope is None:
            return None
        for statement in ast.walk(scope):
            if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in statement.targets):
                return statement.value
        names = [a.arg for a in scope.args.args]
        if node.id not in names:
            return None
        index = names.index(node.id)
        for call in self.callers.get(scope.name, []):
            passed = next((k.value for k in call.keywords if k.arg == node.id), None)
            if passed is None and index < len(call.args):
                passed = call.args[index]
            if passed is not None:
                return passed
        defaults = dict(zip(names[len(names) - len(scope.args.defaults):], scope.args.defaults))
        return defaults.get(node.id)

    def literal(self, node: ast.expr, scope: Scope) -> Any:
        resolved = self.resolve(node, scope)
        if resolved is None:
            return None
        try:
            return ast.literal_eval(resolved)
        except (ValueError, SyntaxError, TypeError):
            return RUNTIME


def _calls(tree: ast.Module, method: str) -> list[tuple[ast.Call, Scope]]:
    """Every `<something>.<method>(...)` call with keywords, with the function it is written in."""
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    found: list[tuple[ast.Call, Scope]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method and node.keywords:
            owners = [f for f in functions if any(inner is node for inner in ast.walk(f))]
            found.append((node, min(owners, key=lambda f: len(list(ast.walk(f)))) if owners else None))
    return found


def _parametrized(tree: ast.Module) -> list[tuple[list[str], list[tuple[Any, ...]]]]:
    """Each `@pytest.mark.parametrize(names, rows)`: its argument names and the literal row of values
    for each run (RUNTIME where a value is computed)."""
    sweeps: list[tuple[list[str], list[tuple[Any, ...]]]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parametrize"):
            continue
        if len(node.args) < 2 or not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            continue
        names = [name.strip() for name in node.args[0].value.split(",") if name.strip()]
        rows = _rows(node.args[1])
        if rows is None:
            sweeps.append((names, [tuple(RUNTIME for _ in names)]))
        elif len(names) == 1:
            sweeps.append((names, [(row,) for row in rows]))
        else:
            sweeps.append((names, [tuple(row) if isinstance(row, tuple | list) and len(row) == len(names)
                                   else tuple(RUNTIME for _ in names) for row in rows]))
    return sweeps


def _rows(node: ast.expr) -> list[Any] | None:
    """The literal list a parametrize decorator iterates (range() included), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        try:
            return list(range(*(ast.literal_eval(arg) for arg in node.args)))
        except (ValueError, TypeError, SyntaxError):
            return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    return list(value) if isinstance(value, list | tuple) else None


def _convert(kind: str, value: Any) -> Any:
    if value is RUNTIME:
        return value
    try:
        return int(value) if kind == "int" else str(value)
    except (TypeError, ValueError):
        return RUNTIME
