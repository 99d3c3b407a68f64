"""gitattributes as git reads them: look-ups for one call, one look-up, or as of a commit.

Nothing is kept between calls.  A look-up reads the attribute files as they are then
(libgit2 keeps the files it parsed, and parses one again when its metadata changes), so a
`.gitattributes` or a ``core.attributesFile`` changed between two calls is seen by the
second.  Within one call, a caller holds a ``CallAttributes`` (or, as of a commit, a
``CommitAttributes``): each attribute file is vetted once and each answer asked once, and
all of it goes with the value when the call ends.  For a large change, it is filled at
once from one ``git check-attr``.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Callable, Sequence

import pygit2

from .errors import UnreadableAttributes

AttrValue = str | bool | None
AttrLookup = Callable[[str, str], AttrValue]

_ENV_LOCK = threading.Lock()
_MANY_FROM = 64  # paths: below this, one libgit2 look-up each costs less than starting git


def attribute_folders(path: str) -> list[str]:
    """The folders whose .gitattributes git reads for `path`, from the top down ("" is the top)."""
    parts = path.split("/")[:-1]
    return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]


class Attributes:
    """The attribute look-ups of one repository (a resource of its `GitRepo`: a second libgit2
    handle that never reads the index, opened on the first look-up).  It keeps no answer."""

    def __init__(self, repo: pygit2.Repository, root: Path, gitdir: Path, commondir: Path, bare: bool) -> None:
        self._repo = repo
        self.root = root
        self._gitdir = gitdir
        self._commondir = commondir
        self._bare = bare
        # The index-free handle, with the core.attributesFile it was opened under: libgit2 reads
        # that setting once per handle, so a handle opened under another one is opened again.
        self._index_free: tuple[str | None, pygit2.Repository] | None = None

    def for_call(self, paths: Sequence[str] = (), names: Sequence[str] = ()) -> CallAttributes:
        """Look-ups for one call to hold (``CallAttributes``); with many `paths`, those of `names`
        for them answered at once by git."""
        call = CallAttributes(self)
        if len(set(paths)) >= _MANY_FROM and names:
            call.fill(list(dict.fromkeys(paths)), names)
        return call

    def at(self, commit: str | None) -> CommitAttributes:
        """Look-ups as of `commit` for one call to hold (``CommitAttributes``)."""
        return CommitAttributes(self._handle(self.setting()), commit)

    def setting(self) -> str | None:
        """core.attributesFile as the configuration says now."""
        try:
            return str(self._repo.config["core.attributesFile"])
        except (KeyError, pygit2.GitError):
            return None

    def lookup(self, path: str, name: str, configured: str | None, from_index: bool) -> AttrValue:
        """libgit2's answer, from the work tree's attribute files (and core.attributesFile
        `configured`), or, `from_index`, from the index's too where the work tree lacks one."""
        if from_index:
            # git's rule (check-attr): a .gitattributes missing from the work tree is read from the
            # index.  The index-free handle cannot; a new handle on the repository reads both, work
            # tree first, with the index and the configuration as they are on disk now.
            try:
                return pygit2.Repository(self._repo.path).get_attr(path, name)
            except pygit2.GitError:
                return None
        try:
            return self._handle(configured).get_attr(path, name)
        except pygit2.GitError:
            return None

    def vet(self, path: str, folders: Sequence[str], configured: str | None) -> tuple[list[str], list[str]]:
        """Raise ``UnreadableAttributes`` when a file the look-up of `path` reads, in `folders` (and,
        with the top among them, outside every tree: info/attributes, core.attributesFile
        `configured`, the system's), is not a regular file; else, of `folders`, those whose
        .gitattributes git reads from the index (tracked, and missing from the work tree), and
        those with an attribute file to read ("" also when a file outside every tree is there).

        git and libgit2 read `.gitattributes` in every folder from the top down to the
        path's, `info/attributes` and `core.attributesFile` (else git's XDG file), with a
        plain open: a named pipe among them holds the look-up (and the repository lock)
        until something writes to it.  A `.gitattributes` in the work tree that is a
        symbolic link is refused too: git does not follow one there (it reads the index's
        copy, if any), libgit2 does, and no handle reads attributes git's way past it.
        """
        from ..fs.filekind import kind

        files: list[tuple[str, str]] = []
        if "" in folders:
            xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
            files += [
                ("info/attributes", os.path.join(self._commondir, "info", "attributes")),
                ("core.attributesFile", os.path.expanduser(configured) if configured else os.path.join(xdg, "git", "attributes")),
                ("the system's attributes", "/etc/gitattributes"),
            ]
        in_tree: dict[str, str] = {}  # the work tree's .gitattributes to look at: name -> its folder
        if not self._bare:
            in_tree = {f"{f}/.gitattributes" if f else ".gitattributes": f for f in folders}
            files += [(name, os.path.join(self.root, name)) for name in in_tree]
        missing: list[str] = []  # the work tree's .gitattributes that are not there
        present: list[str] = []  # folders with a file to read
        for label, file in files:
            if label in in_tree and os.path.islink(file):
                raise UnreadableAttributes(
                    f"cannot read git attributes for {path}: {label} ({file}) is a symbolic link, which git does not "
                    "follow in the work tree (it reads the index's copy instead) and agent-guard cannot read as git "
                    "does; remove it, or make it a regular file"
                )
            try:
                mode = os.stat(file).st_mode
            except (OSError, ValueError):
                if label in in_tree:
                    missing.append(label)
                continue  # not there (or not reachable): nothing is read from it
            what = kind(mode)
            if what is not None and what != "a folder":
                raise UnreadableAttributes(
                    f"cannot read git attributes for {path}: {label} ({file}) is {what}, not a regular file "
                    "(git reads attributes from it, and would wait on it); remove it, or make it a regular file"
                )
            present.append(in_tree.get(label, ""))
        from_index = [in_tree[label] for label in self._in_head(missing)]
        return from_index, from_index + present

    def _in_head(self, paths: list[str]) -> list[str]:
        """Those of `paths` HEAD's tree holds: tracked files, so ones the index may hold while the
        work tree does not (reading the index itself is what the index-free handle exists to avoid)."""
        if not paths:
            return []
        try:
            tree = self._repo.head.peel(pygit2.Tree)
        except (KeyError, pygit2.GitError, ValueError):
            return []  # no commit yet
        return [path for path in paths if path in tree]

    def _handle(self, configured: str | None) -> pygit2.Repository:
        """A handle for attribute look-ups that never reads the index, opened under `configured`.

        libgit2 loads the whole index on a handle's first attribute look-up, whatever the
        look-up's flags (in case a .gitattributes lives only there): on a large repository
        that is most of an edit's cost.  Attributes come from the work tree's
        files, so a second handle whose index file does not exist answers them at the cost
        of the edit.
        """
        if self._index_free is None or self._index_free[0] != configured:
            try:
                handle = self._open_without_index()
            except pygit2.GitError:
                handle = self._repo
            self._index_free = (configured, handle)
        return self._index_free[1]

    def _open_without_index(self) -> pygit2.Repository:
        """A second handle on this repository, its first attribute look-up made, that has read no index.

        The one place agent-guard sets a variable of git's in its own environment, because
        nothing else reaches libgit2 here: a handle reads the index its opening named
        (``$GIT_INDEX_FILE`` when opened FROM_ENV, else the git dir's `index`), and pygit2
        offers no way to give a handle another one (libgit2's git_repository_set_index is
        not in its API).  So GIT_INDEX_FILE names a file that does not exist while the
        handle is opened and makes its first look-up (which loads the index it then keeps),
        under a lock (one handle at a time), and is put back as it was before this returns.
        A git child another thread started in that window would inherit it; the ones
        agent-guard starts in a checkout take ``shadow.command_environment``, which drops
        it.  tests/repo/test_repo_objects.py holds the environment unchanged after it.
        """
        missing = str(self._gitdir / "agent-guard" / "no-index-for-attributes")
        flags = pygit2.enums.RepositoryOpenFlag.NO_SEARCH | pygit2.enums.RepositoryOpenFlag.FROM_ENV
        with _ENV_LOCK:
            saved = os.environ.get("GIT_INDEX_FILE")
            os.environ["GIT_INDEX_FILE"] = missing
            try:
                handle = pygit2.Repository(str(self.root), flags)
                handle.get_attr(".gitattributes", "binary")
            finally:
                if saved is None:
                    del os.environ["GIT_INDEX_FILE"]
                else:
                    os.environ["GIT_INDEX_FILE"] = saved
        return handle


class CommitAttributes:
    """Attribute look-ups as of one commit's tree, for one call (``get`` is an ``AttrLookup``):
    its `.gitattributes` files (None: no tree's), and the files outside every tree
    (info/attributes, core.attributesFile, the system's); never the work tree or the index.
    For checks that must not read what the change they judge writes.  Each answer is asked
    once, and dropped with the value."""

    def __init__(self, handle: pygit2.Repository, commit: str | None) -> None:
        self._handle = handle  # the index-free one: its index is empty
        self._commit = commit
        self._answers: dict[tuple[str, str], AttrValue] = {}

    def get(self, path: str, name: str) -> AttrValue:
        """Attribute `name` of `path` as of the commit."""
        key = (path, name)
        if key not in self._answers:
            flags = pygit2.enums.AttrCheck.INDEX_ONLY
            try:
                if self._commit is None:
                    value = self._handle.get_attr(path, name, flags)
                else:
                    value = self._handle.get_attr(path, name, flags | pygit2.enums.AttrCheck.INCLUDE_COMMIT, self._commit)
            except pygit2.GitError:
                value = None
            self._answers[key] = value
        return self._answers[key]


class CallAttributes:
    """Attribute look-ups for one call (``get`` is an ``AttrLookup``): each attribute file vetted
    once, each answer asked once, all of it dropped with the value.  Made by
    ``Attributes.for_call``; the caller holds it while the call lasts, and a new call makes a
    new one."""

    def __init__(self, source: Attributes) -> None:
        self._source = source
        self.root = source.root  # the checks find the repository's root here (``checks.syntax._root``)
        self._configured = source.setting()
        self._vetted: set[str] = set()  # folders whose attribute files were looked at
        self._from_index: set[str] = set()  # folders whose .gitattributes git reads from the index
        self._read: set[str] = set()  # folders with an attribute file to read ("": or one outside the tree)
        self._answers: dict[tuple[str, str], AttrValue] = {}

    def get(self, path: str, name: str) -> AttrValue:
        """Attribute `name` of `path`.

        Where no attribute file lies on the look-up's way (none in the work tree's folders down
        to the path's, none of them in the index, no info/attributes, core.attributesFile or
        system file), every attribute is unspecified, as git answers: there is nothing to ask."""
        key = (path, name)
        if key in self._answers:
            return self._answers[key]
        folders = self._vetted_for(path)
        value = None
        if not self._read.isdisjoint(folders):
            value = self._source.lookup(path, name, self._configured, not self._from_index.isdisjoint(folders))
        self._answers[key] = value
        return value

    def fill(self, paths: list[str], names: Sequence[str]) -> None:
        """Answer `names` for every one of `paths` from one ``git check-attr`` (libgit2 looks one path
        and name up at a time; git answers them all in one process); when git cannot, nothing is
        filled and each look-up goes to libgit2 as usual."""
        for path in paths:
            self._vetted_for(path)
        got = _check_attr(self._source.root, paths, names)
        if got is not None and len(got) == len(paths) * len(names):  # every answer, or none: never half from git
            self._answers.update(got)

    def _vetted_for(self, path: str) -> list[str]:
        """The folders whose attribute files a look-up of `path` reads, each vetted (``Attributes.vet``) once."""
        folders = attribute_folders(path)
        todo = [f for f in folders if f not in self._vetted]
        if todo:
            from_index, read = self._source.vet(path, todo, self._configured)
            self._from_index.update(from_index)
            self._read.update(read)
            self._vetted.update(todo)
        return folders


def _check_attr(root: Path, paths: Sequence[str], names: Sequence[str]) -> dict[tuple[str, str], AttrValue] | None:
    """git's answers for every path and name (``git check-attr --stdin -z``), or None when git cannot say."""
    try:
        proc = subprocess.run(
            ["git", "check-attr", "-z", "--stdin", *names],
            cwd=root,
            input=b"".join(os.fsencode(p) + b"\0" for p in paths),
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    fields = proc.stdout.split(b"\0")
    got: dict[tuple[str, str], AttrValue] = {}
    for i in range(0, len(fields) - 2, 3):
        info = fields[i + 2]
        got[(os.fsdecode(fields[i]), os.fsdecode(fields[i + 1]))] = (
            True if info == b"set" else False if info == b"unset" else None if info == b"unspecified" else os.fsdecode(info)
        )
    return got
