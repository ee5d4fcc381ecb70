"""Facts about the languages several domains write (Python for gpu, cad and python; C for firmware and
the asm harness), for the world-model hints of those domains' descriptors: keywords, a static compile
check, and which token swaps keep Python parsing as it did."""

from __future__ import annotations

import builtins
import keyword
import re
import warnings
from collections.abc import Callable

from ecot.core.domain import PYTHON_MASK, WorldModelHints
from ecot.core.task import Task


def python_syntax(code: str) -> str:
    """A static fact about Python source: does it compile? (compile() parses, it runs nothing)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not verdicts
            compile(code, "<candidate>", "exec", dont_inherit=True)
    except IndentationError:
        return "indentation_error"
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return "syntax_error"
    return "compiles"


PYTHON_WORDS = frozenset(keyword.kwlist) | frozenset(dir(builtins))
C_WORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "bool true false NULL uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t size_t".split()
)


def python_word(text: str) -> str | None:
    return "KW" if text in PYTHON_WORDS else None


def c_word(text: str) -> str | None:
    return "KW" if text in C_WORDS else None


_PY_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+")
_PY_BINARY = frozenset("+ - * / % ** << >> & | ^ < > <= >= == != += -= *= /=".split())


def python_same_syntax(old: str, new: str) -> bool:
    """Whether putting token `new` where `old` stood keeps any Python text parsing as it did: a name
    for a name, a number for a number, a binary operator for a binary operator (keywords excluded)."""
    if old.isidentifier() and new.isidentifier():
        return not (keyword.iskeyword(old) or keyword.iskeyword(new))
    if _PY_NUMBER.fullmatch(old) and _PY_NUMBER.fullmatch(new):
        return True
    return old in _PY_BINARY and new in _PY_BINARY


def python_hints(line_context: Callable[[Task, int], tuple[str, ...]] | None = None) -> WorldModelHints:
    """The world-model hints of a domain whose candidates are Python source."""
    return WorldModelHints(
        code_mask=PYTHON_MASK, word_class=python_word, indentation=True, static=python_syntax,
        same_syntax=python_same_syntax, line_context=line_context,
    )
