"""The python mutation set: the mistakes people and models make in short Python programs, what each
python outcome label implies, and a first-person plan read off the prompt and the reference."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from ecot.domains.python.mutators import ops
from ecot.mutators.base import LabelEvidence, Mutation, MutationSet, Site, Source

PySource = partial(Source, pattern=ops.PY_COMMENTS)


def _on_py(find: Callable[[Source], list[Site]]) -> Callable[[Source], list[Site]]:
    """Operators receive a Source masked for C comments; re-mask it for Python (`#`, string literals)."""
    return lambda src: find(PySource(src.text))


MUTATIONS: tuple[Mutation, ...] = (
    Mutation("missing_colon", "syntax", _on_py(ops.missing_colon),
             "A block header without its colon is a syntax error: Python cannot tell where the header ends.",
             "`for i in range(n):` -> `for i in range(n)`"),
    Mutation("unbalanced_paren", "syntax", _on_py(ops.unbalanced_paren),
             "An unclosed parenthesis makes the parser swallow the following lines into the expression.",
             "`print(total)` -> `print(total`"),
    Mutation("bad_indentation", "syntax", _on_py(ops.bad_indentation),
             "Indentation is syntax in Python: a statement indented deeper than its block is an error.",
             "a statement indented four spaces too far"),
    Mutation("wrong_function_name", "structural", _on_py(ops.wrong_function_name),
             "Callers look the function up by its exact name, so a misspelt definition leaves the name undefined.",
             "`def two_sum(...)` -> `def tow_sum(...)`"),
    Mutation("undefined_name", "structural", _on_py(ops.undefined_name),
             "A misspelt variable is just another name, and one that was never assigned raises NameError.",
             "`return best` -> `return bset`"),
    Mutation("mutable_default", "structural", _on_py(ops.mutable_default),
             "A default value is built once, when the function is defined, so a list default keeps what earlier "
             "calls put in it.",
             "`seen = {}` moved into `def f(nums, seen={})`"),
    Mutation("infinite_loop", "timing", _on_py(ops.infinite_loop),
             "A while loop ends only when its condition changes, which needs the update inside the body.",
             "`i += 1` deleted from `while i < n:`"),
    Mutation("off_by_one", "semantic", _on_py(ops.off_by_one),
             "range stops before its bound, so shifting the bound by one skips or adds exactly one element.",
             "`range(n)` -> `range(n - 1)`"),
    Mutation("wrong_comparison", "semantic", _on_py(ops.wrong_comparison),
             "The neighbouring comparison differs exactly when the two sides are equal.",
             "`if x < best:` -> `if x <= best:`"),
    Mutation("swapped_operator", "semantic", _on_py(ops.swapped_operator),
             "The neighbouring operator computes something close but wrong.",
             "`a + b` -> `a - b`, `min(...)` -> `max(...)`, `and` -> `or`"),
    Mutation("wrong_return", "semantic", _on_py(ops.wrong_return),
             "Returning another variable hands back an intermediate value instead of the result.",
             "`return best` -> `return current`"),
    Mutation("missing_edge_case", "semantic", _on_py(ops.missing_edge_case),
             "The special case (empty input, zero, a single element) falls through into code that was not written "
             "for it.",
             "`if not nums: return 0` deleted"),
    Mutation("index_shift", "semantic", _on_py(ops.index_shift),
             "Shifting an index by one reads the neighbouring element, or runs past the end.",
             "`a[i]` -> `a[i + 1]`"),
    Mutation("true_division", "semantic", _on_py(ops.true_division),
             "`/` always gives a float in Python 3; counts, indices and exact integers need `//`.",
             "`mid = (lo + hi) // 2` -> `mid = (lo + hi) / 2`"),
    Mutation("dict_access", "semantic", _on_py(ops.dict_access),
             "Indexing a dict with a missing key raises KeyError, where `.get` returns a default.",
             "`seen.get(x, 0)` -> `seen[x]`"),
)

EVIDENCE = {
    "Syntax_Error": LabelEvidence(
        "Python could not even parse the file, so nothing ran: the mistake is in how a line is written.",
        ("syntax",)),
    "Runtime_Error": LabelEvidence(
        "The code raised an exception on a test, so some name, index, key or type is not what the code assumes.",
        ("structural", "semantic", "syntax")),
    "Wrong_Answer": LabelEvidence(
        "It runs but produces a wrong answer on at least one test: the logic, a boundary or a special case is off.",
        ("semantic", "structural")),
    "Timeout": LabelEvidence(
        "A test did not finish within its CPU limit: a loop that never ends, or an algorithm far slower than needed.",
        ("timing", "semantic")),
    "Memory_Limit": LabelEvidence(
        "A test ran out of memory, which usually means a loop that keeps growing a container.",
        ("timing", "semantic")),
    "Resource_Limit": LabelEvidence(
        "A test printed far too much, which usually means a loop that never ends.", ("timing", "semantic")),
}
DEFAULT_EVIDENCE = LabelEvidence("The program did not pass its tests.", ("semantic", "structural"))

CLUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"expected ':'", ("missing_colon",)),
    (r"never closed|unmatched|unexpected EOF", ("unbalanced_paren",)),
    (r"unexpected indent|unindent|IndentationError", ("bad_indentation",)),
    (r"does not define", ("wrong_function_name",)),
    (r"NameError|UnboundLocalError", ("undefined_name", "wrong_function_name")),
    (r"KeyError", ("dict_access",)),
    (r"IndexError|index out of range", ("index_shift", "off_by_one")),
    (r"float|TypeError: .*indices must be integers", ("true_division",)),
)


def describe(prompt: str, reference: str) -> list[str]:
    """A first-person plan: what to write, its interface, and the approach the reference takes."""
    src = PySource(reference)
    first = " ".join(re.split(r"(?<=\.)\s|\n\s*\n", prompt.strip(), maxsplit=1)[0].split())
    plan = [f"The task: {first}"]
    defs = re.findall(r"^def\s+(\w+)\s*\(([^)]*)\)", src.masked, re.M)
    if re.search(r"\bsys\.stdin|\binput\(", src.masked):
        plan.append("It is a whole program: read everything from standard input, then print the answer.")
    elif defs:
        name, params = defs[-1]
        plan.append(f"The entry point is `{name}({params.strip()})`; it must return the answer, not print it.")
    plan.extend(_approach(src))
    plan.append("Let me write it out.")
    return plan


_IDEAS = (
    (r"\bheapq\b", "A heap gives me the smallest (or largest) item cheaply at every step."),
    (r"\bbisect\w*\b", "Binary search over a sorted list keeps it O(n log n)."),
    (r"\bdeque\b", "A deque makes this a breadth-first search."),
    (r"\bsorted\(|\.sort\(", "Sorting first makes the rest a single pass."),
    (r"=\s*\{\}|\bdict\(|\bCounter\b|\bset\(", "A dict or set gives constant-time lookups instead of rescanning."),
    (r"\[0\]\s*\*|\[\w+ \+ 1\]\s*\*", "A table of partial results (dynamic programming) avoids recomputing."),
    (r"\bstack\b", "A stack tracks what is still open."),
)


def _approach(src: Source) -> list[str]:
    ideas = [text for pattern, text in _IDEAS if re.search(pattern, src.masked)]
    loops = len(re.findall(r"^\s*(?:for|while)\b", src.masked, re.M))
    if loops:
        ideas.append(f"The work is {loops} loop{'s' if loops > 1 else ''}; I must get the bounds exactly right.")
    guards = len(re.findall(r"^\s*if\b.*:\s*(?:return\b.*)?$", src.masked, re.M))
    if guards:
        ideas.append("I'll handle the special cases (empty input, edges) explicitly.")
    return ideas[:4]


PYTHON_MUTATIONS = MutationSet(
    artifact="solution",
    domain="python",
    mutations=MUTATIONS,
    evidence=EVIDENCE,
    default_evidence=DEFAULT_EVIDENCE,
    describe=describe,
    names=lambda code: ops.local_names(PySource(code)),
    # logic slips dominate; a syntax error hides every other bug, so it is planted less often
    weights={"syntax": 0.5, "structural": 1.0, "timing": 0.75, "semantic": 1.5},
    clues=CLUES,
)
