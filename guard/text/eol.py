"""The line endings git's checkout gives a file, from its attributes: what a new file is written with.

git keeps text with LF inside and converts on the way out.  Which way a path goes
(``convert_attrs`` in git's convert.c) depends on its ``text`` attribute (or the
older ``crlf``), its ``eol`` attribute, and ``core.autocrlf`` / ``core.eol``:

- ``-text`` (``binary``): written as it is;
- ``text`` (or ``eol`` alone): every line ends as ``eol`` says, else as core.eol;
- ``text=auto``: the same, but only for content git takes for text (no lone CR,
  no NUL, few control characters); other content is written as it is;
- unspecified: ``core.autocrlf=true`` acts as ``text=auto`` with CRLF, ``input``
  as ``text=auto`` with LF, ``false`` (the default) leaves the content alone.

An existing file keeps its own endings (git only converts what it checks out); a new
file, or one with no line end of its own yet, gets what git would check out.
"""

from __future__ import annotations

from typing import Callable

from .regex import lazy
from .textfile import Text

Attr = Callable[[str, str], "str | bool | None"]
Config = Callable[[str], "str | None"]

LF, CRLF = "\n", "\r\n"
_TRUE = ("true", "yes", "on", "1")
# What git's gather_stats counts as non-printable: control characters but BS, TAB, ESC, FF
# (and the line ends, counted apart), and DEL.
_NONPRINTABLE = lazy("[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f\x0b]")


def _action(path: str, attr: Attr, config: Config) -> tuple[str | None, bool]:
    """(the line end checkout writes, or None for "as it is"; whether that holds only for text-looking content)."""
    text = attr(path, "text")
    if text is None:
        legacy = attr(path, "crlf")  # the attribute `text` replaced; `crlf=input` is `eol=lf`
        text = "input" if legacy == "input" else legacy
    if text is False:
        return None, False
    eol = attr(path, "eol")
    autocrlf = (config("core.autocrlf") or "false").lower()
    crlf_default = autocrlf in _TRUE or (autocrlf != "input" and (config("core.eol") or "").lower() == "crlf")
    if text == "input" or eol == "lf":
        return LF, text == "auto"
    if eol == "crlf":
        return CRLF, text == "auto"
    if text is True:
        return (CRLF if crlf_default else LF), False
    if text == "auto":
        return (CRLF if crlf_default else LF), True
    if autocrlf in _TRUE:
        return CRLF, True
    if autocrlf == "input":
        return LF, True
    return None, False


def _looks_binary(text: Text) -> bool:
    """git's test for `text=auto`: a lone CR, a NUL, or one control character per 128 printable ones."""
    printable = nonprintable = 0
    findall = _NONPRINTABLE().findall
    for line in text.lines:
        if "\r" in line or "\x00" in line:
            return True
        bad = len(findall(line))
        nonprintable += bad
        printable += len(line) - bad
    if text.lines and text.lines[-1].endswith("\x1a") and not text.eols[-1]:
        nonprintable -= 1  # a DOS end-of-file mark at the very end is not held against it
    return (printable >> 7) < nonprintable


def as_checked_out(text: Text, path: str, attr: Attr, config: Config) -> tuple[Text, bool]:
    """`text` with the line endings git's checkout would give `path`; and whether any changed."""
    eol, only_text = _action(path, attr, config)
    if eol is None or (only_text and _looks_binary(text)):
        return text, False
    eols = tuple(eol if e else "" for e in text.eols)
    if eols == text.eols:
        return text, False
    return Text(text.lines, eols, text.bom), True
