"""What a commit check judges, built from git trees (``changes_from_git``), never from the work tree.

So it is exactly what is (or will be) committed:

- the staged change (the default): HEAD's tree against the index's tree, where the
  index is ``$GIT_INDEX_FILE`` when git set one (``git commit -a`` and
  ``git commit PATH`` run the hook on a temporary index);
- a range (``--from-ref A --to-ref B``, or pre-commit's ``PRE_COMMIT_FROM_REF`` and
  ``PRE_COMMIT_TO_REF``): each commit of ``A..B`` against its parent, on its own, so a
  per-commit budget holds for every commit.  A merge commit is judged on its own
  change, what it holds beyond git's automatic merge of its parents (``merges``): the
  commits it brings in are in the range themselves, or were checked before.  A root
  commit (no parent: an ``--orphan`` branch, a new history) adds every file it holds.
  ``A`` may be git's null id (all zeros, what a receive hook is given for a new
  branch): every commit ``B`` reaches is then checked, from its root commits;
- all files (``--all-files``): every tracked file as staged, judged whole as if it
  were new, for adopting agent-guard on an existing repository.

Path arguments (pre-commit passes the files it selected) limit the check to those
paths.  In the staged mode a named *file* with no staged change is judged whole, so
``pre-commit run --all-files`` and ``pre-commit run --files F`` check what they name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import UsageError
from ..model import FileChange, NumberedLines, Op
from ..repo import GITLINK, LINK, Entry, GitError, GitRepo, TreeChange
from ..text.textfile import BOM, is_binary, split
from ..tree import diffs

TREE = 0o040000
_OPS = {"A": Op.CREATE, "D": Op.DELETE, "M": Op.MODIFY, "R": Op.RENAME}


# What a unit is, for the budget it is held to (``commit_check.commit_policy``).
CHANGE, ROOT, MERGE, STAGED_MERGE = "change", "root", "merge", "staged merge"


@dataclass(frozen=True, slots=True)
class Unit:
    """What is judged on its own: the staged change, one commit, or the files checked whole."""

    label: str  # "the staged change", "commit 1a2b3c4d5e 'Add parser'", "the files checked whole"
    commit: str | None
    changes: tuple[FileChange, ...]
    whole: bool
    # id(change) -> (added block, lines) of the changes that add every line of a text
    # (new files, files checked whole): decoded once, handed to the checks as is.
    texts: Mapping[int, tuple[str, tuple[str, ...]]] | None = None
    kind: str = CHANGE  # CHANGE, ROOT (a commit with no parent), MERGE (a merge commit's own change), STAGED_MERGE
    # A merge's conflicted files: the lines of the versions merged there.  A line of the
    # resolution that one of them holds is not the merge's own (``merges``).
    kept: Mapping[str, frozenset[str]] | None = None


# What is judged (units), what the report says was checked (its "check" object), and notes.
Found = tuple[list[Unit], dict[str, Any], list[str]]
# Told (done, total, step) as long work goes on (the command line's progress line).
Progress = Callable[[int, int, str], None]


# --- building changes from trees ----------------------------------------------------------
def matches(path: str, wanted: frozenset[str]) -> bool:
    """`path` is one of `wanted` or inside one of them (a set: pre-commit names thousands)."""
    if not wanted or path in wanted:
        return True
    cut = path.rfind("/")
    while cut > 0:
        if path[:cut] in wanted:
            return True
        cut = path.rfind("/", 0, cut)
    return False


def text_of(data: bytes) -> tuple[str, tuple[str, ...]] | None:
    """(added block, lines) of a file's bytes, as checking it whole sees them; None when not text.

    The lines are ``textfile.decode(data).lines``; the block is those lines joined by
    newlines, which, when the text holds no CR, is the text without its last newline
    (one copy instead of a join of every line).  Not text: binary as ``decode`` sees it,
    or not UTF-8 (without ``decode``'s guess at the encoding, which nobody reads here).
    """
    if is_binary(data):
        return None
    bom = data.startswith(BOM)
    try:
        text = (data[len(BOM) :] if bom else data).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text:
        lines = split(text, bom).lines
        return "\n".join(lines), lines
    parts = text.split("\n")  # `split(text).lines` without the line ends nobody reads here
    if not parts[-1]:
        parts.pop()
    return (text[:-1] if text.endswith("\n") else text), tuple(parts)


def created(path: str, data: bytes, mode: int | None, texts: dict[int, tuple[str, tuple[str, ...]]] | None = None) -> FileChange:
    """`diffs.make_change(path, CREATE, None, data)` without rendering the diff.

    A commit's new files are most of a large change, and nobody reads their diff
    here: every line is added, in one hunk.  With `texts`, the decoded text is kept
    there (by the change's id) for the checks.
    """
    decoded = text_of(data)
    lines = decoded[1] if decoded is not None else ()
    change = FileChange(
        path=path,
        op=Op.CREATE,
        old_path=None,
        before=None,
        after=data,
        old_mode=None,
        new_mode=mode,
        added=NumberedLines(lines),
        hunks=1 if lines else 0,
    )
    if texts is not None and decoded is not None:
        texts[id(change)] = decoded
    return change


def _blob(read: Callable[[str], bytes | None], oid: str, path: str) -> bytes:
    """The content git records for `path`; a usage error when its object cannot be read: a check
    that skipped the file would pass what it never saw."""
    data = read(oid)
    if data is None:
        raise UsageError(
            f"cannot read {path} (object {oid[:12]}): git's object is missing, or what is stored under "
            "its id does not hash to it; run `git fsck` and repair the repository, then check again"
        )
    return data


def file_changes(
    repo: GitRepo,
    deltas: Iterable[TreeChange],
    wanted: frozenset[str],
    texts: dict[int, tuple[str, tuple[str, ...]]] | None = None,
    read: Callable[[str], bytes | None] | None = None,
) -> tuple[FileChange, ...]:
    """The changes of `deltas` at the `wanted` paths, their blobs read with `read` (the repository's by default)."""
    read = read or repo.read_blob
    out: list[FileChange] = []
    for d in deltas:
        if not (matches(d.path, wanted) or (d.old_path is not None and matches(d.old_path, wanted))):
            continue
        if GITLINK in (d.old.mode if d.old else 0, d.new.mode if d.new else 0):
            continue  # a submodule's commit id: checked in the submodule's own repository
        before = _blob(read, d.old.oid, d.old_path or d.path) if d.old else None
        after = _blob(read, d.new.oid, d.path) if d.new else None
        if before is None and after is not None and d.status == "A":
            out.append(created(d.path, after, d.new.mode if d.new else None, texts))
            continue
        out.append(
            diffs.make_change(
                d.path,
                _OPS[d.status],
                before,
                after,
                old_path=d.old_path,
                old_mode=d.old.mode if d.old else None,
                new_mode=d.new.mode if d.new else None,
            )
        )
    return tuple(out)


def _whole(
    repo: GitRepo,
    entries: Sequence[tuple[str, Entry]],
    texts: dict[int, tuple[str, tuple[str, ...]]] | None = None,
    progress: Progress | None = None,
) -> tuple[FileChange, ...]:
    out: list[FileChange] = []
    for done, (path, entry) in enumerate(entries):
        if progress is not None and not done % 64:
            progress(done, len(entries), "reading files")
        if entry.mode in (LINK, GITLINK, TREE):
            continue
        out.append(created(path, _blob(repo.read_blob, entry.oid, path), entry.mode, texts))
    if progress is not None:
        progress(len(entries), len(entries), "reading files")
    return tuple(out)


def index_file() -> str | None:
    """The index the staged change is read from, as an absolute path: ``$GIT_INDEX_FILE`` when git
    set one (``git commit -a`` and ``git commit PATH`` run the hook on a temporary index); None for
    the repository's own.  A usage error when it names no file."""
    named = os.environ.get("GIT_INDEX_FILE")
    if not named:
        return None
    if not os.path.isfile(named):
        raise UsageError(f"GIT_INDEX_FILE names {named}, which is not a file; unset it to check the index")
    return os.path.abspath(named)


def _index_tree(repo: GitRepo) -> str:
    try:
        return repo.index_tree(index_file())
    except GitError as exc:
        raise UsageError(
            f"{str(exc).rstrip('.')}; resolve the merge conflict first (`git status` lists the "
            "files; edit them and `git add` them), then check again"
        ) from None


def staged_found(repo: GitRepo, wanted: frozenset[str]) -> Found:
    head = repo.head_commit()
    head_tree = repo.commit_tree(head) if head else None
    try:
        deltas = repo.staged_changes(head_tree, index_file())
    except GitError:
        deltas = None  # `_index_tree` reports it
    index: str | None = None
    if deltas is None:  # unmerged paths, or an index that cannot be read: `_index_tree` says so
        index = _index_tree(repo)
        deltas = repo.diff_trees(head_tree, index)
    texts: dict[int, tuple[str, tuple[str, ...]]] = {}
    changes = file_changes(repo, deltas, wanted, texts)
    units = [Unit("the staged change", None, changes, False, texts)]
    touched = {c.path for c in changes} | {c.old_path for c in changes if c.old_path}
    whole: list[tuple[str, Entry]] = []
    untracked: list[str] = []
    for path in wanted:
        if path in touched:
            continue
        if index is None:
            index = _index_tree(repo)  # a named file the change does not touch: look it up in the index's tree
        entry = repo.tree_entry(index, path)
        if entry is None:
            if not any(t.startswith(path + "/") for t in touched):
                untracked.append(path)
        elif entry.mode != TREE:
            whole.append((path, entry))
    notes: list[str] = []
    merging = (repo.gitdir / "MERGE_HEAD").exists()
    if whole and os.environ.get("PRE_COMMIT") and not merging:
        # pre-commit names the staged files on a commit, and other files only under
        # `run --all-files` or `run --files`, which check every file they name, whole (it
        # does not say which it ran): so a named file with nothing staged means all of them.
        staged = [(path, repo.tree_entry(index, path)) for path in sorted(wanted & touched)] if index else []
        whole = sorted(whole + [(path, entry) for path, entry in staged if entry is not None and entry.mode != TREE])
        whole_texts: dict[int, tuple[str, tuple[str, ...]]] = {}
        checked = _whole(repo, whole, whole_texts)
        units = [Unit("the files checked whole", None, checked, True, whole_texts)]
        extra: dict[str, Any] = {"mode": "all-files", "whole_files": len(checked)}
        if untracked:
            notes.append(f"not in the index, so not checked: {_some(untracked)}")
        return units, extra, notes
    if whole:
        whole_texts = {}
        units.append(Unit("the files checked whole", None, _whole(repo, whole, whole_texts), True, whole_texts))
    if untracked:
        notes.append(f"not in the index, so not checked: {_some(untracked)}")
    extra = {"mode": "staged", **totals(changes), "whole_files": len(units[1].changes) if whole else 0}
    if merging:
        # A merge brings in work that was committed (and checked) on the other side.
        units[0] = replace(units[0], label="the staged merge", kind=STAGED_MERGE)
        notes.append("a merge is being committed: the per-commit budget is not applied to it")
        extra["merge"] = True
    return units, extra, notes


def _some(paths: Sequence[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def resolve_commit(repo: GitRepo, ref: str, option: str) -> str:
    """The commit `ref` names (given as `option`), or a usage error that says how to get it."""
    try:
        oid = repo.resolve(ref)
    except GitError:
        raise UsageError(
            f"{option} {ref!r} is not a commit in this repository; fetch it first "
            "(in CI: `actions/checkout` with `fetch-depth: 0`, or `git fetch origin BRANCH`)"
        ) from None
    try:
        repo.commit_info(oid)
    except GitError:
        raise UsageError(
            f"{option} {ref!r} names {oid[:10]}, which is not a commit; give a branch, a tag or a commit id"
        ) from None
    return oid


# git's null id (SHA-1, SHA-256): what a receive hook or a CI event gives for "no commit
# before" (a new branch).  As --from-ref: no base, every commit the tip reaches.
NULL_IDS = ("0" * 40, "0" * 64)


# Files checked whole are judged this many at a time: one unit each (the checks of a file
# checked whole do not depend on the others), so that progress can be told as they go.
WHOLE_UNIT = 500


def all_files_found(repo: GitRepo, wanted: frozenset[str], progress: Progress | None = None) -> Found:
    index = _index_tree(repo)
    entries = [(d.path, d.new) for d in repo.diff_trees(None, index) if d.new is not None and matches(d.path, wanted)]
    texts: dict[int, tuple[str, tuple[str, ...]]] = {}
    changes = _whole(repo, entries, texts, progress)
    units = [
        Unit("the files checked whole", None, changes[i : i + WHOLE_UNIT], True, texts)
        for i in range(0, len(changes), WHOLE_UNIT)
    ] or [Unit("the files checked whole", None, (), True, texts)]
    return units, {"mode": "all-files", "whole_files": len(changes)}, []


def totals(changes: Sequence[FileChange]) -> dict[str, int]:
    return {"files": len(changes), "added": sum(len(c.added) for c in changes), "removed": sum(len(c.removed) for c in changes)}
