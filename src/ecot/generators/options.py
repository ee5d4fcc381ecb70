"""Shared pieces of the generator implementations.

Typed reading of options given as `key=value` strings (`--gen-opt`) with clear errors, and the
one way a raw model answer becomes a `Generation`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.extract import extract_code, split_thinking
from ecot.core.trajectory import Message
from ecot.generators.base import Generation

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class OptionError(EcotError):
    """A generator option is missing, unknown or malformed."""


class Options:
    """Reads options one by one; `finish()` rejects keys nobody read, so typos are caught.

    Values may be strings (from the command line) or already-typed Python values (from code).
    """

    def __init__(self, owner: str, options: Mapping[str, Any] | None) -> None:
        self.owner = owner
        self._values = {str(k).strip(): v for k, v in (options or {}).items()}
        self._read: set[str] = set()
        self._prefixes: set[str] = set()

    def _raw(self, key: str, env: str | None) -> Any:
        self._read.add(key)
        value = self._values.get(key)
        if value is None and env:
            value = os.environ.get(env) or None
        return value

    def _bad(self, key: str, value: Any, expected: str) -> OptionError:
        return OptionError(f"{self.owner}: option '{key}' must be {expected}, got {value!r}")

    def get_str(self, key: str, default: str | None = None, *, env: str | None = None) -> str | None:
        value = self._raw(key, env)
        return default if value is None or value == "" else str(value)

    def require_str(self, key: str, *, env: str | None = None) -> str:
        value = self.get_str(key, env=env)
        if value is None:
            hint = f" (or set {env})" if env else ""
            raise OptionError(f"{self.owner}: option '{key}' is required{hint}")
        return value

    def get_float(self, key: str, default: float, *, low: float | None = None, high: float | None = None) -> float:
        value = self.optional_float(key, low=low, high=high)
        return default if value is None else value

    def optional_float(self, key: str, *, low: float | None = None, high: float | None = None) -> float | None:
        value = self._raw(key, None)
        if value is None or value == "":
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise self._bad(key, value, "a number") from None
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = f">= {low}" if high is None else f"<= {high}" if low is None else f"in [{low}, {high}]"
            raise self._bad(key, value, f"a number {bounds}")
        return number

    def get_int(self, key: str, default: int, *, low: int | None = None) -> int:
        value = self.optional_int(key, low=low)
        return default if value is None else value

    def optional_int(self, key: str, *, low: int | None = None) -> int | None:
        value = self._raw(key, None)
        if value is None or value == "":
            return None
        try:
            number = int(str(value).strip(), 0) if isinstance(value, str) else int(value)
        except (TypeError, ValueError):
            raise self._bad(key, value, "an integer") from None
        if low is not None and number < low:
            raise self._bad(key, value, f"an integer >= {low}")
        return number

    def get_bool(self, key: str, default: bool) -> bool:
        value = self._raw(key, None)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise self._bad(key, value, "a boolean (true/false)")

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.get_str(key, default) or default
        if value not in choices:
            raise self._bad(key, value, "one of " + ", ".join(choices))
        return value

    def prefixed(self, prefix: str) -> dict[str, Any]:
        """Options named `prefix<name>`, values parsed as JSON when they are JSON (else kept as text)."""
        self._prefixes.add(prefix + "*")
        found: dict[str, Any] = {}
        for key, value in self._values.items():
            if key.startswith(prefix) and len(key) > len(prefix):
                self._read.add(key)
                found[key[len(prefix) :]] = _maybe_json(value)
        return found

    def finish(self) -> None:
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            known = ", ".join(sorted(self._read | self._prefixes))
            raise OptionError(f"{self.owner}: unknown option(s) {', '.join(unknown)} (known: {known})")


def _maybe_json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def build_generation(
    content: str,
    reasoning: str | None,
    domain: str,
    usage: Mapping[str, int] | None = None,
    finish_reason: str | None = None,
) -> Generation:
    """Reasoning from a separate field when the server gave one, else (also) from <think> tags in content.

    The separate field is also kept verbatim (`reasoning_content`), so the store holds the split the
    endpoint made between reasoning and content.
    """
    thought, answer = split_thinking(content or "")
    separate = (reasoning or "").strip()
    parts = [part for part in (separate, thought) if part]
    return Generation(
        reasoning="\n\n".join(parts),
        code=extract_code(answer, domain),
        raw=content or "",
        usage={k: int(v) for k, v in (usage or {}).items()},
        finish_reason=finish_reason,
        reasoning_content=reasoning if separate else None,
    )


def turn_number(messages: Sequence[Message], turns: Sequence[object] = ()) -> int:
    """Index of the turn being generated: earlier turns if known, else assistant messages so far."""
    if turns:
        return len(turns)
    return sum(1 for message in messages if message.get("role") == "assistant")


def content_text(content: Any) -> str:
    """A message's text: a string as is, the text parts of an OpenAI content-part list joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)
