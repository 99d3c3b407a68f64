"""What a command changed in the work tree: a snapshot before it, the difference after.

A shell command (Claude Code's Bash tool, ``agent-guard run -- CMD``) changes files
without telling anyone which.  Before it runs, ``take`` notes, cheaply, what the work
tree holds:

- the index as it is (a hard link to the index file: git replaces the index by renaming
  a new file over it, so the link keeps the old one; a copy where links fail), whose
  entries are the content of every tracked file that matches it;
- every path ``git status`` lists against that index (changed, deleted, conflicted,
  untracked and not ignored): its stat data, and its content as a blob, read only when
  its stat data changed since the last snapshot (``shell/kept.json`` in agent-guard's
  folder of the work tree's git dir remembers them), so that the cost follows the files that are
  dirty and changing, not the tree (git's stat walk aside);
- the tips of the work tree's ledger refs, so that turns other agents record meanwhile are not
  taken for the command's.

``changes`` then asks the same after the command and compares: a path dirty before or
after, or whose index entry the command changed (``git add``, ``git checkout``,
``git stash``), is a candidate; its content before is the snapshot's (the blob, or the
old index entry), after is the work tree's (or the new index entry, for a file that
matches it).  Only candidates are read, and only when their stat data moved (or their
stat data is too new to trust: git's racy rule).  What other agents' turns did to a
path meanwhile is taken out of the command's change by git's merge rule; a change that
cannot be told apart, a symbolic link, a file over the size limit, a repository made
inside the tree, is reported in ``Found.unrecorded``, never given to the command.
"""

from __future__ import annotations

import json
import os
import shutil
import stat as stat_mod
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..fs.filekind import read_regular, write_new
from ..model import FileChange, Op
from ..repo import FILE, GitRepo
from ..tree import worktree

if TYPE_CHECKING:
    from ..repo.status import Dirty, IndexFile
    from .watched import Watch

MADE_REPOSITORY = "a repository of its own was made inside the tree (git init, a clone)"
RACY_NS = 2_000_000_000  # stat data this close to the snapshot may hide a change made in the same tick
VERSION = 1


def _key(st: os.stat_result) -> list[int]:
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode]


@dataclass(frozen=True, slots=True)
class Kept:
    """A dirty path as the snapshot found it: its stat key (None: absent), its blob (None: absent,
    or not kept: see `why`), its git mode, and why its content could not be kept."""

    key: list[int] | None
    blob: str | None
    mode: int | None
    why: str | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The work tree before a command (see the module doc)."""

    taken: int  # time.time_ns() when git status was asked
    index: str | None  # the kept index file (a link or copy), None when there was no index
    index_key: list[int] | None
    dirty: Mapping[str, Kept]
    refs: Mapping[str, str]  # ledger refs -> tips

    def as_json(self) -> dict[str, object]:
        return {
            "version": VERSION,
            "taken": self.taken,
            "index": self.index,
            "index_key": self.index_key,
            "dirty": {p: [k.key, k.blob, k.mode, k.why] for p, k in self.dirty.items()},
            "refs": dict(self.refs),
        }

    @classmethod
    def from_json(cls, doc: object) -> Snapshot:
        if not isinstance(doc, dict) or doc.get("version") != VERSION:
            raise ValueError("not a snapshot of this version")
        dirty = {p: Kept(*v) for p, v in doc["dirty"].items()}
        return cls(int(doc["taken"]), doc["index"], doc["index_key"], dirty, dict(doc["refs"]))


@dataclass(frozen=True, slots=True)
class Found:
    """What a command changed: the changes to record, and what could not be recorded (path, why)."""

    changes: tuple[FileChange, ...]
    unrecorded: tuple[tuple[str, str], ...]
    originals: Mapping[str, bytes | None]  # every changed path's content before the command
    # What an unrecorded path held before the command, where that is known: (content, mode), or
    # (None, None) for a path that was not there (a repository made inside the tree, a new link).
    unrecorded_before: Mapping[str, tuple[bytes | None, int | None]] = field(default_factory=dict)


def _folder(repo: GitRepo) -> Path:
    d = worktree.tree_state_dir(repo) / "shell"  # the stat data of this work tree's files
    d.mkdir(parents=True, exist_ok=True)
    return d


def _lstat(root: Path, path: str) -> os.stat_result | None:
    try:
        return os.lstat(root / path)
    except OSError:
        return None


def _content(repo: GitRepo, path: str, st: os.stat_result | None, limit: int | None) -> Kept:
    """`path`'s content in the work tree as a blob (or why it cannot be kept)."""
    if st is None:
        return Kept(None, None, None)
    key = _key(st)
    if stat_mod.S_ISLNK(st.st_mode):
        return Kept(key, None, None, "a symbolic link (agent-guard records regular files only)")
    if not stat_mod.S_ISREG(st.st_mode):
        return Kept(key, None, None, "not a regular file")
    if limit is not None and st.st_size > limit:
        return Kept(key, None, None, f"{st.st_size:,} bytes, over budget.max_file_bytes ({limit:,})")
    try:
        data, mode = worktree.read(repo.root, path)
    except (worktree.UnsafePath, OSError) as exc:
        return Kept(key, None, None, f"unreadable: {exc}")
    if data is None:
        return Kept(None, None, None)
    return Kept(key, repo.write_blob(data), mode)


def _dirty_now(repo: GitRepo, watch: Watch | None) -> list[Dirty]:
    from . import watched

    return watched.dirty(repo, _folder(repo), watch)


def take(repo: GitRepo, prefix: str, limit: int | None, watch: Watch | None = None) -> Snapshot:
    """The work tree now (see the module doc); `prefix`: the ledger's refs; `limit`: the largest
    file whose content is kept (``budget.max_file_bytes``); `watch`: the tree's watch, when the
    caller has one (``watched``)."""
    folder = _folder(repo)
    cache_file = folder / "kept.json"
    try:
        cache = json.loads(read_regular(cache_file))
        if not isinstance(cache, dict) or cache.get("version") != VERSION:
            cache = {}
    except (OSError, ValueError):
        cache = {}
    kept_before: dict[str, list[object]] = cache.get("paths", {}) if isinstance(cache.get("paths"), dict) else {}
    taken = time.time_ns()
    index_file = repo.gitdir / "index"
    index_copy, index_key = _keep_index(index_file, folder)
    listed = _dirty_now(repo, watch)
    dirty: dict[str, Kept] = {}
    for d in listed:
        if d.kind == "repository":
            dirty[d.path] = Kept(None, None, None, "a repository of its own inside the tree")
            continue
        st = _lstat(repo.root, d.path)
        if st is None:
            dirty[d.path] = Kept(None, None, None)
            continue
        old = kept_before.get(d.path)
        if (
            isinstance(old, list)
            and len(old) == 3
            and old[0] == _key(st)
            and isinstance(old[1], str)
            and taken - st.st_mtime_ns > RACY_NS
            and repo.read_blob(old[1]) is not None
        ):
            dirty[d.path] = Kept(_key(st), old[1], old[2] if isinstance(old[2], int) else FILE)
        else:
            dirty[d.path] = _content(repo, d.path, st, limit)
    _save_cache(cache_file, {p: [k.key, k.blob, k.mode] for p, k in dirty.items() if k.blob is not None})
    return Snapshot(taken, index_copy, index_key, dirty, _ledgers(repo, prefix))


def _ledgers(repo: GitRepo, prefix: str) -> dict[str, str]:
    """The tips of this work tree's ledgers: another worktree's turns change that tree's files, not these."""
    from . import ledger

    return ledger.own_refs(repo, prefix)


def _keep_index(index_file: Path, folder: Path) -> tuple[str | None, list[int] | None]:
    """A link to the index file as it is (a copy where links fail), and its stat key, taken after
    the link: making one changes the file's ctime."""
    if not index_file.exists():
        return None, None
    kept = folder / f"index.{os.getpid()}.{time.time_ns()}"
    try:
        os.link(index_file, kept)
    except FileNotFoundError:
        return None, None
    except OSError:
        shutil.copyfile(index_file, kept)
    try:
        return str(kept), _key(os.stat(index_file))
    except OSError:
        return str(kept), None


def _save_cache(path: Path, paths: Mapping[str, list[object]]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write_new(tmp, json.dumps({"version": VERSION, "paths": paths}).encode("utf-8"))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def discard(snap: Snapshot) -> None:
    """Remove what the snapshot kept on disk (its index)."""
    if snap.index:
        try:
            os.unlink(snap.index)
        except OSError:
            pass


def sweep(repo: GitRepo, older_than: float = 86400.0) -> None:
    """Remove kept indexes of snapshots whose command never reported back (a crash, a killed hook)."""
    cutoff = time.time() - older_than
    for old in _folder(repo).glob("index.*"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass


# ---------------------------------------------------------------------- after


def changes(repo: GitRepo, snap: Snapshot, prefix: str, limit: int | None, watch: Watch | None = None) -> Found:
    """What changed in the work tree since `snap` (see the module doc)."""
    from ..repo.status import IndexFile

    now_listed = {d.path: d for d in _dirty_now(repo, watch)}
    index_file = repo.gitdir / "index"
    try:
        index_now_key: list[int] | None = _key(os.stat(index_file))
    except OSError:
        index_now_key = None
    index_changed = index_now_key != snap.index_key
    old_index = IndexFile(snap.index, repo.root)
    new_index = IndexFile(index_file, repo.root) if index_changed else old_index
    candidates = set(snap.dirty) | set(now_listed)
    if index_changed:
        candidates |= repo.index_differences(old_index, new_index)
    old_index.learn(candidates)
    new_index.learn(candidates)
    unrecorded: list[tuple[str, str]] = []
    was: dict[str, tuple[bytes | None, int | None]] = {}
    pairs: dict[str, tuple[bytes | None, int | None, bytes | None, int | None]] = {}
    for path in sorted(candidates):
        listed = now_listed.get(path)
        if listed is not None and listed.kind == "repository":
            if path not in snap.dirty:
                unrecorded.append((path, MADE_REPOSITORY))
                was[path] = (None, None)
            continue
        before = _before(repo, snap, path, old_index)
        if isinstance(before, str):
            if _moved(repo, snap, path):
                unrecorded.append((path, f"changed, but its content before could not be kept: {before}"))
            continue
        after = _after(repo, snap, path, listed, new_index, limit)
        if isinstance(after, str):
            unrecorded.append((path, after))
            was[path] = before
            continue
        if not isinstance(after, tuple):
            continue  # _SAME: its stat data did not move
        if before[0] == after[0] and (before[1] or FILE) == (after[1] or FILE):
            continue
        pairs[path] = (before[0], before[1], after[0], after[1])
    taken_out = _others(repo, snap, prefix, pairs)
    out: list[FileChange] = []
    originals: dict[str, bytes | None] = {}
    from ..tree.diffs import make_change

    for path, (b, bmode, a, amode) in pairs.items():
        if path in taken_out:
            got = taken_out[path]
            if got is _TANGLED:
                unrecorded.append((path, "another agent's turn changed the same lines while the command ran"))
                continue
            assert got is None or isinstance(got, bytes)
            b = got
            if b == a:
                continue
        originals[path] = b
        op = Op.CREATE if b is None else Op.DELETE if a is None else Op.MODIFY
        out.append(
            make_change(path, op, b, a, old_mode=bmode if b is not None else None, new_mode=amode if a is not None else None)
        )
    return Found(tuple(out), tuple(unrecorded), originals, was)


def _before(repo: GitRepo, snap: Snapshot, path: str, old_index: IndexFile) -> tuple[bytes | None, int | None] | str:
    """`path`'s content and mode when the snapshot was taken, or why it is not known."""
    kept = snap.dirty.get(path)
    if kept is not None:
        if kept.why is not None:
            return kept.why
        if kept.blob is None:
            return None, None
        return repo.read_blob(kept.blob), kept.mode
    entry = old_index.entry(path)
    if entry is None:
        return None, None  # not tracked, not listed: absent (or ignored, which is not recorded)
    if entry[1] not in (FILE, 0o100755):
        return "not a regular file in the index (a link or a submodule)"
    return repo.read_blob(entry[0]), entry[1]


def _moved(repo: GitRepo, snap: Snapshot, path: str) -> bool:
    kept = snap.dirty.get(path)
    st = _lstat(repo.root, path)
    return kept is None or (None if st is None else _key(st)) != kept.key


def _after(
    repo: GitRepo, snap: Snapshot, path: str, listed: Dirty | None, new_index: IndexFile, limit: int | None
) -> tuple[bytes | None, int | None] | str | None:
    """`path`'s content and mode now; None when its stat data shows it did not move; or why it is
    not recorded."""
    st = _lstat(repo.root, path)
    kept = snap.dirty.get(path)
    if (
        kept is not None
        and kept.key is not None
        and st is not None
        and _key(st) == kept.key
        and snap.taken - st.st_mtime_ns > RACY_NS
    ):
        return None
    if listed is None:
        entry = new_index.entry(path)
        if entry is not None and st is not None:
            if entry[1] not in (FILE, 0o100755):
                return "not a regular file in the index (a link or a submodule)"
            return repo.read_blob(entry[0]), entry[1]  # the work tree matches the index there
        if st is None:
            return None, None
        # Not tracked, not listed, but there: ignored now.  Its content is still what counts.
    got = _content(repo, path, st, limit)
    if got.why is not None:
        return f"changed, but not recorded: {got.why}"
    return (repo.read_blob(got.blob) if got.blob else None), got.mode


_TANGLED = object()  # a path whose change cannot be told apart from another agent's


def _others(
    repo: GitRepo, snap: Snapshot, prefix: str, pairs: Mapping[str, tuple[bytes | None, int | None, bytes | None, int | None]]
) -> dict[str, object]:
    """For each changed path another agent's turn also changed while the command ran, the content
    before the command with those turns' changes merged in (``_TANGLED``: they cannot be told apart)."""
    if not pairs:
        return {}
    from . import ledger

    moved = {name: tip for name, tip in _ledgers(repo, prefix).items() if snap.refs.get(name) != tip}
    found: dict[str, object] = {}
    for name, tip in moved.items():
        agent = name.rpartition("/")[2]
        commits: list[ledger.Turn] = []
        commit: str | None = tip
        while commit and commit != snap.refs.get(name):
            t = ledger.parse_turn(repo, commit, agent)
            if t is None or t.kind == "base":
                break
            commits.append(t)
            commit = t.parent
        for t in reversed(commits):  # oldest first
            if t.kind == "sync" or t.parent is None:
                continue
            for tc in repo.changed_files(repo.commit_tree(t.parent), repo.commit_tree(t.commit)):
                for path in (tc.path, tc.old_path):
                    if path is None or path not in pairs or found.get(path) is _TANGLED:
                        continue
                    base = repo.read_blob(tc.old.oid) if tc.old and path == (tc.old_path or tc.path) else None
                    theirs = repo.read_blob(tc.new.oid) if tc.new and path == tc.path else None
                    ours = found[path] if path in found else pairs[path][0]
                    assert ours is None or isinstance(ours, bytes)
                    found[path] = _take_in(ours, base, theirs)
    return found


def _take_in(ours: bytes | None, base: bytes | None, theirs: bytes | None) -> object:
    """`ours` with the change base -> theirs merged in by git's rule (``_TANGLED`` where they conflict)."""
    if ours == base:
        return theirs
    if ours == theirs:
        return ours
    if ours is None or base is None or theirs is None:
        return _TANGLED
    from ..repo.merge import merge_file

    merged = merge_file(base, ours, theirs)
    return merged.data if merged.clean else _TANGLED
