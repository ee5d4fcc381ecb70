"""Syntax highlighting of untrusted code with Pygments: escaped HTML, small, cached.

Pygments escapes every character of the source, so the result is safe to place in a page as is.
Tokens the style leaves unstyled (plain names, punctuation, whitespace) are emitted as bare text:
without that a page is about twice as large for the same look. Highlighted blocks are cached by
content, because samples of one task often converge on the same code.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache

from markupsafe import Markup, escape
from pygments import highlight
from pygments.filter import Filter
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.token import Text, Whitespace, _TokenType, is_token_subtype

from ecot.core.domain import find_domain

STYLE = "default"
CSS_CLASS = "hl"
MAX_CHARS = 60_000  # longer text is shown escaped but not highlighted (Pygments would take seconds)
CACHE = 4096  # highlighted blocks kept (a few KB each)
DIFF_CONTEXT = 3
PYGMENTS_LEXER = {"verilog": "systemverilog", "asm": "gas", "c": "c", "python": "python", "diff": "diff"}

_style = get_style_by_name(STYLE)
_formatter = HtmlFormatter(nowrap=True, style=STYLE)


def _has_look(ttype: _TokenType) -> bool:
    if is_token_subtype(ttype, Whitespace):  # coloured in some styles, but blank on the page
        return False
    while not _style.styles_token(ttype) and ttype.parent is not None:  # a lexer's own subtype: its parent's look
        ttype = ttype.parent
    look = _style.style_for_token(ttype)
    return any(look[key] for key in ("color", "bgcolor", "bold", "italic", "underline", "border"))


class _Unstyled(Filter):
    """Turn tokens without a look of their own into plain text (no <span>)."""

    def filter(self, lexer: Lexer | None, stream: Iterable[tuple[_TokenType, str]]) -> Iterator[tuple[_TokenType, str]]:
        for ttype, value in stream:
            yield (ttype if _look(ttype) else Text), value


@cache
def _look(ttype: _TokenType) -> bool:
    return _has_look(ttype)


@cache
def _lexer(name: str) -> Lexer:
    lexer = get_lexer_by_name(PYGMENTS_LEXER.get(name, "text"), stripnl=False, ensurenl=False)
    lexer.add_filter(_Unstyled())
    return lexer


@lru_cache(maxsize=CACHE)
def highlight_code(code: str, lang: str) -> Markup:
    """`code` as escaped HTML with highlight spans (`lang`: verilog, python, c, asm, diff, or plain)."""
    if len(code) > MAX_CHARS:
        return Markup(escape(code))
    return Markup(highlight(code, _lexer(lang), _formatter))


def highlight_domain(code: str, domain: str) -> Markup:
    """Code of a stored domain; one whose plug-in is no longer installed is shown as plain text."""
    found = find_domain(domain)
    return highlight_code(code, found.language if found is not None else "text")


def unified_diff(before: str, after: str, index: int) -> tuple[str, int, int]:
    """(the unified diff of attempt `index` -> `index + 1`, lines added, lines removed)."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"attempt {index}", f"attempt {index + 1}", lineterm="", n=DIFF_CONTEXT
        )
    )
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return "\n".join(lines) + ("\n" if lines else ""), added, removed


def stylesheet() -> str:
    """The CSS of the highlight classes, scoped to `.hl`."""
    return str(_formatter.get_style_defs(f".{CSS_CLASS}")) + "\n"
