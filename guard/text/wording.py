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
# Bidirectional embeddings, overrides and isolates: a terminal or an editor shows the text
# between them reordered, so a line reads as other code than it is ("Trojan Source").
_CONTROL.update({c: f"\\u{c:04x}" for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]})
_DIFF_CONTROL = {k: v for k, v in _CONTROL.items() if k != 0x0D}


def printable(text: str) -> str:
    """`text` safe to print on a terminal: every control character but newline and tab written
    as ``\\xNN``, and bidirectional overrides as ``\\uNNNN``.  A path or a commit subject (the
    agent's, or any committer's) could otherwise move the cursor, erase the line above, retitle
    the window, set the clipboard, or show a line as other text than it holds."""
    return text.translate(_CONTROL)


def one_line(text: str) -> str:
    """`text` (a name) on one line, safe to print: ``printable``, and newlines as ``\\x0a``."""
    return printable(text).replace("\n", "\\x0a")


def printable_diff(text: str) -> str:
    """A diff (lines an agent wrote, or a file's) for a terminal: ``printable``, but the CR of a
    CRLF line end stays as it is (a CR anywhere else returns the cursor over what came before)."""
    out = text.translate(_DIFF_CONTROL)
    if "\r" not in out:
        return out
    return "\n".join(
        line[:-1].replace("\r", "\\x0d") + "\r" if line.endswith("\r") else line.replace("\r", "\\x0d")
        for line in out.split("\n")
    )


CLIP = 160  # characters of a quoted line a message shows (the rest is counted, not printed)


def clip(line: str, width: int = CLIP, at: int = 0) -> str:
    """`line` cut to about `width` characters for a message, from a little before index `at`
    (where it goes wrong: a column, a first difference), with ``...`` where text was left out
    and the length said, so a 60 KB line never reaches a report whole."""
    if len(line) <= width:
        return line
    start = max(0, min(at - width // 4, len(line) - width))
    head = "..." if start else ""
    tail = f"... ({len(line):,} characters)" if start + width < len(line) else f" ({len(line):,} characters)"
    return head + line[start : start + width] + tail


def quoted(line: str, at: int = 0) -> str:
    """A file's line as a message quotes it: made ``visible``, then ``clip``ped."""
    return clip(visible(line), at=at)


def brief(line: str, at: int = 0) -> str:
    """A line quoted in passing, where the exact text is shown elsewhere (a suggested edit's why)."""
    return clip(visible(line), CLIP // 2, at=at)


# The most ``clip`` adds to the `width` characters it keeps of a line: ``...`` before, and after
# ``... (999,999,999,999 characters)``.
_CLIP_ADDS = len("...") + len("... (999,999,999,999 characters)")


def clip_lines(text: str, width: int = 3 * CLIP) -> str:
    """Every line of `text` at most about `width` characters (``clip``): the bound every finding's
    message and hint keep, whatever they quote.  A line no longer than ``clip`` would make it is
    kept as it is, so a text clipped once is not clipped again (a finding made anew by
    ``dataclasses.replace`` keeps the counts its lines said)."""
    bound = width + _CLIP_ADDS
    if len(text) <= bound:
        return text
    return "\n".join(line if len(line) <= bound else clip(line, width) for line in text.split("\n"))
