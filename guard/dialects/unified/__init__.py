"""Unified diffs: ``git diff``, ``diff -u``/``diff -ru``, and svn/hg/bzr/CVS wrappers.

The grammar below is what this parser accepts.  Lines are split on ``\\n`` only;
a ``\\r`` before it is dropped from header lines and kept in hunk body lines
(the locator decides what it means).  Any line the grammar does not place is
*junk* and is skipped: commit ids, prose, markdown fences, ``Index:``/``====``
wrappers, ``cat > x <<EOF``, mail headers, signatures.

    input     := { junk } section { section | junk }
    section   := git-section | plain-section | binary-line

    git-section := "diff --git " OLD " " NEW
                   { extended }
                   [ "--- " FILE  "+++ " FILE { blank } ]
                   { hunk | junk } | "GIT binary patch" ... | binary-line
    extended  := "old mode " MODE          | "new mode " MODE
               | "new file mode " MODE     | "deleted file mode " MODE
               | "rename from " PATH       | "rename to " PATH
               | "similarity index " N "%" | "dissimilarity index " N "%"
               | "index " HEX ".." HEX [ " " MODE ]
               ("copy from"/"copy to" are refused: a copy is not an edit we apply)

    plain-section := [ "diff " ARGS ] "--- " FILE  "+++ " FILE  { blank }  hunk { hunk | junk }
    binary-line   := "Binary files " FILE " and " FILE " differ"

    FILE      := "/dev/null" | PATH [ TAB annotation | SPACE timestamp ]
    PATH      := text | '"' C-quoted text with \\ooo octal bytes '"'
    MODE      := octal digits, e.g. 100644, 100755, 120000

    hunk      := "@@ -" START [ "," COUNT ] " +" START [ "," COUNT ] " @@" [ section-text ]
                 body
               | "@@" [ " ..." | " -? +?" ] [ " @@" [ section-text ] ]   (no line numbers)
                 body
    body      := line { line }
    line      := " " text | "-" text | "+" text
               | "\\" text        (no newline at end of file after the line before: sets at_eof)
               | blank            (a context line that lost its space)

Meaning:

- Paths.  ``diff --git`` names fix the prefix: ``a/x b/x`` strips one leading
  component (so do any two different prefixes in front of the same rest, e.g.
  ``src://x dst://x``); ``x x`` (``--no-prefix``) strips none.  Outside git, one
  component is stripped when the old name starts ``a/`` and the new ``b/`` (or the
  other side is ``/dev/null``), or after a ``diff -r`` line when the two names
  differ only in their first component; otherwise names are taken as written.
  Timestamps (after a TAB or a space) and svn ``(revision N)`` notes are cut.
  As ``git apply`` reads them, ``diff --git`` names are relative to the top of
  the repository (``PathBase.ROOT``), and other names to the current folder
  unless they already start with its path (``PathBase.GUESS``).
- Ops.  ``/dev/null`` or ``new file mode`` on the old side is a create (its
  content is the ``+`` lines); on the new side, or ``deleted file mode``, a delete
  (its hunks kept, to check the removed text).  Outside git, a lone hunk
  ``-0,0`` creates and a lone ``+0,0`` deletes (svn, bzr, ``diff -N``).
  ``rename from/to`` (or two different ``diff --git`` names) renames; otherwise a
  modify.  For a modify whose two plain names differ, the shorter wins when one
  extends the other (``x.orig`` -> ``x``), else the new name.  Several sections for
  one path merge, in input order.
- Counts.  The header's counts guide the reading but the body decides: a hunk
  ends at a line that is none of the above, at the next ``@@``, ``diff``,
  ``---``+``+++`` file header, ``Index:`` or fence, or at the end.  With the
  counts met (or absent), a dash-only line such as a ``-- `` mail signature or a
  markdown ``---`` that prose or the end follows ends it too.  Blank lines inside
  are empty context; trailing ones are kept only when the counts call for
  exactly them and the hunk has a change.  A line with no prefix, while the
  counts want more and hunk lines follow it, is refused: ending the hunk there
  would drop the changes after it.  Counts that differ from the body are kept in
  ``declared_old/new`` and reported as the ``recount`` repair.
- ``old_start``: ``-5,3`` gives 5; a hunk with no old lines (``-5,0``) gives 6,
  the line the new lines go before; ``@@ @@`` gives None.

Refused (``ParseError`` naming the line): no diff at all, a hunk before any file
header, ``---`` without ``+++``, a file header followed by no hunk, an unreadable
or overflowing hunk header, a hunk with no body, a hunk line that lost its
prefix (see Counts), a bad mode, a copy, names that disagree between
``diff --git``, ``---``/``+++`` and ``rename from/to``, a create with old lines,
a delete with new lines, and two sections that disagree on a path.
"""

from __future__ import annotations

from ...model import ADDED, EditSet, FileEdit, Op, ParseError, PathBase
from ...text.regex import lazy
from .names import DEV_NULL, git_strips, pick, plain_names, strip1
from .sections import HEADS, HINT_HEADER, Section, State, step

NAME = "unified"

_HINT_NAMES = (
    "name the same file in `diff --git a/PATH b/PATH`, in `--- a/PATH`/`+++ b/PATH` and in any "
    "`rename from PATH`/`rename to PATH` lines"
)

# ---------------------------------------------------------------------------- detect

# Each pattern starts with a literal "\n" (matched against "\n" + text) rather than
# `^` with re.M: a literal prefix lets `re` skip ahead fast on a 50 MB input.
_CODEX_RE = lazy(r"\n[ \t]*\*\*\* Begin Patch[ \t]*\r?(?:\n|$)")
_SEARCH_RE = lazy(r"\n<{5,9} SEARCH")
_GIT_RE = lazy(r"\ndiff --git \S")
_PAIR_HUNK_RE = lazy(r"\n--- [^\n]*\n\+\+\+ [^\n]*\n(?:\r?\n)*@@")
_PAIR_RE = lazy(r"\n--- [^\n]*\n\+\+\+ ")
_NUMBERED_HUNK_RE = lazy(r"\n@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def _is_json(text: str) -> bool:
    if text.lstrip()[:1] not in ("{", "["):
        return False
    from ... import jsonvalue  # here: only text that opens like JSON is read as JSON

    try:
        jsonvalue.loads(text)
    except ValueError:
        return False
    return True


def detect(text: str) -> int:
    """Confidence 0..100 that `text` is a unified or git diff."""
    if not text or text.isspace() or _is_json(text):
        return 0
    padded = "\n" + text
    if "SEARCH" in text and _SEARCH_RE().search(padded):
        return 0
    pair_hunk = _PAIR_HUNK_RE().search(padded)
    codex = _CODEX_RE().search(padded) if "*** Begin Patch" in text else None
    # A Codex envelope may quote diff-like lines; a diff may quote a Codex marker
    # as a context line.  Whichever comes first is what the input is.
    if codex and (pair_hunk is None or codex.start() < pair_hunk.start()):
        return 0
    if pair_hunk:
        return 100 if _GIT_RE().search(padded) else 95
    if _GIT_RE().search(padded):
        return 90
    if _PAIR_RE().search(padded):
        return 60
    if _NUMBERED_HUNK_RE().search(padded):
        return 40
    return 0


# ---------------------------------------------------------------------------- FileEdit


def _git_names(sec: Section) -> tuple[str, str]:
    """(old, new) of a git section, prefixes stripped; /dev/null kept as such."""
    renamed = (sec.rename_from, sec.rename_to)
    if (sec.rename_from is None) != (sec.rename_to is None):
        raise ParseError(f"line {sec.line}: `rename from` and `rename to` must come together", sec.line, _HINT_NAMES, sec.label())
    for old, new in sec.header:
        strip = git_strips(old, new)
        names = (strip1(old) if strip else old, strip1(new) if strip else new)
        # Old git wrote `--- x` under `diff --git a/x b/x`: either spelling names the file.
        if sec.old_raw not in (None, DEV_NULL, old, names[0]) or sec.new_raw not in (None, DEV_NULL, new, names[1]):
            continue
        if sec.rename_from is not None and names != renamed:
            continue
        return (DEV_NULL if sec.old_raw == DEV_NULL else names[0], DEV_NULL if sec.new_raw == DEV_NULL else names[1])
    if sec.header:
        given = (
            ("---", sec.old_raw),
            ("+++", sec.new_raw),
            ("rename from", sec.rename_from),
            ("rename to", sec.rename_to),
        )
        said = [f"`{what} {name}`" for what, name in given if name is not None]
        old, new = sec.header[0]
        raise ParseError(
            f"line {sec.line}: `diff --git` names {old!r} and {new!r}, but {', '.join(said)} follow it",
            sec.line,
            _HINT_NAMES,
            sec.label(),
        )
    if sec.old_raw is not None and sec.new_raw is not None:
        old, new = plain_names(sec.old_raw, sec.new_raw, False)
        if sec.rename_from is not None and (old, new) != renamed:
            raise ParseError(
                f"line {sec.names_line}: `---`/`+++` name {old!r} -> {new!r}, but `rename from/to` says "
                f"{sec.rename_from!r} -> {sec.rename_to!r}",
                sec.names_line,
                _HINT_NAMES,
                new,
            )
        return old, new
    if sec.rename_from is not None and sec.rename_to is not None:
        return sec.rename_from, sec.rename_to
    raise ParseError(
        f"line {sec.line}: cannot tell the file names from this `diff --git` header",
        sec.line,
        'write `diff --git a/PATH b/PATH`, quoting names with spaces like git: "a/my file"',
    )


def _inferred(sec: Section) -> tuple[bool, bool]:
    """Create/delete of a plain diff shown only by a lone `-0,0` / `+0,0` hunk (svn, bzr, diff -N)."""
    if sec.git or len(sec.hunks) != 1:
        return False, False
    hunk, rng = sec.hunks[0]
    creates = rng.old_start == 0 and rng.old_count == 0 and not hunk.old_lines
    deletes = rng.new_start == 0 and rng.new_count == 0 and not hunk.new_lines
    return creates, deletes


def _created(sec: Section, path: str) -> FileEdit:
    texts: list[str] = []
    new_eof_newline = True
    for hunk, _ in sec.hunks:
        if any(hl.tag != ADDED for hl in hunk.lines):
            raise ParseError(
                f"line {hunk.source_line}: {path} is a new file, but this hunk has context or removed lines",
                hunk.source_line,
                "a new file's hunk is `@@ -0,0 +1,N @@` followed by N lines that each start with '+'",
                path,
            )
        texts.extend(hl.text for hl in hunk.lines)
        new_eof_newline = hunk.new_eof_newline
    content = "\n".join(texts) + ("\n" if texts and new_eof_newline else "")
    return FileEdit(
        path=path,
        op=Op.CREATE,
        content=None if sec.binary else content,
        base=sec.base,
        new_mode=sec.new_mode,
        binary=sec.binary,
        source_line=sec.line,
    )


def _finish(sec: Section) -> FileEdit:
    edit = _file_edit(sec)
    # git writes a `diff --git` patch's names from the top of the repository whatever folder it
    # ran in; a name given with --path is the agent's own.
    base = PathBase.HERE if sec.fixed_path is not None else PathBase.ROOT if sec.git else PathBase.GUESS
    return edit._replace(path_base=base)


def _file_edit(sec: Section) -> FileEdit:
    if sec.fixed_path is not None:
        old, new = sec.fixed_path, sec.fixed_path
    elif sec.git:
        old, new = _git_names(sec)
    else:
        assert sec.old_raw is not None and sec.new_raw is not None
        old, new = plain_names(sec.old_raw, sec.new_raw, sec.tree_diff)
    if not old or not new or (old == DEV_NULL and new == DEV_NULL):
        raise ParseError(f"line {sec.names_line or sec.line}: missing file name", sec.names_line or sec.line, HINT_HEADER)
    creates, deletes = _inferred(sec)
    creates = creates or sec.new_file or old == DEV_NULL
    deletes = deletes or sec.deleted_file or new == DEV_NULL
    if creates and deletes:
        raise ParseError(
            f"line {sec.line}: {sec.label()} is marked both as a new and as a deleted file",
            sec.line,
            "a new file has `--- /dev/null`; a deleted file has `+++ /dev/null`",
            sec.label(),
        )
    if creates:
        return _created(sec, new)
    hunks = tuple(h for h, _ in sec.hunks)
    if deletes:
        for hunk in hunks:
            if any(hl.tag == ADDED for hl in hunk.lines):
                raise ParseError(
                    f"line {hunk.source_line}: {old} is deleted, but this hunk adds lines",
                    hunk.source_line,
                    "a deleted file's hunk removes every line (`@@ -1,N +0,0 @@`, each line starting with '-')",
                    old,
                )
        return FileEdit(
            path=old,
            op=Op.DELETE,
            changes=hunks,
            base=sec.base,
            old_mode=sec.old_mode,
            binary=sec.binary,
            source_line=sec.line,
        )
    renames = sec.git and old != new
    edit = FileEdit(
        path=new if sec.git else pick(old, new),
        op=Op.RENAME if renames else Op.MODIFY,
        old_path=old if renames else None,
        changes=hunks,
        base=sec.base,
        old_mode=sec.old_mode,
        new_mode=sec.new_mode,
        binary=sec.binary,
        source_line=sec.line,
    )
    modes = sec.old_mode is not None or sec.new_mode is not None
    if sec.git and not (hunks or renames or sec.binary or modes):
        raise ParseError(
            f"line {sec.line}: the `diff --git` header for {edit.path} is followed by no change",
            sec.line,
            "after the header give `---`/`+++` lines and hunks, or mode or rename lines",
            edit.path,
        )
    return edit


def _merge(edits: list[FileEdit]) -> tuple[FileEdit, ...]:
    """One FileEdit per path: later sections for a path add their hunks to the first."""
    groups: dict[str, list[FileEdit]] = {}
    for edit in edits:
        groups.setdefault(edit.path, []).append(edit)
    return tuple(_combine(group) for group in groups.values())


def _combine(group: list[FileEdit]) -> FileEdit:
    first = group[0]
    for later in group[1:]:
        same = later.op is first.op and later.old_path == first.old_path
        if first.op is Op.CREATE or not (same or (first.op is Op.RENAME and later.op is Op.MODIFY)):
            raise ParseError(
                f"line {later.source_line}: {first.path} has two sections that disagree: "
                f"{first.op.value} at line {first.source_line}, {later.op.value} here",
                later.source_line,
                "give each file one section, or sections that all modify it",
                first.path,
            )
    if len(group) == 1:
        return first
    return first._replace(
        changes=tuple(change for edit in group for change in edit.changes),
        binary=any(edit.binary for edit in group),
        base=next((e.base for e in group if e.base is not None), None),
        old_mode=next((e.old_mode for e in group if e.old_mode is not None), None),
        new_mode=next((e.new_mode for e in group if e.new_mode is not None), None),
    )


def _split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


def parse(text: str, path: str | None = None) -> EditSet:
    """Read a unified diff (see the module doc); `path` names the file of header-less hunks."""
    if not text or text.isspace():
        raise ParseError("empty input: there is no diff to read", 1, HINT_HEADER, path)
    state = State(_split_lines(text), path, unterminated=not text.endswith("\n"))
    lines = state.lines
    i = 0
    while i < len(lines):
        if lines[i][:1] in HEADS:
            i = step(state, i)
        else:
            i += 1  # prose and other junk: nothing in the grammar starts this way
    if not state.sections:
        raise ParseError("no unified diff found in the input", 1, HINT_HEADER, path)
    files = _merge([_finish(sec) for sec in state.sections])
    return EditSet(files=files, format=NAME, repairs=("recount",) if state.recounted else ())
