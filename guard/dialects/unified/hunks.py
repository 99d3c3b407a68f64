"""The hunks of a unified diff: their headers, and their bodies, whose lines decide the counts.

See the module doc of ``guard.dialects.unified`` (Counts, ``old_start``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...bounds import LINE
from ...model import ADDED, CONTEXT, REMOVED, Hunk, HunkLine, ParseError
from ...text.regex import lazy

_MAX_NUMBER = int(LINE.high) + 1  # git's own limit: numbers and counts below 2**31
HINT_HUNK = (
    "a hunk header is `@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@` (a count of 1 may be "
    "left out), or `@@ @@` when the line numbers are unknown"
)


@dataclass(frozen=True, slots=True)
class Range:
    """A hunk header as written; None where it gave no number."""

    old_start: int | None
    old_count: int | None
    new_start: int | None
    new_count: int | None


_HUNK_RE = lazy(r"@@[ \t]*-(\d+)(?:,(\d+))?[ \t]+\+(\d+)(?:,(\d+))?[ \t]*(?:@@.*)?$")
_BARE_HUNK_RE = lazy(r"@@[ \t]*(?:\.\.\.|\u2026|-\?[ \t]*\+\?)?[ \t]*(?:@@.*)?$")


def _number(digits: str | None, lineno: int, header: str) -> int:
    if digits is None:
        return 1
    if len(digits) > 10 or int(digits) >= _MAX_NUMBER:
        raise ParseError(
            f"line {lineno}: number {digits[:30]} in hunk header {header[:80]!r} is too large",
            lineno,
            f"line numbers and counts must be below {_MAX_NUMBER}; {HINT_HUNK}",
        )
    return int(digits)


def hunk_header(header: str, lineno: int) -> Range:
    found = _HUNK_RE().match(header)
    if found:
        a, b, c, d = (_number(g, lineno, header) for g in found.group(1, 2, 3, 4))
        return Range(a, b, c, d)
    if _BARE_HUNK_RE().match(header):
        return Range(None, None, None, None)
    raise ParseError(f"line {lineno}: unreadable hunk header {header[:80]!r}", lineno, HINT_HUNK)


def is_blank(line: str) -> bool:
    return line == "" or line == "\r"


def _is_file_header(lines: list[str], j: int, counts_want_more: bool) -> bool:
    """Line j starts a `---`/`+++` file header rather than being a `-` body line."""
    if not lines[j].startswith("--- ") or j + 1 >= len(lines) or not lines[j + 1].startswith("+++ "):
        return False
    if j + 2 < len(lines) and lines[j + 2].startswith("@@"):
        return True
    return not counts_want_more


def _continues_hunk(lines: list[str], k: int) -> bool:
    first = lines[k][:1]
    if first == "-":
        return not _is_file_header(lines, k, False)
    return first in ("+", " ", "\\") and first != ""


def _is_separator(lines: list[str], j: int) -> bool:
    """A dash-only line closing the text (`-- ` mail signature, markdown `---`), not a removal."""
    text = lines[j].rstrip("\r ")
    if len(text) < 2 or text.strip("-"):
        return False
    return j + 1 >= len(lines) or lines[j + 1][:1] not in (" ", "+", "-", "\\")


@dataclass(frozen=True, slots=True)
class _Read:
    hunk: Hunk
    end: int  # index of the first line after the hunk
    recounted: bool


# Body lines shorter than this are shared between hunks: most short lines of code
# ("", "}", "    return x") repeat, and a HunkLine costs more than a dict lookup.
_SHARE_BELOW = 48


def _blanks_taken(lines: list[str], j: int, want_old: int, want_new: int, changed: bool) -> tuple[int, bool]:
    """Blank lines from j that belong to the hunk (as empty context), and whether it goes on.

    `want_old`/`want_new` are the lines the header still asks for (negative: no counts);
    `changed`: the hunk has a removed or added line so far.
    """
    k = j + 1
    while k < len(lines) and is_blank(lines[k]):
        k += 1
    run = k - j
    if k < len(lines) and _continues_hunk(lines, k):
        return run, True
    # Trailing blanks: kept only when the counts call for exactly them (a last
    # context line that lost its space), never to pad counts that are off anyway,
    # nor to make a hunk of a header followed by an empty line.
    if changed and want_old == want_new and 0 < want_old <= run:
        return want_old, False
    return 0, False


def read_hunk(lines: list[str], i: int, rng: Range, label: str, shared: dict[str, HunkLine], unterminated: bool = False) -> _Read:
    """Read the body of the hunk whose header is lines[i]; the body decides the counts."""
    n = len(lines)
    body: list[HunkLine] = []
    append, lookup, make, share_below = body.append, shared.get, HunkLine, _SHARE_BELOW
    old = new = 0
    old_cut = new_cut = marked = False  # `\\ No newline` after a line of that side
    changed = False
    counted = rng.old_count is not None and rng.new_count is not None
    want_old = rng.old_count if rng.old_count is not None else -1
    want_new = rng.new_count if rng.new_count is not None else -1
    resume = j = i + 1  # the loop skips up to `resume` after taking blank lines
    for j in range(i + 1, n):
        if j < resume:
            continue
        line = lines[j]
        first = line[:1]
        if first == " " or first == "+" or first == "-":
            if first == "-":
                if line.startswith("--") and _dashes_end_hunk(lines, j, counted, want_old - old, want_new - new):
                    break
                old += 1
                changed = True
            elif first == "+":
                new += 1
                changed = True
            else:
                old += 1
                new += 1
            short = len(line) < share_below
            item = lookup(line) if short else None
            if item is None:
                item = make(first, line[1:])
                if short:
                    shared[line] = item
            append(item)
        elif first == "\\":
            if body:
                tag = body[-1].tag
                old_cut = old_cut or tag != ADDED
                new_cut = new_cut or tag != REMOVED
                marked = True
        elif is_blank(line):
            more_old, more_new = (want_old - old, want_new - new) if counted else (-1, -1)
            take, goes_on = _blanks_taken(lines, j, more_old, more_new, changed)
            body.extend(make(CONTEXT, blank) for blank in lines[j : j + take])
            old += take
            new += take
            resume = j + take
            if not goes_on:
                j = resume
                break
        else:
            if not (counted and old == want_old and new == want_new):
                _refuse_lost_prefix(lines, i, j, label)
            break
    else:
        j = max(n, resume)
        if unterminated:
            _check_not_cut_off(n, rng, old, new, label)
    _check_body(lines, i, j, body, label)
    return _Read(
        Hunk(
            lines=tuple(body),
            old_start=_old_start(rng, old),
            declared_old=rng.old_count,
            declared_new=rng.new_count,
            at_eof=marked,
            old_eof_newline=not old_cut,
            new_eof_newline=not new_cut,
            source_line=i + 1,
        ),
        j,
        counted and (old != want_old or new != want_new),
    )


def _check_not_cut_off(n: int, rng: Range, old: int, new: int, label: str) -> None:
    """A hunk short of its counts at the very end of an input whose last line has no line
    break: a paste that was cut off, not a miscount (a recount would apply half of it)."""
    if rng.old_count is None or rng.new_count is None or not n:
        return
    if old < rng.old_count or new < rng.new_count:
        raise ParseError(
            f"line {n}: the input ends inside the hunk for {label} ({old} of {rng.old_count} old lines, "
            f"{new} of {rng.new_count} new lines) without a final line break: it looks cut off",
            n,
            "send the whole patch again",
            label,
        )


def _check_body(lines: list[str], i: int, j: int, body: list[HunkLine], label: str) -> None:
    """A hunk header (line i) must be followed by its lines (the first other line: j)."""
    if body:
        return
    what = "the input ends" if j >= len(lines) else f"line {j + 1} is {head(lines[j])[:60]!r}"
    raise ParseError(
        f"line {i + 1}: hunk for {label} has no body: {what}",
        i + 1,
        "after a hunk header, give its lines, each starting with ' ' (context), '-' (removed) or '+' (added)",
        label,
    )


# Lines that end a hunk as a matter of course (the next header, a fence, a heredoc end).
_STRUCTURE = ("@@", "diff ", "Index: ", "```", "~~~", "=== ", "Binary files ", "GIT binary patch", "EOF")


def _refuse_lost_prefix(lines: list[str], i: int, j: int, label: str) -> None:
    """Line j ends a hunk that still wants lines; if hunk lines follow it, it is a lost prefix.

    Ending the hunk there would silently drop the changes after it, so refuse.
    """
    text = head(lines[j])
    if j + 1 >= len(lines) or text.startswith(_STRUCTURE) or not _continues_hunk(lines, j + 1):
        return
    raise ParseError(
        f"line {j + 1}: {text[:60]!r} inside the hunk for {label} (line {i + 1}) starts with none of "
        "' ', '-', '+', yet hunk lines follow it",
        j + 1,
        "every hunk line starts with ' ' (context, also for an unchanged line that is empty or "
        "indented), '-' (removed) or '+' (added); put back the leading space",
        label,
    )


def _dashes_end_hunk(lines: list[str], j: int, counted: bool, more_old: int, more_new: int) -> bool:
    """Line j starts with `--`: the next file's `---`/`+++` header, or a closing separator?

    A separator is taken as such only when the header's counts are met (or absent):
    a hunk still short of lines may well remove a line `--`.
    """
    if _is_file_header(lines, j, counted and more_old > 0 and more_new > 0):
        return True
    return (not counted or (more_old == 0 and more_new == 0)) and _is_separator(lines, j)


def _old_start(rng: Range, old_lines: int) -> int | None:
    if rng.old_start is None:
        return None
    if rng.old_count == 0 and old_lines == 0:
        return rng.old_start + 1  # `-5,0` inserts after line 5
    return max(rng.old_start, 1)


def head(line: str) -> str:
    """A header line without the CR of a CRLF patch."""
    return line[:-1] if line.endswith("\r") else line
