"""The one module that talks to git.

It imports pygit2, translates its errors, and hands the rest of the package
bytes, paths and hex object ids.  Trees are built in memory, one path at a
time (a temporary index in spirit, without reading the whole index), so the
cost of recording an edit follows the edit, not the size of the repository.
Ref updates are compare-and-swap inside a libgit2 ref transaction.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import pygit2

ZERO = "0" * 40
_ENV_LOCK = threading.Lock()
FILE, EXEC, LINK, GITLINK = 0o100644, 0o100755, 0o120000, 0o160000
_PREFETCH_FROM = 64  # paths: below this, one libgit2 look-up each costs less than starting git
_SKIP_WORKTREE = 1 << 14  # GIT_INDEX_ENTRY_SKIP_WORKTREE, in an index entry's extended flags


class GitError(Exception):
    """A git operation failed (internal error unless caught)."""


class NotARepository(GitError):
    """No (non-bare) git repository here: a usage error."""


class RefMoved(GitError):
    """A compare-and-swap ref update found another value than expected."""


class RefLocked(GitError):
    """A ref's lock file (`<ref>.lock`) is there: another process updates it, or one died doing so."""

    def __init__(self, name: str, lock: Path) -> None:
        super().__init__(f"{name} is locked: {lock} exists")
        self.name, self.lock = name, lock


@dataclass(frozen=True)
class Entry:
    oid: str
    mode: int


@dataclass(frozen=True)
class CommitInfo:
    oid: str
    parents: tuple[str, ...]
    tree: str
    message: str
    time: int


@dataclass(frozen=True)
class TreeChange:
    """One file's difference between two trees."""

    path: str
    old_path: str | None
    status: str  # "A", "D", "M", "R"
    old: Entry | None
    new: Entry | None


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


# Blob ids of recent contents.  An apply hashes the same bytes several times (the
# sync check, the journal, the turn), and a session's next edit starts from the bytes
# the last one wrote; SHA-1 of a 60 KB file is a quarter of a millisecond.  Small
# files only, and few: the cache holds the bytes.
_BLOB_IDS: OrderedDict[bytes, str] = OrderedDict()
_BLOB_IDS_KEPT = 16
_BLOB_IDS_MAX_SIZE = 1 << 20


_BLOB_IDS_LOCK = threading.Lock()


def _remember_blob(data: bytes, oid: str) -> None:
    if len(data) > _BLOB_IDS_MAX_SIZE:
        return
    with _BLOB_IDS_LOCK:
        _BLOB_IDS[data] = oid
        _BLOB_IDS.move_to_end(data)
        while len(_BLOB_IDS) > _BLOB_IDS_KEPT:
            _BLOB_IDS.popitem(last=False)


def _write_loose(objects: str, oid: str, header: bytes, data: bytes, level: int, fsync: bool) -> None:
    """Store one object as git does: deflated beside its final name, then renamed into place (read-only)."""
    folder = os.path.join(objects, oid[:2])
    final = os.path.join(folder, oid[2:])
    import zlib

    z = zlib.compressobj(level)
    packed = z.compress(header) + z.compress(data) + z.flush()
    # git's own temporary name: `git gc` removes one a crash left behind.
    tmp = os.path.join(folder, f"tmp_obj_{os.urandom(6).hex()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileNotFoundError:  # the first object of its fan-out folder
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    try:
        view = memoryview(packed)
        while view:
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, final)


def read_objects_unverified() -> None:
    """From now on, in this process, read objects without hashing them again (as git reads them).

    libgit2 re-hashes every object it reads against its id, a second SHA-1 over all
    the bytes a check reads (9.5 MB for a commit of 1,000 files: ~20 ms).  Process-wide:
    for a command that owns its process (``entry.run``), not for a library caller.
    """
    pygit2.option(pygit2.enums.Option.ENABLE_STRICT_HASH_VERIFICATION, 0)


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
            raise NotARepository(f"not a git repository (or any parent up to /): {os.path.abspath(start)}")
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
        self._odb: pygit2.Odb | None = None
        self._loose: tuple[str | None, int, bool] | None = None
        self._logged: set[str] = set()  # refs whose reflog is known to exist
        # Answers of `attr` since the last `forget_attributes`: one apply asks the same
        # few several times (filter, binary, diff, text, whitespace...).
        self._attr_values: dict[tuple[str, str], str | bool | None] = {}
        pointer = self.gitdir / "commondir"
        if pointer.is_file():
            self.commondir = (self.gitdir / pointer.read_text().strip()).resolve()

    # ------------------------------------------------------------------ objects

    @staticmethod
    def hash_blob(data: bytes) -> str:
        got = _BLOB_IDS.get(data)
        if got is None:
            if data.isascii():
                import hashlib  # here: `agent-guard check` hashes nothing and skips OpenSSL's start-up

                # Plain SHA-1 (OpenSSL) is six times faster than libgit2's collision-detecting
                # SHA-1 and gives the same id for every input but a collision attack, whose
                # near-collision blocks are random bytes: never all ASCII.
                h = hashlib.sha1(b"blob %d\0" % len(data))
                h.update(data)
                got = h.hexdigest()
            else:
                got = str(pygit2.hash(data))
            _remember_blob(data, got)
        return got

    def write_blob(self, data: bytes) -> str:
        got = _BLOB_IDS.get(data)
        if got is not None and self._repo.odb.exists(got):
            return got
        objects = self._loose_objects()
        if objects is None:
            got = str(self._repo.create_blob(data))
            _remember_blob(data, got)
            return got
        got = self.hash_blob(data)
        if not self._repo.odb.exists(got):
            assert self._loose is not None
            _write_loose(objects, got, b"blob %d\0" % len(data), data, self._loose[1], self._loose[2])
        return got

    def _loose_objects(self) -> str | None:
        """The folder blobs are written to as loose objects by `_write_loose`, or None: through libgit2.

        libgit2 deflates every loose object at level 1 and ignores git's compression
        settings (its level 0 writes no zlib stream at all, which it cannot read back):
        three quarters of the cost of storing a 60 KB file, on every apply.
        Unless ``core.looseCompression`` (or ``core.compression``) names a level, blobs
        are written as git writes them with ``looseCompression = 0`` (a zlib stream of
        stored blocks; the next ``git gc`` packs them compressed).  A repository with
        another object format (SHA-256) or shared permissions writes through libgit2.
        """
        if self._loose is None:
            fmt = (self.config("extensions.objectformat") or "sha1").lower()
            objects = str(self.commondir / "objects")  # where this handle (libgit2) reads them
            level = 0
            for key in ("core.looseCompression", "core.compression"):
                said = self.config(key)
                if said is not None:
                    try:
                        level = int(said)
                    except ValueError:
                        continue
                    level = 6 if level == -1 else max(0, min(9, level))  # -1: zlib's default
                    break
            fsync = (self.config("core.fsyncObjectFiles") or "").lower() in ("true", "yes", "on", "1")
            usable = fmt == "sha1" and self.config("core.sharedRepository") is None and os.path.isdir(objects)
            self._loose = (objects if usable else None, level, fsync)
        return self._loose[0]

    def read_blob(self, oid: str) -> bytes | None:
        """A blob's bytes by full or abbreviated id, or None when absent/ambiguous/not a blob."""
        if len(oid) == 40:
            # Straight from the object database: no object wrapper (a check reads thousands).
            if self._odb is None:
                self._odb = self._repo.odb
            try:
                kind, data = self._odb.read(oid)
            except (KeyError, ValueError, pygit2.GitError):
                return None
            return bytes(data) if kind == pygit2.enums.ObjectType.BLOB else None
        try:
            obj = self._repo.revparse_single(oid)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        if not isinstance(obj, pygit2.Blob):
            return None
        return bytes(obj.data)

    def has_object(self, oid: str) -> bool:
        return self.read_blob(oid) is not None

    # ------------------------------------------------------------------ trees

    def head_commit(self) -> str | None:
        try:
            return str(self._repo.head.target) if not self._repo.head_is_unborn else None
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

    def commit(self, tree: str, parents: list[str], message: str) -> str:
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
            handle = self._repo if index_file is None else self._handle_for_index(index_file)
            idx = handle.index
            idx.read(False)
            if idx.conflicts is not None:
                return None
            base = self._repo.get(tree or self._empty_tree())
            assert isinstance(base, pygit2.Tree)
            return self._tree_changes(idx.diff_to_tree(base))
        except pygit2.GitError as exc:
            raise GitError(f"cannot read the index: {exc}") from None

    def _handle_for_index(self, index_file: str) -> pygit2.Repository:
        """A second handle on this repository whose index is `index_file` (libgit2 reads
        GIT_INDEX_FILE when it first loads the index: set while it does, under a lock)."""
        flags = pygit2.enums.RepositoryOpenFlag.NO_SEARCH | pygit2.enums.RepositoryOpenFlag.FROM_ENV
        with _ENV_LOCK:
            saved = os.environ.get("GIT_INDEX_FILE")
            os.environ["GIT_INDEX_FILE"] = index_file
            try:
                handle = pygit2.Repository(str(self.root), flags)
                handle.index  # noqa: B018 - loads the index now, while the variable is set
            finally:
                if saved is None:
                    del os.environ["GIT_INDEX_FILE"]
                else:
                    os.environ["GIT_INDEX_FILE"] = saved
        return handle

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
            out.append(TreeChange(d.new_file.path if st != "D" else d.old_file.path,
                                  d.old_file.path if st == "R" else None, st, old_e, new_e))
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

    def _walk_changes(self, old: str | None, new: str | None, prefix: str, out: list[TreeChange]) -> None:
        if old == new:
            return
        a = self._repo.get(old) if old else None
        b = self._repo.get(new) if new else None
        a_ents = {str(e.name): e for e in a} if isinstance(a, pygit2.Tree) else {}
        b_ents = {str(e.name): e for e in b} if isinstance(b, pygit2.Tree) else {}
        for name in sorted(set(a_ents) | set(b_ents)):
            ea, eb = a_ents.get(name), b_ents.get(name)
            if ea is not None and eb is not None and ea.id == eb.id and ea.filemode == eb.filemode:
                continue
            path = prefix + name
            ta = ea is not None and ea.type_str == "tree"
            tb = eb is not None and eb.type_str == "tree"
            if ta or tb:
                self._walk_changes(str(ea.id) if ta and ea is not None else None,
                                   str(eb.id) if tb and eb is not None else None, path + "/", out)
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

    def commits_between(self, base: str, tip: str) -> list[CommitInfo]:
        """The commits `git rev-list --reverse --topo-order base..tip` lists, oldest first."""
        walker = self._repo.walk(pygit2.Oid(hex=tip), pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
        try:
            walker.hide(pygit2.Oid(hex=base))
        except (KeyError, pygit2.GitError) as exc:
            raise GitError(f"cannot walk {base}..{tip}: {exc}") from None
        return [CommitInfo(str(c.id), tuple(str(p) for p in c.parent_ids), str(c.tree_id), c.message, c.commit_time)
                for c in walker]

    # ------------------------------------------------------------------ index / config / attributes

    def tracked(self, path: str) -> bool:
        head = self.head_commit()
        if head is not None and self.tree_entry(self.commit_tree(head), path) is not None:
            return True
        idx = self._repo.index
        try:
            idx.read(False)
        except pygit2.GitError:
            return False
        return path in idx

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
        idx = self._repo.index
        try:
            idx.read(False)
        except pygit2.GitError:
            return None
        for prefix in prefixes:
            try:
                if idx[prefix].mode == GITLINK:
                    return prefix
            except (KeyError, pygit2.GitError):
                continue
        return None

    def skip_worktree(self, path: str) -> bool:
        """Is `path` in the index with git's skip-worktree bit (outside a sparse checkout)?"""
        # pygit2 does not expose index entry flags; read them through its libgit2 binding,
        # and treat any change in that private surface as "not sparse".
        try:
            from pygit2._libgit2 import ffi, lib  # type: ignore[import-not-found]

            idx = self._repo.index
            idx.read(False)
            entry = lib.git_index_get_bypath(idx._index, path.encode("utf-8", "surrogateescape"), 0)
            return bool(entry != ffi.NULL and entry.flags_extended & _SKIP_WORKTREE)
        except Exception:  # pragma: no cover - a pygit2 without the cffi binding
            return False

    def attr(self, path: str, name: str) -> str | bool | None:
        key = (path, name)
        if key in self._attr_values:
            return self._attr_values[key]
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
        import subprocess

        try:
            proc = subprocess.run(
                ["git", "check-attr", "-z", "--stdin", *names], cwd=self.root,
                input=b"".join(os.fsencode(p) + b"\0" for p in todo),
                capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.SubprocessError):
            return
        if proc.returncode != 0:
            return
        fields = proc.stdout.split(b"\0")
        got: dict[tuple[str, str], str | bool | None] = {}
        for i in range(0, len(fields) - 2, 3):
            info = fields[i + 2]
            got[(os.fsdecode(fields[i]), os.fsdecode(fields[i + 1]))] = (
                True if info == b"set" else False if info == b"unset" else None if info == b"unspecified"
                else os.fsdecode(info))
        if len(got) == len(todo) * len(names):  # every answer, or none: never half from git, half from libgit2
            self._attr_values.update(got)

    def forget_attributes(self) -> None:
        """Look attributes up afresh from now on (.gitattributes may have changed between two calls)."""
        self._attr_values.clear()

    def _attr_handle(self) -> pygit2.Repository:
        """A handle for attribute look-ups that never reads the index.

        libgit2 loads the whole index on a handle's first attribute look-up (in case a
        .gitattributes lives only there): 200 ms on a 100,000-file repository, for an
        edit to one file.  Attributes come from the work tree's files, so a second
        handle whose index file does not exist answers them at the cost of the edit.
        libgit2 reads GIT_INDEX_FILE when it first loads the index, so the variable
        stays set through the first look-up, under a lock.
        """
        if self._attrs is None:
            flags = pygit2.enums.RepositoryOpenFlag.NO_SEARCH | pygit2.enums.RepositoryOpenFlag.FROM_ENV
            with _ENV_LOCK:
                saved = os.environ.get("GIT_INDEX_FILE")
                os.environ["GIT_INDEX_FILE"] = str(self.gitdir / "agent-guard" / "no-index-for-attributes")
                try:
                    handle = pygit2.Repository(str(self.root), flags)
                    handle.get_attr(".gitattributes", "binary")
                except pygit2.GitError:
                    handle = self._repo
                finally:
                    if saved is None:
                        del os.environ["GIT_INDEX_FILE"]
                    else:
                        os.environ["GIT_INDEX_FILE"] = saved
            self._attrs = handle
        return self._attrs

    def git_folders(self) -> dict[str, str]:
        """git's own folders that lie in the work tree, by their real locations relative to its
        root, each with what it is: the git dir, the common dir, `core.hooksPath`."""
        places = [(self.gitdir, "the repository's git directory"), (self.commondir, "the repository's common git directory")]
        hooks = self.config("core.hooksPath")
        if hooks:
            # As git reads it: `~` is the home folder, a relative path starts at the top of the work tree.
            places.append((self.root / os.path.expanduser(hooks), "the hooks folder (core.hooksPath)"))
        found: dict[str, str] = {}
        for place, what in places:
            real = Path(os.path.realpath(place))
            if real != self.root and real.is_relative_to(self.root):
                found.setdefault(real.relative_to(self.root).as_posix(), what)
        return found

    def lock_of(self, ref: str) -> Path | None:
        """The lock file git (and libgit2) leave beside `ref` while they update it, when it is there."""
        lock = self.commondir / f"{ref}.lock"
        return lock if lock.exists() else None

    def config(self, key: str) -> str | None:
        try:
            return str(self._repo.config[key])
        except (KeyError, pygit2.GitError):
            return None

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


@dataclass(frozen=True)
class Conflict:
    """One region both sides of a three-way merge changed differently: its lines on each side."""

    ours: tuple[bytes, ...]  # with their line terminators
    theirs: tuple[bytes, ...]
    ours_line: int  # 1-based line of `ours` where the region starts (the line after, when it is empty)
    theirs_line: int


@dataclass(frozen=True)
class Merged:
    """git's three-way merge of one file (what ``git merge-file`` computes)."""

    clean: bool
    data: bytes  # the result; where not clean, with conflicts resolved as `favor` said (or marked)
    conflicts: tuple[Conflict, ...] = ()


class _MemoryObjects(pygit2.OdbBackend):
    """An object database in a dict: a merge's three blobs never reach the repository's own."""

    def __init__(self) -> None:
        super().__init__()
        self.objects: dict[str, tuple[int, bytes]] = {}

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.objects[str(oid)]

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self.objects[str(oid)]
        return kind, len(data)

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return str(oid) in self.objects

    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        self.objects[str(oid)] = (kind, bytes(data))

    def refresh_cb(self) -> None:
        pass


_FAVOR = {"normal": 0, "ours": 1, "theirs": 2}
_MARKER = 17  # conflict markers longer than any a file is likely to hold, so they parse back unmistakably
# GIT_MERGE_FILE_SIMPLIFY_ALNUM: the level `git merge-file` uses (conflicts separated only by
# lines without letters or digits are one conflict), so the two agree on what conflicts.
_SIMPLIFY_ALNUM = 4


def merge_file(base: bytes, ours: bytes, theirs: bytes, favor: str = "normal") -> Merged:
    """Merge `ours` and `theirs`, two versions of `base`, line by line, as git does.

    libgit2's xdiff merge, the code of ``git merge-file``: a change on one side is
    kept; changes on both sides to the same or adjoining lines (no unchanged line
    between them) conflict unless they are the same change.  ``favor`` "ours" or
    "theirs" resolves each conflict by taking that side (``git merge-file --ours``);
    the conflicts are reported all the same.  No object is written to any repository.
    """
    from pygit2._libgit2 import ffi, lib  # the C API: merge options are not exposed otherwise

    def run(how: int) -> tuple[bool, bytes]:
        store = _MemoryObjects()
        odb = pygit2.Odb()
        odb.add_backend(store, 1)
        scratch = pygit2.Repository()
        scratch.set_odb(odb)
        entries, keep = [], []
        for data in (base, ours, theirs):
            oid = odb.write(pygit2.enums.ObjectType.BLOB, data)
            c_entry, c_path = pygit2.IndexEntry("file", oid, pygit2.enums.FileMode.BLOB)._to_c()
            entries.append(c_entry)
            keep.append(c_path)
        opts = ffi.new("git_merge_file_options *")
        opts.version = 1
        opts.favor = how
        opts.flags = _SIMPLIFY_ALNUM
        opts.marker_size = _MARKER
        out = ffi.new("git_merge_file_result *")
        err = lib.git_merge_file_from_index(out, scratch._repo, entries[0], entries[1], entries[2], opts)
        if err < 0:
            raise GitError(f"three-way merge failed (libgit2 error {err})")
        try:
            return bool(out.automergeable), bytes(ffi.buffer(out.ptr, out.len))
        finally:
            lib.git_merge_file_result_free(out)

    clean, marked = run(0)
    if clean:
        return Merged(True, marked)
    conflicts = _conflicts(marked, ours, theirs)
    if favor == "normal":
        return Merged(False, marked, conflicts)
    return Merged(False, run(_FAVOR[favor])[1], conflicts)


def _conflicts(marked: bytes, ours: bytes, theirs: bytes) -> tuple[Conflict, ...]:
    """The conflict regions of a marked merge, each placed in `ours` and `theirs`."""
    opening, middle, closing = b"<" * _MARKER, b"=" * _MARKER, b">" * _MARKER
    regions: list[tuple[list[bytes], list[bytes]]] = []
    side: list[bytes] | None = None
    for line in marked.splitlines(keepends=True):
        if side is None and line.startswith(opening):
            regions.append(([], []))
            side = regions[-1][0]
        elif side is not None and line.rstrip(b"\r\n") == middle:
            side = regions[-1][1]
        elif side is not None and line.startswith(closing):
            side = None
        elif side is not None:
            side.append(line)
    ours_lines, theirs_lines = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    out: list[Conflict] = []
    at_ours = at_theirs = 0
    for o, t in regions:
        at_ours = _find(ours_lines, o, at_ours)
        at_theirs = _find(theirs_lines, t, at_theirs)
        out.append(Conflict(tuple(o), tuple(t), at_ours + 1, at_theirs + 1))
        at_ours += len(o)
        at_theirs += len(t)
    return tuple(out)


def _find(lines: list[bytes], chunk: list[bytes], start: int) -> int:
    """The first place at or after `start` where `chunk` stands in `lines` (regions come in order)."""
    if not chunk:
        return start
    # The last line of a side may have lost its terminator to the marker after it.
    want = [x.rstrip(b"\r\n") for x in chunk]
    for p in range(start, len(lines) - len(chunk) + 1):
        if all(lines[p + k].rstrip(b"\r\n") == want[k] for k in range(len(chunk))):
            return p
    return start


def mode_of(path: Path) -> int | None:
    """The git mode of a work-tree file (regular or executable), None when absent."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return LINK
    return EXEC if st.st_mode & 0o111 else FILE
