"""The Domain descriptor: every fact about a domain that code outside the domain's folder needs.

Extraction (fences), export (fold language, trace format), import (file suffix), the prompt router
(instructions), the world model's templates (comment style, label set, language hints), the
benchmark (metrics), the report (previews) and the mutators read a domain's descriptor instead of
keeping their own per-domain tables, so that a domain registered through the `ecot.domains`
entry-point group is as complete as a built-in one, and no module outside `ecot.domains` imports a
named domain. Each domain declares `DOMAIN = Domain(...)` in its package; the descriptor holds only
cheap data and lazy "module:attr" references, so importing it loads no toolchain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ecot.core.errors import EcotError
from ecot.core.outcome import KindedLabel, LabelKind, SharedLabel
from ecot.core.registry import Registry, load_reference

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ecot.core.scoring import BenchMetric
    from ecot.core.task import Task
    from ecot.core.views import PreviewHook, ToolDrift, TraceFormat

__all__ = [
    "DOMAINS",
    "NO_OPTIONS",
    "PYTHON_MASK",
    "DescribedRegistry",
    "Domain",
    "KindedLabel",
    "LabelKind",
    "SharedLabel",
    "WorldModelHints",
    "domain_names",
    "find_domain",
    "get_domain",
    "load_reference",
]

NO_OPTIONS = "ecot.core.options:NoOptions"  # the default options model: no keys at all

# Comments and string literals of Python source: the spans a scan for code must skip.
PYTHON_MASK = re.compile(r'#[^\n]*|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


@dataclass(frozen=True)
class WorldModelHints:
    """What the world model's templates (and the mutators) may know about a domain's language beyond
    its comment style; every field is optional, and the world model reads code without it.

    `code_mask` blanks spans that are not code (comments and string literals) before code is scanned;
    `special_words` (called once, lazily) maps words with a domain meaning to a class name, e.g. the
    firmware's vector-table handler names to "HANDLER"; `word_class` classes any word of the
    language (default: the special words). The rest feed the world model's features: which metrics an
    observation reports, whether indentation is syntax, a cheap static fact about code (does it
    compile?) and which token swaps cannot change it, and words about the task or a reference line.
    """

    code_mask: re.Pattern[str] | None = None
    special_words: Callable[[], Mapping[str, str]] | None = None
    word_class: Callable[[str], str | None] | None = None
    observed_metrics: tuple[str, ...] = ()  # metric keys an observation shows, in order; (): every non-time one
    indentation: bool = False  # leading whitespace is syntax (Python)
    static: Callable[[str], str] | None = None  # a cheap static fact about the code, used as a feature
    same_syntax: Callable[[str, str], bool] | None = None  # a token swap that cannot change `static`'s answer
    context: Callable[[Task], tuple[str, ...]] | None = None  # words about the task, read from its bundle
    line_context: Callable[[Task, int], tuple[str, ...]] | None = None  # words about a reference line's role


@dataclass(frozen=True)
class Domain:
    """One domain's facts; the fields after `backend` are optional."""

    name: str
    language: str  # the fence language of exported answers ("verilog", "python", "c", "asm")
    fences: tuple[str, ...]  # fence tags that extraction takes as this domain's code, lower case
    suffix: str  # source file suffix of a candidate or reference (".v", ".py")
    comment: str  # line comment prefix ("//", "#")
    labels: type[KindedLabel]  # the domain's own labels (its backend keeps no list); SharedLabel members too
    backend: str  # "module:attr" of the Backend class, imported only when the domain is evaluated
    options: type[BaseModel] | str = NO_OPTIONS  # the backend's task options: the model, or "module:attr" of it
    alt_suffixes: tuple[str, ...] = ()  # other source suffixes; a bundle holding one keeps it (".sv")
    mutators: str | None = None  # "module:attr" of the repair generator's MutationSet, if the domain has one
    hints: WorldModelHints = field(default_factory=WorldModelHints)
    # The generator's instructions: a TOML file with `system`, `answer_format` and optional [[rules]]
    # (docs/architecture.md); None: instructions built from this descriptor.
    instructions: Path | None = None
    metrics: str | None = None  # "module:attr" of the domain's own benchmark metrics (tuple of BenchMetric)
    preview: str | None = None  # "module:attr" of a PreviewHook: a picture of a candidate for reports
    traces: str | None = None  # "module:attr" of the TraceFormat of the execution traces its backend records
    drift: str | None = None  # "module:attr" of a ToolDrift: a second version of one of its tools, for audits

    def all_labels(self) -> tuple[str, ...]:
        """The domain's labels then the shared ones, as plain strings."""
        return tuple(dict.fromkeys(str(label) for label in (*self.labels, *SharedLabel)))

    def label_kind(self, label: str) -> LabelKind | None:
        """The coarse kind of a label this domain (or every domain) gives; None for a foreign label."""
        for labels in (self.labels, SharedLabel):
            for member in labels:
                if member == label:
                    return member.kind
        return None

    def source_suffix(self, file_names: Iterable[str] = ()) -> str:
        """The suffix of a source file for a task whose bundle holds `file_names`."""
        names = list(file_names)
        for alternative in self.alt_suffixes:
            if any(name.endswith(alternative) for name in names):
                return alternative
        return self.suffix

    def default_instructions(self) -> dict[str, str]:
        """Generator instructions for a domain that ships no instructions file."""
        return {
            "system": f"The task is in the {self.name} domain: write {self.language} code.",
            "answer_format": f"Give the complete code in one fenced ```{self.fences[0] if self.fences else self.language} block.",
        }

    def options_model(self) -> type[BaseModel]:
        """The pydantic model that validates a task's [options] for this domain."""
        from pydantic import BaseModel  # only now: reading a descriptor stays cheap

        model = load_reference(self.options) if isinstance(self.options, str) else self.options
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise EcotError(f"domain '{self.name}': options must name a pydantic model, not {model!r}")
        return model

    def load_backend(self) -> Any:
        """The Backend class named by `backend`."""
        return load_reference(self.backend)

    def load_metrics(self) -> tuple[BenchMetric, ...]:
        """The domain's own benchmark metrics; () when it names none."""
        return tuple(load_reference(self.metrics)) if self.metrics else ()

    def load_preview(self) -> PreviewHook | None:
        found: PreviewHook | None = load_reference(self.preview) if self.preview else None
        return found

    def load_traces(self) -> TraceFormat | None:
        found: TraceFormat | None = load_reference(self.traces) if self.traces else None
        return found

    def load_drift(self) -> ToolDrift | None:
        found: ToolDrift | None = load_reference(self.drift) if self.drift else None
        return found


DOMAINS: Registry[Domain] = Registry(
    "domains",
    {
        name: f"ecot.domains.{name}.domain:DOMAIN"
        for name in ("rtl", "gpu", "cad", "asm", "python", "firmware")
    },
)


def get_domain(name: str) -> Domain:
    """The descriptor of a domain, built in or from an `ecot.domains` entry point."""
    try:
        found = DOMAINS.get(name)  # an unknown name raises UnknownNameError, listing the known ones
    except (ImportError, ValueError, AttributeError) as err:  # a plugin whose entry point does not resolve
        raise EcotError(f"domain '{name}' is registered but its descriptor cannot be loaded: {err}") from err
    if not isinstance(found, Domain) or found.name != name:
        raise EcotError(f"the descriptor registered for domain '{name}' is not a Domain named '{name}'")
    return found


def find_domain(name: str) -> Domain | None:
    """The descriptor of a domain, or None for a name no registry knows."""
    return get_domain(name) if DOMAINS.has(name) else None


def domain_names() -> list[str]:
    return DOMAINS.names()


T = TypeVar("T")


class DescribedRegistry(Registry[T]):
    """Per-domain implementations named by a descriptor field (`backend`, `mutators`), so that one
    `ecot.domains` entry point brings all of a domain; the older per-kind entry-point group (e.g.
    `ecot.backends`) is still read for a name no descriptor provides."""

    def __init__(self, kind: str, field_name: str) -> None:
        super().__init__(kind, {})
        self.field_name = field_name

    def _reference(self, name: str) -> str | None:
        described = find_domain(name)
        reference = getattr(described, self.field_name) if described is not None else None
        return reference if isinstance(reference, str) else None

    def names(self) -> list[str]:
        described = {name for name in domain_names() if self._reference(name) is not None}
        return sorted(described | set(super().names()))

    def has(self, name: str) -> bool:
        return self._reference(name) is not None or super().has(name)

    def get(self, name: str) -> T:
        reference = self._reference(name)
        if reference is None:
            return super().get(name)
        if name not in self._loaded:
            self._loaded[name] = load_reference(reference)
        return self._loaded[name]
