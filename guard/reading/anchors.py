"""Edits checked against what the agent read: line-anchored edits and read-before-edit.

The engine calls ``against_read`` before locating a file edit of an existing file
that is line-anchored, or (``read_before_edit``) carries no base of its own; any
other edit is located as it is, and this module is not loaded.

**Line-anchored edits** -- ``FileEdit.base`` set, no whole content, and at least one
change, every one a ``LineRange`` without ``expect``: what the hashline dialect
parses into -- name lines of the file as the agent read it (``git agent-read``, the MCP
``read_file``).  Hints name the reader's own way to read (guard/report/audience.py).
They are resolved in four steps:

1. *Base.*  The tag must be a prefix of the blob this agent last read for the
   path (guard/reading/reads.py), matched case-insensitively, so oh-my-pi's 4-digit tags
   work too.  Without such a read the edit is refused as ``stale``.  Only when the
   policy's ``stale`` level is below ``error`` may the tag instead name the current
   content or a blob in the object database; every line then counts as shown.
2. *Bounds.*  Every line must exist in the base (else ``not-found``); ``$``
   (``hashline.LAST``) becomes the base's last line.
3. *Shown.*  Every line a change replaces or deletes must have been shown by the
   read, and an insertion needs a shown line on at least one side of it (only in
   an empty file does it need none); else ``stale`` at the policy's level.
4. *Re-anchoring.*  When the file changed since the read, the anchored lines --
   those replaced or deleted, and the shown lines on either side of an insertion --
   must each be unchanged and all moved by one offset, as a line diff from the
   base to the current content says.  Then every change moves by that offset
   (repair ``offset`` when it is not 0); otherwise ``stale``, naming the lines that
   changed or moved differently.

The result is the same edit with ``base`` cleared and its ranges in the current
file's line numbers, which the locator splices as they are.

**Read-before-edit** (policy ``read_before_edit``): an edit that carries no base
(SEARCH/REPLACE, str_replace, whole files, diffs without an ``index`` line, or with one
that names no blob the agent was shown: ``seen_base``) to an existing file must find
the file as this agent last read it with ``git agent-read``,
or as this agent itself last wrote it (its newest turn touching the path, from the
shadow ledger: an agent knows what it wrote).  When the file changed since, that
version is the edit's base: the edit must fit it, and is merged onto the file by
git's rule (``Anchored.seen``; a conflict is ``stale``).  An agent that saw no
version of the file is refused as ``stale``, at the policy's ``stale`` level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..locate import Splice, apply_splices
from ..model import LAST_SEEN, FileEdit, Finding, LineRange, error, line_anchored
from ..policy import Policy
from ..record import ledger
from ..repo import GitRepo
from ..report.audience import Audience
from ..text.textfile import NotText, Text, decode
from ..text.wording import clip, plural, span
from ..tree import diffs

if TYPE_CHECKING:
    from ..record import reads
    from ..repo.merge import Conflict

_SHOW = 3  # lines of context either side in a hint


@dataclass(frozen=True, slots=True)
class Anchored:
    edit: FileEdit  # the edit to locate (ranges moved onto the current file)
    findings: tuple[Finding, ...] = ()  # errors refuse the edit; warnings go with it
    repairs: tuple[str, ...] = ()
    # read_before_edit, the file changed since the agent saw it: the versions it saw (its last
    # write, its last read).  The edit must fit one of them and merge by git's rule onto the
    # file as it is; else `stale` refuses it.
    seen: tuple[str, ...] = ()
    stale: Finding | None = None


def against_read(
    repo: GitRepo,
    fe: FileEdit,
    path: str,
    before: bytes | None,
    pol: Policy,
    who: Reader,
    claimed: str | None = None,
) -> Anchored:
    """`fe` (for the file at `path`, now `before`) as the reads of `who` allow it; hints name its tools.

    `claimed`: the base the edit named (an ``index`` line) that ``seen_base`` did not accept,
    for the message.
    """
    if before is not None and line_anchored(fe):
        return _anchor(repo, fe, path, before, pol, who)
    if before is not None and fe.base is None and pol.read_before_edit:
        level = pol.level("stale")
        if level in ("error", "warning"):
            found = _unread(repo, path, before, pol, who, level, claimed)
            if found is not None:
                seen = _seen(repo, pol, who.key, path) if level == "error" else ()
                return Anchored(fe, stale=found, seen=seen) if seen else Anchored(fe, (found,))
    return Anchored(fe)


def seen_base(repo: GitRepo, pol: Policy, path: str, base: str, who: reads.Reader) -> bool:
    """Whether `base` (an edit's ``index`` line: 7 to 40 hex digits) names a version of `path` that
    `who` was shown: its last read, or what its own newest turn wrote there.

    An index line is the agent's word, and costs nothing to make up or to copy from
    ``git ls-files -s``: under ``read_before_edit`` it counts as the edit's base only when the
    agent saw that blob; otherwise the edit is one with no base, and must find a read.
    """
    from ..record import reads

    tag = base.lower()
    if len(tag) < 7 or any(c not in "0123456789abcdef" for c in tag):
        return False
    read = reads.last(repo, who, path)
    shown = (read.blob if read is not None else None, last_written(repo, pol, who, path))
    return any(oid is not None and oid.startswith(tag) for oid in shown)


def _seen(repo: GitRepo, pol: Policy, who: reads.Reader, path: str) -> tuple[str, ...]:
    """The versions of `path` that `who` is known to have seen: its last write, its last read."""
    from ..record import reads

    read = reads.last(repo, who, path)
    ids = (last_written(repo, pol, who, path), read.blob if read is not None else None)
    return tuple(dict.fromkeys(i for i in ids if i is not None and repo.read_blob(i) is not None))


# --------------------------------------------------------------------------- line-anchored edits


@dataclass(frozen=True, slots=True)
class Reader:
    """The agent whose reads count (in the session the environment or its caller names, None: none
    named; guard/record/reads.py), and how its hints tell it to read."""

    audience: Audience
    name: str
    session: str | None = None

    @property
    def key(self) -> reads.Reader:
        from ..record import reads

        return reads.Reader(self.name, self.session)

    def read(self, path: str, lines: tuple[int, int] | None = None) -> str:
        return self.audience.read(path, self.name, lines)


@dataclass(frozen=True, slots=True)
class _Base:
    """The version of a file a line-anchored edit's numbers refer to, and what its read showed."""

    id: str
    text: Text
    shown: reads.Read | None  # None: every line counts as shown
    notes: tuple[Finding, ...]  # warnings that go with the edit
    tag: str  # how messages name the version: the tag as written, or the version's first 8 digits


def base_text(repo: GitRepo, fe: FileEdit, path: str, before: bytes, pol: Policy, who: Reader) -> Text | Finding:
    """The text whose line numbers the line-anchored edit `fe` (of `path`, now `before`) names, or why
    there is none: what ``against_read`` resolves the edit against (``guard.reading.registers`` reads blocks
    and registers from it)."""
    got = _base(repo, fe, path, before, pol, who)
    return got if isinstance(got, Finding) else got.text


def _base(repo: GitRepo, fe: FileEdit, path: str, before: bytes, pol: Policy, who: Reader) -> _Base | Finding:
    """Step 1 of the module doc: the version the edit's tag names (or, for ``LAST_SEEN``, the one the agent saw)."""
    from ..record import reads

    agent = who.name
    tag = (fe.base or "").lower()
    level = pol.level("stale")
    current_id = repo.hash_blob(before)
    read = reads.last(repo, who.key, path)
    shown: reads.Read | None = None
    notes: list[Finding] = []
    if tag == LAST_SEEN:
        seen = _last_seen(repo, pol, who, path, before, current_id, read)
        if isinstance(seen, Finding):
            return seen
        base_id = seen
    elif read is not None and read.blob.startswith(tag):
        base_id, shown = read.blob, read
    else:
        if read is None:
            msg = f"{agent} has no read of {path} on record; hashline edits apply to a file as a read showed it"
        else:
            msg = f"[{path}#{tag}] is not the version of {path} that {agent} last read (that was #{read.blob[:8]})"
        unread = Finding(
            "stale",
            level if level in ("error", "warning") else "error",
            path,
            None,
            msg,
            f"read it (again) with {who.read(path)}, then redo the edit under the header it prints",
        )
        if level == "error":
            return unread
        found = current_id if current_id.startswith(tag) else _stored(repo, tag)
        if found is None:
            return unread
        base_id = found
        if level == "warning":
            notes.append(unread)
    base_bytes = before if base_id == current_id else repo.read_blob(base_id)
    try:
        base = decode(base_bytes) if base_bytes is not None else None
    except NotText:
        base = None
    if base is None:
        return error(
            "stale",
            path,
            None,
            f"the content of [{path}#{tag}] is no longer in the object database",
            f"read the file again with {who.read(path)}",
        )
    return _Base(base_id, base, shown, tuple(notes), base_id[:8] if tag == LAST_SEEN else tag)


def _last_seen(
    repo: GitRepo, pol: Policy, who: Reader, path: str, before: bytes, current_id: str, read: reads.Read | None
) -> str | Finding:
    """The version an edit that names none (``LAST_SEEN``) is made against: the file as it is, when the
    agent read or wrote it so, or read nothing (where the policy allows); else the agent's last read."""
    if read is None or read.blob == current_id or last_written(repo, pol, who.key, path) == current_id:
        if read is None and pol.read_before_edit and pol.level("stale") == "error":
            return error(
                "stale",
                path,
                None,
                f"{who.name} has not read {path}, and this policy edits only files the agent has read "
                f"(read_before_edit, from {pol.source('read_before_edit')})",
                f"read it first with {who.read(path)}, then send the edit again",
            )
        return current_id
    if repo.read_blob(read.blob) is None:
        return current_id
    return read.blob


def _anchor(repo: GitRepo, fe: FileEdit, path: str, before: bytes, pol: Policy, who: Reader) -> Anchored:
    # Here: the hashline parser, the reads record and git's merge load with an edit that needs them.
    from ..dialects.hashline import LAST
    from ..repo.merge import Conflict

    got = _base(repo, fe, path, before, pol, who)
    if isinstance(got, Finding):
        return Anchored(fe, (got,))
    level = pol.level("stale")
    base_id, base, shown, notes, tag = got.id, got.text, got.shown, list(got.notes), got.tag
    current_id = repo.hash_blob(before)
    n = len(base.lines)
    spans: list[tuple[LineRange, int, int]] = []
    for c in fe.changes:
        assert isinstance(c, LineRange)
        a, b = (n + 1, n) if (c.end == LAST and c.start == LAST + 1) else (c.start, n if c.end == LAST else c.end)
        bad = _out_of_bounds(a, b, n)
        if bad:
            return Anchored(
                fe,
                (
                    error(
                        "not-found",
                        path,
                        None,
                        f"{bad}: {path} had {plural(n, 'line')} when read as #{tag}",
                        f"number lines as {who.read(path)} prints them",
                    ),
                ),
            )
        spans.append((c, a, b))
    wrong = _wrong_hashes(fe, base, path, tag, who, base_id == current_id)
    if wrong is not None:
        return Anchored(fe, (wrong,))
    if shown is not None and level in ("error", "warning"):
        unseen = _unshown(spans, shown, n, path, tag, who, level)
        if unseen is not None:
            if level == "error":
                return Anchored(fe, (unseen,))
            notes.append(unseen)
    offset = 0
    if base_id != current_id:
        # git's rule: the edit made on the text read, merged with the file as it is now.
        current = decode(before)
        offset_or_finding = _offset(base, current, _anchored(spans, shown, n), path, tag, who)
        merged = _merged(base, current, spans)
        if isinstance(merged, Conflict):
            stale = offset_or_finding if isinstance(offset_or_finding, Finding) else _adjoining(current, merged, path, tag, who)
            return Anchored(fe, (stale,))
        if isinstance(offset_or_finding, Finding):
            # Lines moved by different amounts, or changed apart from the edit: the merge
            # places it, as the edit of the whole file it amounts to.
            ranges = _ranges(current, merged, fe.source_line)
            return Anchored(fe._replace(base=None, changes=ranges), tuple(notes), ("3way",))
        offset = offset_or_finding
    moved = tuple(LineRange(a + offset, b + offset, c.new, None, c.source_line) for c, a, b in spans)
    return Anchored(fe._replace(base=None, changes=moved), tuple(notes), ("offset",) if offset else ())


def _merged(base: Text, current: Text, spans: Sequence[tuple[LineRange, int, int]]) -> Text | Conflict:
    """The edit made on `base` and merged with `current` by git's three-way merge, or its first conflict."""
    from ..repo.merge import merge_file

    eol = base.dominant_eol()
    splices = [Splice(a - 1, b, tuple((x[:-1], "\r\n") if x.endswith("\r") else (x, eol) for x in c.new)) for c, a, b in spans]
    edited, _ = apply_splices(base, splices)
    got = merge_file(base.encode(), edited.encode(), current.encode())
    return decode(got.data) if got.clean else got.conflicts[0]


def _ranges(current: Text, merged: Text, source_line: int) -> tuple[LineRange, ...]:
    """`merged` as line ranges of `current` (each replaced or inserted stretch)."""
    eols = ["\r" if e == "\r\n" else "" for e in merged.eols]
    new = [ln + e for ln, e in zip(merged.lines, eols)]
    return tuple(
        LineRange(a0 + 1, a1, tuple(new[b0:b1]), None, source_line)
        for _tag, a0, a1, b0, b1 in diffs.opcodes(list(current.lines), list(merged.lines))
    )


def _adjoining(current: Text, c: Conflict, path: str, tag: str, who: Reader) -> Finding:
    """The lines the edit touches are unchanged, but one beside them changed since the read."""
    line = c.theirs_line
    return error(
        "stale",
        path,
        line,
        f"{path} changed since it was read (#{tag}) next to the lines the edit changes (around line {line}): "
        "git's merge calls this a conflict",
        f"read it again with {who.read(path, _around(line, len(current.lines)))}, and redo the edit under the "
        "new header; the file now has:\n" + _excerpt(current, line),
    )


def _stored(repo: GitRepo, tag: str) -> str | None:
    if len(tag) < 7:
        return None  # four digits name nothing reliably outside the agent's read record
    data = repo.read_blob(tag)
    return repo.hash_blob(data) if data is not None else None


_AROUND = 2  # lines either side of a wrongly named line whose anchors a refusal shows


def _wrong_hashes(fe: FileEdit, base: Text, path: str, tag: str, who: Reader, current: bool) -> Finding | None:
    """`not-found` when a line the edit named by its hash (oh-my-pi's ``12:a3``) hashes otherwise in `base`.

    The anchor is a check of which line the agent meant, never a way to find another: the finding
    gives the anchors of the lines around each wrong one, as the edit's own rule writes them.
    """
    from ..text import linehash

    named = [h for c in fe.changes if isinstance(c, LineRange) for h in c.hashes]
    wrong = [
        (line, written, rules)
        for line, written, rules in named
        if 1 <= line <= len(base.lines) and not linehash.matches(rules, line, base.lines[line - 1], written)
    ]
    if not wrong:
        return None
    rule = wrong[0][2][0]
    marked = {line for line, _w, _r in wrong}
    rows: list[str] = []
    last = 0
    for line in sorted({x for m in marked for x in range(max(1, m - _AROUND), min(len(base.lines), m + _AROUND) + 1)}):
        if last and line > last + 1:
            rows.append("    ...")
        text = base.lines[line - 1]
        rows.append(f"{'>>>' if line in marked else '   '} {linehash.anchor(rule, line, text)}|{clip(text)}")
        last = line
    first, written, _rules = wrong[0]
    said = ", ".join(f"{line}{'#' if rule == 'line-id' else ':'}{w}" for line, w, _r in wrong[:6])
    now = linehash.anchor(rule, first, base.lines[first - 1])
    where = "as it is" if current else f"as {who.name} last read it (#{tag}; it changed since)"
    retry = (
        "use these anchors, and send the edit again"
        if current
        else f"read it again with {who.read(path, _around(first, len(base.lines)))} and redo the edit"
    )
    return error(
        "not-found",
        path,
        first,
        f"{plural(len(wrong), 'line')} of {path} {'is' if len(wrong) == 1 else 'are'} not what the edit's anchors say "
        f"({said}): line {first} of the file {where} is {now}; an anchor is never moved to another line",
        f"{retry}; '>>>' marks the lines the edit named wrongly:\n" + "\n".join(rows),
    )


def _out_of_bounds(a: int, b: int, n: int) -> str | None:
    if b == a - 1:
        return None if 1 <= a <= n + 1 else f"the insertion point (after line {a - 1}) is past the end of the file"
    if a < 1 or b > n:
        return f"lines {a}-{b} do not all exist" if a != b else f"line {a} does not exist"
    return None


def _unshown(
    spans: Sequence[tuple[LineRange, int, int]], shown: reads.Read, n: int, path: str, tag: str, who: Reader, level: str
) -> Finding | None:
    for _change, a, b in spans:
        if b >= a:
            gaps = shown.missing(a, b)
            if not gaps:
                continue
            ga, gb = gaps[0]
            what = span(ga, gb)
            want = (ga, gb)
        else:
            sides = [x for x in (a - 1, a) if 1 <= x <= n]
            if not sides or any(shown.covers(x, x) for x in sides):
                continue
            what = f"the lines around the insertion point (line {sides[0]})"
            want = (sides[0], sides[-1])
        seen = ", ".join(span(x, y) for x, y in shown.shown) or "no line"
        # The finding is about that line of the file as read (not the edit's own line).
        return Finding(
            "stale",
            level,
            path,
            want[0],
            f"the edit changes {what} of {path}, which the read #{tag} never showed (it showed {seen})",
            f"read those lines first with {who.read(path, want)}, then send the edit again",
        )
    return None


def _anchored(spans: Sequence[tuple[LineRange, int, int]], shown: reads.Read | None, n: int) -> list[int]:
    """Base lines (1-based) the edit relies on: those it replaces, and shown neighbours of insertions."""
    lines: set[int] = set()
    for _c, a, b in spans:
        if b >= a:
            lines.update(range(a, b + 1))
        else:
            lines.update(x for x in (a - 1, a) if 1 <= x <= n and (shown is None or shown.covers(x, x)))
    return sorted(lines)


def _offset(base: Text, current: Text, anchors: list[int], path: str, tag: str, who: Reader) -> int | Finding:
    """The one offset every anchored line moved by, or the `stale` finding saying why there is none."""
    if not anchors:
        if not base.lines and not current.lines:
            return 0
        what = "was empty when read" if not base.lines else "changed since it was read"
        return error(
            "stale",
            path,
            None,
            f"{path} {what} (#{tag}) and now has {plural(len(current.lines), 'line')}; the edit has no line to anchor on",
            f"read it again with {who.read(path)}, and redo the edit under the new header",
        )
    ops = diffs.opcodes(list(base.lines), list(current.lines))
    changed: list[int] = []
    moved: dict[int, list[int]] = {}
    k, delta = 0, 0
    now, gone = 0, False
    for line in anchors:
        i = line - 1
        while k < len(ops) and ops[k][2] <= i:  # ops wholly before line i (insertions at i too)
            _t, a0, a1, b0, b1 = ops[k]
            delta += (b1 - b0) - (a1 - a0)
            k += 1
        if k < len(ops) and ops[k][1] <= i < ops[k][2]:
            if not changed:  # where the first changed line is in the file now: the finding's line
                kind, a0, _a1, b0, b1 = ops[k]
                now = b0 + 1 + (min(i - a0, b1 - b0 - 1) if b1 > b0 else 0)
                gone = kind == "delete"
            changed.append(line)
        else:
            moved.setdefault(delta, []).append(line)
    if changed:
        first = changed[0]
        where = now
        since = "; that line is gone" if gone else f"; it is line {now} now" if now != first else ""
        return error(
            "stale",
            path,
            now,
            f"{path} changed since it was read (#{tag}): {_lines(changed)} "
            f"no longer hold{'s' if len(changed) == 1 else ''} what the read showed "
            f"(line {first} was {clip(base.lines[first - 1])!r}{since})",
            f"read it again with {who.read(path, _around(where, len(current.lines)))}, and redo the edit under the new header; "
            "the file now has:\n" + _excerpt(current, where),
        )
    if len(moved) > 1:
        parts = "; ".join(f"{_lines(ls)} by {d:+d}" for d, ls in sorted(moved.items(), key=lambda kv: kv[1][0]))
        first = min(ls[0] for ls in moved.values())
        return error(
            "stale",
            path,
            first,
            f"{path} changed since it was read (#{tag}) and the edit's lines moved by different amounts ({parts}), "
            "so no one offset re-anchors it",
            f"read it again with {who.read(path)}, and redo the edit under the new header",
        )
    return next(iter(moved))


def _lines(ls: Sequence[int]) -> str:
    if len(ls) == 1:
        return f"line {ls[0]}"
    if ls[-1] - ls[0] == len(ls) - 1:
        return f"lines {ls[0]}-{ls[-1]}"
    shown = ", ".join(str(x) for x in ls[:6])
    return f"lines {shown}{', ...' if len(ls) > 6 else ''}"


def _around(line: int, n: int) -> tuple[int, int]:
    return max(1, line - 5), max(1, min(n, line + 5))


def _excerpt(text: Text, line: int) -> str:
    lo, hi = max(1, line - _SHOW), min(len(text.lines), line + _SHOW)
    return "\n".join(f"{i:>6}| {clip(text.lines[i - 1])}" for i in range(lo, hi + 1)) or "(the file is empty)"


# --------------------------------------------------------------------------- read-before-edit


def _unread(
    repo: GitRepo, path: str, before: bytes, pol: Policy, who: Reader, level: str, claimed: str | None = None
) -> Finding | None:
    from ..record import reads

    agent = who.name
    current = repo.hash_blob(before)
    read = reads.last(repo, who.key, path)
    if read is not None and read.blob == current:
        return None
    if last_written(repo, pol, who.key, path) == current:
        return None
    origin = f"read_before_edit, from {pol.source('read_before_edit')}"
    if read is None:
        msg = f"{agent} has not read {path}, and this policy edits only files the agent has read ({origin})"
    else:
        msg = f"{path} changed since {agent} last read it ({origin})"
    if claimed:
        msg += (
            f"; the edit's index line names {claimed[:12]!r}, which is no version of {path} {agent} read "
            "or wrote, so it is not the edit's base"
        )
    return Finding("stale", level, path, None, msg, f"read it first with {who.read(path)}, then send the edit again")


def last_written(repo: GitRepo, pol: Policy, who: reads.Reader, path: str) -> str | None:
    """The blob the newest turn of `who` touching `path` left there (None: none, or deleted): of
    its session, when one is named (another session's write is no version this one saw)."""
    ref = ledger.ref_for(repo, pol.ledger_prefix, who.agent)
    for turn in ledger.turns(repo, ref, who.agent, limit=50):
        if who.session is not None and turn.trailers.get("session") != who.session:
            continue
        if any(p == path for _op, p, _a, _r in turn.files):
            entry = repo.tree_entry(repo.commit_tree(turn.commit), path)
            return entry.oid if entry is not None else None
    return None
