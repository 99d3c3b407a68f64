"""The handle on one repository: the only place pygit2 is opened (see the package doc).

Trees are built in memory, one path at a time (a temporary index in spirit, without
reading the whole index), so the cost of recording an edit follows the edit, not the
size of the repository.  Ref updates are compare-and-swap inside a libgit2 ref
transaction.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence

import pygit2

from ..fs.discovery import not_found
from . import objects
from .attributes import Attributes, AttrLookup, AttrValue
from .errors import GitError, NotARepository, RefLocked, RefMoved
from .treediff import tree_changes
from .values import GITLINK, CommitInfo, Entry, TreeChange

if TYPE_CHECKING:
    from .config import ConfigEntry
    from .remerge import Remerged, Scratch
    from .status import IndexFile

_TREE_TYPE = int(pygit2.enums.ObjectType.TREE)


def _signature(repo: pygit2.Repository) -> pygit2.Signature:
    # Identity from git config and the usual environment, else a fixed one: recording a
    # turn must never fail because the user has not configured git.
    name = os.environ.get("GIT_COMMITTER_NAME")
    email = os.environ.get("GIT_COMMITTER_EMAIL")
    try:
        cfg = repo.config
        name = name or cfg["user.name"]
        email = email or cfg["user.email"]
    except (KeyError, pygit2.GitError):
        pass
    return pygit2.Signature(name or "agent-guard", email or "agent-guard@localhost")


def _quarantined(repo: pygit2.Repository) -> None:
    """Let `repo` read the objects of a push that git holds aside while its receive hooks run.

    git keeps them in a quarantine folder (GIT_QUARANTINE_PATH, also GIT_OBJECT_DIRECTORY)
    until the hooks accept the push; libgit2 does not read those variables, so a
    pre-receive hook's check would not find the commits it is asked about.
    """
    quarantine = os.environ.get("GIT_QUARANTINE_PATH")
    if quarantine and os.path.isdir(quarantine):
        try:
            repo.odb.add_disk_alternate(quarantine)
        except pygit2.GitError:
            pass  # a pushed object is then missing, and reported where it is needed


class GitRepo:
    """A handle on one repository (a resource: open once, use for many calls).

    It keeps no answer from one call to the next: objects, refs, the index and the attributes are
    asked of libgit2 (or git) each time, as they are on disk then, and git's configuration of
    ``config.KEPT``, which gives git's answer again only while its files are unchanged.
    Otherwise it holds handles: libgit2's, and the merges' scratch."""

    def __init__(self, start: str | os.PathLike[str] = ".", bare_ok: bool = False) -> None:
        """Open the repository `start` is in.  A bare one only with `bare_ok` (checking
        commits needs no work tree; everything that writes one does): its `root` is then
        its git dir, and `bare` is True."""
        try:
            found = pygit2.discover_repository(str(start))
        except pygit2.GitError as exc:  # pragma: no cover - libgit2 reports "not found" as None
            raise NotARepository(str(exc)) from None
        if found is None:
            raise NotARepository(not_found(start))
        try:
            self._repo = pygit2.Repository(found)
        except pygit2.GitError as exc:
            raise NotARepository(str(exc)) from None
        self.bare = self._repo.is_bare or self._repo.workdir is None
        if self.bare and not bare_ok:
            raise NotARepository(f"{found} is a bare repository: agent-guard needs a working tree")
        self.gitdir = Path(self._repo.path).resolve()
        self.root = self.gitdir if self.bare else Path(self._repo.workdir).resolve()
        _quarantined(self._repo)
        # Shared state (refs, objects, our journal and lock) lives in the common dir of worktrees.
        # (A linked worktree's gitdir holds a `commondir` file pointing at the main one.)
        self.commondir = self.gitdir
        self._merges: Scratch | None = None  # where `remerge` merges, made on first use
        pointer = self.gitdir / "commondir"
        if pointer.is_file():
            self.commondir = (self.gitdir / pointer.read_text().strip()).resolve()
        self._attributes = Attributes(self._repo, self.root, self.gitdir, self.commondir, self.bare)

    # ------------------------------------------------------------------ objects

    @staticmethod
    def hash_blob(data: bytes) -> str:
        """The id git gives `data` as a blob (libgit2's collision-detecting SHA-1)."""
        return objects.blob_id(data)

    def write_blob(self, data: bytes) -> str:
        return objects.write_blob(self._repo, data)

    def read_blob(self, oid: str) -> bytes | None:
        """A blob's bytes by full or abbreviated id, or None when absent/ambiguous/not a blob."""
        return objects.read_blob(self._repo, oid)

    # ------------------------------------------------------------------ trees

    def head_commit(self) -> str | None:
        """HEAD's commit, or None on an unborn branch (libgit2 finds no reference to resolve)."""
        try:
            return str(self._repo.head.target)  # one resolution of HEAD (each reads its files)
        except pygit2.GitError:
            return None

    def commit_tree(self, commit: str) -> str:
        return str(self._repo.get(commit).tree_id)  # type: ignore[union-attr]

    def tree_entry(self, tree: str | None, path: str) -> Entry | None:
        if tree is None:
            return None
        try:
            ent = self._repo.get(tree)[path]  # type: ignore[index]
        except (KeyError, pygit2.GitError, TypeError):
            return None
        return Entry(str(ent.id), int(ent.filemode))

    def build_tree(self, base: str | None, updates: Mapping[str, Entry | None]) -> str:
        """`base` with each path set to an entry (or removed), built one folder at a time."""
        nested: dict[str, object] = {}
        for path, entry in updates.items():
            node = nested
            parts = path.split("/")
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    child = node[part] = {}
                node = child
            node[parts[-1]] = entry
        return self._build(base, nested) or self._empty_tree()

    def _empty_tree(self) -> str:
        return str(self._repo.TreeBuilder().write())

    def empty_tree(self) -> str:
        """The empty tree's id (written, so a checkout of it can be made)."""
        return self._empty_tree()

    def _build(self, base: str | None, nested: Mapping[str, object]) -> str | None:
        base_tree = self._repo.get(base) if base else None
        tb = self._repo.TreeBuilder(base_tree) if isinstance(base_tree, pygit2.Tree) else self._repo.TreeBuilder()
        for name, value in nested.items():
            if isinstance(value, dict):
                existing = tb.get(name)
                sub_base = str(existing.id) if existing is not None and existing.type_str == "tree" else None
                sub = self._build(sub_base, value)
                if sub is None:
                    if existing is not None:
                        tb.remove(name)
                else:
                    tb.insert(name, sub, pygit2.GIT_FILEMODE_TREE)
            elif value is None:
                if tb.get(name) is not None:
                    tb.remove(name)
            else:
                assert isinstance(value, Entry)
                tb.insert(name, value.oid, value.mode)
        if len(tb) == 0:
            return None
        return str(tb.write())

    def write_commit(self, tree: str, parents: list[str], message: str) -> str:
        sig = _signature(self._repo)
        return str(self._repo.create_commit(None, sig, sig, message, tree, parents))

    def commit_info(self, oid: str) -> CommitInfo:
        c = self._repo.get(oid)
        if not isinstance(c, pygit2.Commit):
            raise GitError(f"{oid} is not a commit")
        return CommitInfo(str(c.id), tuple(str(p) for p in c.parent_ids), str(c.tree_id), c.message, c.commit_time)

    def walk(self, tip: str) -> Iterator[CommitInfo]:
        """First-parent history from tip."""
        oid: str | None = tip
        while oid:
            info = self.commit_info(oid)
            yield info
            oid = info.parents[0] if info.parents else None

    def resolve(self, rev: str) -> str:
        try:
            obj = self._repo.revparse_single(rev)
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise GitError(f"unknown revision {rev!r}: {exc}") from None
        if isinstance(obj, pygit2.Tag):
            return str(obj.peel(pygit2.Commit).id)
        return str(obj.id)

    def diff_trees(self, old: str | None, new: str | None) -> list[TreeChange]:
        a = self._repo.get(old) if old else None
        b = self._repo.get(new) if new else None
        if not isinstance(b, pygit2.Tree):
            b = self._repo.get(self._empty_tree())
        assert isinstance(b, pygit2.Tree)
        if not isinstance(a, pygit2.Tree):
            diff = b.diff_to_tree(swap=True)
        else:
            diff = a.diff_to_tree(b)
        return tree_changes(diff)

    def staged_changes(self, tree: str | None, index_file: str | None = None) -> list[TreeChange] | None:
        """`diff_trees(tree, <the index's tree>)` without writing the index's trees (a tree
        object per folder, each hashed, for a change that may touch a few).

        `index_file` names another index, as $GIT_INDEX_FILE does (git sets it for its
        hooks).  None when the index has unmerged paths: `index_tree` says what is wrong.
        """
        try:
            if index_file is None:
                idx = self._repo.index
                idx.read(False)
            else:
                idx = pygit2.Index(index_file)  # read from that file, this handle's own index untouched
            if idx.conflicts is not None:
                return None
            base = self._repo.get(tree or self._empty_tree())
            assert isinstance(base, pygit2.Tree)
            return tree_changes(base.diff_to_index(idx))
        except pygit2.GitError as exc:
            raise GitError(f"cannot read the index: {exc}") from None

    def index_entries(self, index_file: str | None = None) -> Callable[[str], Entry | None]:
        """Look-ups in the index as it is on disk now (the user's, or the one at `index_file`, as
        $GIT_INDEX_FILE names one), read once: each path's entry as the next commit will record
        it; None when the index holds no merged entry for it (absent, or only a conflict's sides)."""
        try:
            if index_file is None:
                idx = self._repo.index
                idx.read(False)
            else:
                idx = pygit2.Index(index_file)  # read from that file, this handle's own index untouched
        except pygit2.GitError as exc:
            raise GitError(f"cannot read the index{f' {index_file}' if index_file else ''}: {exc}") from None

        def entry(path: str) -> Entry | None:
            try:
                found = idx[path]
            except KeyError:
                return None
            return Entry(str(found.id), int(found.mode))

        return entry

    def changed_files(self, old: str | None, new: str | None) -> list[TreeChange]:
        """Files that differ between two trees, descending only into folders that differ.

        libgit2's tree diff walks every entry, however large the tree; a
        turn touches a few paths, so this costs what the turn changed.  Renames are
        paired only when the content is identical; an edited move is a delete and an
        add, which undoes the same way.
        """
        out: list[TreeChange] = []
        self._walk_changes(old, new, "", out)
        added = {c.new.oid: c for c in out if c.status == "A" and c.new is not None}
        paired: set[str] = set()
        result: list[TreeChange] = []
        for c in out:
            if c.status == "D" and c.old is not None and c.old.oid in added and c.old.oid not in paired:
                a = added[c.old.oid]
                paired.add(c.old.oid)
                result.append(TreeChange(a.path, c.path, "R", c.old, a.new))
        gone = {r.old_path for r in result} | {r.path for r in result}
        result += [c for c in out if c.path not in gone]
        return sorted(result, key=lambda c: c.path)

    def files_differing(self, old: str | None, new: str | None) -> list[TreeChange]:
        """Files whose entry differs between two trees (renames not paired), descending only into
        folders that differ: what a merge commit holds that its first parent does not, at the cost
        of that difference."""
        out: list[TreeChange] = []
        self._walk_changes(old, new, "", out)
        return out

    def remerge(self, parents: Sequence[str], merged: Mapping[str, Entry | None]) -> Remerged:
        """git's automatic merge of `parents` against a merge commit's entries `merged` (path ->
        entry, None where it has no file): the merge's own change at those paths (``remerge``)."""
        from .remerge import Scratch, remerge

        if self._merges is None:
            folders = [str(self.commondir / "objects")]
            quarantine = os.environ.get("GIT_QUARANTINE_PATH")
            if quarantine and os.path.isdir(quarantine):
                folders.append(quarantine)  # a receive hook's pushed objects (see `_quarantined`)
            self._merges = Scratch(str(self.gitdir), folders)
        return remerge(self._merges, parents, merged, self.files_differing)

    def _walk_changes(self, old: str | None, new: str | None, prefix: str, out: list[TreeChange]) -> None:
        if old == new:
            return
        a = self._repo.get(old) if old else None
        b = self._repo.get(new) if new else None
        a_ents = {str(e.name): e for e in a} if isinstance(a, pygit2.Tree) else {}
        b_ents = {str(e.name): e for e in b} if isinstance(b, pygit2.Tree) else {}
        for name in sorted(set(a_ents) | set(b_ents)):
            ea, eb = a_ents.get(name), b_ents.get(name)
            # (A folder's mode is the folder's; a file's is asked only when its blob is the same:
            # `filemode` builds an enum member each time, most of the cost of a walk.)
            if ea is not None and eb is not None and ea.id == eb.id and (ea.type == _TREE_TYPE or ea.filemode == eb.filemode):
                continue
            path = prefix + name
            ta = ea is not None and ea.type_str == "tree"
            tb = eb is not None and eb.type_str == "tree"
            if ta or tb:
                self._walk_changes(
                    str(ea.id) if ta and ea is not None else None, str(eb.id) if tb and eb is not None else None, path + "/", out
                )
            fa = Entry(str(ea.id), int(ea.filemode)) if ea is not None and not ta else None
            fb = Entry(str(eb.id), int(eb.filemode)) if eb is not None and not tb else None
            if fa is None and fb is None:
                continue
            status = "A" if fa is None else "D" if fb is None else "M"
            out.append(TreeChange(path, None, status, fa, fb))

    def index_tree(self, index_file: str | None = None) -> str:
        """The tree of the user's index (objects written, the index file left alone).

        `index_file` names another index, as $GIT_INDEX_FILE does: `git commit -a` and
        `git commit PATH` run the pre-commit hook on a temporary index.
        """
        try:
            if index_file is not None:
                return str(pygit2.Index(index_file).write_tree(self._repo))
            idx = self._repo.index
            idx.read(False)
            return str(idx.write_tree())
        except pygit2.GitError as exc:
            raise GitError(f"cannot read the index{f' {index_file}' if index_file else ''}: {exc}") from None

    def commits_between(self, base: str | None, tip: str) -> list[CommitInfo]:
        """The commits `git rev-list --reverse --topo-order base..tip` lists, oldest first (with
        no `base`, every commit `tip` reaches, as `git rev-list --reverse --topo-order tip`)."""
        walker = self._repo.walk(pygit2.Oid(hex=tip), pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
        try:
            if base is not None:
                walker.hide(pygit2.Oid(hex=base))
        except (KeyError, pygit2.GitError) as exc:
            raise GitError(f"cannot walk {base}..{tip}: {exc}") from None
        return [
            CommitInfo(str(c.id), tuple(str(p) for p in c.parent_ids), str(c.tree_id), c.message, c.commit_time) for c in walker
        ]

    # ------------------------------------------------------------------ index / config / attributes

    def _user_index(self) -> pygit2.Index | None:
        """The user's index as it is on disk now (another git command may have changed it), or None."""
        idx: pygit2.Index = self._repo.index
        try:
            idx.read(False)
        except pygit2.GitError:
            return None
        return idx

    def tracked(self, path: str) -> bool:
        head = self.head_commit()
        if head is not None and self.tree_entry(self.commit_tree(head), path) is not None:
            return True
        idx = self._user_index()
        return idx is not None and path in idx

    def tree_files(self, tree: str) -> dict[str, int]:
        """Every file of `tree` (its path, its mode), submodules and links included."""
        walked: list[TreeChange] = []
        self._walk_changes(None, tree, "", walked)
        return {c.path: c.new.mode for c in walked if c.new is not None}

    def tracked_files(self) -> dict[str, int]:
        """Every path ``tracked`` says yes to (in HEAD or the index), with its mode: the
        index's where it has the path, else HEAD's."""
        head = self.head_commit()
        out = self.tree_files(self.commit_tree(head)) if head is not None else {}
        idx = self._user_index()
        if idx is not None:
            for entry in idx:
                out[str(entry.path)] = int(entry.mode)
        return out

    def submodule_of(self, path: str) -> str | None:
        """The submodule (a gitlink in HEAD, or in the index before a first commit) that `path` is or lies inside."""
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        head = self.head_commit()
        if head is not None:
            # HEAD alone: reading a large index on every edit would cost more than the edit.
            tree = self.commit_tree(head)
            for prefix in prefixes:
                entry = self.tree_entry(tree, prefix)
                if entry is None:
                    break
                if entry.mode == GITLINK:
                    return prefix
            return None
        idx = self._user_index()
        if idx is None:
            return None
        for prefix in prefixes:
            try:
                if idx[prefix].mode == GITLINK:
                    return prefix
            except (KeyError, pygit2.GitError):
                continue
        return None

    def skip_worktree(self, path: str) -> bool:
        """Is `path` in the index with git's skip-worktree bit (outside a sparse checkout)?

        pygit2 does not expose an index entry's flags.  The bit lives in the extended
        flags, which only index versions 3 and 4 have (gitformat-index): the header of
        a version 2 index (what git and libgit2 write unless an entry needs them) answers
        no at the cost of eight bytes.  Otherwise git itself says, for a path the index
        holds: ``git ls-files -t`` tags a skip-worktree entry ``S``.
        """
        index_file = Path(os.environ.get("GIT_INDEX_FILE") or self.gitdir / "index")
        try:
            with open(index_file if index_file.is_absolute() else self.root / index_file, "rb") as f:
                head = f.read(8)
        except OSError:
            return False
        if head[:4] != b"DIRC" or int.from_bytes(head[4:8], "big") < 3:
            return False
        idx = self._user_index()
        if idx is None or path not in idx:
            return False
        import subprocess

        try:
            proc = subprocess.run(
                ["git", "ls-files", "-t", "-z", "--", f":(literal){path}"],
                cwd=self.root,
                capture_output=True,
                timeout=60,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return proc.returncode == 0 and proc.stdout.startswith(b"S ")

    def attr(self, path: str, name: str) -> AttrValue:
        """Attribute `name` of `path`, as the attribute files say now: one look-up, nothing kept."""
        return self._attributes.for_call().get(path, name)

    def attributes(self, paths: Sequence[str] = (), names: Sequence[str] = ()) -> AttrLookup:
        """Look-ups for one call to hold, and drop when it ends (``attributes.CallAttributes``):
        each answer asked once.  With many `paths`, those of `names` come from one ``git check-attr``."""
        return self._attributes.for_call(paths, names).get

    def attr_at(self, commit: str | None, path: str, name: str) -> AttrValue:
        """`attr` as of `commit`'s tree, and the files outside every tree: one look-up, nothing kept."""
        return self._attributes.at(commit).get(path, name)

    def attributes_at(self, commit: str | None) -> AttrLookup:
        """Look-ups as of `commit` for one call to hold (``attributes.CommitAttributes``)."""
        return self._attributes.at(commit).get

    def config_entries(self) -> list[ConfigEntry]:
        """Every configuration entry git reads here, with the file each came from (``config.KEPT``)."""
        from .config import KEPT

        def fallback() -> list[tuple[str, str | None]]:
            return [(e.name, e.value) for e in self._repo.config]

        return KEPT.entries(self.root, self.gitdir, self.commondir, fallback)

    def index_differences(self, old: IndexFile, new: IndexFile) -> set[str]:
        """The paths whose index entries differ between two index files (``status.IndexFile``)."""
        changed: set[str] = set()
        for c in self.changed_files(old.tree(), new.tree()):
            changed.update(p for p in (c.path, c.old_path) if p)
        return changed

    def git_folders(self) -> dict[str, str]:
        """git's own folders that lie in the work tree, by their real locations relative to its
        root, each with what it is: the git dir, the common dir, `core.hooksPath`."""
        # The git dir and the common dir were resolved when the handle was opened (``__init__``):
        # they are where it reads and writes.  The hooks folder is the configuration's, as it is now.
        places = [
            (str(self.gitdir), "the repository's git directory"),
            (str(self.commondir), "the repository's common git directory"),
        ]
        hooks = self.config("core.hooksPath")
        if hooks:
            # As git reads it: `~` is the home folder, a relative path starts at the top of the work tree.
            hooks_dir = os.path.realpath(os.path.join(self.root, os.path.expanduser(hooks)))
            places.append((hooks_dir, "the hooks folder (core.hooksPath)"))
        top = str(self.root)
        inside = top.rstrip("/") + "/"
        found: dict[str, str] = {}
        for real, what in places:
            if real != top and real.startswith(inside):
                found.setdefault(real[len(inside) :], what)
        return found

    # ------------------------------------------------------------------ worktrees

    @property
    def worktree_id(self) -> str | None:
        """This linked worktree's id: the name of its folder under the common dir's ``worktrees/``
        (None: the main worktree, and a repository without linked ones)."""
        return self.gitdir.name if self.gitdir != self.commondir else None

    def worktrees(self) -> dict[str | None, Path | None]:
        """Every work tree of the repository, by id (None: the main one), with its folder (None: the
        folder is gone, `git worktree prune` would forget it; or the repository is bare)."""
        found: dict[str | None, Path | None] = {}
        try:
            main = self._repo if self.worktree_id is None else pygit2.Repository(str(self.commondir))
            found[None] = Path(main.workdir).resolve() if main.workdir else None
            for name in main.list_worktrees():
                linked = main.lookup_worktree(name)
                found[name] = None if linked.is_prunable else Path(linked.path).resolve()
        except pygit2.GitError as exc:
            raise GitError(f"could not list the worktrees: {exc}") from None
        return found

    def lock_of(self, ref: str) -> Path | None:
        """The lock file git (and libgit2) leave beside `ref` while they update it, when it is there."""
        lock = self.commondir / f"{ref}.lock"
        return lock if lock.exists() else None

    def remove_stale_lock(self, ref: str) -> None:
        """Take away the lock file beside `ref` that a process which died while updating it left.

        Only for a lock known to be stale: its writer is gone, and the caller holds
        agent-guard's lock on the repository, so no other agent-guard updates `ref`.
        """
        if ref.startswith("refs/") and ".." not in ref:
            (self.commondir / f"{ref}.lock").unlink(missing_ok=True)

    def config(self, key: str) -> str | None:
        try:
            return str(self._repo.config[key])
        except (KeyError, pygit2.GitError):
            return None

    def ignores_case(self) -> bool:
        """git's `core.ignorecase`: does the work tree's file system fold case (false when unset)?"""
        try:
            return bool(self._repo.config.get_bool("core.ignorecase"))
        except (KeyError, ValueError, pygit2.GitError):
            return False

    def ignored(self, path: str) -> bool:
        """Would git ignore `path` (`.gitignore`, `info/exclude`, `core.excludesFile`)?"""
        try:
            return bool(self._repo.path_is_ignored(path))
        except pygit2.GitError:
            return False

    # ------------------------------------------------------------------ refs

    def ref(self, name: str) -> str | None:
        try:
            return str(self._repo.references[name].target)
        except (KeyError, pygit2.GitError):
            return None

    def refs(self, prefix: str) -> dict[str, str]:
        out = {}
        for name in self._repo.references:
            if name.startswith(prefix):
                target = self.ref(name)
                if target:
                    out[name] = target
        return out

    def update_ref(self, name: str, new: str | None, expected: str | None, message: str) -> None:
        """Move `name` to `new` (None: delete) only if it still points at `expected`."""
        log = self.commondir / "logs" / name
        if new is not None and not log.exists():
            # libgit2 (like git) keeps a reflog outside refs/heads only when the log exists.
            log.parent.mkdir(parents=True, exist_ok=True)
            log.touch()
        try:
            with self._repo.transaction() as txn:
                txn.lock_ref(name)
                current = self.ref(name)
                if current != expected:
                    raise RefMoved(f"{name} is at {current or 'nothing'}, expected {expected or 'nothing'}")
                if new is None:
                    txn.remove(name)
                else:
                    txn.set_target(name, new, message=message)
        except pygit2.GitError as exc:
            lock = self.lock_of(name)
            if lock is not None:
                raise RefLocked(name, lock) from None
            raise GitError(f"could not update {name}: {exc}") from None
        if new is None:
            log.unlink(missing_ok=True)
