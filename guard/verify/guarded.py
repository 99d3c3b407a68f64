"""What verify commands must not change in the user's repository, and putting it back when they did.

Unconfined (``sandbox.py``), a command runs with the user's rights: through a full path it can
write the work tree, the index, refs, hooks and config.  Around the commands of one verify (from
before the first one runs to after the last), ``take`` notes:

- the work tree and the index as a shell turn's snapshot notes them (``record/snapshot.py``:
  the paths git status lists, their contents as blobs, a hard link to the index), which
  ``snapshot.changes`` compares afterwards, other agents' recorded turns taken out;
- every ref but the ledgers', and HEAD;
- the entries at the top of the hooks folder (``core.hooksPath``, else ``hooks/``) and the
  repository's config files, as bytes (they are small).

and afterwards asks git status again: every change is seen as a fresh read sees it (a watch that
skipped the second status on a large tree missed a file made in a folder it did not watch).

``put_back`` compares, then restores under the repository lock: files through the journaled
writer (``worktree.write``: all or none, permission bits kept, the execute bit as git had it),
files the commands made removed; the index from the kept link when its entries changed; refs by
compare-and-swap; HEAD, hooks and config byte for byte.  Each content a command wrote is kept as a
blob, named in the finding (``finding``; ``git cat-file -p ID`` shows it).

Blobs, not a turn: a turn records a change the agent keeps (log, rollback, budgets count it) and
moves the ledger ref by compare-and-swap under the repository lock, which the commands run without;
what is put back at once leaves nothing changed to record.  The blobs are loose objects, which git
keeps for ``gc.pruneExpire`` (two weeks by default).

Without a sandbox, a change the user (or a tool of theirs) makes while the commands run cannot be
told from theirs: it is put back too, and kept as a blob the finding names.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from ..model import Finding, error

if TYPE_CHECKING:
    from ..record.snapshot import Snapshot
    from ..repo import GitRepo

SHOWN = 30  # things put back a finding lists one by one
_HOOK_BYTES = 1 << 20  # a hook or config file larger than this is not kept (nor put back)

# An entry of the hooks folder or a config file: its kind ("file", "link", "other"), bytes (a link's target), mode.
Entry = tuple[str, bytes, int]


@dataclass(frozen=True, slots=True)
class Before:
    """The user's repository before the commands ran (see the module doc)."""

    snap: Snapshot
    refs: Mapping[str, str]
    head: bytes | None
    hooks: str
    hook_entries: Mapping[str, Entry]
    configs: Mapping[str, Entry | None]


@dataclass(frozen=True, slots=True)
class PutBack:
    """What the commands had changed and was put back (one line each, naming the blobs kept), and
    what could not be put back (with why)."""

    done: tuple[str, ...]
    left: tuple[str, ...]


def take(repo: GitRepo, prefix: str, limit: int | None) -> Before:
    """The user's repository now; `prefix`: the ledgers' refs (other agents move theirs meanwhile)."""
    from ..record import snapshot

    hooks = _hooks_folder(repo)
    return Before(
        snapshot.take(repo, prefix, limit),
        _refs(repo, prefix),
        _bytes(repo.gitdir / "HEAD"),
        str(hooks),
        _entries(hooks),
        {str(p): _entry(p) for p in _configs(repo)},
    )


def put_back(repo: GitRepo, before: Before, prefix: str, limit: int | None) -> PutBack:
    """Compare the user's repository with `before` and put back what changed (see the module doc)."""
    from ..record import snapshot, stage
    from ..tree import worktree

    done: list[str] = []
    left: list[str] = []
    try:
        with worktree.locked(repo):
            stage.recover(repo)
            _files(repo, before.snap, prefix, limit, done, left)
            _index(repo, before.snap, done, left)
            _head(repo, before.head, done)
            _ref_moves(repo, before.refs, _refs(repo, prefix), done, left)
            hooks = Path(before.hooks)
            _folder_entries(repo, hooks, before.hook_entries, _entries(hooks), done, left)
            for path, was in before.configs.items():
                _one_file(repo, Path(path), was, _entry(Path(path)), done, left)
    finally:
        snapshot.discard(before.snap)
    return PutBack(tuple(done), tuple(left))


def finding(put: PutBack, names: Sequence[str]) -> Finding | None:
    """A ``verify`` error that says what the commands `names` changed outside their checkout, and
    what became of it; None when they changed nothing."""
    if not put.done and not put.left:
        return None
    who = f"the verify command {names[0]!r}" if len(names) == 1 else "the verify commands " + ", ".join(map(repr, names))
    lines = [f"    put back: {line}" for line in put.done] + [f"    NOT put back: {line}" for line in put.left]
    if len(lines) > SHOWN:
        lines = lines[:SHOWN] + [f"    ... and {len(lines) - SHOWN} more"]
    return error(
        "verify",
        None,
        None,
        f"{who} changed the user's repository outside the checkout while {'it' if len(names) == 1 else 'they'} ran; "
        "agent-guard put it back (what was written there is kept: git cat-file -p ID):\n" + "\n".join(lines),
        "a verify command must change nothing but its checkout; the edit was refused (nothing was written). "
        "Where bubblewrap (bwrap) is installed, or unshare works, verify_sandbox: auto or required keeps commands "
        "from writing outside the checkout",
    )


# ---------------------------------------------------------------------- noting


def _refs(repo: GitRepo, prefix: str) -> dict[str, str]:
    """Every ref that points at an object (symbolic ones aside), the ledgers' left out."""
    return {n: t for n, t in repo.refs("refs/").items() if not n.startswith(prefix) and _an_id(t)}


def _an_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _hooks_folder(repo: GitRepo) -> Path:
    named = repo.config("core.hooksPath")
    if named:
        # As git reads it: `~` is the home folder, a relative path starts at the top of the work tree.
        return Path(os.path.join(repo.root, os.path.expanduser(named)))
    return repo.commondir / "hooks"


def _configs(repo: GitRepo) -> list[Path]:
    return list(dict.fromkeys((repo.commondir / "config", repo.gitdir / "config.worktree")))


def _bytes(path: Path) -> bytes | None:
    entry = _entry(path)
    return entry[1] if entry is not None and entry[0] == "file" else None


def _entry(path: Path) -> Entry | None:
    """What is at `path`, not following a link: a regular file's bytes, a link's target, or only its kind."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return "link", os.fsencode(os.readlink(path)), 0
        if stat.S_ISREG(st.st_mode) and st.st_size <= _HOOK_BYTES:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                return "file", fh.read(), stat.S_IMODE(st.st_mode)
    except OSError:
        return None
    return "other", b"", stat.S_IFMT(st.st_mode)


def _entries(folder: Path) -> dict[str, Entry]:
    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    return {name: e for name in names if (e := _entry(folder / name)) is not None}


# ---------------------------------------------------------------------- putting back


def _files(repo: GitRepo, snap: Snapshot, prefix: str, limit: int | None, done: list[str], left: list[str]) -> None:
    """The work tree's files as they were: changed and deleted ones written back, new ones removed."""
    from ..record import snapshot
    from ..tree import worktree

    found = snapshot.changes(repo, snap, prefix, limit)
    left += [f"{path}: {why}" for path, why in found.unrecorded]
    if not found.changes:
        return
    writes = [worktree.Write(c.path, c.after, c.before, c.new_mode, c.old_mode) for c in found.changes]
    made = [c.path for c in found.changes if c.before is None]
    folders = {p.rsplit("/", i)[0] for p in made for i in range(1, p.count("/") + 1)}
    try:
        worktree.write(repo, writes, remove_dirs=worktree.emptied_dirs(repo.root, sorted(folders), made))
    except (worktree.UnsafePath, OSError) as exc:
        left += [f"{c.path}: {exc}" for c in found.changes]
        return
    for c in found.changes:
        if c.after is None:
            done.append(f"{c.path} (deleted; its content was {repo.write_blob(c.before or b'')})")
        elif c.before is None:
            done.append(f"{c.path} (made: {repo.write_blob(c.after)}; removed)")
        else:
            moded = "" if c.old_mode == c.new_mode else f", mode {c.old_mode or 0:o} -> {c.new_mode or 0:o}"
            done.append(f"{c.path} (changed to {repo.write_blob(c.after)}{moded}; was {repo.write_blob(c.before)})")


def _index(repo: GitRepo, snap: Snapshot, done: list[str], left: list[str]) -> None:
    """The index file as it was (from the snapshot's link to it) when its entries changed, taking
    git's own lock on it: a git command that holds it now is left alone."""
    from ..repo import GitError
    from ..repo.status import IndexFile

    index = repo.gitdir / "index"
    if snap.index is None or _same_file(Path(snap.index), index):
        return  # git writes an index by renaming a new file over it: the same file was not written
    try:
        changed = repo.index_differences(IndexFile(snap.index, repo.root), IndexFile(index, repo.root))
    except GitError:  # unmerged entries make no tree: the files themselves are compared
        changed = set() if Path(snap.index).read_bytes() == index.read_bytes() else {"its unmerged paths"}
    if not changed:
        return
    lock = repo.gitdir / "index.lock"
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        left.append(f"the index ({', '.join(sorted(changed)[:5])}): {lock} cannot be taken: {exc.strerror}")
        return
    try:
        with os.fdopen(fd, "wb") as out, open(snap.index, "rb") as kept:
            shutil.copyfileobj(kept, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(lock, index)
    except OSError as exc:
        lock.unlink(missing_ok=True)
        left.append(f"the index: {exc}")
        return
    done.append(f"the index (entries of {', '.join(sorted(changed)[:5])}{' ...' if len(changed) > 5 else ''})")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.stat(a).st_ino == os.stat(b).st_ino
    except OSError:
        return False


def _head(repo: GitRepo, was: bytes | None, done: list[str]) -> None:
    path = repo.gitdir / "HEAD"
    now = _bytes(path)
    if was is None or now == was:
        return
    _write(path, was, 0o644)
    shown = (now or b"").decode("utf-8", "replace").strip()
    done.append(f"HEAD (it was made {shown!r}; back to {was.decode('utf-8', 'replace').strip()!r})")


def _ref_moves(repo: GitRepo, was: Mapping[str, str], now: Mapping[str, str], done: list[str], left: list[str]) -> None:
    from ..repo import GitError

    for name in sorted(set(was) | set(now)):
        old, new = was.get(name), now.get(name)
        if old == new:
            continue
        try:
            repo.update_ref(name, old, new, "agent-guard: put back what a verify command changed")
        except GitError as exc:  # RefMoved, RefLocked among them
            left.append(f"{name}: {exc}")
            continue
        what = "made" if old is None else "deleted" if new is None else "moved"
        done.append(f"{name} ({what}{f' at {new}' if new else ''}{f'; back to {old}' if old else '; removed'})")


def _folder_entries(
    repo: GitRepo, folder: Path, was: Mapping[str, Entry], now: Mapping[str, Entry], done: list[str], left: list[str]
) -> None:
    for name in sorted(set(was) | set(now)):
        _one_file(repo, folder / name, was.get(name), now.get(name), done, left)


def _one_file(repo: GitRepo, path: Path, was: Entry | None, now: Entry | None, done: list[str], left: list[str]) -> None:
    """One hook or config file back as it was (`was`; None: there was none)."""
    if was == now:
        return
    named = _named(repo, path)
    kept = f"; what was there: {repo.write_blob(now[1])}" if now is not None and now[0] == "file" else ""
    if was is not None and was[0] == "other":
        left.append(f"{named}: not a file or a link before, so not put back{kept}")
        return
    try:
        _clear(path)
        if was is not None and was[0] == "link":
            os.symlink(os.fsdecode(was[1]), path)
        elif was is not None:
            _write(path, was[1], was[2])
    except OSError as exc:
        left.append(f"{named}: {exc}{kept}")
        return
    done.append(f"{named} ({'made' if was is None else 'changed'}{kept}{'; removed' if was is None else ''})")


def _named(repo: GitRepo, path: Path) -> str:
    """`path` as the user reads it: from the top of the work tree when it is inside (``.git/hooks/...``)."""
    try:
        return path.relative_to(repo.root).as_posix()
    except ValueError:
        return str(path)


def _clear(path: Path) -> None:
    """Remove what is at `path`: a folder and all in it (links as links), a file, a link."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


def _write(path: Path, data: bytes, mode: int) -> None:
    """`path` holds `data` with `mode`, written beside it and renamed over it (never through a link)."""
    tmp = path.with_name(f".{path.name}.agent-guard.{os.getpid()}")
    _clear(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        os.fchmod(out.fileno(), mode)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    os.replace(tmp, path)
