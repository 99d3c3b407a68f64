"""A merge commit's own change: what it holds beyond git's automatic merge of its parents.

What a merge brings in was committed on its sides, and those commits are checked one by
one (or were, before the range).  What the merge itself adds is not in any of them: an
"evil merge" (a placeholder or a secret written during ``git merge --no-commit``, any
edit made while merging) and the way its conflicts were resolved.  That, and only that,
is judged, with the checks of any commit:

- A file of the merge that is exactly some parent's version adds nothing that parent
  did not have, and is not looked at further.  Most of a merge is such files; they are
  found by walking only the folders where the merge differs from its first parent, so a
  clean merge costs about one comparison of trees.
- Every other file (both sides changed it, or the merge made it) is compared with
  git's own merge of the parents, done again in memory (``GitRepo.remerge``, ``git log
  --remerge-diff``'s idea).  The same: the merge is clean there.  Not the same: the
  difference is the merge's own change.
- Where git's merge conflicts, the automatic result holds both sides, ours first.  A
  resolution that keeps one side, both, or either in part adds no line, and such a file
  is dropped.  The resolution's lines that are in none of the versions merged there
  (base, ours, theirs) are judged, conflict markers left in included; a line that one
  of them holds, moved by the resolution, is not: the commit that wrote it was judged.
- Budget: ``budget.per_edit``'s ``files`` and ``lines_added``, and ``max_file_bytes``, on
  the merge's own change.  Not its removed lines, hunks or bytes: resolving a conflict
  removes the side it drops, which is not work of the merge's own.
"""

from __future__ import annotations

from typing import Callable

from ..errors import UsageError
from ..repo import CommitInfo, GitError, GitRepo
from .changes import MERGE, Unit, file_changes, matches, text_of


def merge_unit(repo: GitRepo, info: CommitInfo, label: str, wanted: frozenset[str]) -> tuple[Unit, int]:
    """The merge commit `info`'s own change, as a unit named `label`, and how many of its files git's
    merge of its parents conflicts on; `wanted` (repository paths, empty for all) limits it."""
    trees = [repo.commit_tree(p) for p in info.parents]
    # The merge's entry at each path where it differs from every parent (None: it has no file there).
    own = {c.path: c.new for c in repo.files_differing(trees[0], info.tree) if matches(c.path, wanted)}
    for tree in trees[1:]:
        if not own:
            break
        own = {path: entry for path, entry in own.items() if repo.tree_entry(tree, path) != entry}
    if not own:
        return Unit(label, info.oid, (), False, kind=MERGE), 0
    try:
        remerged = repo.remerge(info.parents, own)
    except GitError as exc:
        raise UsageError(
            f"{label}: {exc}; every commit its parents reach must be here to merge them again "
            "(`git fetch --unshallow`, or `actions/checkout` with `fetch-depth: 0`)"
        ) from None
    made = remerged.blobs

    def read(oid: str) -> bytes | None:
        data = made.get(oid)
        return data if data is not None else repo.read_blob(oid)

    texts: dict[int, tuple[str, tuple[str, ...]]] = {}
    found = file_changes(repo, remerged.changes, wanted, texts, read)
    # A conflicted file whose resolution adds no line only chose between the sides.
    changes = tuple(c for c in found if c.added or c.path not in remerged.conflicted)
    kept = {c.path: _lines(remerged.conflicted[c.path], read) for c in changes if c.path in remerged.conflicted}
    return Unit(label, info.oid, changes, False, texts, kind=MERGE, kept=kept), len(remerged.conflicted)


def _lines(blobs: tuple[str, ...], read: Callable[[str], bytes | None]) -> frozenset[str]:
    """Every line of the versions a conflicted file was merged from."""
    out: set[str] = set()
    for oid in blobs:
        data = read(oid)
        decoded = text_of(data) if data is not None else None
        if decoded is not None:
            out.update(decoded[1])
    return frozenset(out)
