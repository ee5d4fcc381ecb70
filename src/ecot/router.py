"""The prompt router: domain instructions chosen from data files by the task's domain and bundle.

Each domain has prompts/<domain>.toml with `system`, `answer_format` and optional [[rules]] that add
text when the task's tags, bundle file names (globs) or prompt words match.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ecot.errors import TaskFormatError
from ecot.task import Task
from ecot.trajectory import Message

PROMPTS = Path(__file__).parent / "prompts"


@dataclass(frozen=True)
class Instructions:
    system: str
    answer_format: str
    revise: str


@lru_cache(maxsize=None)
def _load(name: str) -> dict[str, Any]:
    path = PROMPTS / f"{name}.toml"
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


def first_messages(task: Task) -> list[Message]:
    """The conversation's opening: routed instructions as system, the task as user."""
    instructions = route(task)
    user = f"{task.prompt.strip()}\n\n{instructions.answer_format}"
    return [{"role": "system", "content": instructions.system}, {"role": "user", "content": user}]
