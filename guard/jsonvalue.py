"""JSON read from an agent (or a file it wrote): every way it can be wrong is a ``JSONDecodeError``.

The standard decoder has three other ways to fail on input nobody checked first:

- 100,000 nested brackets: it recurses once per level (``RecursionError``);
- a number of 5,000 digits: Python will not make an int of more than 4,300 digits
  from text (a plain ``ValueError``);
- ``"\\ud800"``: a lone half of a UTF-16 surrogate pair decodes to a string that no
  UTF-8 writer accepts (the failure comes later, far from the input).

Here the first and last are decode errors, with a message that says what was wrong,
and an overlong integer is read as a float (``inf`` past float's range), so a number
where a string is due is refused for being a number, and one where a number is due
is refused for being out of range.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .text.regex import lazy

_MAX_INT_DIGITS = 4000  # under Python's limit (sys.get_int_max_str_digits(), 4,300 by default)
_SURROGATE = lazy("[\ud800-\udfff]")
_ESCAPED_SURROGATE = lazy(r"\\u[dD][89a-fA-F]")


class LongNumber(float):
    """An integer too long to be made an int (``inf`` or ``-inf``), shown by its length in messages."""

    digits: int

    def __new__(cls, text: str) -> LongNumber:
        number = super().__new__(cls, text)
        number.digits = len(text.lstrip("-"))
        return number

    def __repr__(self) -> str:
        return f"a number of {self.digits:,} digits"


def _number(text: str) -> int | float:
    return int(text) if len(text.lstrip("-")) <= _MAX_INT_DIGITS else LongNumber(text)


_DECODER = json.JSONDecoder(parse_int=_number)


def _lone_surrogate(value: Any) -> str | None:
    """The first string in `value` (keys included) that holds half a surrogate pair."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE().search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def raw_decode(text: str, pos: int = 0) -> tuple[Any, int]:
    """``json.JSONDecoder.raw_decode`` with the failures above made decode errors."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise json.JSONDecodeError(f"nested more than about {sys.getrecursionlimit():,} levels deep", text, pos) from None
    if _ESCAPED_SURROGATE().search(text, pos, end):
        bad = _lone_surrogate(value)
        if bad is not None:
            half = _SURROGATE().search(bad)
            assert half is not None
            at = text.lower().find(f"\\u{ord(half.group()):04x}", pos, end)
            raise json.JSONDecodeError(
                f"\\u{ord(half.group()):04x} is half of a UTF-16 surrogate pair with no other half: "
                "no character (write both halves, e.g. \\ud83d\\ude00, or the character itself)",
                text,
                at if at >= 0 else pos,
            )
    return value, end


def loads(text: str) -> Any:
    """``json.loads`` with the failures above made decode errors."""
    start = len(text) - len(text.lstrip(" \t\n\r"))
    value, end = raw_decode(text, start)
    rest = len(text) - len(text[end:].lstrip(" \t\n\r"))
    if rest != len(text):
        raise json.JSONDecodeError("Extra data", text, rest)
    return value
