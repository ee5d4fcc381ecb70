"""How a check file splits into tests, and how its assertions are counted (standard library only).

Copied into the sandbox as `ecot_checkfile.py` for the judge (ecot_check.py); the host imports it too, to
know the tests a task has before any run. Each top-level `assert` statement and each expression
statement that is not a lone constant (HumanEval's `check(find_zero)`; not a docstring) closes one
test, with the statements before it (imports, helpers, `def check`) as its setup; statements after the
last test join it.
"""

from __future__ import annotations

import ast

COUNTER = "_ecot_assertion_reached"  # the judge's counter, called before every `assert` of the file


def is_test(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assert) or (isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant))


def split_tests(tree: ast.Module) -> list[list[ast.stmt]]:
    tests: list[list[ast.stmt]] = []
    pending: list[ast.stmt] = []
    for node in tree.body:
        pending.append(node)
        if is_test(node):
            tests.append(pending)
            pending = []
    if pending and tests:
        tests[-1].extend(pending)
    return tests


class _CountAssertions(ast.NodeTransformer):
    def visit_Assert(self, node: ast.Assert) -> list[ast.stmt]:
        count = ast.Expr(ast.Call(ast.Name(COUNTER, ast.Load()), [], []))
        return [ast.copy_location(count, node), node]


def instrumented(tree: ast.Module) -> ast.Module:
    """The same file with a call of COUNTER before every `assert`, at any depth."""
    done: ast.Module = ast.fix_missing_locations(_CountAssertions().visit(tree))
    return done
