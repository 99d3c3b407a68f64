"""Small pieces of English every message uses: counts, line spans, text made visible.

One place, so "1 files" and "lines 20-20" cannot come back one message at a time.
"""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1,200 lines``: `n` and the word in the number it takes."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def short_id(oid: str | None) -> str:
    """A commit's id as messages name it: its first 10 hex digits ("" for none)."""
    return oid[:10] if oid else ""


def span(first: int, last: int) -> str:
    """``line 20`` or ``lines 20-24``."""
    return f"line {first}" if first == last else f"lines {first}-{last}"


def visible(text: str, unicode: bool = True) -> str:
    """`text` with what cannot be seen made visible, so a message shows *why* lines differ.

    A tab is ``→``, a trailing space ``·``, a CR ``␍``, and (with `unicode`) anything
    else outside ASCII its code point (``<U+00A0>``); other characters stay as they are.
    """
    cr = "␍" if text.endswith("\r") else ""
    out = text[: len(text) - len(cr)].replace("\t", "→").replace("\r", "␍")
    stripped = out.rstrip(" ")
    if len(stripped) != len(out):
        out = stripped + "·" * (len(out) - len(stripped))
    out += cr
    if not unicode:
        return out
    return "".join(ch if ord(ch) < 128 or ch in "→·␍" else f"<U+{ord(ch):04X}>" for ch in out)


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}


def printable(text: str) -> str:
    """`text` safe to print on a terminal: every control character but newline and tab written
    as ``\\xNN``.  A path or a commit subject (the agent's, or any committer's) could otherwise
    move the cursor, erase the line above, retitle the window or set the clipboard."""
    return text.translate(_CONTROL)

