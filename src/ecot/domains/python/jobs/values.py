"""Plain Python values as JSON text, both ways between the judge and the child (standard library only).

Copied into the sandbox as `ecot_values.py`. In check mode the benchmark's own check code runs in the
judge and the candidate's function in the child; what crosses between them is data only, so no object
of the candidate's (with its own `__eq__`, `__len__` or `__hash__`) ever reaches the judge. Types are
kept, since a check tells a tuple from a list: JSON null, booleans, strings, lists and floats (NaN and
infinities included) stand for themselves; every other value is a one-key object naming its type:
{"tuple": [...]}, {"set": [...]}, {"frozenset": [...]}, {"dict": [[key, value], ...]} (keys of any
type), {"bytes": "hex"}, {"complex": [re, im]}, {"int": "hex"} for integers past 2**53. A subclass of
one of these types travels as its base type (an IntEnum as its int, a namedtuple as its tuple).
"""

from __future__ import annotations

import json
from builtins import isinstance  # noqa: UP029 - bound here: in the child, the candidate may rebind the builtin
from typing import Any

MAX_DEPTH = 100
SMALL_INT = 1 << 53  # larger integers travel as hex: reading a long decimal takes quadratic time
_TAGS = ("tuple", "set", "frozenset", "dict", "bytes", "complex", "int")


class Unencodable(Exception):
    """A value that is not plain data (a function, a generator, an object of some class)."""


class BadValue(Exception):
    """Text that is not a value this module wrote."""


def tagged(value: Any, depth: int = 0) -> Any:
    """The JSON-ready form of a value; Unencodable for anything but plain data."""
    if depth > MAX_DEPTH:
        raise Unencodable("nested too deeply")
    if value is None or isinstance(value, bool):
        return None if value is None else bool(value)
    if isinstance(value, int):
        number = int(value)
        return number if -SMALL_INT < number < SMALL_INT else {"int": hex(number)}
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [tagged(item, depth + 1) for item in value]
        kind = next(k for k in (list, tuple, set, frozenset) if isinstance(value, k))
        return items if kind is list else {kind.__name__: items}
    if isinstance(value, dict):
        return {"dict": [[tagged(k, depth + 1), tagged(v, depth + 1)] for k, v in value.items()]}
    raise Unencodable(type(value).__name__)


def dump(value: Any) -> str:
    try:
        return json.dumps(tagged(value))
    except RecursionError:
        raise Unencodable("nested too deeply") from None


def _small_int(text: str) -> int:
    if len(text) > 17:
        raise BadValue("a long integer written in decimal")
    return int(text)


def untagged(data: Any, depth: int = 0) -> Any:
    """The value a tagged form stands for; BadValue for anything `tagged` does not write."""
    if depth > MAX_DEPTH:
        raise BadValue("nested too deeply")
    if isinstance(data, list):
        return [untagged(item, depth + 1) for item in data]
    if not isinstance(data, dict):
        return data
    if len(data) != 1 or next(iter(data)) not in _TAGS:
        raise BadValue("an object that is not a tagged value")
    kind, body = next(iter(data.items()))
    try:
        return _build(kind, body, depth)
    except (TypeError, ValueError, OverflowError) as err:
        raise BadValue(f"a bad {kind}: {err}") from None


def _build(kind: str, body: Any, depth: int) -> Any:
    if kind == "int":
        if not isinstance(body, str) or len(body) > 1 << 20:
            raise ValueError("not hex digits")
        return int(body, 16)
    if kind == "bytes":
        return bytes.fromhex(body)
    if not isinstance(body, list):
        raise ValueError("not a list")
    if kind == "complex":
        real, imag = body
        return complex(float(real), float(imag))
    if kind == "dict":
        return {untagged(k, depth + 1): untagged(v, depth + 1) for k, v in body}
    items = [untagged(item, depth + 1) for item in body]
    return {"tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)


def load(text: str) -> Any:
    try:
        return untagged(json.loads(text, parse_int=_small_int))
    except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
        raise BadValue(str(err)[:200]) from None
