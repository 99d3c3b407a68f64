"""An edit made against other text than the file holds now, merged by git's rule.

Two situations carry an edit whose view of the file is not the file:

- the ``fuzz`` tier placed a hunk although lines it keeps differ from the file,
  or are not in it at all (misremembered, invented, or changed since the edit was
  written: from here they look the same);
- the edit names its base (a diff's ``index`` line): it was made against a
  version of the file that git still has.

- a lazy snippet that shows lines as an earlier version of the file had them
  (the version the agent read, wrote last, or that HEAD holds), where the file
  has changed since: the snippet was written against that version.

Either way the answer is git's three-way merge (``repo.merge.merge_file``, libgit2's
xdiff merge, the code of ``git merge-file``): base = the file as the edit saw it,
ours = the edit's result, theirs = the file now.  A change on the file's side
that touches or adjoins a line the edit changes is a conflict, refused as
``stale``; one separated from every change by an unchanged line merges, and the
file keeps its own line.  The result is byte for byte what ``git merge-file``
gives for the same three texts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

from ..model import Change, FileEdit, Finding, Snippet, error, ordered_changes
from ..text.textfile import Text, decode
from ..text.wording import quoted, visible
from ..tree import diffs
from . import locate_changes
from .splice import Splice, apply_splices, whole_text

if TYPE_CHECKING:
    from ..repo.merge import Conflict

_SHOW = 6  # differing lines shown in a finding
Region = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Bases:
    """The texts an edit may have been made against, other than the file as it is now."""

    named: Text | None = None  # the blob a diff's `index` line names, when it is not the file
    seen: tuple[Text, ...] = ()  # read_before_edit, the file changed since: the versions the agent saw
    earlier: tuple[tuple[str, Text], ...] = ()  # a lazy snippet's candidates: (which version, its text)


NO_BASES = Bases()  # the file as it is now is the only text there is


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A file's new text, the regions that changed (None: diff it whole), repairs and notes."""

    text: Text
    regions: list[Region] | None
    repairs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def new_text(
    fe: FileEdit, text: Text, tiers: Sequence[str], path: str, bases: Bases = NO_BASES
) -> Rewritten | tuple[Finding, ...] | None:
    """`fe`'s changes (or whole content) made to `text`, by git's rule where the edit saw other text.

    The findings that refuse it; or None when read_before_edit's versions (`bases.seen`)
    were given and the edit fits none of them (the caller's `stale` refusal stands).
    """
    ordered = ordered_changes(fe)
    exact = tuple(t for t in tiers if t != "fuzz")  # against the very text it names, an edit needs no fuzz
    if bases.seen:
        return _since_seen(fe, text, bases.seen, exact, path, ordered)
    if fe.content is not None:
        new, repairs = whole_text(text, fe.content)
        return Rewritten(new, None, tuple(repairs))
    if bases.named is not None:
        out = locate_changes(bases.named, fe.changes, exact, path, ordered)
        if not out.findings:
            edited, _ = apply_splices(bases.named, out.splices)
            merged, conflict = onto_base(bases.named, text, edited, path)
            if conflict is None:
                return Rewritten(merged, None, out.repairs + ("3way",), out.notes)
            # As `git apply --3way`: hunks that still fit the file exactly apply directly.
            now = locate_changes(text, fe.changes, exact, path, ordered)
            if now.findings:
                return (conflict,)
            new, regions = apply_splices(text, now.splices)
            return Rewritten(new, regions, now.repairs, now.notes)
        # It does not fit the base it names (an index line copied from another diff):
        # read it as an edit of the file as it is, like any other.
    out = locate_changes(text, fe.changes, tiers, path, ordered)
    if out.findings:
        return out.findings
    if bases.earlier and any(isinstance(c, Snippet) for c in fe.changes):
        earlier = snippet_onto_file(text, bases.earlier, fe.changes, tiers, path, out.splices)
        if isinstance(earlier, Finding):
            return (earlier,)
        if earlier is not None:
            return Rewritten(earlier[0], None, tuple(earlier[1]), out.notes)
    if any(sp.seen is not None for sp in out.splices):
        merged, conflict = onto_file(text, out.splices, path)
        return (conflict,) if conflict is not None else Rewritten(merged, None, out.repairs, out.notes)
    new, regions = apply_splices(text, out.splices)
    return Rewritten(new, regions, out.repairs, out.notes)


def from_earlier(
    fe: FileEdit, text: Text, tiers: Sequence[str], path: str, earlier: Sequence[tuple[str, Text]]
) -> Rewritten | Finding | None:
    """An edit that does not locate in the file as it is, made against an earlier version of it.

    When the edit fits one of those versions exactly (the agent's last read, its last
    write, HEAD's: the texts it may have been written against), it is made there and
    merged onto the file by git's rule, as `git apply --3way` merges onto a named base:
    the merge (repair ``3way``) or its conflict.  None when it fits none of them, or
    changes nothing in those it fits.
    """
    exact = tuple(t for t in tiers if t != "fuzz")
    for label, old in earlier:
        out = locate_changes(old, fe.changes, exact, path, ordered_changes(fe))
        if out.findings:
            continue
        edited, _ = apply_splices(old, out.splices)
        if edited == old:
            # Already true of that version: not an edit made against it (an agent sends a change),
            # and merging it would answer "no-op" for a file that does not hold the text (the agent
            # re-sends a change someone reverted since).
            continue
        merged, conflict = onto_base(old, text, edited, path)
        if conflict is not None:
            return replace(conflict, message=f"the edit fits {label} of {path}, not the file as it is now; " + conflict.message)
        return Rewritten(merged, None, out.repairs + ("3way",), out.notes)
    return None


def _since_seen(
    fe: FileEdit, text: Text, seen: Sequence[Text], exact: Sequence[str], path: str, ordered: bool
) -> Rewritten | tuple[Finding, ...] | None:
    """An edit made against a version the agent saw (read, or wrote) merged onto the file as it is
    now; the conflict; or None when it fits no such version."""
    for base in seen:
        if fe.content is not None:
            edited, repairs = whole_text(base, fe.content)
            notes: tuple[str, ...] = ()
        else:
            out = locate_changes(base, fe.changes, exact, path, ordered)
            if out.findings:
                continue
            edited, _ = apply_splices(base, out.splices)
            repairs, notes = list(out.repairs), out.notes
        merged, conflict = onto_base(base, text, edited, path)
        if conflict is not None:
            return (
                replace(conflict, message=f"{path} changed since the agent last saw it (read_before_edit); " + conflict.message),
            )
        return Rewritten(merged, None, tuple(repairs) + ("3way",), notes)
    return None


def onto_file(text: Text, splices: Sequence[Splice], path: str) -> tuple[Text, Finding | None]:
    """Apply `splices` to `text`, merging those that carry the edit's own view (`Splice.seen`)."""
    from ..repo.merge import merge_file  # here, and in `onto_base`: only an edit that merges loads it

    base, _ = apply_splices(text, [replace(sp, new=sp.seen, final_newline=None) for sp in splices if sp.seen is not None])
    ours, _ = apply_splices(text, [replace(sp, new=sp.meant) if sp.meant is not None else sp for sp in splices])
    merged = merge_file(base.encode(), ours.encode(), text.encode())
    if merged.clean:
        return decode(merged.data), None
    return text, _conflict(text, base, ours, splices, merged.conflicts[0], path)


def onto_base(base: Text, current: Text, edited: Text, path: str) -> tuple[Text, Finding | None]:
    """`edited` (the edit applied to its own `base`) merged onto the file as it is now."""
    from ..repo.merge import merge_file

    merged = merge_file(base.encode(), edited.encode(), current.encode())
    if merged.clean:
        return decode(merged.data), None
    c = merged.conflicts[0]
    first = c.theirs_line
    now = [ln.decode("utf-8", "replace").rstrip("\r\n") for ln in c.theirs]
    lines = "\n".join(f"{first + i:>6}| {quoted(x)}" for i, x in enumerate(now[:8])) or "(those lines are gone)"
    return current, error(
        "stale",
        path,
        first,
        f"{path} changed since the edit's base, and the change touches or adjoins lines the edit changes "
        f"(around line {first}): git's merge calls this a conflict",
        f"re-read the file and redo the edit against its current content; the file now has:\n{lines}",
    )


def _conflict(text: Text, base: Text, ours: Text, splices: Sequence[Splice], c: Conflict, path: str) -> Finding:
    """The `stale` finding for a fuzzed splice that conflicts: the file's lines beside the edit's."""
    at = c.theirs_line - 1  # 0-based line of the file where the conflict starts
    sp = min(
        (s for s in splices if s.seen is not None),
        key=lambda s: 0 if s.start <= at <= s.end else min(abs(s.start - at), abs(s.end - at)),
    )
    assert sp.seen is not None
    file_lines = list(text.lines[sp.start : sp.end])
    edit_lines = [ln for ln, _e in sp.seen]
    rows: list[str] = []
    first_line: int | None = None
    ops = diffs.aligned(file_lines, edit_lines)
    for tag, a0, a1, b0, b1 in ops:
        if tag == "equal":
            continue
        for i in range(max(a1 - a0, b1 - b0)):
            line = sp.start + min(a0 + i, a1) + 1
            first_line = first_line or line
            mine = file_lines[a0 + i] if a0 + i < a1 else None
            theirs = edit_lines[b0 + i] if b0 + i < b1 else None
            rows.append(_pair(line, mine, theirs))
    shown = "\n".join(rows[:_SHOW]) + (f"\n  ... and {len(rows) - _SHOW} more" if len(rows) > _SHOW else "")
    lo, hi = sp.start + 1, max(sp.start + 1, sp.end)
    where = f"line {lo}" if lo == hi else f"lines {lo}-{hi}"
    return error(
        "stale",
        path,
        first_line or lo,
        f"{path} does not read as the edit expects next to the lines it changes (the edit was written against "
        "other text there, or the file changed since): git's merge calls this a conflict",
        f"{shown}\nre-read {where} of {path} and redo the edit against them as they are now",
    )


def _pair(line: int, now: str | None, edit: str | None) -> str:
    """One differing line: the file's, then the edit's, differing characters in [brackets]."""
    if now is None:
        return f"  the edit shows a line the file does not have before line {line}: {quoted(edit or '')!r}"
    if edit is None:
        return f"  line {line} of the file is not in the edit: {quoted(now)!r}"
    a, b = (_clipped(t) for t in _marked(now, edit))
    label = f"line {line} now:"
    width = max(len(label), len("the edit shows:"))
    return f"  {label:<{width}} {a}\n  {'the edit shows:':<{width}} {b}"


_WIDTH = 160  # characters of a marked line shown: from a little before its first difference


def _clipped(marked: str) -> str:
    if len(marked) <= _WIDTH:
        return marked
    start = max(0, marked.find("[") - 40)
    return ("..." if start else "") + marked[start : start + _WIDTH] + ("..." if start + _WIDTH < len(marked) else "")


def _marked(a: str, b: str) -> tuple[str, str]:
    """Both texts with the characters where they differ in [brackets] (invisible ones made visible)."""
    out_a: list[str] = []
    out_b: list[str] = []
    for tag, a0, a1, b0, b1 in diffs.aligned(a, b):
        pa, pb = visible(a[a0:a1]), visible(b[b0:b1])
        if tag == "equal":
            out_a.append(pa)
            out_b.append(pb)
        else:
            out_a.append(f"[{pa}]")
            out_b.append(f"[{pb}]")
    return "".join(out_a), "".join(out_b)


def snippet_onto_file(
    current: Text,
    earlier: Sequence[tuple[str, Text]],
    changes: Sequence[Change],
    tiers: Sequence[str],
    path: str,
    splices: Sequence[Splice],
) -> tuple[Text, list[str]] | Finding | None:
    """A lazy snippet written against an earlier version of the file, merged by git's rule.

    A snippet carries no base, and a line it shows that differs from the file is
    either its change or a stale copy.  `splices` are the snippet merged into the file
    as it is; each region the file changed since an earlier version (the agent's last
    read or write, HEAD's) that a splice touches or adjoins is judged by what the
    snippet shows of it: the file's new lines (it was written against the file: no
    doubt), or the version's old lines, or none of either where it deletes or
    overwrites them.  The last two say the snippet was written against that version:
    it is merged into it, and the result merged with the file (`onto_base`); a
    conflict is `stale`.  A snippet that fits one place now but several places in
    every such version is `ambiguous`: the file's changes since, not the snippet,
    would pick the place.  None when nothing is in doubt.
    """
    shown: set[str] = set()
    for c in changes:
        if isinstance(c, Snippet):
            marks = set(c.markers)
            shown.update(ln.rstrip("\r") for i, ln in enumerate(c.lines) if i not in marks and ln.strip())
    unsure: list[tuple[str, Finding]] = []  # versions where the snippet fits more than one place
    for label, old in earlier:
        doubt = _stale_region(old, current, shown, splices)
        if doubt is None:
            twice = next((f for f in locate_changes(old, changes, tiers, path, True).findings if f.code == "ambiguous"), None)
            if twice is not None:
                unsure.append((label, twice))
            continue
        line, now = doubt
        said = f"the snippet changes line {line + 1} of {path}, which changed since {label} ({quoted(now)!r})"
        out = locate_changes(old, changes, tiers, path, True)
        if out.findings:
            return error(
                "stale",
                path,
                line + 1,
                said + ", and it does not fit that version either",
                f"re-read {path} and send the snippet against its current lines (show line {line + 1} as it is now)",
            )
        edited, _ = apply_splices(old, out.splices)
        merged, conflict = onto_base(old, current, edited, path)
        if conflict is not None:
            return replace(conflict, message=said + "; " + conflict.message)
        return merged, list(out.repairs) + ["3way"]
    if earlier and len(unsure) == len(earlier):
        # Unique in the file now only through lines changed since every version the agent
        # may have written it against: which of the places it meant, the snippet does not say.
        label, twice = unsure[0]
        return error(
            "ambiguous",
            path,
            None,
            f"the snippet fits one place in {path} as it is now but more than one in {label}, which it may "
            f"have been written against: only the file's changes since then tell them apart ({twice.message})",
            f"show a line or two more around each change, enough to pick one place in {label} too, "
            f"or re-read {path} and send the snippet against its current lines",
        )
    return None


def _stale_region(old: Text, current: Text, shown: set[str], splices: Sequence[Splice]) -> tuple[int, str] | None:
    """The first region `current` changed since `old` that a splice touches, or whose `old` lines the
    snippet shows or writes again, while it does not show the region's new lines: (the region's first
    line in `current`, that line), or None."""
    from .pieces import weak  # here: only a lazy snippet merged onto a changed file asks

    written = {ln for sp in splices for ln, _eol in sp.new if not weak(ln)}
    for _tag, a0, a1, b0, b1 in diffs.opcodes(list(old.lines), list(current.lines)):
        touched = any(sp.start <= b1 and b0 <= sp.end for sp in splices)
        # It writes the version's lines again, or shows them (its anchor may then stand at another copy).
        echoed = any(
            (ln in written or ln in shown) and not weak(ln) and ln not in current.lines[b0:b1] for ln in old.lines[a0:a1]
        )
        if not touched and not echoed:
            continue
        new_lines = [ln for ln in current.lines[b0:b1] if ln.strip()]
        if new_lines and any(ln in shown for ln in new_lines):
            continue  # it shows the lines as they are now: written against the file as it is
        if not new_lines and not any(ln.strip() for ln in old.lines[a0:a1]):
            continue  # blank lines came or went: nothing to read a version from
        at = min(b0, len(current.lines) - 1)
        return at, current.lines[at] if current.lines else ""
    return None
