"""Pulling reasoning and code out of raw model answers, and putting code into a fenced block."""

from __future__ import annotations

import re

from ecot.core.domain import find_domain

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+\-.]*)[^\n]*\n(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_OPEN_THINK = re.compile(r"^\s*<think>(.*)$", re.DOTALL)


def domain_fences(domain: str) -> tuple[str, ...]:
    """The fence tags the domain's descriptor accepts as its code; none for an unknown domain."""
    found = find_domain(domain)
    return found.fences if found is not None else ()


def split_thinking(raw: str) -> tuple[str, str]:
    """(reasoning, answer): a <think>...</think> block, or an unclosed <think> taking everything."""
    match = _THINK.search(raw)
    if match:
        return match.group(1).strip(), (raw[: match.start()] + raw[match.end() :]).strip()
    open_only = _OPEN_THINK.match(raw)
    if open_only:
        return open_only.group(1).strip(), ""
    return "", raw.strip()


def extract_code(answer: str, domain: str) -> str | None:
    """The last fenced block tagged with the domain's language, else the last fenced block."""
    blocks: list[tuple[str, str]] = [(lang.lower(), body) for lang, body in _FENCE.findall(answer)]
    blocks = [(lang, body) for lang, body in blocks if body.strip()]
    if not blocks:
        return None
    preferred = [body for lang, body in blocks if lang in domain_fences(domain)]
    return (preferred or [body for _, body in blocks])[-1].strip() + "\n"


def fence(body: str, lang: str) -> str:
    """The code as a fenced block tagged with its language, as extraction reads it back."""
    body = body.rstrip("\n")
    ticks = "````" if "```" in body else "```"  # keep a fence inside the code from closing ours
    return f"{ticks}{lang}\n{body}\n{ticks}"
