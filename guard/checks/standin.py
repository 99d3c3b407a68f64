"""Stand-ins: code an edit removes, with only lines that are not code put in its place.

A model that elides code deletes real lines and leaves where they were a line that does
no work: a comment (``# old loop``, ``// --snip--``), a docstring or string statement, a
bare ``...`` or ``pass``, a stub (``todo!()``, ``raise NotImplementedError``,
``panic("TODO")``), an HTML or SQL comment, an empty element (``<li>...</li>``).  Applied
as written, the code is gone, whatever the note says, so the rule judges the shape of
the change and not its words.  It judges the whole edit (every file of it), one changed
region at a time (the lines a region removes and the lines added where they stood):

- a region is a **stand-in** when it removes at least ``MIN_CODE`` lines of code and every
  line it adds is blank, only closes something (``}``, ``end``, ``</ul>``), or does no
  work (the kinds above; at least one such line);
- it is not one when the removed code is still written in the edit: **moved** (most of its
  lines are among the lines the edit adds, in any file), **commented out** (the new
  lines, or a block comment they open, hold it), or when every note it adds was already
  there (an old comment reworded beside a deletion);
- nor, unless its note points at where the code still is (``unchanged``, ``as before``,
  ``see the previous version``, ``rest of``, ``lines 2-7``, an ellipsis: ``points``),
  when the note says **why** the code goes (``no longer needed since the parser rejects
  them``, ``moved to tax.py``: ``gives_reason``), documents the definition right after
  it, or stands where whole definitions were removed (header and all: a deliberate
  deletion, not a body left out).

Code and not-code are told apart by the file's comment and string syntax
(``comments.Spans``); a file whose syntax is not known is not judged here (the phrase
and note rules of ``placeholder`` still are).  The old and new texts are lexed only for a
region that passes a cheap test of its added lines first (``linekind.may_do_nothing``), so an edit that
writes code costs one pass over its regions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..model import FileChange, Finding
from ..text.lookalikes import fold
from ..text.regex import lazy
from ..text.textfile import NotText
from ..tree.diffs import ChangedLines, similar
from . import notes
from .base import quote
from .comments import Spans, Syntax, syntax_for
from .linekind import (
    BLANK,
    CLOSER,
    CLOSES,
    CODE,
    COMMENT,
    DEFINITION,
    DOES_NO_WORK,
    EMPTY,
    MAX_LINE,
    NOTHING,
    RAISES,
    STRING,
    STUB,
    STUB_NAME,
    Lexed,
    line_kind,
    may_do_nothing,
    opens_text,
    width,
)
from .pointers import BRACKETED, ELLIPSIS_NOTE, STRONG, at_text, gives_reason, only_points, points, short_pointer

# Documents, not code: a comment that stands where their text was counts only when it points.
_DOCUMENTS = frozenset(("md", "markdown", "mdx", "rst", "txt", "adoc", "asciidoc", "org"))
MIN_CODE = 2  # lines of code a region must remove: one line replaced by a note is the phrase rules' to judge
MAX_REGION = 2000  # lines a region may add and still be judged (a stand-in is a few lines)
HINT = (
    "write the code in full, or leave those lines out of the edit; to delete code, remove it without "
    "a line in its place (a comment that stays may say why it goes)"
)

_WHAT = {COMMENT: "a comment", STRING: "a string", EMPTY: "a statement that does nothing", STUB: "a stub"}


# --------------------------------------------------------------------------- the rule


def _norm(text: str) -> str:
    return " ".join(text.split())


def _substantial(text: str) -> bool:
    """A line of code that says something by itself (not `}`, `return`, `else:`): worth finding again."""
    t = _norm(text)
    return len(t) >= 8 and not CLOSES().fullmatch(t)


class Edit:
    """What the whole edit adds, for asking whether code a region removes is still written in it."""

    def __init__(self, changes: Sequence[FileChange]) -> None:
        self.changes = changes
        self._added: set[str] | None = None

    def added(self) -> set[str]:
        if self._added is None:
            self._added = {_norm(t) for c in self.changes for _n, t in c.added}
        return self._added


def _share(lines: Sequence[str], pool: set[str]) -> float:
    lines = [_norm(t) for t in lines if _substantial(t)]
    return sum(1 for t in lines if t in pool) / len(lines) if lines else 0.0


def findings(
    change: FileChange,
    regions: list[ChangedLines],
    edit: Edit,
    level: str,
    known: set[int],
    exempt: re.Pattern[str] | None = None,
) -> list[Finding]:
    """`placeholder` findings for the stand-ins among `regions` (the change's, ``changed_lines``), in
    the whole edit `edit` (``known``: lines already reported; `exempt`: the policy's
    ``placeholder_exempt``, lines it matches stand in for nothing)."""
    if change.after is None or not change.removed or not change.added:
        return []
    syntax = syntax_for(change.path)
    if not syntax.lexed:
        return []
    candidates = [r for r in regions if _candidate(r, syntax)]
    out: list[Finding] = []
    if not candidates:
        return out
    try:
        new, old = Lexed(change.after, syntax), Lexed(change.before, syntax)
        for region in candidates:
            if any(n in known for n, _t in region.added):
                continue
            found = _judge(change, region, new, old, edit, level)
            if found is not None and not (exempt is not None and any(exempt.search(t) for _n, t in region.added)):
                out.append(found)
    except NotText:
        return []
    return out


def _candidate(region: ChangedLines, syntax: Syntax) -> bool:
    """The region may be a stand-in, by a look at its lines alone: it removes lines, and of what
    it adds, some line may do no work; beside lines that look like code, a stub, a statement that
    does nothing, or a word that points stands among them (or they are only rewritten headers);
    or a line may point at prose left out (inside a docstring or block comment a line of prose
    looks like anything: the lexer decides)."""
    added = [t for _n, t in region.added if t.strip()]
    gone = sum(1 for _n, t in region.removed if t.strip())
    if not added or len(region.added) > MAX_REGION or not gone:
        return False
    short = "\n".join(t for t in added if len(t) <= MAX_LINE).lower()
    if gone >= MIN_CODE:
        if any(opens_text(t, syntax) for t in added):
            return True  # a docstring or block comment: its middle lines are prose
        could = [may_do_nothing(t, syntax) for t in added]
        if all(could):
            return True
        if any(could) and (
            _HINT().search(short)
            or all(m or DEFINITION().match(t) for t, m in zip(added, could))
            or any(
                m and not t.strip().startswith(syntax.marks) and not CLOSES().fullmatch(t.strip()) for t, m in zip(added, could)
            )
        ):
            return True
    if len(added) > 3:
        return False
    if _PROSE_TRIGGER().search(short):
        return True
    # One line of code gone for a stub or a statement that does nothing (a comment is judged by
    # its words: the phrase rules and the triggers above).
    return all(may_do_nothing(t, syntax) for t in added) and any(not t.strip().startswith(syntax.marks) for t in added)


Line = tuple[int, str, str]  # (line number, kind, what it says)


@dataclass(frozen=True, slots=True)
class _Reading:
    """A region read line by line: the kinds of its new lines, those of its removed lines, the removed
    lines of code no new line rewrites (`code`), the new lines of code (`new_code`), and the lines
    that do no work in the removed code's place."""

    kinds: list[Line]
    removed: list[Line]
    code: list[str]
    new_code: list[str]
    doing_nothing: list[Line]


def _judge(change: FileChange, region: ChangedLines, new: Lexed, old: Lexed, edit: Edit, level: str) -> Finding | None:
    python = syntax_for(change.path).name == "python"
    nsp = new.spans(region.added[-1][0])
    got = _read(change, region, nsp, old, python)
    if got is None:
        return None
    kinds, removed, code, new_code, doing_nothing = got.kinds, got.removed, got.code, got.new_code, got.doing_nothing
    if any(k == STUB for _n, k, _s in doing_nothing):
        if any(RAISES().match(t.strip()) or STUB_NAME().match(t.strip()) for _n, t in region.removed):
            return None  # a failure rewritten (its message, its type): no work lost
    if not code:
        return None if new_code else _pointer_in_prose(change, region, kinds, removed, level)
    if new_code or len(code) < MIN_CODE:
        # New code beside the note, or one line of code gone: whether the note stands for the
        # removed lines or heads the new ones (explains the one line's going) only its shape or its
        # words can say: an ellipsis (`// ... tax ...`, `<li>...</li>`), a stub, a note that only
        # points (`# logging as before`, `[skip check as before]`).
        old_lines = {_norm(t) for _n, t in region.removed}
        numbers = frozenset(n for n, _t in region.added)
        doing_nothing = [
            (n, k, s)
            for n, k, s in doing_nothing
            if _elided(nsp, n - 1, k, s, bool(new_code), numbers) and _norm(nsp.lines[n - 1]) not in old_lines
        ]
        if not doing_nothing:
            return None
    if _still_written(code, kinds, nsp, region, edit):
        return None
    old_notes = _old_notes(change, old.spans(change.removed[-1][0]), python)
    if _stands_in(change.path, nsp, region, code, doing_nothing, old_notes):
        return _finding(change, level, nsp, _shown(doing_nothing, old_notes), code, python)
    return None


def _read(change: FileChange, region: ChangedLines, nsp: Spans, old: Lexed, python: bool) -> _Reading | None:
    """The region read line by line (``_Reading``), or None when nothing in it does no work."""
    kinds = [(n, *line_kind(nsp, n - 1, python)) for n, _t in region.added if n - 1 < len(nsp.lines)]
    doing_nothing = [(n, k, s) for n, k, s in kinds if k in DOES_NO_WORK]
    pointing = [n for n, k, s in kinds if k == CODE and s and only_points(s)]
    if not doing_nothing and not pointing:
        return None
    osp = old.spans(change.removed[-1][0])
    removed = [(n, *line_kind(osp, n - 1, python)) for n, _t in region.removed if n - 1 < len(osp.lines)]
    # (`continue` and a value thrown away do no work where an edit puts them; where it takes them
    # away, they did: a loop's `continue` skipped the rest of it.)
    code = [osp.lines[n - 1] for n, k, _s in removed if k == CODE or (k == EMPTY and not NOTHING().fullmatch(osp.lines[n - 1]))]
    written = [(n, s) for n, k, s in kinds if k == CODE]
    code, new_code = _unpaired(code, [nsp.lines[n - 1] for n, _s in written])
    if new_code and (pointing or any(s and (short_pointer(s) or only_points(s)) for _n, _k, s in doing_nothing)):
        # A note that points, beside lines that are the removed ones changed (`const rate = ...`
        # given a default) or lines of code whose own comment points (`_ = line  // unchanged`, not
        # a removed line changed, `#else /* c89, etc. */`): the note stands in for the rest.
        pointing = [n for n in pointing if _unpaired(code, [nsp.lines[n - 1]], loose=True)[1]]
        left, rest = _unpaired(code, [nsp.lines[n - 1] for n, _s in written if n not in pointing], loose=True)
        if not rest:
            code, new_code = left, []
            doing_nothing += [(n, COMMENT, s) for n, s in written if n in pointing]
    if not doing_nothing:
        return None  # only lines of code whose comment points, and they are the removed ones, changed
    return _Reading(kinds, removed, code, new_code, doing_nothing)


def _stands_in(
    path: str, nsp: Spans, region: ChangedLines, code: list[str], doing_nothing: list[Line], old_notes: list[str]
) -> bool:
    """The verdict on lines that do no work where code went: a stub, or a note that points at where
    the code still is, stands in for it; a note that explains, heads what follows, rewords an old
    comment, or stands where whole definitions went does not; in a document only a pointer does."""
    note = " ".join(s for _n, k, s in doing_nothing if s)
    explains = gives_reason(note)
    old_text = " ".join(old_notes)
    if explains and len(re.findall(r"[^\W\d_]+", note)) >= 10:
        # In a long note that explains, only the firm pointers point (`placeholder lines` is a reason's).
        pointer = any(m.group().lower() not in fold(old_text).lower() for m in STRONG().finditer(fold(note)))
    else:
        pointer = points(note, old_text)
    if any(k == STUB for _n, k, _s in doing_nothing) or pointer:
        return True
    if path.rsplit(".", 1)[-1].lower() in _DOCUMENTS:
        return False  # a document's comment in place of its text is a marker for tools as often (`<!-- toc -->`)
    notes_only = all(k in (COMMENT, STRING) for _n, k, _s in doing_nothing)
    if notes_only and _kept(note, old_notes):
        return False  # an old comment, reworded or extended, beside a deletion
    return not (explains or (notes_only and (_heads_next(nsp, region, code) or _definitions(code))))


def _shown(lines: list[tuple[int, str, str]], old_notes: list[str]) -> tuple[int, str, str]:
    """The line a finding names: the first stub, else the first note that points at the code,
    else the first line the old text did not hold."""
    old = " ".join(old_notes)
    seen = {_norm(o) for o in old_notes}
    return (
        next((line for line in lines if line[1] == STUB), None)
        or next((line for line in lines if line[2] and points(line[2], old)), None)
        or next((line for line in lines if _norm(line[2]) not in seen), lines[0])
    )


def _finding(change: FileChange, level: str, nsp: Spans, first: tuple[int, str, str], code: list[str], python: bool) -> Finding:
    number, kind, _said = first
    shown = nsp.lines[number - 1]
    what = _WHAT[kind]
    if kind == EMPTY:
        what = f"{quote(shown)}, a statement that does nothing"
    elif kind == STRING and python:
        what = "a docstring" if shown.lstrip().startswith(('"""', "'''")) else "a string"
    lines = f"{len(code)} lines of code" if len(code) != 1 else "1 line of code"
    return Finding(
        "placeholder",
        level,
        change.path,
        number,
        f"the edit removes {lines} here (the first: {quote(code[0], 60)}) and puts only {what} in their place "
        f"({quote(shown, 80)}): applied as written, that code is deleted",
        HINT,
    )


# Words a line that points at prose left out holds one of (a cheap first look, ``_candidate``).
_PROSE_TRIGGERS = (
    "...", "…", "unchang", "same", "rest", "remain", "omit", "elide", "snip", "before", "previous", "original",
    "etc", "see ", "old ", "as it was", "as is", "intact", "untouched", "verbatim", "ditto",
)  # fmt: skip
_PROSE_TRIGGER = lazy("|".join(map(re.escape, _PROSE_TRIGGERS)))
# And what a note beside new code needs one of to stand in for the code removed (``_candidate``).
_HINT = lazy(
    "|".join(map(re.escape, (*_PROSE_TRIGGERS, "exist", "keep", "todo", "fixme", "implement", "restore", "elsewhere", "here")))
)


def _pointer_in_prose(
    change: FileChange, region: ChangedLines, kinds: list[tuple[int, str, str]], removed: list[tuple[int, str, str]], level: str
) -> Finding | None:
    """A region that removes prose (docstring or comment lines) and puts, among the lines of prose
    it writes, one that only points at the rest (``... rest of the docstring unchanged ...``,
    ``Same as before.``, ``[unchanged]``): the removed lines are gone.  (A doctest's ``...`` is
    its own: an ellipsis after a ``>>>`` line is not judged.)"""
    old = [s for _n, k, s in removed if k in (COMMENT, STRING) and s.strip()]
    if not old or any(k not in (COMMENT, STRING, BLANK, CLOSER) for _n, k, _s in kinds):
        return None
    old_text = " ".join(old)
    for n, k, said in kinds:
        if k in (COMMENT, STRING) and only_points(said) and _norm(said) not in {_norm(o) for o in old}:
            if not _stands_alone(said, kinds, n):
                continue  # a line of a paragraph: `unchanged.` ends a sentence the line above began
            if not at_text(said):
                continue  # `Everything else is left unchanged.`: what the code does, documented
            if not points(said, old_text) and notes.elides(said) is None:
                continue  # its pointing words were already there
            gone = [o for o in old if _norm(o) not in {_norm(s) for _m, _k, s in kinds}]
            if not gone:
                return None
            noun = "lines of prose" if len(gone) != 1 else "line of prose"
            return Finding(
                "placeholder",
                level,
                change.path,
                n,
                f"the edit removes {len(gone)} {noun} here (the first: {quote(gone[0], 60)}) and puts in their "
                f"place a line that only points at them ({quote(said, 80)}): applied as written, that text is deleted",
                HINT,
            )
    return None


def _stands_alone(said: str, kinds: list[tuple[int, str, str]], number: int) -> bool:
    """The note at line `number` is a sentence of its own, or wrapped (`[...]`, `(...)`, `... x ...`),
    not the end of one the line above began: it starts with a capital or a bracket or an ellipsis,
    and the line of prose the edit writes above it, if any, ends its sentence."""
    text = said.strip()
    if not text or not (text[0].isupper() or text[0] in "[(<{.…"):
        return False
    above = [s for n, k, s in kinds if n < number and k in (COMMENT, STRING) and s.strip()]
    return not above or above[-1].rstrip().endswith((".", "!", "?", ":"))


def _old_notes(change: FileChange, osp: Spans, python: bool) -> list[str]:
    """What the comments and strings among every line the change removes say (a diff may cut a
    reworded comment away from the code it stood beside)."""
    out = []
    for n, _t in change.removed:
        if n - 1 < len(osp.lines) and osp.pieces(n - 1):
            kind, said = line_kind(osp, n - 1, python)
            if kind in (COMMENT, STRING) and said:
                out.append(said)
    return out


_WORD = lazy(r"\w+")


def _in_new_definition(sp: Spans, i: int, added: frozenset[int]) -> bool:
    """Line `i` lies under a definition the edit adds (the first line above it, shallower, is
    an added definition's header)."""
    depth = width(sp.lines[i])
    k = i - 1
    while k >= 0 and k + 1 in added:
        line = sp.lines[k]
        if line.strip() and width(line) < depth:
            return bool(DEFINITION().match(line))
        k -= 1
    return False


def _elided(sp: Spans, i: int, kind: str, said: str, among_new: bool, added: frozenset[int] = frozenset()) -> bool:
    """Line `i` marks an elision by its shape, or says nothing but that code is left out: a stub; a
    note in brackets or an ellipsis that points, standing alone (in a run of comments it goes on
    with a sentence: `# ... and near MIN ...`); an ellipsis standing alone where it cannot be code
    (`<li>...</li>`; a bare `...` but in Python and C, where it is) or with a note on it that points
    (`...  # unchanged`, `pass  # as before`).  Among new code (`among_new`) a comment that says so
    firmly (`# body unchanged`), not a sentence of prose; where it stands alone, any note that only
    points (`# logging as before`): among new lines a note that says less may head them."""
    line = sp.lines[i]
    if kind == STUB:
        # Beside new code a stub may be the body of a new definition (an abstract method).
        return not among_new or points(said) or not _in_new_definition(sp, i, added)
    if kind == EMPTY:
        if said and (only_points(said.strip(" []()<>{}")) or short_pointer(said)):
            return True
        return ("..." in line or "…" in line) and (sp.syntax.bare_ellipsis or line.strip().startswith("<") or not sp.syntax.code)
    text = said.strip()
    if kind == COMMENT and not any(k == "c" for k, _end in sp.opens(i)):
        return False  # the rest of a comment begun above: a sentence that goes on
    if ELLIPSIS_NOTE().fullmatch(text) and not _among_comments(sp, i):
        # An ellipsis is the mark of an elision: a short label in one stands in (`... existing
        # validation ...`), unless it goes on with a sentence (`... and near MIN ...`).
        inner = text.strip(" .…")
        words = re.findall(r"[^\W\d_]+", inner)
        if not words or words[0].lower() in _GOES_ON:
            return False
        return len(words) <= 6 or points(inner) or notes.elides(inner) is not None
    if BRACKETED().fullmatch(text) and not _among_comments(sp, i):
        inner = text.strip(" []()<>{}")
        return points(inner) or notes.elides(inner) is not None
    if kind == COMMENT and _among_comments(sp, i):
        return False  # a line of a comment of several lines: part of what it explains
    if kind == STRING and not (text[:1].isupper() or text[:1] in "[(<{.…"):
        return False  # a line of a docstring's paragraph, going on with the sentence above
    if among_new:
        # (Quotes, brackets or operators in it: it names code, `Same for the other "methods"`.)
        plain = not re.search(r"[=;$@\\/\"`(){}\[\]<>]", text)
        return kind == COMMENT and plain and notes.elides(text) == notes.FIRM and not text.endswith(".")
    return only_points(text) or short_pointer(text)


_GOES_ON = frozenset("and or but then plus so also which that while".split())


def _among_comments(sp: Spans, i: int) -> bool:
    """The lines with text next to line `i` (before or after) hold only comments."""
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(sp.lines) and not sp.lines[j].strip():
            j += step
        if 0 <= j < len(sp.lines) and not sp.residue(j).strip() and any(k == "c" for k, _t in sp.pieces(j)):
            return True
    return False


def _unpaired(removed: list[str], written: list[str], loose: bool = False) -> tuple[list[str], list[str]]:
    """The removed lines of code no written line rewrites, and the written lines that rewrite
    none (new code).  Only a definition's header is paired (a signature given new types, its body
    left out): other lines written again are a restructuring, and new code.  `loose` (beside a
    note that points): any line that is a changed copy of a removed one (most of its words)."""
    left = list(removed)
    new: list[str] = []
    for line in written:
        if loose or DEFINITION().match(line):
            words = _WORD().findall(line)
            for k, old in enumerate(left):
                same_kind = loose or DEFINITION().match(old)
                if same_kind and _norm(old) != _norm(line) and similar(words, _WORD().findall(old), 0.6):
                    del left[k]
                    break
            else:
                new.append(line)
        else:
            new.append(line)
    return left, new


def _still_written(code: list[str], kinds: list[tuple[int, str, str]], nsp: Spans, region: ChangedLines, edit: Edit) -> bool:
    """The removed code is still in the edit: moved (most of it among the lines the edit adds), or
    commented out (the new lines hold it, or open a block comment that goes on past the region)."""
    if _share(code, edit.added()) >= 0.5:
        return True
    if _share(code, {_norm(s) for _n, _k, s in kinds if s}) >= 0.5:
        return True
    last = region.added[-1][0] - 1
    for n, k, _s in kinds:
        if k == COMMENT and any(kind == "c" and end > last for kind, end in nsp.opens(n - 1)):
            return True  # `/*` opened here and closed below: the lines after it are commented out
    return False


def _kept(note: str, old_notes: list[str]) -> bool:
    """The note is an old one, reworded (most of its words are theirs, in order or not) or extended
    (it holds one)."""
    if not old_notes:
        return False
    words = _WORD().findall(note.lower())
    if not words:
        return False
    plain = " ".join(words)
    old = [" ".join(_WORD().findall(o.lower())) for o in old_notes]
    if any(o and (o in plain or plain in o) for o in old):
        return True
    if similar(words, " ".join(old).split(), 0.6) or any(similar(words, o.split(), 0.6) for o in old):
        return True
    # Reworded more freely: most of its words of some length (not `the`, `a`) are the old notes'.
    mine = {w for w in words if len(w) >= 4}
    theirs = {w for o in old for w in o.split() if len(w) >= 4}
    return len(mine) >= 3 and 2 * len(mine & theirs) >= len(mine)


_DOC_MARKS = ("/**", "///", "//!", "#:", "/*!", "* ", "*/")


def _heads_next(sp: Spans, region: ChangedLines, code: list[str]) -> bool:
    """The note heads the unchanged lines after it, not the ones it stands where: the next line
    with text is at the note's indentation (not shallower: a block that ends after a note had the
    note in place of its rest; not a closing line) and is a definition, or the note is set apart
    from it by a blank line (a section's heading), or is documentation by its syntax (``///``,
    ``/**``), or says more of the code after it than of the code removed."""
    notes = [t for _n, t in region.added if t.strip()]
    j = region.added[-1][0]  # the 0-based index of the line after the region
    apart = False
    while j < len(sp.lines) and not sp.lines[j].strip():
        j, apart = j + 1, True
    if j >= len(sp.lines) or not notes:
        return False
    after = sp.lines[j]
    if width(after) != width(notes[0]) or CLOSES().fullmatch(after.strip()):
        return False
    if apart or DEFINITION().match(after) or notes[0].lstrip().startswith(_DOC_MARKS):
        return True
    said = set(_stems(" ".join(notes)))
    following = set(_stems(" ".join(sp.lines[j : j + 3])))
    removed = set(_stems(" ".join(code)))
    return len(said & removed) < len(said & following)


def _stems(text: str) -> list[str]:
    """The words of `text` (identifiers split at `_` and case changes), cut to five letters."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", text)
    return [w.lower()[:5] for w in words if len(w) >= 3]


def _definitions(code: list[str]) -> bool:
    """Most of the removed lines of code are whole definitions (a header at the outermost
    indentation of the lines, the lines under it, and the lines at its depth that close it or go
    on with it: `) -> u64 {`, `}`): they went header and all, on purpose.  An elision keeps the
    header and leaves out the body."""
    if not code:
        return False
    depth = min(width(t) for t in code)
    covered = 0
    inside = False
    for t in code:
        if width(t) == depth and not t.lstrip().startswith((")", "}", "]", "end")):
            inside = bool(DEFINITION().match(t))
        covered += inside
    return 2 * covered >= len(code)
