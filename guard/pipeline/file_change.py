"""One file section of an edit, as the change it makes: the per-file half of planning.

The steps, in order, each of which may refuse: the agent's path resolved (``_paths``:
``files.target.resolve``, after the path repairs), the file read and vetted against the
operation (``_read_vetted``), the agent's reads consulted (``_against_reads``: hashline
anchors, read_before_edit); then the file deleted (``_delete``) or its new text worked out
(``_edited``): the edit located in the file as it is (``locate``), or in a version the agent
saw before (``3way``, ``earlier``), rebased, and diffed.  The result is a ``FileChange``; no
file is written here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..files import paths, target
from ..locate import apply_splices, locate_changes
from ..locate.rebase import Bases, Rewritten, from_earlier, new_text
from ..model import FileChange, FileEdit, Finding, LineRange, Op, PathBase, Snippet, error, line_anchored
from ..repo import FILE
from ..report.audience import Audience
from ..text.textfile import Text, decode, decode_or_none
from ..text.wording import plural
from ..tree import diffs, worktree

if TYPE_CHECKING:
    from ..files.attributes import AttrLookup
    from ..reading import anchors
    from ..reading.anchors import Anchored
    from .call import Call


@dataclass(frozen=True, slots=True)
class Outcome:
    """A file section's change (None: refused), with the findings and notes that go with it."""

    change: FileChange | None
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()


def _refused(*findings: Finding) -> Outcome:
    return Outcome(None, findings)


@dataclass(frozen=True, slots=True)
class _Target:
    """The file a section changes, as read: where it is read from (`src`: for a move, the file
    moved) and written to (`path`), its bytes and mode now (None: not there), and the operation."""

    src: str
    path: str
    before: bytes | None
    old_mode: int | None
    op: Op


def change_for(call: Call, fe: FileEdit, attr: AttrLookup, guessed_whole: bool = False) -> Outcome:
    """The change `fe` makes to its file.

    With the call's `require_read`, an existing file the edit changes, moves or deletes must be
    one the agent read as it is now (``target.unread``).  Every gate here -- that one,
    read_before_edit, the protected paths and allow-list (``target.resolve``), and ``checks``
    after (create, tracked) -- sees the path this function writes: the agent's path after every
    repair (``target.prefix_dropped``), resolved.  `attr`: the attributes to read, as the tree was
    before the turn (``attributes.before_turn``).  `guessed_whole`: the dialect was detected as a
    whole file, which a far shorter text may not be (``_snippet_not_file``).
    """
    if fe.binary:
        return _refused(
            error(
                "binary",
                fe.path,
                None,
                f"binary patch for {fe.path}: agent-guard edits text only",
                "change binary files outside the agent, or send a text edit",
            )
        )
    where = _paths(call, fe)
    if isinstance(where, list):
        return _refused(*where)
    fe, start, src, path = where
    got = _read_vetted(call, fe, start, src, path, attr)
    if isinstance(got, Finding):
        return _refused(got)
    read = _against_reads(call, fe, got.src, got.before)
    if read is not None:
        fe = read.edit
        if any(x.severity == "error" for x in read.findings):
            return _refused(*read.findings)
    if got.op is Op.DELETE:
        if read is not None and read.stale is not None:
            return _refused(read.stale)  # deleting a file changed since it was seen loses that change
        ch, fs = _delete(fe, got, tuple(call.policy.tiers))
        return Outcome(ch, (tuple(read.findings) if read is not None else ()) + tuple(fs))
    return _edited(call, fe, got, read, guessed_whole, attr)


def _paths(call: Call, fe: FileEdit) -> tuple[FileEdit, str, str, str] | list[Finding]:
    """The edit with its path repaired (``target.prefix_dropped``), the folder its paths start from,
    and the file it reads (for a move, the one moved) and writes, resolved; or the refusal."""
    start = "" if fe.path_base is PathBase.ROOT else call.folder
    guess = fe.path_base is PathBase.GUESS
    fe = target.prefix_dropped(call.root, fe, start, guess)
    path, f = target.resolve(call.ws, paths.from_folder(start, fe.path, guess), call.policy)
    if f is not None or path is None:
        return [f] if f else []
    src: str = path
    if fe.old_path and fe.op in (Op.RENAME, Op.MODIFY) and fe.old_path != fe.path:
        old, f = target.resolve(call.ws, paths.from_folder(start, fe.old_path, guess), call.policy)
        if f is not None or old is None:
            return [f] if f else []
        src = old
    return fe, start, src, path


def _read_vetted(call: Call, fe: FileEdit, start: str, src: str, path: str, attr: AttrLookup) -> _Target | Finding:
    """The file's bytes and mode now and the operation it gets, once what is there allows the edit
    (``target.vet``), the agent read it (the call's `require_read`) and its content is text."""
    from ..checks import content_finding

    try:
        before, old_mode = worktree.read(call.root, src)
        dest = worktree.read(call.root, path)[0] if src != path else before
    except worktree.UnsafePath as exc:
        return target.not_a_file(call.root, fe, src, path, exc)
    refused = target.vet(call.ws, fe, src, path, before, dest, start)
    if refused is not None:
        return refused
    if call.require_read and before is not None:
        unseen = target.unread(call.ws, src, before, call.reader, call.audience)
        if unseen is not None:
            return unseen
    op = fe.op
    if before is None and op is not Op.CREATE:
        op = Op.CREATE  # a whole-file write (create_missing) of a file not there
    if before is not None:
        bad = content_finding(src, before, attr)
        if bad is not None:
            return bad
    return _Target(src, path, before, old_mode, op)


def _against_reads(call: Call, fe: FileEdit, src: str, before: bytes | None) -> Anchored | None:
    """What the agent read decides a line-anchored edit, and (read_before_edit) an edit with no
    base of its own; None for any other edit (it is as sent).  Only those load `anchors` (and
    with it the reads record, hashline's module)."""
    if before is None:
        return None
    pol = call.policy
    claimed: str | None = None
    if fe.base and pol.read_before_edit and not line_anchored(fe):
        from ..reading import anchors

        if not anchors.seen_base(call.repo, pol, src, fe.base, call.reader):
            # A made-up `index` line (or a blob the agent never saw) is no base: the edit is one
            # with none, which read_before_edit holds to the agent's reads and writes.
            claimed, fe = fe.base, fe._replace(base=None)
    if line_anchored(fe) or (fe.base is None and pol.read_before_edit):
        from ..reading import anchors

        return anchors.against_read(call.repo, fe, src, before, pol, reader(call), claimed)
    return None


def reader(call: Call) -> anchors.Reader:
    """The call's agent as ``anchors`` asks after its reads: in its named session, hints in its tools."""
    from ..reading import anchors

    return anchors.Reader(call.audience, call.agent, call.named_session)


def _edited(call: Call, fe: FileEdit, t: _Target, read: Anchored | None, guessed_whole: bool, attr: AttrLookup) -> Outcome:
    """The change of a file created or edited: its new text (``_new_text``), as a change."""
    stale = read.stale if read is not None else None  # read_before_edit: the file changed since the agent saw it
    path, before = t.path, t.before
    text = decode(before) if before is not None else Text((), (), False)
    notes: list[str] = []
    flt = attr(path, "filter")
    if isinstance(flt, str):
        # What the agent read and what an editor would write: the work-tree bytes.
        notes.append(
            f"{path} passes through the git filter {flt!r}: the edit applies to its work-tree "
            "(smudged) bytes, and git runs the filter's clean step when the file is staged"
        )
    dropped: Finding | None = None
    if fe.content is not None and guessed_whole and before is not None and stale is None:
        doubt = _snippet_not_file(path, text, fe.content, call.audience)
        if doubt is not None:
            return _refused(doubt)
        # Refused too, but with the change built, so the checks say what else is wrong with it
        # (an elision marker where the definitions were is the `placeholder` check's to name).
        dropped = _drops_definitions(path, text, fe.content, call.audience)
    got = _new_text(call, fe, path, before, text, read)
    if not isinstance(got, Rewritten):
        return _refused(*got)
    repairs = list(read.repairs if read is not None else ()) + list(got.repairs) + list(fe.repairs)
    new = got.text
    if not any(text.eols):
        # A new file (or one without a line end of its own): the endings git's checkout
        # would give it (`* text=auto eol=crlf`: CRLF), whatever the edit used.
        from ..text.eol import as_checked_out

        new, converted = as_checked_out(new, path, attr, call.repo.config)
        if converted:
            repairs.append("eol")
    made = FileChange(
        path=path,
        op=t.op,
        old_path=t.src if t.src != path else None,
        before=before,
        after=new.encode(),
        old_mode=t.old_mode,
        new_mode=fe.new_mode or t.old_mode or FILE,
        repairs=tuple(repairs),
        whole=fe.content is not None,
    )
    change = diffs.diffed(
        made,
        regions=got.regions,
        before_text=text if before is not None else None,
        after_text=new,
    )
    found = tuple(read.findings) if read is not None else ()
    return Outcome(change, found + ((dropped,) if dropped is not None else ()), tuple(notes) + tuple(got.notes))


def _new_text(
    call: Call, fe: FileEdit, path: str, before: bytes | None, text: Text, read: Anchored | None
) -> Rewritten | list[Finding]:
    """The file's new text: the edit located in the file as it is, else (``3way``) in a version
    the agent saw before; or the findings that refuse it."""
    tiers = tuple(call.policy.tiers)
    stale = read.stale if read is not None else None
    seen = read.seen if read is not None and stale is not None else ()
    found = bases(call, fe, path, before, seen)
    got = new_text(fe, text, tiers, path, found)
    if got is None:
        assert stale is not None
        return [stale]
    if not isinstance(got, Rewritten) and "3way" in tiers and _may_be_older(fe, before, found, got):
        # Not in the file as it is: made, perhaps, against a version the agent saw before.
        older = from_earlier(fe, text, tiers, path, found.earlier or earlier(call, path, before or b""))
        if older is not None:
            got = older if isinstance(older, Rewritten) else (older,)
    if not isinstance(got, Rewritten):
        return list(got)
    return got


def _may_be_older(fe: FileEdit, before: bytes | None, found: Bases, refused: tuple[Finding, ...]) -> bool:
    """Whether a refused edit of changes (no base of its own) should be tried against earlier versions."""
    # A lazy snippet's `placeholder` refusal (lines it would drop without a marker) is a reading of
    # its layout against the file, which a line changed since can break (a shown line now unique
    # elsewhere anchors it there): the version it was written against may read it whole.
    codes = (
        ("not-found", "ambiguous", "placeholder")
        if all(isinstance(c, Snippet) for c in fe.changes)
        else ("not-found", "ambiguous")
    )
    return (
        before is not None
        and bool(fe.changes)
        and fe.content is None
        and found.named is None
        and not found.seen
        and not any(isinstance(c, LineRange) for c in fe.changes)
        and all(f.code in codes for f in refused)
    )


def bases(call: Call, fe: FileEdit, path: str, before: bytes | None, seen: tuple[str, ...]) -> Bases:
    """The texts, other than the file now, that the edit may have been made against (from git)."""
    repo = call.repo
    if seen:
        return Bases(seen=tuple(t for oid in seen if (t := decode_or_none(repo.read_blob(oid))) is not None))
    named = None
    if (
        "3way" in call.policy.tiers
        and fe.base
        and before is not None
        and len(fe.base) >= 7
        and not repo.hash_blob(before).startswith(fe.base.lower())
    ):
        named = decode_or_none(repo.read_blob(fe.base))  # the edit's own base, when git still has it
    older = earlier(call, path, before) if before is not None and any(isinstance(c, Snippet) for c in fe.changes) else ()
    return Bases(named=named, earlier=older)


def earlier(call: Call, path: str, before: bytes) -> tuple[tuple[str, Text], ...]:
    """Earlier versions of `path` an agent may have written against: its last read, its last
    write, HEAD's (each once, and only those that differ from the file now)."""
    from ..reading import anchors
    from ..record import reads

    repo, agent = call.repo, call.agent
    read = reads.last(repo, call.reader, path)
    written = anchors.last_written(repo, call.policy, call.reader, path)
    now = repo.hash_blob(before)
    if now in (read.blob if read else None, written):
        return ()  # the agent has seen the file as it is: its snippet was written against it
    head = repo.head_commit()
    entry = repo.tree_entry(repo.commit_tree(head), path) if head else None
    ids = (
        (f"{agent}'s last read", read.blob if read else None),
        (f"{agent}'s last write", written),
        ("HEAD's version", entry.oid if entry else None),
    )
    out: list[tuple[str, Text]] = []
    known = {now}
    for label, oid in ids:
        if oid is None or oid in known:
            continue
        known.add(oid)
        text = decode_or_none(repo.read_blob(oid))
        if text is not None:
            out.append((label, text))
    return tuple(out)


def _delete(fe: FileEdit, t: _Target, tiers: tuple[str, ...]) -> tuple[FileChange | None, list[Finding]]:
    assert t.before is not None
    if fe.changes:
        text = decode(t.before)
        out = locate_changes(text, fe.changes, tiers, t.path, True)
        if out.findings:
            return None, list(out.findings)
        left, _ = apply_splices(text, out.splices)
        if left.lines:
            return None, [
                error(
                    "stale",
                    t.path,
                    1,
                    f"{t.path} holds {plural(len(left.lines), 'line')} the delete does not show",
                    "re-read the file: it changed since the patch was made",
                )
            ]
    return diffs.make_change(t.path, Op.DELETE, t.before, None, old_mode=t.old_mode), []


def _snippet_not_file(path: str, text: Text, content: str, audience: Audience) -> Finding | None:
    """A fenced block taken for all of `path` (auto-detected) that is far shorter than the file:
    most likely a snippet of it, which written whole would delete the rest."""
    old_n = len(text.lines)
    new_n = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    if new_n * 2 >= old_n or old_n - new_n <= 5:
        return None
    return error(
        "parse-error",
        path,
        None,
        f"the input was read as the whole new text of {path} (a fenced block under its name), but it holds "
        f"{plural(new_n, 'line')} where {path} has {old_n}: it reads as a snippet of the file, "
        "and written whole it would delete the rest",
        "to change part of the file, send a diff or SEARCH/REPLACE blocks; to replace the whole file, " + audience.whole_file(),
    )


SHOWN_DEFINITIONS = 8


def _drops_definitions(path: str, text: Text, content: str, audience: Audience) -> Finding | None:
    """A fenced block taken for all of `path` (auto-detected) that leaves out definitions the file has
    (functions, classes, methods; ``syntax.definitions``): a snippet of the file, however long, which
    written whole would delete them.  More left out than it defines anew (a rename leaves one and
    adds one); an explicit whole-file write (``--format whole``, a JSON `content`) is not judged here."""
    from ..syntax import definitions

    old, new = definitions.names(path, "\n".join(text.lines), content)
    dropped, added = old - new, new - old
    lost = sum(dropped.values())
    if not lost or lost <= sum(added.values()):
        return None
    names = sorted(dropped)
    shown = ", ".join(names[:SHOWN_DEFINITIONS]) + (
        f" and {len(names) - SHOWN_DEFINITIONS} more" if len(names) > SHOWN_DEFINITIONS else ""
    )
    return error(
        "parse-error",
        path,
        None,
        f"the input was read as the whole new text of {path} (a fenced block under its name), but it leaves out "
        f"{plural(lost, 'definition')} {path} has ({shown}): it reads as a snippet of the file, and written whole "
        f"it would delete {'it' if lost == 1 else 'them'}",
        "to change part of the file, send a diff or SEARCH/REPLACE blocks; to rewrite the whole file, put every "
        "definition it keeps in the block; to delete them on purpose, " + audience.whole_file(),
    )


def tracked_for(call: Call) -> Callable[[str], bool]:
    """``target.tracked_for`` for the call's agent, with the call's ledger memo."""
    return target.tracked_for(call.ws, call.policy, call.agent, call.memo)
