"""Domain templates: how code is read (comments, fence language, the descriptor's world-model hints)
and how an observation is written.

The observation template is the world model's output format (the language-model world model learns
to write it; `parse_observation` reads it back into an Outcome):

    Label: Simulation_Mismatch
    Diagnostic: MISMATCH time=11 signal=q expected=0 got=x
    Metrics: mismatches=778; samples=400

The prompt is the domain tag, the task's environment bundle (within a character budget), the diff of
the candidate against the bundle's reference, and the numbered candidate.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from ecot.core.domain import Domain, find_domain
from ecot.core.outcome import Metric, Outcome
from ecot.core.task import Task

C_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
TIME_SUFFIXES = ("_s", "_ms")


@dataclass(frozen=True)
class DomainTemplate:
    """How the world model reads a domain's code: its descriptor's language and comment style, and its
    world-model hints (`WorldModelHints`) with the shared defaults filled in."""

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


@cache
def template(domain: str) -> DomainTemplate:
    """The template of a domain, read from its descriptor; a bare one for a domain nobody registered."""
    described = find_domain(domain)
    if described is None:
        return DomainTemplate(domain, None)
    hints = described.hints
    return DomainTemplate(
        described.language, line_comments(described.comment), hints.observed_metrics,
        indentation=hints.indentation, static=hints.static, same_syntax=hints.same_syntax,
        word_class=hints.word_class or special_words(domain).get, context=hints.context or _no_context,
        line_context=hints.line_context,
    )


def _no_context(task: Task) -> tuple[str, ...]:
    return ()


@cache
def special_words(domain: str) -> Mapping[str, str]:
    """The words with a domain meaning that the domain's descriptor names (word -> class)."""
    described = find_domain(domain)
    hook = described.hints.special_words if described is not None else None
    return dict(hook()) if hook is not None else {}


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
