"""A libgit2 diff as the files it changes."""

from __future__ import annotations

import pygit2

from .values import Entry, TreeChange


def tree_changes(diff: pygit2.Diff) -> list[TreeChange]:
    """The files a libgit2 diff of two trees (or a tree and the index) changes, renames found."""
    diff.find_similar()
    out: list[TreeChange] = []
    status_map = {
        pygit2.GIT_DELTA_ADDED: "A",
        pygit2.GIT_DELTA_DELETED: "D",
        pygit2.GIT_DELTA_MODIFIED: "M",
        pygit2.GIT_DELTA_RENAMED: "R",
        pygit2.GIT_DELTA_TYPECHANGE: "M",
    }
    for d in diff.deltas:
        st = status_map.get(d.status)
        if st is None:
            continue
        old_e = None if st == "A" else Entry(str(d.old_file.id), int(d.old_file.mode))
        new_e = None if st == "D" else Entry(str(d.new_file.id), int(d.new_file.mode))
        out.append(
            TreeChange(
                d.new_file.path if st != "D" else d.old_file.path, d.old_file.path if st == "R" else None, st, old_e, new_e
            )
        )
    return out
