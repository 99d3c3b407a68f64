"""The file an edit targets: resolved, read and vetted, then its change worked out.

For each file section of an edit: the agent's path becomes a repository-relative
one (or a refusal: outside the tree, git's own folders, protected, a submodule), the
file is read without following a link, the operation is checked against what is
there (create over a file, modify a missing one, a folder, sparse checkout, a
symlink or submodule mode, binary or not UTF-8 content), the agent's reads are
consulted (``anchors``), the texts the edit may have been made against are
gathered from git (the blob an ``index`` line names; read_before_edit's versions;
a lazy snippet's earlier versions), and ``locate.rebase.new_text`` works out the
new text.  The result is a ``FileChange``: no file is written here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .. import diffs, worktree
from ..locate import apply_splices, locate_changes
from ..locate.rebase import Bases, Rewritten, from_earlier, new_text
from ..model import FileChange, FileEdit, Finding, LineRange, Op, PathBase, Snippet, error, line_anchored
from ..record import ledger
from ..repo import EXEC, FILE
from ..report.audience import CLI, Audience
from ..text.textfile import Text, decode, decode_or_none
from ..text.wording import plural
from . import paths

if TYPE_CHECKING:
    from ..policy import Policy
    from ..reading.anchors import Anchored
    from ..workspace import Workspace
    from .attributes import AttrLookup


def resolve(ws: Workspace, raw: str, pol: Policy, reading: bool = False) -> tuple[str | None, Finding | None]:
    """An agent's path as a repository-relative one, or the finding that refuses it: outside
    the tree, in git's own folders, a control file (``control``; read freely), protected (for
    `reading`: not to be read), in a submodule."""
    rel, finding = paths.resolve(ws.root, raw)
    if finding is not None or rel is None:
        return None, finding
    own = paths.git_folder_finding(rel, ws.repo.git_folders())
    if own is not None:
        return None, own
    if not reading:
        from .control import path_finding

        control = path_finding(rel, ws.control_paths(), pol)
        if control is not None:
            return None, control
    prot = paths.read_finding(rel, pol) if reading else paths.protected_finding(rel, pol)
    if prot is not None and prot.severity == "error":
        return None, prot
    sub = ws.repo.submodule_of(rel)
    if sub is not None:
        # paths.resolve sees a checked-out submodule's .git; this is one not checked out,
        # whose empty folder a later `git submodule update` must find empty.
        return None, error(
            "path-protected",
            rel,
            None,
            f"{rel!r}: {sub!r} is a submodule (git records it as a commit, not files)",
            "edit the submodule in its own repository, not through this one",
        )
    return rel, None


def tracked_for(ws: Workspace, pol: Policy, agent: str) -> Callable[[str], bool]:
    """Tracked by git (HEAD or the index), or created by this agent's own turn and not ignored.

    The ledger keeps every file a turn touched, so it can restore them; that makes a file the
    agent created its own to edit, though git does not track it.  Nothing else on the shadow ref
    counts: a file the user untracked (`git rm --cached`) stops being editable at once unless the
    agent created it, and one the agent created stops once git ignores it (the user's way to take
    a file away from the agent).
    """
    tip = ws.repo.ref(ledger.ref_name(pol.ledger_prefix, agent))
    tip_tree = ws.repo.commit_tree(tip) if tip else None
    known: dict[str, bool] = {}

    def tracked(path: str) -> bool:
        if ws.repo.tracked(path):
            return True
        if tip is None or ws.repo.tree_entry(tip_tree, path) is None:
            return False
        if path not in known:
            known[path] = not ws.repo.ignored(path) and ledger.created_by_agent(ws.repo, tip, agent, path, ws.ledger_memo)
        return known[path]

    return tracked


_Result = tuple[FileChange | None, list[Finding], list[str]]  # the change (None: refused), findings, notes


def change_for(
    ws: Workspace,
    fe: FileEdit,
    pol: Policy,
    tiers: tuple[str, ...],
    here: str = "",
    audience: Audience = CLI,
    guessed_whole: bool = False,
    require_read: bool = False,
    attr: AttrLookup | None = None,
) -> _Result:
    """The change `fe` makes to its file (None when refused), with the findings and notes that go with it.

    `require_read`: an existing file the edit changes, moves or deletes must be one the agent
    read as it is now (``unread``).  Every gate here -- that one, read_before_edit, the protected
    paths and allow-list (``resolve``), and ``checks`` after (create, tracked) -- sees the path
    this function writes: the agent's path after every repair (``_prefix_dropped``), resolved.
    `attr`: the attributes to read (default: the work tree's), as the tree was before the turn
    (``attributes.before_turn``).

    The steps, in order, each of which may refuse: the paths (``_paths``), the file read and
    vetted (``_read_vetted``), the agent's reads (``_against_reads``); then the file deleted
    (``_delete``) or its new text worked out (``_edited``).
    """
    attr = attr or ws.repo.attributes()
    if fe.binary:
        return (
            None,
            [
                error(
                    "binary",
                    fe.path,
                    None,
                    f"binary patch for {fe.path}: agent-guard edits text only",
                    "change binary files outside the agent, or send a text edit",
                )
            ],
            [],
        )
    where = _paths(ws, fe, pol, here)
    if isinstance(where, list):
        return None, where, []
    fe, start, src, path = where
    got = _read_vetted(ws, fe, pol, start, src, path, require_read, audience, attr)
    if isinstance(got, Finding):
        return None, [got], []
    before, old_mode, op = got
    read = _against_reads(ws, fe, src, before, pol, audience)
    if read is not None:
        fe = read.edit
        if any(x.severity == "error" for x in read.findings):
            return None, list(read.findings), []
    if op is Op.DELETE:
        if read is not None and read.stale is not None:
            return None, [read.stale], []  # deleting a file changed since it was seen loses that change
        ch, fs = _delete(fe, path, before, old_mode, tiers)
        return ch, (list(read.findings) if read is not None else []) + fs, []
    return _edited(ws, fe, pol, tiers, src, path, before, old_mode, op, read, audience, guessed_whole, attr)


def _paths(ws: Workspace, fe: FileEdit, pol: Policy, here: str) -> tuple[FileEdit, str, str, str] | list[Finding]:
    """The edit with its path repaired (``_prefix_dropped``), the folder its paths start from,
    and the file it reads (for a move, the one moved) and writes, resolved; or the refusal."""
    start = "" if fe.path_base is PathBase.ROOT else here
    guess = fe.path_base is PathBase.GUESS
    fe = _prefix_dropped(ws.root, fe, start, guess)
    path, f = resolve(ws, paths.from_folder(start, fe.path, guess), pol)
    if f is not None or path is None:
        return [f] if f else []
    src: str = path
    if fe.old_path and fe.op in (Op.RENAME, Op.MODIFY) and fe.old_path != fe.path:
        old, f = resolve(ws, paths.from_folder(start, fe.old_path, guess), pol)
        if f is not None or old is None:
            return [f] if f else []
        src = old
    return fe, start, src, path


def _read_vetted(
    ws: Workspace,
    fe: FileEdit,
    pol: Policy,
    start: str,
    src: str,
    path: str,
    require_read: bool,
    audience: Audience,
    attr: AttrLookup,
) -> tuple[bytes | None, int | None, Op] | Finding:
    """The file's bytes and mode now (None: not there) and the operation it gets, once what is
    there allows the edit (``_vet``), the agent read it (`require_read`) and its content is text."""
    from ..checks import content_finding

    try:
        before, old_mode = worktree.read(ws.root, src)
        dest = worktree.read(ws.root, path)[0] if src != path else before
    except worktree.UnsafePath as exc:
        return _not_a_file(ws.root, fe, src, path, exc)
    op = fe.op
    refused = _vet(ws, fe, op, src, path, before, dest, start)
    if refused is not None:
        return refused
    if require_read and before is not None:
        unseen = unread(ws, src, before, pol.agent or "agent", audience)
        if unseen is not None:
            return unseen
    if before is None and op is not Op.CREATE:
        op = Op.CREATE  # a whole-file write (create_missing) of a file not there
    if before is not None:
        bad = content_finding(src, before, attr)
        if bad is not None:
            return bad
    return before, old_mode, op


def _against_reads(
    ws: Workspace, fe: FileEdit, src: str, before: bytes | None, pol: Policy, audience: Audience
) -> Anchored | None:
    """What the agent read decides a line-anchored edit, and (read_before_edit) an edit with no
    base of its own; None for any other edit (it is as sent).  Only those load `anchors` (and
    with it the reads record, hashline's module)."""
    if before is None:
        return None
    claimed: str | None = None
    if fe.base and pol.read_before_edit and not line_anchored(fe):
        from ..reading import anchors

        if not anchors.seen_base(ws.repo, pol, src, fe.base):
            # A made-up `index` line (or a blob the agent never saw) is no base: the edit is one
            # with none, which read_before_edit holds to the agent's reads and writes.
            claimed, fe = fe.base, fe._replace(base=None)
    if line_anchored(fe) or (fe.base is None and pol.read_before_edit):
        from ..reading import anchors

        return anchors.against_read(ws.repo, fe, src, before, pol, audience, claimed)
    return None


def _edited(
    ws: Workspace,
    fe: FileEdit,
    pol: Policy,
    tiers: tuple[str, ...],
    src: str,
    path: str,
    before: bytes | None,
    old_mode: int | None,
    op: Op,
    read: Anchored | None,
    audience: Audience,
    guessed_whole: bool,
    attr: AttrLookup,
) -> _Result:
    """The change of a file created or edited: its new text (``_new_text``), as a change."""
    stale = read.stale if read is not None else None  # read_before_edit: the file changed since the agent saw it
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
        doubt = _snippet_not_file(path, text, fe.content, audience)
        if doubt is not None:
            return None, [doubt], []
        # Refused too, but with the change built, so the checks say what else is wrong with it
        # (an elision marker where the definitions were is the `placeholder` check's to name).
        dropped = _drops_definitions(path, text, fe.content, audience)
    got = _new_text(ws, fe, pol, tiers, path, before, text, read)
    if not isinstance(got, Rewritten):
        return None, got, []
    repairs = list(read.repairs if read is not None else ()) + list(got.repairs) + list(fe.repairs)
    new = got.text
    if not any(text.eols):
        # A new file (or one without a line end of its own): the endings git's checkout
        # would give it (`* text=auto eol=crlf`: CRLF), whatever the edit used.
        from ..text.eol import as_checked_out

        new, converted = as_checked_out(new, path, attr, ws.repo.config)
        if converted:
            repairs.append("eol")
    change = diffs.make_change(
        path,
        op,
        before,
        new.encode(),
        old_path=src if src != path else None,
        old_mode=old_mode,
        new_mode=fe.new_mode or old_mode or FILE,
        repairs=repairs,
        regions=got.regions,
        before_text=text if before is not None else None,
        after_text=new,
        whole=fe.content is not None,
    )
    found = list(read.findings) if read is not None else []
    return change, found + ([dropped] if dropped is not None else []), notes + list(got.notes)


def _new_text(
    ws: Workspace,
    fe: FileEdit,
    pol: Policy,
    tiers: tuple[str, ...],
    path: str,
    before: bytes | None,
    text: Text,
    read: Anchored | None,
) -> Rewritten | list[Finding]:
    """The file's new text: the edit located in the file as it is, else (``3way``) in a version
    the agent saw before; or the findings that refuse it."""
    stale = read.stale if read is not None else None
    seen = read.seen if read is not None and stale is not None else ()
    bases = _bases(ws, fe, path, before, tiers, pol, seen)
    got = new_text(fe, text, tiers, path, bases)
    if got is None:
        assert stale is not None
        return [stale]
    if not isinstance(got, Rewritten) and "3way" in tiers and _may_be_older(fe, before, bases, got):
        # Not in the file as it is: made, perhaps, against a version the agent saw before.
        earlier = bases.earlier or _earlier(ws, path, before or b"", pol)
        older = from_earlier(fe, text, tiers, path, earlier)
        if older is not None:
            got = older if isinstance(older, Rewritten) else (older,)
    if not isinstance(got, Rewritten):
        return list(got)
    return got


def source(ws: Workspace, fe: FileEdit, pol: Policy, here: str = "") -> tuple[str, bytes | None] | Finding:
    """The file `fe` changes (for a move, the one it moves) as ``change_for`` resolves it, and its
    bytes now (None: not there); or the finding that refuses the path."""
    start = "" if fe.path_base is PathBase.ROOT else here
    guess = fe.path_base is PathBase.GUESS
    fe = _prefix_dropped(ws.root, fe, start, guess)
    name = fe.old_path if fe.old_path and fe.op in (Op.RENAME, Op.MODIFY) else fe.path
    path, f = resolve(ws, paths.from_folder(start, name, guess), pol)
    if f is not None or path is None:
        return f or error("path-outside", fe.path, None, f"{name!r} is not a file in the repository")
    try:
        return path, worktree.read(ws.root, path)[0]
    except worktree.UnsafePath as exc:
        return _not_a_file(ws.root, fe, path, path, exc)


def unread(ws: Workspace, path: str, current: bytes, agent: str, audience: Audience = CLI) -> Finding | None:
    """`stale` unless `agent` read `path` as it is now (`current`): its last read (``reads``) shows
    this content.  An applied edit counts as read (the MCP server records what it wrote)."""
    from ..reading import reads

    seen = reads.last(ws.repo, agent, path)
    if seen is not None and seen.blob == ws.repo.hash_blob(current):
        return None
    why = "you have not read it" if seen is None else "it changed since you last read it"
    return error(
        "stale",
        path,
        None,
        f"{path} cannot be edited: {why}",
        f"read it first with {audience.read(path, agent)}, then edit the text as it reads now",
    )


def _vet(
    ws: Workspace, fe: FileEdit, op: Op, src: str, path: str, before: bytes | None, dest: bytes | None, start: str
) -> Finding | None:
    """The refusal of an operation that does not fit what is there, or None."""
    if before is None and ws.repo.skip_worktree(src):
        return _outside_sparse(src, op is Op.CREATE or fe.create_missing)
    if op is Op.CREATE and before is not None:
        return error(
            "exists",
            path,
            None,
            f"{path} already exists; a create would overwrite it",
            "send a modify edit (a diff or SEARCH/REPLACE against its current content), or delete it first",
        )
    if op is not Op.CREATE and before is None and not (fe.create_missing and op is Op.MODIFY):
        verb = "delete" if op is Op.DELETE else "modify"
        return error(
            "missing",
            path,
            None,
            f"cannot {verb} {src}: it does not exist",
            f"create it with a new-file edit, or check the path ({paths.start_rule(start, fe.path_base is PathBase.ROOT)})",
        )
    if (fe.new_mode or FILE) not in (FILE, EXEC):
        kind = "a symlink" if fe.new_mode == 0o120000 else "a submodule" if fe.new_mode == 0o160000 else f"mode {fe.new_mode:o}"
        return error(
            "path-outside",
            path,
            None,
            f"{path} would become {kind}: agent-guard writes regular files only (a link may point outside the repository)",
            "create links and submodules yourself, outside the agent",
        )
    if op is Op.RENAME and src != path and dest is not None:
        return error(
            "exists",
            path,
            None,
            f"cannot move {src} to {path}: {path} already exists",
            "delete the destination first, or move to another name",
        )
    return None


def _not_a_file(root: Path, fe: FileEdit, src: str, path: str, exc: worktree.UnsafePath) -> Finding:
    """worktree.read refuses any non-regular file; a plain folder is no symlink escape."""
    if isinstance(exc, worktree.NotAFile) and exc.what != "a folder":
        return special_file(exc, fe.op is Op.CREATE or fe.create_missing or exc.path != src)
    folder = next((p for p in dict.fromkeys((src, path)) if _is_folder(root / p)), None)
    if folder is None:
        return error(
            "path-outside",
            fe.path,
            None,
            f"{exc}: agent-guard never writes through a symlink",
            "edit the file the link points to, by its own path inside the repository",
        )
    if fe.op is Op.CREATE or folder != src:
        return error(
            "exists",
            folder,
            None,
            f"{folder} already exists as a folder; a file cannot be written there",
            "name a file inside that folder, or another path",
        )
    return error("missing", folder, None, f"{folder} is a folder, not a file", "name a file")


def special_file(exc: worktree.NotAFile, creates: bool) -> Finding:
    """A named pipe, a socket or a device where an edit (`creates`: a write of a new file) or a read goes.

    `exists` when the edit would write a file there, `missing` when it reads or changes
    one: no regular file is there, and agent-guard never opens anything else (a pipe
    would hold the read until something wrote to it).
    """
    hint = (
        "pipes, sockets and devices are not for agents to read or write: name a regular file, or ask the "
        f"user to remove {exc.path}"
    )
    if creates:
        return error(
            "exists",
            exc.path,
            None,
            f"{exc.path} already exists as {exc.what}, not a regular file; a file cannot be written there",
            hint,
        )
    return error(
        "missing",
        exc.path,
        None,
        f"{exc.path} is {exc.what}, not a regular file: agent-guard reads and edits regular files only",
        hint,
    )


def _may_be_older(fe: FileEdit, before: bytes | None, bases: Bases, refused: tuple[Finding, ...]) -> bool:
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
        and bases.named is None
        and not bases.seen
        and not any(isinstance(c, LineRange) for c in fe.changes)
        and all(f.code in codes for f in refused)
    )


def _bases(
    ws: Workspace, fe: FileEdit, path: str, before: bytes | None, tiers: tuple[str, ...], pol: Policy, seen: tuple[str, ...]
) -> Bases:
    """The texts, other than the file now, that the edit may have been made against (from git)."""
    if seen:
        return Bases(seen=tuple(t for oid in seen if (t := decode_or_none(ws.repo.read_blob(oid))) is not None))
    named = None
    if (
        "3way" in tiers
        and fe.base
        and before is not None
        and len(fe.base) >= 7
        and not ws.repo.hash_blob(before).startswith(fe.base.lower())
    ):
        named = decode_or_none(ws.repo.read_blob(fe.base))  # the edit's own base, when git still has it
    earlier = _earlier(ws, path, before, pol) if before is not None and any(isinstance(c, Snippet) for c in fe.changes) else ()
    return Bases(named=named, earlier=earlier)


def _earlier(ws: Workspace, path: str, before: bytes, pol: Policy) -> tuple[tuple[str, Text], ...]:
    """Earlier versions of `path` an agent may have written against: its last read, its last
    write, HEAD's (each once, and only those that differ from the file now)."""
    from ..reading import anchors, reads

    agent = pol.agent or "agent"
    read = reads.last(ws.repo, agent, path)
    written = anchors.last_written(ws.repo, pol, agent, path)
    now = ws.repo.hash_blob(before)
    if now in (read.blob if read else None, written):
        return ()  # the agent has seen the file as it is: its snippet was written against it
    head = ws.repo.head_commit()
    entry = ws.repo.tree_entry(ws.repo.commit_tree(head), path) if head else None
    ids = (
        (f"{agent}'s last read", read.blob if read else None),
        (f"{agent}'s last write", written),
        ("HEAD's version", entry.oid if entry else None),
    )
    out: list[tuple[str, Text]] = []
    seen = {now}
    for label, oid in ids:
        if oid is None or oid in seen:
            continue
        seen.add(oid)
        text = decode_or_none(ws.repo.read_blob(oid))
        if text is not None:
            out.append((label, text))
    return tuple(out)


def _prefix_dropped(root: Path, fe: FileEdit, start: str = "", guess: bool = False) -> FileEdit:
    """`a/src/x.py` read as `src/x.py`: a diff's `a/` or `b/` copied into the path of a file to change.

    Only where the path as written names nothing and the path without the prefix
    names a regular file (a real folder `a/` keeps its meaning).  Paths are as
    written, read from the folder `start` (``paths.from_folder``).
    """
    if fe.op is Op.CREATE or fe.create_missing:
        return fe
    source = fe.old_path if fe.op is Op.RENAME and fe.old_path else fe.path

    def exists(rel: str) -> bool:
        return os.path.lexists(root / paths.from_folder(start, rel, guess))

    if not source.startswith(("a/", "b/")) or exists(source) or not exists(source[2:]):
        return fe
    plain = root / paths.from_folder(start, source[2:], guess)
    if plain.is_symlink() or not plain.is_file():
        return fe
    repairs = tuple(dict.fromkeys(fe.repairs + ("path-prefix",)))
    if fe.op is Op.RENAME and fe.old_path:
        dest = fe.path[2:] if fe.path.startswith(("a/", "b/")) and not exists(fe.path) else fe.path
        return fe._replace(old_path=source[2:], path=dest, repairs=repairs)
    old = fe.old_path[2:] if fe.old_path and fe.old_path.startswith(("a/", "b/")) else fe.old_path
    return fe._replace(path=source[2:], old_path=old, repairs=repairs)


def _delete(
    fe: FileEdit, path: str, before: bytes | None, old_mode: int | None, tiers: tuple[str, ...]
) -> tuple[FileChange | None, list[Finding]]:
    assert before is not None
    if fe.changes:
        text = decode(before)
        out = locate_changes(text, fe.changes, tiers, path, True)
        if out.findings:
            return None, list(out.findings)
        left, _ = apply_splices(text, out.splices)
        if left.lines:
            return None, [
                error(
                    "stale",
                    path,
                    1,
                    f"{path} holds {plural(len(left.lines), 'line')} the delete does not show",
                    "re-read the file: it changed since the patch was made",
                )
            ]
    return diffs.make_change(path, Op.DELETE, before, None, old_mode=old_mode), []


def _outside_sparse(path: str, creates: bool) -> Finding:
    """`path` is tracked, but a sparse checkout leaves it out of the work tree."""
    folder = path.rpartition("/")[0] or "."
    hint = f"ask the user to `git sparse-checkout add {folder}` first, or leave {path} out of the edit"
    if creates:
        return error(
            "exists",
            path,
            None,
            f"{path} is tracked by git but outside the sparse checkout; a new file there would shadow it",
            hint,
        )
    return error(
        "missing", path, None, f"{path} is outside the sparse checkout: git tracks it, but it is not in the work tree", hint
    )


def _is_folder(p: Path) -> bool:
    return p.is_dir() and not p.is_symlink()


def _snippet_not_file(path: str, text: Text, content: str, audience: Audience = CLI) -> Finding | None:
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


def _drops_definitions(path: str, text: Text, content: str, audience: Audience = CLI) -> Finding | None:
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
