"""`binary` and `not-utf8`: agent-guard edits UTF-8 text only.

A file with NUL bytes, or marked binary by gitattributes (``binary``, ``-diff`` or
``-text``), is binary; text that does not decode as UTF-8 (a BOM is fine) is
``not-utf8``, and the message names the encoding it most likely is.
``content_finding`` judges a target file before anything is located in it, so
the engine never writes to such a file; the checks judge the new content.
"""

from __future__ import annotations

from ..model import Finding
from ..textfile import BOM, guess_encoding
from .base import AttrLookup, CheckInput

_UTF16_32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"\xff\xfe", b"\xfe\xff")


def marked_binary(path: str, attr: AttrLookup) -> str | None:
    """Which gitattribute makes `path` binary, if any."""
    if attr(path, "binary") is True:
        return "binary"
    if attr(path, "diff") is False:
        return "-diff"
    if attr(path, "text") is False:
        return "-text"
    return None


def _utf8_problem(data: bytes) -> tuple[str, str | None] | None:
    """(what is wrong, likely encoding) when `data` is not UTF-8 text."""
    if data.startswith(_UTF16_32_BOMS) and not data.startswith(BOM):
        guess = "utf-32" if data[:4] in _UTF16_32_BOMS[:2] else "utf-16"
        return f"it starts with a {guess.upper()} byte-order mark", guess
    body = data[len(BOM):] if data.startswith(BOM) else data
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as e:
        offset = e.start + (len(data) - len(body))
        line = data.count(b"\n", 0, offset) + 1
        return f"byte 0x{data[offset]:02x} at line {line} is not UTF-8", guess_encoding(data)
    return None


def _looks(guess: str | None) -> str:
    return f"; it looks like {guess}" if guess and guess.replace("-", "_").lower() not in ("utf_8", "ascii") else ""


def _nul(data: bytes) -> bool:
    # UTF-16 and UTF-32 text is full of NULs; it is text in the wrong encoding, not binary.
    return b"\x00" in data and not data.startswith(_UTF16_32_BOMS)


def content_finding(path: str, data: bytes, attr: AttrLookup, level: str = "error") -> Finding | None:
    """`binary` or `not-utf8` when the file `path` holding `data` is not editable text."""
    mark = marked_binary(path, attr)
    if mark is not None:
        return Finding("binary", level, path, None,
                       f"{path} is marked binary in .gitattributes ({mark}); agent-guard edits text files only",
                       "leave this file out of the edit; binary files must be changed by other means")
    if _nul(data):
        return Finding("binary", level, path, data.count(b"\n", 0, data.index(b"\x00")) + 1,
                       f"{path} is a binary file (it holds NUL bytes); agent-guard edits text files only",
                       "leave this file out of the edit; binary files must be changed by other means")
    problem = _utf8_problem(data)
    if problem is not None:
        what, guess = problem
        return Finding("not-utf8", level, path, None,
                       f"{path} is not UTF-8 text: {what}{_looks(guess)}",
                       f"convert it to UTF-8 first (e.g. `iconv -f {guess or 'ENCODING'} -t utf-8`), "
                       "or leave it out of the edit")
    return None


def check_binary(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        if change.after is None:
            continue
        mark = marked_binary(change.path, inp.attr)
        if mark is not None:
            findings.append(Finding(
                "binary", level, change.path, None,
                f"the edit writes {change.path}, which .gitattributes marks binary ({mark})",
                "leave this file out of the edit; binary files must be changed by other means"))
        elif _nul(change.after):
            at = change.after.index(b"\x00")
            findings.append(Finding(
                "binary", level, change.path, change.after.count(b"\n", 0, at) + 1,
                f"the new content of {change.path} holds a NUL byte (offset {at}): that is binary, not text",
                "write text only; remove the NUL bytes (an escape such as \\0 may have been decoded)"))
    return findings


def check_utf8(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        data = change.after
        if data is None or _nul(data) or marked_binary(change.path, inp.attr) is not None:
            continue  # binary is the other check's business
        problem = _utf8_problem(data)
        if problem is not None:
            what, guess = problem
            findings.append(Finding(
                "not-utf8", level, change.path, None,
                f"the new content of {change.path} is not UTF-8: {what}{_looks(guess)}",
                "write the file as UTF-8 text"))
    return findings
