"""The gitattributes a turn's checks read: the tree's as it was before the turn.

`.gitattributes` can switch checks off (`-whitespace`, `conflict-marker-size=32`,
`binary`), so a turn must never be judged by attributes it wrote itself.  An edit is
checked before it is written, so the work tree's files are those from before it, but
a turn may go on over several applies (``--turn ID``), each written before the next is
checked, and a shell command's changes are checked after it ran.  For those,
``before_turn`` is handed the turn's `.gitattributes` files as they were before it
(``originals``) and answers every look-up as git would on that tree: for each path, the
`.gitattributes` of every folder above it (the original where the turn changed one,
the work tree's file elsewhere) go into a commit of their own, and libgit2 reads the
attributes from that commit alone (``GitRepo.attributes_at``), with the files outside every
tree (info/attributes, core.attributesFile) as usual.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from ..repo import FILE, Entry
from ..tree import worktree

if TYPE_CHECKING:
    from ..repo import GitRepo

AttrLookup = Callable[[str, str], "str | bool | None"]
NAME = ".gitattributes"


def key(path: str) -> str:
    """`path` as `originals` names it: folded as a filesystem that folds case may see it."""
    from .paths import fold_name

    return "/".join(fold_name(p).casefold() for p in path.split("/") if p)


def is_attributes_file(path: str) -> bool:
    return key(path).rsplit("/", 1)[-1] == NAME


def before_turn(repo: GitRepo, originals: Mapping[str, bytes | None]) -> AttrLookup:
    """Look-ups of attributes as the tree had them before the turn, for one call to hold; `originals`
    maps each `.gitattributes` the turn changed (by ``key``) to its content before (None: it was
    not there)."""
    if not originals:
        return repo.attributes()
    root: Path = repo.root
    commits: dict[tuple[tuple[str, str], ...], str] = {}
    lookups: dict[str, AttrLookup] = {}  # by commit, for this call

    def commit_for(path: str) -> str:
        parts = path.split("/")[:-1]
        files: dict[str, bytes] = {}
        for depth in range(len(parts) + 1):
            name = "/".join([*parts[:depth], NAME])
            if key(name) in originals:
                data = originals[key(name)]
            else:
                try:
                    data = worktree.read(root, name)[0]
                except (worktree.UnsafePath, OSError):
                    data = None  # not a regular file: git reads no attributes from it either
            if data is not None:
                files[name] = data
        ident = tuple(sorted((name, repo.hash_blob(data)) for name, data in files.items()))
        if ident not in commits:
            tree = repo.build_tree(None, {name: Entry(repo.write_blob(data), FILE) for name, data in files.items()})
            commits[ident] = repo.write_commit(tree, [], "agent-guard: the attributes before a turn\n")
        return commits[ident]

    def lookup(path: str, name: str) -> str | bool | None:
        commit = commit_for(path)
        if commit not in lookups:
            lookups[commit] = repo.attributes_at(commit)
        return lookups[commit](path, name)

    return lookup
