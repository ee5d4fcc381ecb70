"""Shared pieces of the generator implementations.

The base of every generator's options model (`key=value` strings from `--gen-opt`, checked with
clear errors), and the one way a raw model answer becomes a `Generation`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, Self, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from ecot.core.errors import EcotError
from ecot.core.extract import extract_code, split_thinking
from ecot.core.trajectory import Message
from ecot.generators.base import Generation


class OptionError(EcotError):
    """A generator option is missing, unknown or malformed."""


class GeneratorOptions(BaseModel):
    """A generator's options: typed, each default written once, no unknown names (a typo is an error).

    Values may be strings (`--gen-opt key=value`, which pydantic converts) or already-typed Python
    values; an empty string counts as not given. `env` names the environment variable an option is
    read from when it is not given; an option named `<prefix>.<name>` for a prefix in `prefixed` goes
    into the dict field `<prefix>`, its value parsed as JSON when it is JSON.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    owner: ClassVar[str] = "generator"  # how errors name the generator: "openai generator"
    env: ClassVar[Mapping[str, str]] = {}
    prefixed: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_table(cls, table: Mapping[str, Any] | None) -> Self:
        """The options from a `key -> value` table; OptionError names the first bad option."""
        values: dict[str, Any] = {}
        for raw_key, value in (table or {}).items():
            key = str(raw_key).strip()
            if value is None or value == "":
                continue
            prefix, dot, name = key.partition(".")
            if dot and name and prefix in cls.prefixed:
                values.setdefault(prefix, {})[name] = _maybe_json(value)
            else:
                values[key] = value
        for key, variable in cls.env.items():
            if key not in values and os.environ.get(variable):
                values[key] = os.environ[variable]
        try:
            return cls.model_validate(values)
        except ValidationError as err:
            raise OptionError(cls._problem(err)) from None

    @classmethod
    def _problem(cls, err: ValidationError) -> str:
        first = err.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        if first["type"] == "extra_forbidden":
            unknown = sorted(".".join(str(p) for p in e["loc"]) for e in err.errors() if e["type"] == "extra_forbidden")
            known = ", ".join(sorted([*cls.model_fields, *(f"{p}.*" for p in cls.prefixed)]))
            return f"{cls.owner}: unknown option(s) {', '.join(unknown)} (known: {known})"
        if first["type"] == "missing":
            hint = f" (or set {cls.env[key]})" if key in cls.env else ""
            return f"{cls.owner}: option '{key}' is required{hint}"
        return f"{cls.owner}: option '{key}' must be {cls._expected(key)}, got {first.get('input')!r}"

    @classmethod
    def _expected(cls, key: str) -> str:
        """What an option takes, in words: 'a number in [0.0, 2.0]', 'an integer >= 1', 'one of a, b'."""
        field = cls.model_fields.get(key)
        if field is None:
            return "valid"
        kinds = [k for k in (*get_args(field.annotation), field.annotation) if k is not type(None)]
        choices = next((get_args(k) for k in kinds if get_origin(k) is Literal), None)
        if choices:
            return "one of " + ", ".join(map(str, choices))
        low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
        bounds = f" in [{low}, {high}]" if low is not None and high is not None else \
            f" >= {low}" if low is not None else f" <= {high}" if high is not None else ""
        for kind, words in ((bool, "a boolean (true/false)"), (int, "an integer"), (float, "a number")):
            if kind in kinds:
                return words + ("" if kind is bool else bounds)
        return "a text"


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
