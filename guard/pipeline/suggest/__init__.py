"""Refusals that carry the edit to resend: the one reading the agent most likely meant.

When an edit is refused as ``not-found`` or ``stale`` and every refusal in it has exactly one
reading, the report carries that reading as a ready edit in the agent's own dialect
(``Report.suggestion``): sent back unchanged, it lands as computed here.  agent-guard never
applies it; the agent chooses.  The readings, per file:

- ``not-found``: the change rewritten against the one region of the file most like it
  (``realign``): the region's lines as they are, the change's own edits made there;
- ``stale``, a change that adjoins a change of the file: the edit re-anchored onto the file
  as it is by git's merge rule, the conflict that rule sees resolved the one way it can be
  (``settle``): the file's change where only the file changed, the edit's where only the
  edit did.  The edit's side is what the engine merged: its own view of the lines (``fuzz``),
  the blob its ``index`` line names, the version the agent last read or wrote
  (``read_before_edit``, the MCP read rule), an earlier version it fits (HEAD's);
- a hashline tag that is out of date: the same ops with their lines' numbers now, under the
  file's current tag, where every line they anchor on is unchanged (``relines``).

No suggestion where there are two readings (two regions as like the change, a merge with
conflicts in the edit's own lines, an op whose lines changed), for a protected file (its
lines would show: ``redaction``), for other refusals, or when the suggestion, checked as the
agent would send it (parsed in its dialect, located and checked by the policy), would not
land exactly as computed.

A suggestion that needs a read to land (a hashline tag; ``read_before_edit``; the MCP read
rule) records what it shows the agent as its read of the file as it is: the lines unchanged
since the agent's last read that it was shown then, and the lines the suggestion shows.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Sequence

from ...files import redaction, target
from ...locate import apply_splices, locate_changes
from ...locate.index import file_index
from ...locate.rebase import Rewritten, new_text
from ...locate.splice import Located, Splice, whole_text
from ...model import (
    Change,
    EditSet,
    FileChange,
    FileEdit,
    Finding,
    Hunk,
    LineRange,
    Op,
    PathBase,
    Replace,
    line_anchored,
    ordered_changes,
)
from ...record import reads
from ...report import Suggestion
from ...report.audience import Audience
from ...text.textfile import Text, decode_or_none
from ...text.wording import brief
from ...tree import worktree
from .. import file_change
from .rewrite import Rewrite
from .settle import Settled, settle
from .writers import WRITERS

if TYPE_CHECKING:
    from ..call import Call
    from ..plan import Planned

    # Plans an edit again as the refused one was planned (``plan.plan`` for the same call): an
    # edit and its size in bytes.
    Replan = Callable[[EditSet, int], Planned]

FIXABLE = frozenset({"not-found", "stale"})


class _Session:
    """What every file of one refusal is judged with: the refused call's, and how to plan again."""

    __slots__ = ("call", "ws", "pol", "agent", "reader", "audience", "require_read", "tiers", "replan")

    def __init__(self, call: Call, replan: Replan) -> None:
        self.call = call
        self.ws = call.ws
        self.pol = call.policy
        self.agent = call.agent
        self.reader = call.reader  # whose reads: the agent's, in its named session
        self.audience = call.audience
        self.require_read = call.require_read
        self.tiers = tuple(call.policy.tiers)
        self.replan = replan


def for_refusal(call: Call, edits: EditSet, planned: Planned, replan: Replan) -> Suggestion | None:
    """The edit to send back for a refused `edits` (planned as `planned`), or None.

    Call under the repository lock, as the apply that refused it: it may record a read
    (see the module doc), and it checks the suggestion against the files as they are.
    """
    audience, here = call.audience, call.folder
    fmt = "json" if audience.tool == "claude-code" else edits.format
    write = WRITERS.get(fmt)
    errors = [f for f in planned.findings if f.severity == "error"]
    if write is None or edits.format not in WRITERS or not errors or any(f.code not in FIXABLE or not f.path for f in errors):
        return None
    s = _Session(call, replan)
    refused = {f.path for f in errors}
    planned_after = {c.path: c for c in planned.changes}
    files: list[Rewrite] = []
    for fe in edits.files:
        got = _rewrite(s, fe, here, refused, errors, planned_after, fmt)
        if got is None:
            return None
        files.append(got)
    if refused - {r.path for r in files} or len({r.path for r in files}) != len(files):
        return None
    text = write(files)
    if text is None or not _lands(s, text, fmt, files):
        return None
    return Suggestion(fmt, text, tuple(r.why for r in files if r.why), tuple(r.path for r in files), _how(fmt, audience, files))


def _how(fmt: str, audience: Audience, files: Sequence[Rewrite]) -> str:
    if audience.tool == "mcp":
        return f"call apply_patch with this text as the patch and format {fmt!r}"
    if audience.tool == "claude-code":
        tool = "Write" if any(r.whole for r in files) else "Edit (MultiEdit where it lists edits)"
        return f"call {tool} with exactly these arguments"
    return f"send it back unchanged (git agent-apply --format {fmt})"


def _shown(path: str, fe: FileEdit, here: str, audience: Audience) -> str:
    """`path` (from the top) as the agent names it in the suggestion's dialect."""
    if audience.tool == "claude-code":
        return posixpath.join(audience.root, path)
    if fe.path_base is PathBase.ROOT or not here:
        return path
    return posixpath.relpath(path, here)


def _rewrite(
    s: _Session,
    fe: FileEdit,
    here: str,
    refused: set[str | None],
    errors: Sequence[Finding],
    planned_after: dict[str, FileChange],
    fmt: str,
) -> Rewrite | None:
    """One file of the suggestion: as the edit had it (when the edit had it right), or its reading."""
    if fe.op is not Op.MODIFY or fe.binary or (fe.old_path and fe.old_path != fe.path) or fe.new_mode:
        return None
    start = "" if fe.path_base is PathBase.ROOT else here
    guess = fe.path_base is PathBase.GUESS
    fe = target.prefix_dropped(s.ws.root, fe, start, guess)
    from ...files import paths

    path, refusal = target.resolve(s.ws, paths.from_folder(start, fe.path, guess), s.pol)
    if refusal is not None or path is None or redaction.sealed(path, s.pol):
        return None
    try:
        before, _mode = worktree.read(s.ws.root, path)
    except worktree.UnsafePath:
        return None
    text = decode_or_none(before)
    if before is None or text is None:
        return None
    shown = _shown(path, fe, here, s.audience)
    if path not in refused:
        change = planned_after.get(path)
        after = decode_or_none(change.after) if change is not None else None
        if after is None:
            return None
        ops = tuple(c for c in fe.changes if isinstance(c, LineRange)) if fmt == "hashline" and line_anchored(fe) else None
        return Rewrite(path, shown, text, after, fe.content is not None, ops, fe.base)
    codes = {f.code for f in errors if f.path == path}
    got = _reading(s, fe, path, before, text, codes)
    if got is None:
        return None
    return replace(got, shown=shown)


# ---------------------------------------------------------------------- one reading of a refused file


def _reading(s: _Session, fe: FileEdit, path: str, before: bytes, text: Text, codes: set[str]) -> Rewrite | None:
    """The file's one reading, or None (see the module doc for where the edit's side comes from).

    The first that applies decides: a hashline edit (``_hashline``); an edit made against the
    agent's last read (``_since_read``) or, under read_before_edit, against what it last saw
    (``_read_before_edit``); against the version its index line names; else the edit located
    in the file as it is (``_located``).
    """
    if fe.content is None and not fe.changes:
        return None
    if line_anchored(fe):
        return _hashline(s, fe, path, before, text)
    if s.require_read and target.unread(s.ws, path, before, s.reader, s.audience) is not None:
        return _since_read(s, fe, path, text)
    edit = _read_before_edit(s, fe, path, before, text)
    if not isinstance(edit, FileEdit):
        return edit
    fe = edit
    named = file_change.bases(s.call, fe, path, before, ()).named
    if named is not None:
        why = f"{path} changed since the version the edit's index line names"
        got_named = _onto(s, fe, path, text, [named], why, needs_read=s.pol.read_before_edit)
        if got_named is not None or "stale" in codes:
            return got_named
    return _located(s, fe, path, before, text, codes)


def _since_read(s: _Session, fe: FileEdit, path: str, text: Text) -> Rewrite | None:
    """The edit made on the agent's last read of the file, merged onto the file as it is now."""
    seen = reads.last(s.ws.repo, s.reader, path)
    base = _blob_text(s, seen.blob) if seen is not None else None
    if base is None:
        return None
    why = f"{path} changed since {s.agent} read it, and the edit was made against that read"
    return _onto(s, fe, path, text, [base], why, needs_read=True)


def _read_before_edit(s: _Session, fe: FileEdit, path: str, before: bytes, text: Text) -> FileEdit | Rewrite | None:
    """Under read_before_edit, an edit with no base (or one the agent never saw) is made on the
    versions the agent saw when the file changed since (the reading, or None); else the edit
    as the agent's reads allow it, to read further."""
    from ...reading import anchors

    repo = s.ws.repo
    if fe.base and s.pol.read_before_edit and not anchors.seen_base(repo, s.pol, path, fe.base, s.reader):
        fe = fe._replace(base=None)
    if not (fe.base is None and s.pol.read_before_edit):
        return fe
    got = anchors.against_read(repo, fe, path, before, s.pol, file_change.reader(s.call))
    if got.stale is not None:
        bases = [t for oid in got.seen if (t := _blob_text(s, oid)) is not None]
        why = f"{path} changed since {s.agent} last saw it (read_before_edit)"
        return _onto(s, fe, path, text, bases, why, needs_read=True)
    if any(f.severity == "error" for f in got.findings):
        return None
    return got.edit


def _located(s: _Session, fe: FileEdit, path: str, before: bytes, text: Text, codes: set[str]) -> Rewrite | None:
    """The edit located in the file as it is: realigned where the engine found no place for a
    change; made on an earlier version it fits (``3way``); or, placed by fuzz, merged by git's
    rule (``_fuzz_settled``)."""
    ordered = ordered_changes(fe)
    if codes == {"not-found"} and fe.content is not None:
        return None
    if codes == {"not-found"}:  # the engine's locator, which this one is, found no place for some change
        return _realigned(s, fe, path, text, ordered)
    out = locate_changes(text, fe.changes, s.tiers, path, ordered) if fe.content is None else None
    if out is None:
        return None
    if out.findings:
        if codes == {"not-found"} and all(f.code == "not-found" for f in out.findings):
            return _realigned(s, fe, path, text, ordered)
        if "3way" in s.tiers and all(f.code in ("not-found", "ambiguous") for f in out.findings):
            earlier = file_change.earlier(s.call, path, before)
            why = f"the edit fits an earlier version of {path} ({', '.join(label for label, _t in earlier)})"
            return _onto(s, fe, path, text, [t for _label, t in earlier], why, needs_read=s.pol.read_before_edit)
        return None
    return _fuzz_settled(path, text, out)


def _fuzz_settled(path: str, text: Text, out: Located) -> Rewrite | None:
    """The fuzz tier placed the edit, and git's merge of the edit's own view with the file
    conflicted: the file settled by the reading of the lines around the change."""
    fuzzed = [replace(sp, new=sp.seen, final_newline=None) for sp in out.splices if sp.seen is not None]
    if not fuzzed:
        return None
    base, _ = apply_splices(text, fuzzed)
    ours, _ = apply_splices(text, [replace(sp, new=sp.meant) if sp.meant is not None else sp for sp in out.splices])
    settled = settle(base, ours, text)
    if settled is None or settled.text == text:
        return None
    why = f"{path} reads otherwise than the edit shows next to the lines it changes"
    return Rewrite(path, path, text, settled.text, why=_merge_why(why, settled))


def _blob_text(s: _Session, oid: str) -> Text | None:
    return decode_or_none(s.ws.repo.read_blob(oid))


def _onto(s: _Session, fe: FileEdit, path: str, text: Text, bases: Sequence[Text], why: str, needs_read: bool) -> Rewrite | None:
    """The edit made on the first of `bases` it fits exactly, and merged onto the file as it is now."""
    exact = tuple(t for t in s.tiers if t != "fuzz")
    for base in bases:
        if fe.content is not None:
            ours, _ = whole_text(base, fe.content)
        else:
            out = locate_changes(base, fe.changes, exact, path, ordered_changes(fe))
            if out.findings:
                continue
            ours, _ = apply_splices(base, out.splices)
        if ours == base:
            return None
        settled = settle(base, ours, text)
        if settled is None or settled.text == text:
            return None
        read = _read_spans(s, path, text, settled.text) if needs_read else None
        return Rewrite(path, path, text, settled.text, fe.content is not None, why=_merge_why(why, settled), read=read)
    return None


def _merge_why(said: str, settled: Settled) -> str:
    """What git's merge rule saw, and what the suggestion does about it."""
    shown = []
    for line, was, now in settled.touching[:3]:
        if not now:
            shown.append(
                f"the line{'s' if len(was) > 1 else ''} {', '.join(repr(brief(x)) for x in was[:2])} "
                f"before line {line} {'are' if len(was) > 1 else 'is'} gone"
            )
        elif not was:
            shown.append(f"line {line} {brief(now[0])!r} is new" + (f" (and {len(now) - 1} more)" if len(now) > 1 else ""))
        else:
            shown.append(f"line {line} is {brief(now[0])!r} where the edit saw {brief(was[0])!r}")
    if shown:
        said += ": " + "; ".join(shown) + (f"; and {len(settled.touching) - 3} more" if len(settled.touching) > 3 else "")
        said += (
            "; git's merge rule calls a change next to the edit's a conflict, but no line the edit changes "
            "changed: the suggestion keeps the file's lines there and makes the edit's change"
        )
    else:
        said += "; the suggestion is the edit made on that text, merged onto the file as it is by git's rule"
    return said


def _realigned(s: _Session, fe: FileEdit, path: str, text: Text, ordered: bool) -> Rewrite | None:
    """Each change not found, rewritten against its one likely region; the file's new text from all of them."""
    from .realign import realign

    fi = file_index(text)
    changes: list[Change] = []
    said: list[str] = []
    for ch in fe.changes:
        if not isinstance(ch, (Hunk, Replace)):
            return None
        if len(fe.changes) > 1:  # which of them is not found (one alone is: the caller located it)
            alone = locate_changes(text, [ch], s.tiers, path, False)
            if not alone.findings:
                changes.append(ch)
                continue
            if any(f.code != "not-found" for f in alone.findings):
                return None
        r = realign(fi, ch, s.tiers)
        if r is None:
            return None
        changes.append(r.change)
        where = f"lines {r.first}-{r.last}" if r.last > r.first else f"line {r.first}"
        what = "; ".join(r.differs[:3]) + (f"; and {len(r.differs) - 3} more" if len(r.differs) > 3 else "")
        said.append(f"{where} hold the lines the edit changes, but read otherwise around them: {what}")
    got = new_text(fe._replace(changes=tuple(changes)), text, s.tiers, path)
    if not isinstance(got, Rewritten) or got.text == text:
        return None
    why = f"{path}: " + "; ".join(said) + "; the suggestion shows those lines as they are now and makes the edit's change there"
    return Rewrite(path, path, text, got.text, why=why)


def _hashline(s: _Session, fe: FileEdit, path: str, before: bytes, text: Text) -> Rewrite | None:
    from .relines import carried, reanchor, version_of

    repo = s.ws.repo
    seen = reads.last(repo, s.reader, path)
    version = version_of(repo, fe, seen.blob if seen is not None else None)
    if version is None or seen is None:
        return None
    blob, base = version
    current = repo.hash_blob(before)
    moved = reanchor(fe, base, text, current)
    if moved is None:
        return None
    eol = text.dominant_eol()
    splices = [
        Splice(c.start - 1, c.end, tuple((x[:-1], "\r\n") if x.endswith("\r") else (x, eol) for x in c.new))
        for c in moved.changes
    ]
    after, _ = apply_splices(text, splices)
    if after == text:
        return None
    read = None
    if seen.blob != current:
        shown_before = _blob_text(s, seen.blob)
        read = carried(shown_before, seen.shown, text) if shown_before is not None else None
        if read is None:
            return None
    tag = (fe.base or "").lower()
    why = (
        f"{path}: #{tag} is {'not the version ' + s.agent + ' last read' if not seen.blob.startswith(tag) else 'out of date'}"
        f" (the file is #{current[:8]} now); every line the ops anchor on is unchanged there"
    )
    if moved.moved:
        why += ": " + "; ".join(moved.moved)
    if moved.since:
        why += "; next to them, " + "; ".join(moved.since)
    why += f"; the suggestion is the same ops under [#{current[:8]}]"
    return Rewrite(path, path, text, after, ops=moved.changes, tag=current[:8], why=why, read=read)


def _read_spans(s: _Session, path: str, now: Text, after: Text) -> tuple[tuple[int, int], ...]:
    """The lines of the file as it is now that the agent has seen, once shown the suggestion: those
    unchanged since its last read that the read showed, and those the suggestion changes (or
    inserts between)."""
    from ...tree.diffs import opcodes
    from .relines import carried
    from .settle import keyed

    spans: list[tuple[int, int]] = []
    seen = reads.last(s.ws.repo, s.reader, path)
    if seen is not None:
        old = _blob_text(s, seen.blob)
        if old is not None:
            spans += carried(old, seen.shown, now)
    n = len(now.lines)
    for tag, a0, a1, _b0, _b1 in opcodes(keyed(now), keyed(after)):
        if tag == "equal":
            continue
        # The lines a change replaces, or an insertion's neighbours: every writer but hashline's
        # (which records no such read) shows them; what else it shows as context varies.
        lo, hi = (a0 + 1, a1) if a1 > a0 else (max(1, a0), min(n, a0 + 1))
        if lo <= hi:
            spans.append((lo, hi))
    return reads.merge(spans)


# ---------------------------------------------------------------------- does it land?


def _lands(s: _Session, text: str, fmt: str, files: Sequence[Rewrite]) -> bool:
    """Whether `text`, sent back as it is, lands exactly on each file's new text: parsed in its dialect,
    located, checked by the policy.  The reads it needs are recorded first, and put back if it does not."""
    from ... import dialects

    repo = s.ws.repo
    put_back: dict[str, reads.Read | None] = {}
    for r in files:
        if r.read is None:
            continue
        put_back[r.path] = reads.last(repo, s.reader, r.path)
        blob = repo.write_blob(r.before.encode())
        reads.put(repo, s.reader, r.path, reads.Read(blob, r.read))
    ok = False
    try:
        parsed, _found = dialects.parse(text, fmt, None, s.audience)
        if parsed is not None:
            plan = s.replan(parsed, len(text.encode("utf-8")))
            got = {c.path: c for c in plan.changes}
            ok = (
                not any(f.severity == "error" for f in plan.findings)
                and set(got) == {r.path for r in files}
                and all(_same(got[r.path].after, r.after, got[r.path].repairs) for r in files)
            )
    finally:
        if not ok:
            for path, entry in put_back.items():
                reads.put(repo, s.reader, path, entry)
    return ok


def _same(got: bytes | None, want: Text, repairs: Sequence[str]) -> bool:
    """The file as the suggestion lands is the one computed (where the policy fixes whitespace in the
    lines an edit adds, with that fixed: the original edit would have had it fixed too)."""
    if got is None:
        return False
    data = want.encode()
    if got == data:
        return True
    if "whitespace-fix" not in repairs:
        return False
    a, b = got.split(b"\n"), data.split(b"\n")
    return len(a) == len(b) and all(x.rstrip(b" \t\r") == y.rstrip(b" \t\r") for x, y in zip(a, b))
