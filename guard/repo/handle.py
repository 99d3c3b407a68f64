"""The handle on one repository: the only place pygit2 is opened (see the package doc).

Trees are built in memory, one path at a time (a temporary index in spirit, without
reading the whole index), so the cost of recording an edit follows the edit, not the
size of the repository.  Ref updates are compare-and-swap inside a libgit2 ref
transaction.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence

import pygit2

from ..files.discovery import not_found
from . import objects
from .errors import GitError, NotARepository, RefLocked, RefMoved, UnreadableAttributes
from .values import GITLINK, CommitInfo, Entry, TreeChange

if TYPE_CHECKING:
    from .config import ConfigEntry
    from .remerge import Remerged, Scratch
    from .status import IndexFile

_ENV_LOCK = threading.Lock()
_PREFETCH_FROM = 64  # paths: below this, one libgit2 look-up each costs less than starting git
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


def _stamp(file: str | Path) -> tuple[int, int, int, int, int] | None:
    """A file's metadata as far as telling a change goes (mode, mtime, ctime, size, inode), or None."""
    try:
        st = os.stat(file)
    except (OSError, ValueError):
        return None
    return st.st_mode, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


def _attribute_folders(path: str) -> list[str]:
    """The folders whose .gitattributes git reads for `path`, from the top down ("" is the top)."""
    parts = path.split("/")[:-1]
    return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]


class GitRepo:
    """A handle on one repository (a resource: open once, use for many calls)."""

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
        self._attrs: pygit2.Repository | None = None
        self._merges: Scratch | None = None  # where `remerge` merges, made on first use
        self._logged: set[str] = set()  # refs whose reflog is known to exist
        # Answers of `attr` while the files they come from stay as they were (`forget_attributes`):
        # one apply asks the same few several times, and a session's next apply again.
        self._attr_values: dict[tuple[str, str], str | bool | None] = {}
        self._attr_stamps: dict[str, tuple[int, int, int, int, int] | None] = {}  # their metadata, by path
        self._attr_stamped_at = 0  # when the first of them was taken (time.time_ns)
        self._attr_setting: list[str | None] = []  # core.attributesFile as the look-ups read it
        self._attr_at_values: dict[tuple[str, str, str], str | bool | None] = {}  # by commit: never stale
        self._config_memo: dict[str, object] = {}  # what `config_entries` last read (``config.entries``)
        self._attr_folders: set[str] = set()  # folders whose attribute files were found readable
        # Folders whose .gitattributes the work tree lacks and HEAD has: git reads the index's copy
        # there (a tracked file deleted and not staged), so look-ups under them read the index too.
        self._attr_index_folders: set[str] = set()
        pointer = self.gitdir / "commondir"
        if pointer.is_file():
            self.commondir = (self.gitdir / pointer.read_text().strip()).resolve()

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
        return self._tree_changes(diff)

    def staged_changes(self, tree: str | None, index_file: str | None = None) -> list[TreeChange] | None:
        """`diff_trees(tree, <the index's tree>)` without writing the index's trees (a tree
        object per folder, each hashed: ~15 ms for 1,000 files).

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
            return self._tree_changes(base.diff_to_index(idx))
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

    @staticmethod
    def _tree_changes(diff: pygit2.Diff) -> list[TreeChange]:
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

    def changed_files(self, old: str | None, new: str | None) -> list[TreeChange]:
        """Files that differ between two trees, descending only into folders that differ.

        libgit2's tree diff walks every entry (tens of ms on a 100,000-file tree); a
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

    def attr(self, path: str, name: str) -> str | bool | None:
        key = (path, name)
        if key in self._attr_values:
            return self._attr_values[key]
        self._vet_attribute_files(path)
        if self._attr_index_folders and not self._attr_index_folders.isdisjoint(_attribute_folders(path)):
            # git's rule (check-attr): a .gitattributes missing from the work tree is read from the
            # index.  The index-free handle cannot; the repository's own handle reads both, work tree
            # first.  Not kept: the index may change with no attribute file's metadata changing.
            self._user_index()  # as it is on disk now: libgit2 looks up in the copy it holds
            try:
                return self._repo.get_attr(path, name)
            except pygit2.GitError:
                return None
        try:
            value = self._attr_handle().get_attr(path, name)
        except pygit2.GitError:
            value = None
        if len(self._attr_values) < 4096:
            self._attr_values[key] = value
        return value

    def prefetch_attributes(self, paths: Sequence[str], names: Sequence[str]) -> None:
        """Answer `attr` for many paths at once, with one `git check-attr` (a check of a large commit).

        libgit2 looks one path and name up at a time (16 µs each: 32 ms for two names on
        a thousand files); git answers them all in one process of a few milliseconds.
        Below a few dozen paths, or when git cannot be run, `attr` asks libgit2 as before.
        """
        todo = list(dict.fromkeys(p for p in paths for n in names if (p, n) not in self._attr_values))
        if len(todo) < _PREFETCH_FROM or not names:
            return
        for path in todo:
            self._vet_attribute_files(path)
        import subprocess

        try:
            proc = subprocess.run(
                ["git", "check-attr", "-z", "--stdin", *names],
                cwd=self.root,
                input=b"".join(os.fsencode(p) + b"\0" for p in todo),
                capture_output=True,
                timeout=120,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return
        if proc.returncode != 0:
            return
        fields = proc.stdout.split(b"\0")
        got: dict[tuple[str, str], str | bool | None] = {}
        for i in range(0, len(fields) - 2, 3):
            info = fields[i + 2]
            got[(os.fsdecode(fields[i]), os.fsdecode(fields[i + 1]))] = (
                True if info == b"set" else False if info == b"unset" else None if info == b"unspecified" else os.fsdecode(info)
            )
        if len(got) == len(todo) * len(names):  # every answer, or none: never half from git, half from libgit2
            self._attr_values.update(got)

    def attr_at(self, commit: str | None, path: str, name: str) -> str | bool | None:
        """`attr` as of `commit`'s tree: its `.gitattributes` files (None: no tree's), and the files
        outside every tree (info/attributes, core.attributesFile, the system's); never the work
        tree or the index.  For checks that must not read what the change they judge writes."""
        key = (path, name, commit or "")
        if key in self._attr_at_values:
            return self._attr_at_values[key]
        flags = pygit2.enums.AttrCheck.INDEX_ONLY  # the attribute handle's index is empty
        try:
            if commit is None:
                value = self._attr_handle().get_attr(path, name, flags)
            else:
                value = self._attr_handle().get_attr(path, name, flags | pygit2.enums.AttrCheck.INCLUDE_COMMIT, commit)
        except pygit2.GitError:
            value = None
        if len(self._attr_at_values) < 16384:
            self._attr_at_values[key] = value
        return value

    def forget_attributes(self) -> None:
        """Look attributes up afresh from now on if a file they come from changed since (another
        command may have edited a .gitattributes between two calls): the kept answers stay only
        while every attribute file the look-ups read has the metadata it had then, and
        core.attributesFile names the same file.  A file changed in the two seconds before it was
        looked at may change again within the same timestamp: then nothing is kept (git's racy rule)."""
        if self._attr_setting and self._attr_setting != [self.config("core.attributesFile")]:
            self._attrs = None  # libgit2 reads the setting once per handle: a new one reads it again
        elif all(
            _stamp(f) == st and (st is None or max(st[1], st[2]) < self._attr_stamped_at - 2_000_000_000)
            for f, st in self._attr_stamps.items()
        ):
            return
        self._attr_values.clear()
        self._attr_folders.clear()
        self._attr_index_folders.clear()
        self._attr_stamps.clear()
        self._attr_setting.clear()

    def _vet_attribute_files(self, path: str) -> None:
        """Raise ``UnreadableAttributes`` when a file the look-up of `path` reads is not a regular file.

        git and libgit2 read `.gitattributes` in every folder from the top down to the
        path's, `info/attributes` and `core.attributesFile` (else git's XDG file), with a
        plain open: a named pipe among them holds the look-up (and the repository lock)
        until something writes to it.  Each folder is looked at once (``lstat``-cheap).
        A `.gitattributes` in the work tree that is a symbolic link is refused too: git does
        not follow one there (it reads the index's copy, if any), libgit2 does, and no
        handle reads attributes git's way past it.
        """
        from ..files.filekind import kind

        todo = [f for f in _attribute_folders(path) if f not in self._attr_folders]
        if not todo:
            return
        files: list[tuple[str, Path]] = []
        if "" in todo:
            configured = self.config("core.attributesFile")
            self._attr_setting[:] = [configured]
            xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
            files += [
                ("info/attributes", self.commondir / "info" / "attributes"),
                ("core.attributesFile", Path(os.path.expanduser(configured)) if configured else Path(xdg) / "git" / "attributes"),
                ("the system's attributes", Path("/etc/gitattributes")),
            ]
        in_tree: dict[str, str] = {}  # the work tree's .gitattributes to look at: name -> its folder
        if not self.bare:
            in_tree = {f"{f}/.gitattributes" if f else ".gitattributes": f for f in todo}
            files += [(name, self.root / name) for name in in_tree]
        if not self._attr_stamps:
            self._attr_stamped_at = time.time_ns()
        missing: list[str] = []  # the work tree's .gitattributes that are not there
        for label, file in files:
            if label in in_tree and os.path.islink(file):
                raise UnreadableAttributes(
                    f"cannot read git attributes for {path}: {label} ({file}) is a symbolic link, which git does not "
                    "follow in the work tree (it reads the index's copy instead) and agent-guard cannot read as git "
                    "does; remove it, or make it a regular file"
                )
            stamp = self._attr_stamps[str(file)] = _stamp(file)  # what `forget_attributes` compares
            if stamp is None:
                if label in in_tree:
                    missing.append(label)
                continue  # not there (or not reachable): nothing is read from it
            what = kind(stamp[0])
            if what is not None and what != "a folder":
                raise UnreadableAttributes(
                    f"cannot read git attributes for {path}: {label} ({file}) is {what}, not a regular file "
                    "(git reads attributes from it, and would wait on it); remove it, or make it a regular file"
                )
        self._attr_index_folders.update(in_tree[label] for label in self._in_head(missing))
        self._attr_folders.update(todo)

    def _in_head(self, paths: list[str]) -> list[str]:
        """Those of `paths` HEAD's tree holds: tracked files, so ones the index may hold while the
        work tree does not (reading the index itself is what the attribute handle exists to avoid)."""
        if not paths:
            return []
        try:
            tree = self._repo.head.peel(pygit2.Tree)
        except (KeyError, pygit2.GitError, ValueError):
            return []  # no commit yet
        return [path for path in paths if path in tree]

    def _attr_handle(self) -> pygit2.Repository:
        """A handle for attribute look-ups that never reads the index.

        libgit2 loads the whole index on a handle's first attribute look-up, whatever the
        look-up's flags (in case a .gitattributes lives only there): 200 ms on a
        100,000-file repository, for an edit to one file.  Attributes come from the work
        tree's files, so a second handle whose index file does not exist answers them at
        the cost of the edit.
        """
        if self._attrs is None:
            try:
                self._attrs = self._handle_without_index()
            except pygit2.GitError:
                self._attrs = self._repo
        return self._attrs

    def _handle_without_index(self) -> pygit2.Repository:
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
        it.  Once per handle (``_attr_handle`` keeps it); tests/repo/test_repo_objects.py
        holds the environment unchanged after it.
        """
        missing = str(self.gitdir / "agent-guard" / "no-index-for-attributes")
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

    def config_entries(self) -> list[ConfigEntry]:
        """Every configuration entry git reads here, with the file each came from (``config.entries``)."""
        from .config import entries

        def fallback() -> list[tuple[str, str | None]]:
            return [(e.name, e.value) for e in self._repo.config]

        return entries(self.root, self.gitdir, self.commondir, fallback, self._config_memo)

    def index_differences(self, old: IndexFile, new: IndexFile) -> set[str]:
        """The paths whose index entries differ between two index files (``status.IndexFile``)."""
        changed: set[str] = set()
        for c in self.changed_files(old.tree(self._repo), new.tree(self._repo)):
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
        if new is not None and name not in self._logged:
            # libgit2 (like git) keeps a reflog outside refs/heads only when the log exists.
            if not log.exists():
                log.parent.mkdir(parents=True, exist_ok=True)
                log.touch()
            self._logged.add(name)
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
            self._logged.discard(name)
            log.unlink(missing_ok=True)
