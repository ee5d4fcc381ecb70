"""The prompt router: domain instructions chosen from data files by the task's domain and bundle.

Each domain's descriptor names its instructions (`Domain.instructions`, prompts.toml in the domain's
folder): `system`, `answer_format` and optional [[rules]] that add text when the task's tags, bundle
file names (globs) or prompt words match; a domain without a file gets instructions built from its
descriptor. prompts/common.toml holds what every domain shares. All of it goes into the system
message; the user message is the task alone. A user's own system prompt (`--system-prompt`)
replaces the routed one; where it holds the placeholder {domain_instructions}, the routed text is put
there.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ecot.core.domain import find_domain
from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.core.trajectory import Message

PROMPTS = Path(__file__).parent / "prompts"
PLACEHOLDER = "{domain_instructions}"


@dataclass(frozen=True)
class Instructions:
    system: str
    answer_format: str
    revise: str


COMMON = PROMPTS / "common.toml"


@cache
def _load(name: str) -> dict[str, Any]:
    """The instructions of a domain ("common": those every domain shares)."""
    if name == "common":
        path = COMMON
    else:
        described = find_domain(name)
        if described is None:
            raise TaskFormatError(name, f"no instructions for domain '{name}': no such domain")
        if described.instructions is None:
            return dict(described.default_instructions())
        path = described.instructions
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(str(path), f"no instructions for domain '{name}'") from None


def _rule_matches(rule: dict[str, Any], task: Task) -> bool:
    if set(rule.get("tags", [])) & set(task.tags):
        return True
    if any(fnmatch.fnmatch(f, pattern) for pattern in rule.get("files", []) for f in task.files):
        return True
    prompt = task.prompt.lower()
    return any(word.lower() in prompt for word in rule.get("prompt_words", []))


def route(task: Task) -> Instructions:
    common, domain = _load("common"), _load(task.domain)
    extra = [rule["text"] for rule in domain.get("rules", []) if _rule_matches(rule, task)]
    system = "\n\n".join([common["system"], domain["system"], *extra])
    return Instructions(system=system, answer_format=domain["answer_format"], revise=common["revise"])


def first_messages(task: Task, system_prompt: str | None = None) -> list[Message]:
    """The conversation's opening: domain instructions (answer format included) as system, the task as user."""
    instructions = route(task)
    routed = f"{instructions.system}\n\n{instructions.answer_format}"
    system = routed if system_prompt is None else system_prompt.replace(PLACEHOLDER, routed).strip()
    return [{"role": "system", "content": system}, {"role": "user", "content": task.prompt.strip()}]


def prompt_files(domains: Iterable[str]) -> dict[str, Path]:
    """The instruction files the router reads for tasks of these domains, by name ("common.toml",
    "<domain>.toml"): their content is part of a run's identity."""
    found = {COMMON.name: COMMON}
    for name in sorted(set(domains)):
        described = find_domain(name)
        if described is not None and described.instructions is not None:
            found[f"{name}.toml"] = described.instructions
    return found
