"""Path arguments that name nothing: a usage error, as git makes them.

``git add no/such`` stops with "pathspec 'no/such' did not match any files"; a check
limited to a mistyped path would otherwise pass with nothing checked and exit 0.  A path
names something when a change the check reads is at or under it, when it is in the work
tree (an untracked or ignored file is noted as not checked, not refused), or when git
tracks it: HEAD's tree or the index, and for a range the tree of its last commit (a file
the range does not change may be named).
"""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from ..errors import UsageError
from ..repo import GitRepo
from ..text.wording import one_line
from .changes import Unit, resolve_commit

# How many unmatched paths the message names (the rest are counted).
_NAMED = 5


def _without_found(left: set[str], paths: Iterable[str]) -> None:
    """Take out of `left` each of `paths` and every folder holding one."""
    for path in paths:
        if not left:
            return
        left.discard(path)
        cut = path.rfind("/")
        while cut > 0:
            left.discard(path[:cut])
            cut = path.rfind("/", 0, cut)


def unmatched(repo: GitRepo, wanted: frozenset[str], units: Sequence[Unit], to_ref: str | None) -> list[str]:
    """The paths of `wanted` (repository paths) that name nothing, sorted."""
    left = set(wanted)
    _without_found(left, (p for unit in units for c in unit.changes for p in (c.path, c.old_path) if p))
    if left and not repo.bare:
        left = {p for p in left if not os.path.lexists(os.path.join(repo.root, p))}
    if not left:
        return []
    # Rare from here on (a typo, or a tracked file deleted and not staged): every tracked path.
    if repo.bare:
        head = repo.head_commit()
        known = list(repo.tree_files(repo.commit_tree(head))) if head is not None else []
    else:
        known = list(repo.tracked_files())
    if to_ref is not None:
        known += repo.tree_files(repo.commit_tree(resolve_commit(repo, to_ref, "--to-ref")))
    _without_found(left, known)
    return sorted(left)


def refuse_unmatched(repo: GitRepo, wanted: frozenset[str], units: Sequence[Unit], to_ref: str | None) -> None:
    """A usage error naming the paths of `wanted` that name nothing, if any."""
    missing = unmatched(repo, wanted, units, to_ref)
    if not missing:
        return
    quoted = ", ".join(f"'{one_line(p)}'" for p in missing[:_NAMED])
    more = f" and {len(missing) - _NAMED} more" if len(missing) > _NAMED else ""
    where = "the work tree, " if not repo.bare else ""
    raise UsageError(
        f"pathspec{'s' if len(missing) > 1 else ''} {quoted}{more} did not match any files "
        f"(not in {where}the index, HEAD or the change checked); name files that exist or git tracks"
    )
