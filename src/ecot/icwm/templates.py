"""Per-domain templates: how code is read (comments, fence language) and how an observation is written.

The observation template is the world model's output format (the language-model world model learns
to write it; `parse_observation` reads it back into an Outcome):

    Label: Simulation_Mismatch
    Diagnostic: MISMATCH time=11 signal=q expected=0 got=x
    Metrics: mismatches=778; samples=400

The prompt is the domain tag, the task's environment bundle (within a character budget), the diff of
the candidate against the bundle's reference, and the numbered candidate.
"""

from __future__ import annotations

import builtins
import difflib
import keyword
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from ecot.core.domain import PYTHON_MASK, Domain, find_domain
from ecot.core.outcome import Metric, Outcome
from ecot.core.task import Task
from ecot.mutators.base import Source, split_top_level

C_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
HASH_COMMENTS = re.compile(r"#[^\n]*")
TIME_SUFFIXES = ("_s", "_ms")


def python_syntax(code: str) -> str:
    """A static fact about Python source: does it compile? (compile() parses, it runs nothing)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not verdicts
            compile(code, "<candidate>", "exec", dont_inherit=True)
    except IndentationError:
        return "indentation_error"
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return "syntax_error"
    return "compiles"


PYTHON_WORDS = frozenset(keyword.kwlist) | frozenset(dir(builtins))
C_WORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "bool true false NULL uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t size_t".split()
)
X86_CALLEE_SAVED = re.compile(r"[re]?bx|b[lh]|[re]?bp|bpl|[re]?sp|spl|r1[2-5][dwb]?")
X86_REGISTER = re.compile(r"[re]?[acd]x|[acd][lh]|[re]?(?:si|di)|(?:si|di)l|r(?:8|9|1[01])[dwb]?|[xyz]mm\d+|rip")


def python_word(text: str) -> str | None:
    return "KW" if text in PYTHON_WORDS else None


def c_word(text: str) -> str | None:
    return "KW" if text in C_WORDS else None


@cache
def special_words(domain: str) -> Mapping[str, str]:
    """The words with a domain meaning that the domain's descriptor names (word -> class)."""
    described = find_domain(domain)
    hook = described.hints.special_words if described is not None else None
    return dict(hook()) if hook is not None else {}


def firmware_word(text: str) -> str | None:
    """A C word, or a word the firmware descriptor names, such as a Cortex-M vector-table handler."""
    return special_words("firmware").get(text) or c_word(text)


C_PROTOTYPE = re.compile(r"^\s*(?:extern\s+)?([\w\s*]+?)\s*\b(\w+)\s*\(([^;{}]*)\)\s*;", re.MULTILINE)
C_PARAMETERS = re.compile(r",(?![^()]*\))")  # commas between parameters, not inside a callback's type


def c_kind(declaration: str) -> str:
    """A C parameter or return type by what its register holds: fn, ptr, i64, i8, i32 or void."""
    if "(*" in declaration:
        return "fn"
    if "*" in declaration:
        return "ptr"
    words = set(re.findall(r"\w+", declaration))
    if words & {"long", "size_t", "int64_t", "uint64_t", "intptr_t", "uintptr_t"}:
        return "i64"
    if "char" in words:
        return "i8"
    return "void" if words <= {"void"} else "i32"


def asm_context(task: Task) -> tuple[str, ...]:
    """The kinds of the routine's arguments and result, from its C prototype in the bundle: an address
    bug faults only on a pointer argument, a clobbered register only matters around a callback."""
    name = task.options.get("function")
    for text in task.files.values():
        for match in C_PROTOTYPE.finditer(text):
            if match.group(2) == name:
                params = [p for p in C_PARAMETERS.split(match.group(3)) if p.strip() not in ("", "void")]
                return tuple(sorted({f"arg:{c_kind(p)}" for p in params} | {f"ret:{c_kind(match.group(1))}"}))
    return ()


@lru_cache(maxsize=256)
def _python_line_roles(reference: str, entry: str) -> tuple[tuple[str, ...], ...]:
    """Per reference line, read from indentation: whether it runs in a loop (or a nested one), and in
    the entry point, a helper or at module level."""
    roles: list[tuple[str, ...]] = []
    blocks: list[tuple[int, str]] = []  # (indent, "loop" | "def:NAME" | "block") of the open blocks
    for text in reference.splitlines():
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            roles.append(())
            continue
        indent = len(text) - len(text.lstrip())
        while blocks and blocks[-1][0] >= indent:
            blocks.pop()
        kinds = [kind for _, kind in blocks]
        functions = [kind[4:] for kind in kinds if kind.startswith("def:")]
        where = "module" if not functions else "entry" if functions[0] == entry else "helper"
        loops = kinds.count("loop")
        roles.append((f"in:{where}", *(["in:loop"] if loops else []), *(["in:loop2"] if loops > 1 else [])))
        if stripped.startswith(("for ", "while ", "async for ")):
            blocks.append((indent, "loop"))
        elif stripped.startswith("def "):
            blocks.append((indent, "def:" + stripped[4:].split("(")[0].strip()))
        elif stripped.endswith(":"):
            blocks.append((indent, "block"))
    return tuple(roles)


def python_line_context(task: Task, line: int) -> tuple[str, ...]:
    """Where a changed line runs: in a loop, a changed index or bound is hit on every pass (an
    IndexError more than a wrong answer); in the entry point or a helper, or once at module level."""
    entry = str(task.options.get("entry_point") or "").rpartition(".")[2]
    roles = _python_line_roles(task.reference or "", entry)
    return roles[line - 1] if 0 < line <= len(roles) else ()


TRITON_ACCESS = re.compile(r"\btl\.(load|store)\(")
PY_ASSIGNED = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")


def _triton_accesses(line: str, mask: re.Pattern[str]) -> list[tuple[str, str, str]]:
    """(load or store, row or flat, address and mask text) of each Triton memory access on a line; an
    address with a product or a 2-D broadcast is row-addressed."""
    found = []
    source = Source(line, mask)
    for match in TRITON_ACCESS.finditer(source.masked):
        close = source.closing(match.end() - 1)
        args = [a.strip() for a in split_top_level(line[match.end() : len(line) if close is None else close])]
        positional_mask = 1 if match.group(1) == "load" else 2  # tl.load(ptr, mask, ...), tl.store(ptr, value, mask)
        masks = [a for a in args if a.startswith("mask=")] or args[positional_mask:positional_mask + 1]
        address = args[0] if args else ""
        found.append((match.group(1), "row" if "*" in address or "None" in address else "flat", " ".join([address, *masks])))
    return found


@lru_cache(maxsize=4096)
def triton_line_context(task: Task, line: int) -> tuple[str, ...]:
    """How a reference line reaches memory: its own loads and stores, and those whose address or mask
    the name it assigns (a mask, offsets) feeds. An overrun of a stored row lands in the next row
    (programs race: a wrong number); a flat overrun, or one only loaded, leaves the buffer (a fault)."""
    lines = (task.reference or "").splitlines()
    if not 0 < line <= len(lines):
        return ()
    text = lines[line - 1]
    described = find_domain(task.domain)
    mask = (described.hints.code_mask if described is not None else None) or PYTHON_MASK
    words = {f"access:{kind}:{shape}" for kind, shape, _ in _triton_accesses(text, mask)}
    assigned = PY_ASSIGNED.match(text)
    if assigned:
        name = re.compile(rf"\b{re.escape(assigned.group(1))}\b")
        uses = [(kind, shape) for at, other in enumerate(lines) if at != line - 1 and name.search(other)
                for kind, shape, where in _triton_accesses(other, mask) if name.search(where)]
        stores = [shape for kind, shape in uses if kind == "store"]
        if stores:
            words.add("guards:store:" + ("row" if "row" in stores else "flat"))
        elif uses:
            words.add("guards:load:" + ("row" if any(shape == "row" for _, shape in uses) else "flat"))
    return tuple(sorted(words))


def x86_word(text: str) -> str | None:
    """An x86-64 register by its role in the System V calling convention (callee-saved or scratch)."""
    if X86_CALLEE_SAVED.fullmatch(text):
        return "REG_SAVED"
    return "REG" if X86_REGISTER.fullmatch(text) else None


_PY_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+")
_PY_BINARY = frozenset("+ - * / % ** << >> & | ^ < > <= >= == != += -= *= /=".split())


def python_same_syntax(old: str, new: str) -> bool:
    """Whether putting token `new` where `old` stood keeps any Python text parsing as it did: a name
    for a name, a number for a number, a binary operator for a binary operator (keywords excluded)."""
    if old.isidentifier() and new.isidentifier():
        return not (keyword.iskeyword(old) or keyword.iskeyword(new))
    if _PY_NUMBER.fullmatch(old) and _PY_NUMBER.fullmatch(new):
        return True
    return old in _PY_BINARY and new in _PY_BINARY


@dataclass(frozen=True)
class DomainTemplate:
    language: str
    comments: re.Pattern[str] | None
    metrics: tuple[str, ...] = ()  # metric keys of the observation, in order; () = every non-time metric
    max_metrics: int = 6
    indentation: bool = False  # leading whitespace is syntax (Python)
    static: Callable[[str], str] | None = None  # a cheap static fact about the code, used as a feature
    same_syntax: Callable[[str, str], bool] | None = None  # a token swap that cannot change `static`'s answer
    word_class: Callable[[str], str | None] = lambda text: None  # a word of the language itself, by class
    context: Callable[[Task], tuple[str, ...]] = lambda task: ()  # words about the task read from its bundle
    line_context: Callable[[Task, int], tuple[str, ...]] | None = None  # words about a reference line's role


TEMPLATES: dict[str, DomainTemplate] = {
    "rtl": DomainTemplate("verilog", C_COMMENTS, ("mismatches", "samples", "cells")),
    "firmware": DomainTemplate("c", C_COMMENTS, word_class=firmware_word),
    "gpu": DomainTemplate(
        "python", HASH_COMMENTS, indentation=True, static=python_syntax, same_syntax=python_same_syntax,
        word_class=python_word, line_context=triton_line_context,
    ),
    "cad": DomainTemplate("python", HASH_COMMENTS, indentation=True, static=python_syntax,
                          same_syntax=python_same_syntax, word_class=python_word),
    "python": DomainTemplate(
        "python", HASH_COMMENTS, indentation=True, static=python_syntax, same_syntax=python_same_syntax,
        word_class=python_word, line_context=python_line_context,
    ),
    "asm": DomainTemplate("asm", HASH_COMMENTS, word_class=x86_word, context=asm_context),
}


def template(domain: str) -> DomainTemplate:
    """The built-in template of a domain, else one read from its descriptor (a plug-in domain)."""
    found = TEMPLATES.get(domain)
    return found if found is not None else described_template(domain)


@cache
def described_template(domain: str) -> DomainTemplate:
    """A template from a domain's descriptor: its language, comment style and special words."""
    described = find_domain(domain)
    if described is None:
        return DomainTemplate(domain, None)
    words = special_words(domain)
    return DomainTemplate(described.language, line_comments(described.comment), word_class=words.get)


def line_comments(prefix: str) -> re.Pattern[str] | None:
    """The comment pattern of a comment prefix: C-style comments also take /* ... */ blocks."""
    if not prefix:
        return None
    return C_COMMENTS if prefix == "//" else re.compile(re.escape(prefix) + r"[^\n]*")


def label_legend(domain: Domain) -> str:
    """The labels an observation of the domain may carry, each with its coarse kind, one per line."""
    lines = [f"{label}: {kind}" for label, kind in ((label, domain.label_kind(label)) for label in domain.all_labels())]
    return "Labels:\n" + "\n".join(f"- {line}" for line in lines)


def strip_comments(code: str, domain: str) -> str:
    """Comments blanked to spaces (line breaks kept, so line numbers still match the file)."""
    pattern = template(domain).comments
    if pattern is None:
        return code
    return pattern.sub(_blank, code)


_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(match: re.Match[str]) -> str:
    text = match.group(0)
    return _NOT_NEWLINE.sub(" ", text) if "\n" in text else " " * len(text)  # most comments are one line


def shown_metrics(outcome: Outcome, domain: str) -> dict[str, Metric]:
    """The metrics an observation reports: the template's keys, else every non-timing metric."""
    spec = template(domain)
    metrics = outcome.metrics
    keys = [k for k in spec.metrics if k in metrics] if spec.metrics else sorted(metrics)
    keys = [k for k in keys if not k.endswith(TIME_SUFFIXES)]
    return {k: metrics[k] for k in keys[: spec.max_metrics]}


def render_observation(outcome: Outcome, domain: str) -> str:
    diagnostic = " ".join(outcome.diagnostic.split())[:400]
    metrics = "; ".join(f"{k}={_metric_text(v)}" for k, v in shown_metrics(outcome, domain).items())
    return f"Label: {outcome.label}\nDiagnostic: {diagnostic}\nMetrics: {metrics}"


def _metric_text(value: Metric) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


_LINE = re.compile(r"^(Label|Diagnostic|Metrics):[ \t]?(.*)$", re.MULTILINE)


def parse_observation(text: str, labels: tuple[str, ...], fallback: str) -> Outcome:
    """Read a templated observation back; an unknown or missing label becomes `fallback`."""
    fields = {key: value.strip() for key, value in _LINE.findall(text)}
    label = fields.get("Label", "")
    if label not in labels:
        label = fallback
    metrics: dict[str, Metric] = {}
    for item in fields.get("Metrics", "").split(";"):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            metrics[key.strip()] = _parse_metric(value.strip())
    return Outcome(label, fields.get("Diagnostic", ""), log=fields.get("Diagnostic", ""), metrics=metrics)


def _parse_metric(text: str) -> Metric:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(text, text)


# -- prompts -----------------------------------------------------------------------------------------
def reference_diff(task: Task, code: str, context: int = 1) -> str:
    """Unified diff reference -> candidate (the hunk headers carry the candidate's line numbers)."""
    reference = (task.reference or "").strip("\n").splitlines()
    lines = difflib.unified_diff(reference, code.strip("\n").splitlines(), "reference", "candidate", lineterm="", n=context)
    return "\n".join(list(lines)[2:])


def render_prompt(task: Task, code: str, budget: int = 3000) -> str:
    """The world model's input within about `budget` characters: tag, bundle, diff, candidate.

    The diff is the most telling part, so it is kept first; the numbered candidate and then the
    bundle's file list and prompt fill what is left.
    """
    diff = reference_diff(task, code) or "(identical to the reference)"
    head = f"<domain:{task.domain}> task {task.id}\n"
    diff = _clip(diff, max(200, budget * 2 // 3))
    left = budget - len(head) - len(diff)
    numbered = "\n".join(f"{i:>3} {line}" for i, line in enumerate(code.rstrip("\n").splitlines(), start=1))
    candidate = _clip(numbered, max(0, left - 300))
    left -= len(candidate)
    files = ", ".join(sorted(task.files))
    bundle = _clip(f"bundle: {files}\noptions: {dict(task.options)}\nprompt: {task.prompt.strip()}", max(120, left))
    return f"{head}## environment\n{bundle}\n## diff vs reference\n{diff}\n## candidate\n{candidate}\n## observation\n"


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 20)].rstrip() + "\n... [cut]"
