"""git's automatic merge of a merge commit's parents, done again in memory (``git log --remerge-diff``'s idea).

A merge commit's own change is what it holds beyond what git's merge of its parents
gives: a clean merge has none; what a person wrote while merging, a conflict's
resolution included, is the difference.  ``remerge`` merges the parents again as git
does (libgit2's merge: the merge bases found, several of them merged into a virtual
one first, renames followed) and compares the result with the merge commit at the
paths it is asked about.

- Nothing reaches the repository.  The merge writes its blobs and trees into an
  object database in memory, stacked under the repository's own objects (and a
  receive hook's quarantine), which are read as alternates: libgit2 never writes to
  an alternate.  (Like git's own remerge-diff, libgit2 may update the time of an
  object file that already holds what it would write; no content is written, and an
  object folder it may not write to is no obstacle.)
- Where git's merge stops on a conflict, the result here takes both sides, ours first
  (git's ``union`` merge), instead of writing conflict markers: a resolution that
  keeps one side, or both, adds no line, and markers committed by mistake are lines
  the merge adds, whatever their labels.  A binary file, a link or a submodule in
  conflict keeps our side, as git's merge leaves it in the work tree.
- An octopus merge is merged one parent at a time onto the result so far, from the
  merge base of that parent and the ones before it (git's ``octopus`` strategy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import pygit2

from ..text.textfile import is_binary
from .errors import GitError
from .merge import _MemoryObjects, merge_file
from .treediff import tree_changes
from .values import EXEC, FILE, Entry, TreeChange

_BLOB = pygit2.enums.ObjectType.BLOB
_TEXT_MODES = (FILE, EXEC)


@dataclass(frozen=True, slots=True)
class Remerged:
    """A merge commit against git's automatic merge of its parents, at some of its paths."""

    changes: tuple[TreeChange, ...]  # automatic merge -> merge commit: the merge's own change there
    # Each path where git's merge stops on a conflict: the blobs merged there (base, ours, theirs; any absent left out).
    conflicted: Mapping[str, tuple[str, ...]]
    blobs: Mapping[str, bytes]  # the blobs the automatic merge made (the repository need not hold them)


class Scratch:
    """A handle on the repository whose writes go to memory and whose reads find the repository's
    objects (a resource: one per repository handle, for every merge of a check)."""

    def __init__(self, gitdir: str, object_folders: Sequence[str]) -> None:
        self.store = _MemoryObjects()
        odb = pygit2.Odb()
        # Alternates come before the memory (higher priority): reading the repository's
        # objects never calls into Python, and alternates are never written to.
        for folder in object_folders:
            odb.add_disk_alternate(folder)
        odb.add_backend(self.store, 0)
        self.handle = pygit2.Repository(gitdir)
        self.handle.set_odb(odb)


def remerge(
    scratch: Scratch,
    parents: Sequence[str],
    merged: Mapping[str, Entry | None],
    differing: Callable[[str, str], Iterable[TreeChange]],
) -> Remerged:
    """Merge `parents` (two or more commits) as git would, and compare the result with `merged`:
    the merge commit's entries (None: no file) at the paths to compare.  `differing(a, b)`: the
    files that differ between two trees (``GitRepo.files_differing``)."""
    handle, store = scratch.handle, scratch.store
    store.objects.clear()  # what the last merge made (each merge writes again what it needs)
    conflicted: dict[str, tuple[str, ...]] = {}
    try:
        index = _merge_two(handle, parents[0], parents[1], merged, differing)
        _settle(handle, index, conflicted)
        done = [pygit2.Oid(hex=parents[0]), pygit2.Oid(hex=parents[1])]
        for parent in parents[2:]:
            oid = pygit2.Oid(hex=parent)
            base = handle.merge_base_many([oid, *done])
            base_tree = _commit(handle, base).tree_id if base is not None else handle.TreeBuilder().write()
            index = handle.merge_trees(base_tree, index.write_tree(handle), _commit(handle, oid).tree_id)
            _settle(handle, index, conflicted)
            done.append(oid)
        auto: dict[str, Entry] = {}
        for path in merged:
            try:
                entry = index[path]
            except KeyError:
                continue
            auto[path] = Entry(str(entry.id), int(entry.mode))
        old = handle[_tree(handle, auto)]
        new = handle[_tree(handle, {p: e for p, e in merged.items() if e is not None})]
        assert isinstance(old, pygit2.Tree) and isinstance(new, pygit2.Tree)
        changes = tuple(tree_changes(old.diff_to_tree(new)))
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise GitError(f"cannot merge {', '.join(p[:10] for p in parents)} again: {exc}") from None
    blobs = {oid: data for oid, (kind, data) in store.objects.items() if kind == _BLOB}
    return Remerged(changes, {p: c for p, c in conflicted.items() if p in merged}, blobs)


def _merge_two(
    handle: pygit2.Repository, one: str, two: str, wanted: Iterable[str], differing: Callable[[str, str], Iterable[TreeChange]]
) -> pygit2.Index:
    """git's merge of the commits `one` and `two`, exact at the `wanted` paths.

    libgit2's merge walks the whole of the three trees, in time in proportion to their
    size (bench/README.md).  With one merge base, the files neither side changed merge to
    themselves and take no part in the merge of the others (renames are looked for
    among the files a side added and deleted): so the three trees are cut down to the
    files either side changed, and the `wanted` ones, found by walking only the folders
    that differ.  Several merge bases (merged into a virtual one first) or none (unrelated
    histories): libgit2's merge of the whole commits.
    """
    a, b = _commit(handle, pygit2.Oid(hex=one)), _commit(handle, pygit2.Oid(hex=two))
    base = handle.merge_base(a.id, b.id)
    if base is None or _several_bases(handle, base, a.id, b.id):
        return handle.merge_commits(a, b)
    trees = [str(_commit(handle, base).tree_id), str(a.tree_id), str(b.tree_id)]
    paths = set(wanted)
    for side in trees[1:]:
        paths.update(c.path for c in differing(trees[0], side))
    ancestor, ours, theirs = (_tree(handle, _entries(handle, tree, paths)) for tree in trees)
    return handle.merge_trees(ancestor, ours, theirs)


def _several_bases(handle: pygit2.Repository, base: pygit2.Oid, one: pygit2.Oid, two: pygit2.Oid) -> bool:
    """Has the merge of `one` and `two` another merge base than `base`?  Exactly when a commit that
    `base` does not reach is an ancestor of both (the best such ancestor is another merge base)."""

    def since(tip: pygit2.Oid) -> set[pygit2.Oid]:
        walker = handle.walk(tip, pygit2.enums.SortMode.NONE)
        walker.hide(base)
        return {c.id for c in walker}

    return bool(since(one) & since(two))


def _entries(handle: pygit2.Repository, tree: str, paths: Iterable[str]) -> dict[str, Entry]:
    """The files (and submodules) of `tree` at `paths`."""
    root = handle[tree]
    assert isinstance(root, pygit2.Tree)
    out: dict[str, Entry] = {}
    for path in paths:
        try:
            entry = root[path]
        except KeyError:
            continue
        if entry.type_str != "tree":
            out[path] = Entry(str(entry.id), int(entry.filemode))
    return out


def _commit(handle: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Commit:
    commit = handle[oid]
    if not isinstance(commit, pygit2.Commit):
        raise GitError(f"{oid} is not a commit")
    return commit


def _settle(handle: pygit2.Repository, index: pygit2.Index, conflicted: dict[str, tuple[str, ...]]) -> None:
    """Replace each conflict of `index` by both sides, ours first (text), or by our side (anything else)."""
    if index.conflicts is None:
        return
    for base, ours, theirs in list(index.conflicts):
        sides = [e for e in (theirs, ours) if e is not None]  # ours last: it wins a path both name
        every = [e for e in (base, ours, theirs) if e is not None]
        for path in {e.path for e in every}:
            try:
                del index.conflicts[path]
            except KeyError:
                pass
        ids = tuple(str(e.id) for e in every)
        if ours is not None and theirs is not None and ours.path == theirs.path:
            data = _union(handle, base, ours, theirs)
            if data is not None:
                index.add(pygit2.IndexEntry(ours.path, handle.create_blob(data), ours.mode))
                conflicted[ours.path] = ids
                continue
        for entry in sides:
            index.add(pygit2.IndexEntry(entry.path, entry.id, entry.mode))
            conflicted[entry.path] = ids


def _union(
    handle: pygit2.Repository, base: pygit2.IndexEntry | None, ours: pygit2.IndexEntry, theirs: pygit2.IndexEntry
) -> bytes | None:
    """Both sides of a text file's conflicts, ours first; None when it is not text in both."""
    if ours.mode not in _TEXT_MODES or theirs.mode not in _TEXT_MODES:
        return None
    texts = []
    for entry in (base, ours, theirs):
        data = b"" if entry is None else bytes(handle[entry.id].data)  # type: ignore[attr-defined]
        if is_binary(data):
            return None
        texts.append(data)
    return merge_file(texts[0], texts[1], texts[2], favor="union").data


def _tree(handle: pygit2.Repository, entries: Mapping[str, Entry]) -> pygit2.Oid:
    """A tree (written to memory) holding just `entries`."""
    nested: dict[str, object] = {}
    for path, entry in entries.items():
        node = nested
        *folders, name = path.split("/")
        for folder in folders:
            child = node.setdefault(folder, {})
            assert isinstance(child, dict)
            node = child
        node[name] = entry

    def write(node: Mapping[str, object]) -> pygit2.Oid:
        builder = handle.TreeBuilder()
        for name, value in node.items():
            if isinstance(value, Entry):
                builder.insert(name, pygit2.Oid(hex=value.oid), value.mode)
            else:
                assert isinstance(value, dict)
                builder.insert(name, write(value), pygit2.enums.FileMode.TREE)
        return builder.write()

    return write(nested)
