"""Errors that name what is wrong and where, for users and for the harness."""

from __future__ import annotations

from collections.abc import Iterable


class EcotError(Exception):
    """Base class: a problem ecot reports to the user with a clear message."""


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name closest to a mistyped one, if one is close."""
    from difflib import get_close_matches

    close = get_close_matches(word, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """" (did you mean 'x'?)" for the known name closest to a mistyped one, else ""."""
    found = closest(word, known)
    return f" (did you mean '{found}'?)" if found else ""


class TaskFormatError(EcotError):
    """A task file or suite is malformed; the message names the file and field."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


class ToolMissingError(EcotError):
    """A backend's toolchain is not installed."""

    def __init__(self, tool: str, hint: str = "") -> None:
        text = f"required tool '{tool}' was not found on PATH"
        super().__init__(f"{text} ({hint})" if hint else text)
        self.tool = tool


class UnknownNameError(EcotError):
    """A registry lookup for a name nobody registered."""


class TaskOptionsError(TaskFormatError):
    """A task's backend [options] do not fit its domain's option model; names the file and option."""

    def __init__(self, where: str, option: str, message: str) -> None:
        super().__init__(where, f"option '{option}': {message}")
        self.option = option
