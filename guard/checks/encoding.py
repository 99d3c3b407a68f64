"""`binary` and `not-utf8`: agent-guard edits UTF-8 text only.

A file with NUL bytes, or marked binary by gitattributes (``binary``, ``-diff`` or
``-text``), is binary; text that does not decode as UTF-8 (a BOM is fine) is
``not-utf8``, and the message names the encoding it most likely is.
``content_finding`` judges a target file before anything is located in it, so
the engine never writes to such a file; the checks judge the new content.

A commit (``CheckInput.committed``) is judged for what it does to a file: a text
file it makes binary, or text it leaves that is not UTF-8.  A file that was not
UTF-8 text before, a binary file arriving, symbolic links and submodules are not
its doing.
"""

from __future__ import annotations

from ..model import FileChange, Finding
from ..text.textfile import BOM, guess_encoding
from .base import AttrLookup, CheckInput

_UTF16_32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"\xff\xfe", b"\xfe\xff")
# git's modes of a symbolic link and a submodule: a link's target and a submodule's commit are no file's text.
_LINK_MODES = (0o120000, 0o160000)


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
    body = data[len(BOM) :] if data.startswith(BOM) else data
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as e:
        offset = e.start + (len(data) - len(body))
        return f"byte 0x{data[offset]:02x} at line {_line_at(data, offset)} is not UTF-8", guess_encoding(data)
    return None


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _looks(guess: str | None) -> str:
    return f"; it looks like {guess}" if guess and guess.replace("-", "_").lower() not in ("utf_8", "ascii") else ""


def _nul(data: bytes) -> bool:
    # UTF-16 and UTF-32 text is full of NULs; it is text in the wrong encoding, not binary.
    return b"\x00" in data and not data.startswith(_UTF16_32_BOMS)


def content_finding(path: str, data: bytes, attr: AttrLookup, level: str = "error") -> Finding | None:
    """`binary` or `not-utf8` when the file `path` holding `data` is not editable text."""
    mark = marked_binary(path, attr)
    if mark is not None:
        return Finding(
            "binary",
            level,
            path,
            None,
            f"{path} is marked binary in .gitattributes ({mark}); agent-guard edits text files only",
            "leave this file out of the edit; binary files must be changed by other means",
        )
    if _nul(data):
        return Finding(
            "binary",
            level,
            path,
            _line_at(data, data.index(b"\x00")),
            f"{path} is a binary file (it holds NUL bytes); agent-guard edits text files only",
            "leave this file out of the edit; binary files must be changed by other means",
        )
    problem = _utf8_problem(data)
    if problem is not None:
        what, guess = problem
        return Finding(
            "not-utf8",
            level,
            path,
            None,
            f"{path} is not UTF-8 text: {what}{_looks(guess)}",
            f"convert it to UTF-8 first (e.g. `iconv -f {guess or 'ENCODING'} -t utf-8`), or leave it out of the edit",
        )
    return None


def check_binary(inp: CheckInput, level: str) -> list[Finding]:
    if inp.committed is not None:
        return _committed_binary(inp, level)
    findings: list[Finding] = []
    for change in inp.changes:
        if change.after is None:
            continue
        mark = marked_binary(change.path, inp.attr)
        if mark is not None:
            findings.append(
                Finding(
                    "binary",
                    level,
                    change.path,
                    None,
                    f"the edit writes {change.path}, which .gitattributes marks binary ({mark})",
                    "leave this file out of the edit; binary files must be changed by other means",
                )
            )
        elif _nul(change.after):
            at = change.after.index(b"\x00")
            findings.append(
                Finding(
                    "binary",
                    level,
                    change.path,
                    _line_at(change.after, at),
                    f"the new content of {change.path} holds a NUL byte (offset {at}): that is binary, not text",
                    "write text only; remove the NUL bytes (an escape such as \\0 may have been decoded)",
                )
            )
    return findings


def check_utf8(inp: CheckInput, level: str) -> list[Finding]:
    if inp.committed is not None:
        return _committed_utf8(inp, level)
    findings: list[Finding] = []
    for change in inp.changes:
        data = change.after
        if data is None or _nul(data) or marked_binary(change.path, inp.attr) is not None:
            continue  # binary is the other check's business
        problem = _utf8_problem(data)
        if problem is not None:
            what, guess = problem
            findings.append(
                Finding(
                    "not-utf8",
                    level,
                    change.path,
                    None,
                    f"the new content of {change.path} is not UTF-8: {what}{_looks(guess)}",
                    "write the file as UTF-8 text",
                )
            )
    return findings


# --- a commit -------------------------------------------------------------------------------
def _is_text(data: bytes) -> bool:
    return b"\x00" not in data and _utf8_problem(data) is None


def _its_doing(c: FileChange, inp: CheckInput) -> bool:
    """The commit made `c` what it is: it was UTF-8 text before (or is new), and is not marked binary."""
    return (c.before is None or _is_text(c.before)) and marked_binary(c.path, inp.attr) is None


def _committed_binary(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for c in inp.changes:
        if c.after is None or c.before is None or c.new_mode in _LINK_MODES or not _nul(c.after):
            continue  # a binary file arriving (before is None) is fine
        if _its_doing(c, inp):
            line = _line_at(c.after, c.after.index(b"\x00"))
            findings.append(
                Finding(
                    "binary",
                    level,
                    c.path,
                    None,
                    f"{c.path} was text and now holds a NUL byte at line {line}: this change makes it binary",
                    "remove the NUL bytes (an escape such as \\0 may have been written as a raw byte), "
                    f"or mark the file binary in .gitattributes (`{c.path} binary`) if that is intended",
                )
            )
    return findings


def _committed_utf8(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for c in inp.changes:
        data = c.after
        if data is None or c.new_mode in _LINK_MODES or _nul(data):
            continue  # binary is the other check's business
        if inp.blocks.decoded(c):
            continue  # decoded as UTF-8 by whoever primed it (a UTF-16/32 byte-order mark never does)
        guess: str | None
        if data.startswith(_UTF16_32_BOMS):
            what, guess = "it is UTF-16 or UTF-32 text (it starts with that byte-order mark)", "utf-16"
        else:
            problem = _utf8_problem(data)
            if problem is None:
                continue
            what, guess = problem[0] + _looks(problem[1]), problem[1]
        if _its_doing(c, inp):
            findings.append(
                Finding(
                    "not-utf8",
                    level,
                    c.path,
                    None,
                    f"{c.path} is not UTF-8 text: {what}",
                    f"convert it (`iconv -f {guess or 'ENCODING'} -t utf-8`) and stage it again, "
                    f"or mark it binary in .gitattributes (`{c.path} binary`) if it is not text",
                )
            )
    return findings
