"""File bytes as lines, decoded once, with every terminator and the BOM kept.

A ``Text`` splits content into lines and keeps each line's own terminator
(``"\\n"``, ``"\\r\\n"`` or ``""`` for a last line without one), so mixed line
endings survive an edit line by line and ``encode()`` gives back the same bytes.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

BOM = b"\xef\xbb\xbf"


class NotText(Exception):
    """Content that is binary (NUL bytes) or not UTF-8."""

    def __init__(self, reason: str, guess: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason  # "binary" or "not-utf8"
        self.guess = guess  # likely encoding, when one can be named


@dataclass(frozen=True, slots=True)
class Text:
    lines: tuple[str, ...]  # without terminators
    eols: tuple[str, ...]  # one per line; the last may be ""
    bom: bool = False

    @property
    def final_newline(self) -> bool:
        return not self.eols or self.eols[-1] != ""

    def dominant_eol(self) -> str:
        crlf = self.eols.count("\r\n")
        lf = self.eols.count("\n")
        return "\r\n" if crlf > lf else "\n"

    def encode(self) -> bytes:
        n = len(self.eols)
        lf = self.eols.count("\n")
        if n and lf == n:  # every line ends in LF: one join, no string per line
            body = "\n".join(self.lines) + "\n"
        elif n and lf == n - 1 and self.eols[-1] == "":
            body = "\n".join(self.lines)
        else:
            body = "".join(map(operator.add, self.lines, self.eols))
        return (BOM if self.bom else b"") + body.encode("utf-8")


def guess_encoding(data: bytes) -> str | None:
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - declared dependency
        return None
    best = from_bytes(data[:65536]).best()
    return best.encoding if best is not None else None


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8000] or b"\x00" in data[-8000:]


def decode(data: bytes) -> Text:
    """Decode file bytes; raise NotText for binary or non-UTF-8 content."""
    if is_binary(data):
        raise NotText("binary")
    bom = data.startswith(BOM)
    if bom:
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotText("not-utf8", guess_encoding(data)) from None
    return split(text, bom)


def decode_or_none(data: bytes | None) -> Text | None:
    """`decode`, with None for absent, binary or non-UTF-8 content."""
    if data is None:
        return None
    try:
        return decode(data)
    except NotText:
        return None


def split(text: str, bom: bool = False) -> Text:
    # Only LF ends a line, as for git; a CR before it makes the terminator CRLF.
    # (str.splitlines knows too many separators: form feed, U+2028, lone CR...)
    parts = text.split("\n")
    last = parts.pop()
    if "\r" not in text:  # the common case, without a per-line Python loop
        eols = ["\n"] * len(parts)
    else:
        eols = []
        for i, part in enumerate(parts):
            if part.endswith("\r"):
                parts[i] = part[:-1]
                eols.append("\r\n")
            else:
                eols.append("\n")
    if last:
        parts.append(last)
        eols.append("")
    return Text(tuple(parts), tuple(eols), bom)
