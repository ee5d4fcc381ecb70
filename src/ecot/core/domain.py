"""The Domain descriptor: every fact about a domain that code outside the domain's folder needs.

Extraction (fences), export (fold language), import (file suffix), the world model's templates
(comment style, label set, word hints) and the mutators read a domain's descriptor instead of keeping
their own per-domain tables, so that a domain registered through the `ecot.domains` entry-point group
is as complete as a built-in one. Each domain declares `DOMAIN = Domain(...)` in its package; the
descriptor holds only cheap data and lazy "module:attr" references, so importing it loads no toolchain.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ecot.core.errors import EcotError, UnknownNameError
from ecot.core.outcome import KindedLabel, LabelKind, SharedLabel
from ecot.core.registry import Registry


# Comments and string literals of Python source: the spans a scan for code must skip.
PYTHON_MASK = re.compile(r'#[^\n]*|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


class NoOptions(BaseModel):
    """The options of a backend that takes none: any key is a typo."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class WorldModelHints:
    """What the world model's templates may know about a domain's language beyond comments.

    `code_mask` blanks spans that are not code (comments and string literals) before code is scanned;
    `special_words` (called once, lazily) maps words with a domain meaning to a class name, e.g. the
    firmware's vector-table handler names to "HANDLER".
    """

    code_mask: re.Pattern[str] | None = None
    special_words: Callable[[], Mapping[str, str]] | None = None


@dataclass(frozen=True)
class Domain:
    name: str
    language: str  # the fence language of exported answers ("verilog", "python", "c", "asm")
    fences: tuple[str, ...]  # fence tags that extraction takes as this domain's code, lower case
    suffix: str  # source file suffix of a candidate or reference (".v", ".py")
    comment: str  # line comment prefix ("//", "#")
    labels: type[KindedLabel]  # the domain's own labels; SharedLabel members are always allowed too
    backend: str  # "module:attr" of the Backend class, imported only when the domain is evaluated
    options: type[BaseModel] = NoOptions  # the backend's task options
    alt_suffixes: tuple[str, ...] = ()  # other source suffixes; a bundle holding one keeps it (".sv")
    hints: WorldModelHints = field(default_factory=WorldModelHints)
    # A TOML file shaped like ecot/run/prompts/<domain>.toml (system, answer_format, [[rules]]) for a
    # domain whose instructions are not among the router's files; None: instructions built from this.
    instructions: Path | None = None

    def all_labels(self) -> tuple[str, ...]:
        """The domain's labels then the shared ones, as plain strings."""
        return tuple(dict.fromkeys(str(label) for label in (*self.labels, *SharedLabel)))

    def label_kind(self, label: str) -> LabelKind | None:
        """The coarse kind of a label this domain (or every domain) gives; None for a foreign label."""
        for labels in (self.labels, SharedLabel):
            if label in labels.__members__.values():
                return labels(label).kind
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

    def load_backend(self) -> Any:
        """The Backend class named by `backend`."""
        module_name, _, attribute = self.backend.partition(":")
        return getattr(importlib.import_module(module_name), attribute)


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
        found = DOMAINS.get(name)
    except UnknownNameError:
        raise
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
