"""Whether a turn fetched from another clone ever reached this clone's copy of a file (``reached``).

A turn of this clone was made in this work tree, so undoing it merges into the files as they are
(``undo``).  A fetched turn was made in another clone, on that clone's files: its before-state may
hold the other clone's earlier, uncommitted work, or a file this clone never had.  Where its change
never came here (the branch that carries it was not pulled, nor the change made by hand), undoing it
has nothing to undo; a three-way merge would instead see this clone's own lines as later changes
next to the turn's, and refuse, and ``--force`` would write the other clone's before-state (its
other work, a file made there) into this tree.

The change reached a file when one of its copies here holds it: the work tree's, the index's or
HEAD's (a pull brings it to HEAD, and a person may have edited the lines since, which is a
rollback conflict, not an absence).  A copy holds it when it is the turn's result, or, for text,
when it holds a line the turn added that its before-state nowhere had; a turn that only removed
lines is in a copy that lacks one of them.  A file the turn deleted is gone here by that deletion
when this clone's history had the file (HEAD's first parents, as far as ``HISTORY`` commits back):
deleting a file this clone never had was never a change of its.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..repo import Entry, GitRepo, TreeChange
from ..repo.linediff import changed_regions

Blob = Callable[[Entry | None], bytes | None]
HISTORY = 5000  # commits of HEAD's first-parent history searched for a file a fetched turn deleted


@dataclass(frozen=True, slots=True)
class Copies:
    """This clone's copies of files besides the work tree's: the index's and HEAD's."""

    repo: GitRepo
    index: Callable[[str], Entry | None]
    head: str | None  # HEAD's commit (None: no commit yet)
    head_tree: str | None

    def entries(self, path: str) -> list[Entry | None]:
        return [self.index(path), self.repo.tree_entry(self.head_tree, path)]

    def ever_had(self, path: str) -> bool:
        """Whether the index has `path`, or a commit of HEAD's recent first-parent history did."""
        if self.index(path) is not None:
            return True
        if self.head is None:
            return False
        for n, info in enumerate(self.repo.walk(self.head)):
            if n >= HISTORY:
                return False
            if self.repo.tree_entry(info.tree, path) is not None:
                return True
        return False


def copies(repo: GitRepo) -> Copies:
    head = repo.head_commit()
    return Copies(repo, repo.index_entries(), head, repo.commit_tree(head) if head is not None else None)


def reached(tc: TreeChange, current: bytes | None, here: Copies, blob: Blob) -> bool:
    """Whether the turn's change `tc` is in one of this clone's copies of the file: `current` (the
    work tree's, None: no file), or the index's or HEAD's."""
    after, before = blob(tc.new), blob(tc.old)
    if after is None:  # the turn deleted it
        return current is None and here.ever_had(tc.path)
    found = [current] + [blob(e) for e in here.entries(tc.path) if e is not None]
    return any(c is not None and _holds(c, before, after) for c in found)


def _holds(copy: bytes, before: bytes | None, after: bytes) -> bool:
    """Whether `copy` holds the change from `before` (None: no file) to `after`."""
    if copy == after:
        return True
    if copy == before or before is None:
        return False  # a file the turn made is the turn's only as its result
    old, new = before.splitlines(), after.splitlines()
    regions = changed_regions(old, new)
    had = set(old)
    added = {line for _a0, _a1, b0, b1 in regions for line in new[b0:b1] if line.strip() and line not in had}
    lines = set(copy.splitlines())
    if added:
        return not added.isdisjoint(lines)
    kept_after = set(new)
    removed = {line for a0, a1, _b0, _b1 in regions for line in old[a0:a1] if line.strip() and line not in kept_after}
    return bool(removed) and not removed <= lines
