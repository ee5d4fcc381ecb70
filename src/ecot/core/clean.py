"""Text a candidate can influence, made safe to store, print and render.

A candidate chooses the bytes of its exception messages, its output and its tracebacks, and those reach
diagnostics and logs. Unchecked, a lone surrogate makes every UTF-8 encoder raise (the store, a JSON
export), NUL ends C strings, and escape sequences rewrite a terminal (`\\x1b[2K\\r` erases a line and
prints a fake verdict over it, OSC 8 hides a link). `clean` removes escape sequences, turns carriage
returns into line breaks and every other control character, lone surrogate and bidirectional override
into U+FFFD, keeps newlines and tabs, and caps line length and total size with a visible marker.
Cleaning is idempotent, so text cleaned once passes through again unchanged.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
MAX_LINE = 2000  # characters of one line kept (head and tail)

# CSI (ESC [ ... final), string sequences (OSC, DCS, SOS, PM, APC up to BEL or ST, or the line's end)
# and other two-byte escapes. Whatever control character is left (a lone ESC, the 8-bit C1 forms) is
# replaced on its own, so no text after it is lost.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def clean(text: str, limit: int | None = None, max_line: int | None = MAX_LINE, sep: str = " ") -> str:
    """`text` without escape sequences, control characters (but newline and tab) or lone surrogates;
    lines longer than `max_line` and texts longer than `limit` keep their head and tail (the cut
    marked between `sep`s)."""
    if _UNSAFE.search(text) is not None:
        text = scrub(_ESCAPES.sub("", text).replace("\r\n", "\n").replace("\r", "\n"))
    if limit is not None:
        text = cap(text, limit, sep)
    if max_line is not None and len(text) > max_line and re.search(f"(?m)^.{{{max_line + 1}}}", text) is not None:
        text = "\n".join(cap(line, max_line) for line in text.split("\n"))
    return text


def scrub(text: str) -> str:
    """Every control character but newline and tab, lone surrogate and bidirectional override replaced
    by U+FFFD, nothing else changed: JSON text stays JSON (it holds no raw newline or escape)."""
    return _UNSAFE.sub(REPLACEMENT, text)


def encodable(text: str) -> str:
    """`text` with lone surrogates replaced: what any UTF-8 encoder accepts (for text that is kept as
    written otherwise, such as a model's answer)."""
    return _SURROGATES.sub(REPLACEMENT, text) if _SURROGATES.search(text) is not None else text


def cap(text: str, limit: int, sep: str = " ") -> str:
    """Head and tail of `text` with a marker between them, at most `limit` characters in all."""
    if len(text) <= limit:
        return text
    keep = max(limit - len(f"{sep}... [{len(text)} characters cut] ...{sep}"), 0)
    tail = keep // 2
    return f"{text[:keep - tail]}{sep}... [{len(text) - keep} characters cut] ...{sep}{text[len(text) - tail:] if tail else ''}"
