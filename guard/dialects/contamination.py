"""Known contamination of an agent's edit: what the dialect parsers should not have to know.

Agents paste things into their edits that belong to the transport or to an earlier
tool's output.  Each is repaired here only when the repair is unambiguous, and is
then reported as a named repair; otherwise the edit goes on as written and fails
(or is refused) where it would have anyway.  No I/O: text in, text or EditSet out.

- **Reasoning before the answer** (:func:`answer`): a closed ``<think>``,
  ``<thinking>`` or ``<reasoning>`` block in the prose before the first fence or
  edit marker is blanked out, with any draft patch inside it (its lines stay, empty,
  so line numbers in messages still point into the input).  Not a repair: the
  edit itself is unchanged, as for any prose around it.
- **Mixed dialects** (:func:`mixed`): the first marker line of each dialect
  (``diff --git`` / ``---``+``+++``+``@@``, ``*** Begin Patch``,
  ``<<<<<<< SEARCH``, ``[PATH#TAG]``), skipping lines inside another dialect's
  block (a hunk body, a Codex envelope, a SEARCH/REPLACE block), so a diff of a
  file that quotes a Codex patch is still one dialect.  Two dialects in one
  input are refused (``dialects.parse``): half of the reply would be dropped.
- **Line-number prefixes** (:func:`line_numbers`, on the parsed EditSet): the
  prefixes read tools put before each line, copied into the text to find::

      ARROW   "    12→text"      Claude Code's Read display (any padding)
      TAB     "    12\\ttext"    cat -n, nl, Read: right-aligned, padded, then a TAB
      COLON   "12:text"          git agent-read

  The old side of a change (a hunk's context and removed lines, a SEARCH
  section, a str_replace ``old``) is stripped only when *every* line carries
  the same prefix and the numbers are consecutive (TAB: also one padded width,
  as cat -n writes it; ``12\tx`` rows are a file's own tab-separated data).
  The new side is stripped with it when every added line carries the prefix
  too (consecutive within each run), kept when none does, refused when some do.
  ARROW and padded TAB are shapes no source file has, so that suffices; a file
  may well hold ``12:x`` lines (YAML, fixtures of read output), so COLON is
  stripped only with evidence: the new side is non-empty and unnumbered (the
  agent wrote fresh text under pasted numbers), and the old side does not read
  as a YAML mapping (``N: value`` on every line).  An insertion with no old
  side is stripped only in ARROW shape; a whole-file write when ARROW or TAB
  numbers every line from 1.  ARROW numbers on some old lines only are refused
  with a hint: which text was meant cannot be told.  Reported as ``line-numbers``.
- **A patch inside JSON** (:func:`clean`, only for input no dialect could read):
  a diff, Codex patch or SEARCH/REPLACE reply sent as a JSON string
  (``"--- a/x\\n+++ b/x\\n..."``), a field of a JSON object (``{"patch": ...}``,
  ``{"diff": ...}``, a tool call's arguments), or as one line of ``\\n``
  escapes, is unwrapped when exactly one such string is found.  Reported as
  ``escape``.
- **A numbered paste of the whole edit** (:func:`clean`, same condition): every
  line of the input (or of a fence) numbered consecutively, in any of the three
  shapes; the numbers go.  Reported as ``line-numbers``.

Unified-diff headers inside a Codex envelope are the Codex parser's to drop
(guard/dialects/codex.py, ``_skip_diff_headers``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..model import (
    ADDED,
    Change,
    EditSet,
    FileEdit,
    Hunk,
    HunkLine,
    ParseError,
    Replace,
)
from ..text.regex import lazy

LINE_NUMBERS = "line-numbers"
ESCAPE = "escape"

# ---------------------------------------------------------------- reasoning

_REASONING = lazy(r"^[ \t]*<(think|thinking|reasoning)>", re.MULTILINE)
_EDIT_START = lazy(r"^(?:[ \t]*(?:`{3,}|~{3,}|<{5,9} SEARCH|\*\*\* Begin Patch)|diff --git |--- |@@ )", re.MULTILINE)


def answer(text: str) -> str:
    """`text` without the closed reasoning blocks that come before its first edit marker."""
    if "<think" not in text and "<reasoning>" not in text:
        return text  # a substring search: far cheaper than the line-start pattern on a big diff
    while True:
        found = _REASONING().search(text)
        if found is None or _EDIT_START().search(text, 0, found.start()):
            return text
        close = text.find(f"</{found.group(1)}>", found.end())
        if close < 0:
            return text  # never closed: which part is the answer cannot be told
        end = close + len(found.group(1)) + 3
        # Blank lines in its place keep every later line's number, which messages quote.
        text = text[: found.start()] + "\n" * text.count("\n", found.start(), end) + text[end:].lstrip(" \t")


# ---------------------------------------------------------------- mixed dialects

_QUICK = {
    "unified": lazy(r"\n(?:diff --git |--- [^\n]*\n\+\+\+ |@@ -\d)"),
    "codex": lazy(r"\n[ \t]*\*\*\* Begin Patch"),
    "search-replace": lazy(r"\n[ \t]*<{5,9} SEARCH"),
    "hashline": lazy(r"\n[ \t]*\[[^\[\]\n]+#[0-9a-fA-F]{4,40}\][ \t\r]*\n"),
}
_SEARCH = lazy(r"<{5,9} SEARCH>?")
_DIVIDER = lazy(r"={5,9}")
_REPLACE = lazy(r">{5,9} REPLACE")
_HASHLINE_HEADER = lazy(r"\[[^\[\]]+#[0-9a-fA-F]{4,40}\]")
_NUMBERED_HUNK = lazy(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_BEGIN, _END = "*** Begin Patch", "*** End Patch"
_WS = " \t\r\ufeff"


def mixed(text: str) -> list[tuple[str, int, str]]:
    """(dialect, 1-based line, line) of the first marker of each dialect found, in input order.

    More than one entry means the input mixes dialects.  Lines inside a hunk body,
    a Codex envelope or a SEARCH/REPLACE block are content, not markers.
    """
    padded = "\n" + text
    if sum(1 for quick in _QUICK.values() if quick().search(padded)) < 2:
        return []  # one dialect's markers at most: the common case, decided without a scan
    lines = text.split("\n")
    found: dict[str, tuple[str, int, str]] = {}
    state = ""  # the body the line is in: "codex", "search", "replace", "hunk"; "" for none
    for i, line in enumerate(lines):
        bare = line.strip(_WS)
        inside = _inside(state, line, bare)
        if inside is not None:
            state = inside
            continue
        dialect, state = _marker(lines, i, line, bare, "unified" in found)
        if dialect and dialect not in found:
            found[dialect] = (dialect, i + 1, lines[i].rstrip("\r"))
    return sorted(found.values(), key=lambda entry: entry[1])


def _inside(state: str, line: str, bare: str) -> str | None:
    """The state after `line` when it is content of the body `state` names (a Codex envelope, a
    SEARCH/REPLACE block's halves, a hunk body); None when it is outside every body."""
    if state == "codex":
        return "" if bare == _END else state
    if state == "search":
        return "replace" if _DIVIDER().fullmatch(bare) else state
    if state == "replace":
        return "" if _REPLACE().fullmatch(bare) or _DIVIDER().fullmatch(bare) else state
    if state == "hunk" and (line[:1] in (" ", "+", "-", "\\") or bare == ""):
        return state
    return None


def _marker(lines: list[str], i: int, line: str, bare: str, unified_seen: bool) -> tuple[str, str]:
    """The dialect whose marker line i is ("" for none), and the body it opens ("" for none)."""
    if bare == _BEGIN:
        return "codex", "codex"
    if _SEARCH().fullmatch(bare):
        return "search-replace", "search"
    if line.startswith("diff --git "):
        return "unified", ""
    if line.startswith("--- ") and i + 2 < len(lines) and lines[i + 1].startswith("+++ "):
        k = i + 2
        while k < len(lines) and not lines[k].strip(_WS):
            k += 1
        return ("unified" if k < len(lines) and lines[k].startswith("@@") else ""), ""
    if line.startswith("@@") and (unified_seen or _NUMBERED_HUNK().match(line)):
        return "unified", "hunk"
    if _HASHLINE_HEADER().fullmatch(bare):
        return "hashline", ""
    return "", ""


# ---------------------------------------------------------------- line-number prefixes

ARROW, TAB, COLON = "arrow", "tab", "colon"
_PREFIX = {
    ARROW: lazy(r"( *)(\d{1,9})\u2192"),
    TAB: lazy(r"( *)(\d{1,9})(?:\t|(?=\r?$))"),  # an editor may have trimmed the TAB of an empty line
    COLON: lazy(r"()(\d{1,9}):"),
}
_MAYBE = lazy(r" *\d")  # how every prefix starts
_ARROW_SIGN = "\u2192"
_YAML_VALUE = lazy(r"(?: \S.*)?")  # what follows `N:` in a YAML mapping line: nothing, or one space


def _prefix(line: str, style: str) -> tuple[int, int, str] | None:
    """(number, width of the padded number, rest of the line) when `line` carries `style`'s prefix."""
    m = _PREFIX[style]().match(line)
    if m is None:
        return None
    return int(m.group(2)), len(m.group(1)) + len(m.group(2)), line[m.end() :]


def _strip_run(lines: Sequence[str], style: str, first: int | None = None) -> list[str] | None:
    """`lines` without their `style` prefixes, when every line has one and the numbers count up by one."""
    if not lines:
        return None
    rests: list[str] = []
    widths: set[int] = set()
    expect = first
    for line in lines:
        got = _prefix(line, style)
        if got is None or (expect is not None and got[0] != expect):
            return None
        expect = got[0] + 1
        widths.add(got[1])
        rests.append(got[2])
    # cat -n right-aligns its numbers: one width, padded.  `12\tx` rows are more
    # likely a file's own tab-separated data than a paste.
    if style == TAB and (len(widths) != 1 or not any(line.startswith(" ") for line in lines)):
        return None
    return rests


def _block_style(lines: Sequence[str]) -> tuple[str, list[str]] | None:
    for style in (ARROW, TAB, COLON):
        stripped = _strip_run(lines, style)
        if stripped is not None:
            return style, stripped
    return None


def _carries(line: str, style: str) -> bool:
    return _prefix(line, style) is not None


def _rest(line: str, style: str) -> str:
    """`line` after its `style` prefix, or `line` when it has none."""
    got = _prefix(line, style)
    return line if got is None else got[2]


def _yaml_like(rests: Sequence[str]) -> bool:
    return all(_YAML_VALUE().fullmatch(rest.rstrip("\r")) for rest in rests)


def _partial(lines: Sequence[str], line: int, path: str, where: str) -> ParseError:
    shown = next((ln for ln in lines if any(_carries(ln, style) for style in (ARROW, TAB))), lines[0] if lines else "")
    return ParseError(
        f"{where} of the edit of {path} at input line {line} has line-number prefixes on some lines only: {shown[:80]!r}",
        line,
        "those numbers come from a read tool's output, not from the file: copy each line's text without "
        "its 'N\u2192' or 'N<TAB>' prefix, on every line, and send the edit again",
        path,
    )


def _new_side(runs: list[list[str]], style: str, line: int, path: str) -> list[list[str]]:
    """The added runs stripped (every line numbered) or as written (none numbered); else a refusal."""
    flat = [text for run in runs for text in run]
    carrying = sum(1 for text in flat if _carries(text, style))
    if carrying == 0:
        return runs
    stripped = [_strip_run(run, style) if run else [] for run in runs]
    if carrying == len(flat) and all(s is not None for s in stripped):
        return [s for s in stripped if s is not None]
    raise _partial(flat, line, path, "the new text")


def _runs(lines: Sequence[HunkLine]) -> list[list[str]]:
    """Consecutive added lines, run by run."""
    runs: list[list[str]] = []
    previous = ""
    for hl in lines:
        if hl.tag == ADDED:
            if previous != ADDED:
                runs.append([])
            runs[-1].append(hl.text)
        previous = hl.tag
    return runs


def _evidence(style: str, old_rests: Sequence[str], new_lines: Sequence[str]) -> bool:
    """Whether numbers of `style` on the old side are a paste rather than the file's own text."""
    if style != COLON:
        return True  # no source file has these shapes
    fresh = bool(new_lines) and not any(_carries(text, COLON) for text in new_lines)
    return fresh and not _yaml_like(old_rests)


def _hunk(h: Hunk, path: str) -> Hunk:
    old = [hl.text for hl in h.lines if hl.tag != ADDED]
    if old and not _MAYBE().match(old[0]):  # the common case, decided on one line
        if any(_ARROW_SIGN in text for text in old) and any(_carries(text, ARROW) for text in old):
            raise _partial(old, h.source_line, path, "the text to find")
        return h
    runs = _runs(h.lines)
    added = [text for run in runs for text in run]
    found = _block_style(old)
    if found is None:
        if not old and added:
            stripped = [_strip_run(run, ARROW) for run in runs]
            if all(s is not None for s in stripped):
                texts = iter(text for s in stripped if s is not None for text in s)
                return h._replace(lines=tuple(HunkLine(hl.tag, next(texts)) for hl in h.lines))
        if any(_carries(text, ARROW) for text in old):
            raise _partial(old, h.source_line, path, "the text to find")
        return h
    style, old_rests = found
    if not _evidence(style, old_rests, added):
        return h
    new_runs = _new_side(runs, style, h.source_line, path)
    olds, news = iter(old_rests), iter(text for run in new_runs for text in run)
    lines = tuple(HunkLine(hl.tag, next(news) if hl.tag == ADDED else next(olds)) for hl in h.lines)
    anchors = tuple(_rest(a, style) for a in h.anchors)
    return h._replace(lines=lines, anchors=anchors)


def _split(text: str) -> tuple[list[str], str]:
    """Lines of a str_replace string, and the terminator that ends it ("\\n" or "")."""
    if text.endswith("\n"):
        return text[:-1].split("\n"), "\n"
    return text.split("\n"), ""


def _replace(r: Replace, path: str) -> Replace:
    old, old_end = _split(r.old)
    found = _block_style(old)
    if found is None:
        if any(_carries(text, ARROW) for text in old):
            raise _partial(old, r.source_line, path, "the text to find")
        return r
    style, old_rests = found
    new, new_end = _split(r.new) if r.new else ([], "")
    if not _evidence(style, old_rests, new):
        return r
    new_runs = _new_side([new], style, r.source_line, path)
    new_text = "\n".join(new_runs[0]) + new_end if r.new else ""
    return r._replace(old="\n".join(old_rests) + old_end, new=new_text)


def _content(content: str) -> str:
    lines, end = _split(content)
    for style in (ARROW, TAB):
        stripped = _strip_run(lines, style, first=1)
        if stripped is not None:
            return "\n".join(stripped) + end
    return content


def _change(change: Change, path: str) -> Change:
    if isinstance(change, Hunk):
        return _hunk(change, path)
    if isinstance(change, Replace):
        return _replace(change, path)
    return change  # LineRange and Snippet carry no pasted old text


def _file(fe: FileEdit) -> FileEdit:
    changes = tuple(_change(c, fe.path) for c in fe.changes)
    content = _content(fe.content) if fe.content else fe.content
    if changes == fe.changes and content == fe.content:
        return fe
    return fe._replace(changes=changes, content=content)


def line_numbers(edits: EditSet) -> EditSet:
    """`edits` with pasted line-number prefixes stripped (see the module doc), the repair
    named; ParseError when some lines of a change carry ARROW numbers and others do not."""
    files = tuple(_file(fe) for fe in edits.files)
    if files == edits.files:
        return edits
    return edits._replace(files=files, repairs=tuple(dict.fromkeys(edits.repairs + (LINE_NUMBERS,))))


# ---------------------------------------------------------------- failure path

_SEARCH_LINE = lazy(r"^[ \t]*<{5,9} SEARCH", re.MULTILINE)
_MAX_DEPTH = 8


def _is_edit(text: str) -> bool:
    from . import fences  # here and below: only input no dialect could read is looked at this way

    return fences.looks_like_patch(text) or _SEARCH_LINE().search(text) is not None


def _edit_strings(value: object, depth: int = 0) -> Iterator[str]:
    """Strings inside a JSON value that hold a patch or SEARCH/REPLACE blocks."""
    from .. import jsonvalue  # here and in `unwrapped`: only input in JSON is read as JSON

    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        if _is_edit(value):
            yield value
        elif value.lstrip()[:1] in ("{", "["):  # a tool call's "arguments" string
            try:
                yield from _edit_strings(jsonvalue.loads(value), depth + 1)
            except ValueError:
                return
    elif isinstance(value, list):
        for item in value:
            yield from _edit_strings(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _edit_strings(item, depth + 1)


def unwrapped(text: str) -> str | None:
    """The one patch held in JSON (the input, or a fence of it), or in a line of escapes."""
    from .. import jsonvalue
    from . import fences

    stripped = text.strip()
    candidates = [stripped] + [f.body.strip() for f in fences.extract(text)]
    for candidate in candidates:
        if candidate[:1] not in ('"', "{", "["):
            continue
        try:
            value = jsonvalue.loads(candidate)
        except ValueError:
            continue
        found = list(dict.fromkeys(_edit_strings(value)))
        return found[0] if len(found) == 1 else None  # several patches: which one is meant?
    if "\n" not in stripped and "\\n" in stripped:
        try:
            inner = jsonvalue.loads(f'"{stripped}"')
        except ValueError:
            return None
        return inner if isinstance(inner, str) and _is_edit(inner) else None
    return None


def _denumbered(lines: list[str]) -> list[str] | None:
    body = lines[:-1] if lines and lines[-1] == "" else lines
    for style in (ARROW, TAB, COLON):
        stripped = _strip_run(body, style)
        if stripped is not None:
            return stripped + lines[len(body) :]
    return None


def numbered_paste(text: str) -> str | None:
    """`text` without its line numbers, when every line of it, or of one of its fences,
    is numbered consecutively; else None."""
    from . import fences

    lines = text.split("\n")
    whole = _denumbered(lines)
    if whole is not None:
        return "\n".join(whole)
    changed = False
    for fence in reversed(fences.extract(text)):  # from the end, so earlier line indexes hold
        if fence.closer_line is None or not fence.body:
            continue
        start, stop = fence.start_line - 1, fence.closer_line - 1
        inner = _denumbered(lines[start:stop])
        if inner is not None:
            lines[start:stop] = inner
            changed = True
    return "\n".join(lines) if changed else None


def clean(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` with the contamination of an unreadable input repaired, and the repairs' names.

    For input no dialect could read: a patch unwrapped from JSON (``escape``), then
    a numbered paste denumbered (``line-numbers``).  Nothing found: (text, ()).
    """
    repairs: list[str] = []
    inner = unwrapped(text)
    if inner is not None:
        text = inner
        repairs.append(ESCAPE)
    plain = numbered_paste(text)
    if plain is not None:
        text = plain
        repairs.append(LINE_NUMBERS)
    return text, tuple(repairs)
