"""What ``git status`` lists for a shell turn's snapshot: asked of the whole tree, or, where a watch
of the tree (``warm/watch.py``) says which paths changed since the last list, of those paths alone.

The last list is kept in ``shell/watched-NAME.json`` (per watch) (in agent-guard's folder of the work tree's git
dir) with the watch's token and what else the list was read from: the index (its device, inode,
size and mtime: git writes a new index file each time; and the tree it records, ``git write-tree``)
and the stamps of git's configuration, ignore and attribute
files outside the tree (``inputs``).  The next list is the kept one, with every entry at or below a
changed path replaced by a ``git status`` of the changed paths: those the watch saw, and those
whose index entries differ from the kept index's, told by their trees (``git add``; a ``git
status`` that only refreshed the index's stat data changes none).  A changed ``.gitignore``, ``.gitattributes`` or
``.git`` counts as a change of its folder (it decides what git lists below it), and one at the top
as a change of everything.  The kept list is used only when the stamps are as they were and out of
git's racy window, the watch's token of the same generation, and both indexes with a tree (no
conflict in either); otherwise git lists the whole tree, as without a watch.  The kept list is
written only when the index and the stamps did not move while git listed.  Index entries' flags
(assume-unchanged, skip-worktree) are not compared: a flag flipped between two lists, on a path the
watch did not see change, is seen at the next whole-tree list.

``tests/record/test_watched.py`` holds the result to a fresh ``git status`` after every step of
random work on a tree.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Sequence

from ..fs.filekind import read_regular, write_new

if TYPE_CHECKING:
    from ..fs.kept import Stamps
    from ..repo import GitRepo
    from ..repo.status import Dirty

START_AFTER = 0.1  # seconds: a whole-tree list this slow starts the tree's watch
MAX_ARGS = 128 * 1024  # bytes of paths on git's command line (the system allows 2 MB or more)
STATE = "watched-{}.json"  # the last list, kept per watch
VERSION = 1
RULES = (".gitignore", ".gitattributes", ".git")  # a change of one is a change of its folder


class Watch(Protocol):
    """A watch of one work tree, as ``warm.watch.Remote`` is."""

    name: str  # which watch it is: its list is kept under this name (two watches of one tree, two lists)

    def since(self, token: str | None) -> tuple[str, tuple[str, ...] | None] | None:
        """(a new token, the paths changed since `token` or None for "any"), or None: no watch."""

    def start(self) -> str:
        """Start the watch for later calls; what was done."""


def inputs(repo: GitRepo) -> Stamps:
    """The stamps of what ``dirty`` reads besides the work tree and the index: git's configuration
    (every file it came from, and the variables that set it), the ignore files outside the tree
    (``info/exclude``, ``core.excludesFile`` or git's XDG file) and the attribute files (line
    endings decide what counts as changed).  The ``.gitignore`` and ``.gitattributes`` files in the
    tree are the tree's own paths: a watch of the tree sees them."""
    from ..fs.kept import Stamps
    from ..repo import config

    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    entries = repo.config_entries()
    files = config.standard_files(repo.gitdir, repo.commondir)
    files += [e.origin for e in entries if e.origin]
    excludes = [e.value for e in entries if e.key == "core.excludesfile" and e.value]
    attributes = [e.value for e in entries if e.key == "core.attributesfile" and e.value]
    files.append(os.path.expanduser(excludes[-1]) if excludes else os.path.join(xdg, "git", "ignore"))
    files.append(os.path.expanduser(attributes[-1]) if attributes else os.path.join(xdg, "git", "attributes"))
    files += [str(repo.commondir / "info" / "exclude"), str(repo.commondir / "info" / "attributes"), "/etc/gitattributes"]
    return Stamps.now(files, [*config.env_names(), "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES"])


def _index_id(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _stamps_json(stamps: Stamps) -> list[object]:
    return [[[f, list(s) if s else None] for f, s in stamps.files], [[k, v] for k, v in stamps.env]]


def _asked(paths: Sequence[str]) -> set[str] | None:
    """The paths to ask git about for `paths` changed; None: the whole tree (also when naming them
    all would pass ``MAX_ARGS`` bytes of git's command line)."""
    if sum(len(p) + 1 for p in paths) > MAX_ARGS:
        return None
    out: set[str] = set()
    for p in paths:
        head, _, name = p.rpartition("/")
        if name in RULES:
            if not head:
                return None
            p = head
        out.add(p)
    return out


def _under(path: str, asked: set[str]) -> bool:
    """Whether `path` is one of `asked` or below one."""
    while True:
        if path in asked:
            return True
        path, sep, _ = path.rpartition("/")
        if not sep:
            return False


def dirty(repo: GitRepo, folder: Path, watch: Watch | None) -> list[Dirty]:
    """What ``git status`` lists for the work tree of `repo` (see the module doc); `folder`: where the
    last list is kept."""
    from ..repo import status
    from ..repo.status import Dirty

    if watch is None:
        return status.dirty(repo.root)
    state_file = folder / STATE.format(watch.name)
    index = repo.gitdir / "index"
    index_id = _index_id(index)
    stamped = inputs(repo)
    stamps = _stamps_json(stamped)
    try:
        doc = json.loads(read_regular(state_file))
    except (OSError, ValueError):
        doc = None
    same = (
        isinstance(doc, dict)
        and doc.get("version") == VERSION
        and doc.get("inputs") == stamps
        and isinstance(doc.get("token"), str)
        and isinstance(doc.get("dirty"), list)
        and all(isinstance(e, list) and len(e) == 2 and all(isinstance(v, str) for v in e) for e in doc["dirty"])
        and not stamped.racy()
    )
    got = watch.since(doc["token"] if same else None)
    if got is None:  # no watch: the whole tree, and a watch for the next time if that was slow
        began = time.monotonic()
        listed = status.dirty(repo.root)
        if time.monotonic() - began > START_AFTER:
            watch.start()
        _drop(state_file)
        return listed
    token, changed = got
    asked = _asked(changed) if same and changed is not None else None
    tree = doc.get("tree") if isinstance(doc, dict) and doc.get("index") == index_id else None
    if asked is not None and doc["index"] != index_id:  # git wrote the index: ask about the entries it changed
        tree = _tree(repo, index, index_id, folder)
        staged = _staged(repo, doc.get("tree"), tree)
        asked = None if staged is None else asked | staged
    if asked is None:
        listed = status.dirty(repo.root)
    else:
        fresh = status.dirty(repo.root, sorted(asked))
        seen = {d.path for d in fresh}
        kept = [Dirty(p, k) for p, k in doc["dirty"]]
        listed = [d for d in kept if not _under(d.path, asked) and d.path not in seen] + fresh
    if tree is None:
        tree = _tree(repo, index, index_id, folder)
    if _index_id(index) == index_id and stamped.unchanged():
        _write(
            state_file,
            {
                "version": VERSION,
                "token": token,
                "index": index_id,
                "tree": tree,
                "inputs": stamps,
                "dirty": [[d.path, d.kind] for d in listed],
            },
        )
    else:
        _drop(state_file)
    return listed


def _tree(repo: GitRepo, index: Path, index_id: list[int] | None, folder: Path) -> str | None:
    """The tree the index `index_id` records (git may rewrite the index it is given: it gets a link to
    this one); None when there is none, or the index is not that one any more."""
    from ..repo import status

    if index_id is None:
        return None
    link = folder / f".watched-index.{os.getpid()}"
    _drop(link)
    try:
        os.link(index, link)
        if _index_id(link) != index_id:
            return None
        return status.index_tree(repo.root, link)
    except OSError:
        return None
    finally:
        _drop(link)
        _drop(link.with_name(link.name + ".lock"))


def _staged(repo: GitRepo, before: object, after: str | None) -> set[str] | None:
    """The paths whose entries differ between two index trees (blob or mode, added or removed);
    None when that cannot be told."""
    from ..repo import GitError

    if not isinstance(before, str) or after is None:
        return None
    if before == after:
        return set()
    try:
        return {p for c in repo.changed_files(before, after) for p in (c.path, c.old_path) if p}
    except GitError:
        return None


def _write(path: Path, doc: dict[str, object]) -> None:
    """`doc` as the kept list, whole or not at all; a name already at the temporary file's place (a
    link to elsewhere) is removed, never written through."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write_new(tmp, json.dumps(doc).encode("utf-8"))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def _drop(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
