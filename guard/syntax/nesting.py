"""Where a text nests brackets deepest: the place to point at when a parser gives up on depth."""

from __future__ import annotations

from ..text.regex import lazy

NESTING = 100  # brackets open at once past which `deepest` reports a text (parsers stop at a few hundred)
_BRACKETS = lazy(r"[\[{(]|[\]})]|\n")


def deepest(text: str) -> tuple[int, int]:
    """(line, column), 1-based, where `text` first has `NESTING` brackets open, else where most are.

    Strings and comments are not told apart: a place to point at, for a text a parser gave
    up on for its depth, not a parse.
    """
    depth = most = 0
    line, at, best = 1, 0, (1, 1)
    for m in _BRACKETS().finditer(text):
        ch = m.group()
        if ch == "\n":
            line, at = line + 1, m.end()
        elif ch in "[{(":
            depth += 1
            if depth > most:
                most, best = depth, (line, m.start() - at + 1)
                if depth >= NESTING:
                    break
        else:
            depth = max(depth - 1, 0)
    return best
