"""The work tree, touched last: journaled, all-or-nothing, crash-safe writes.

Protocol for one write (an apply's, or a rollback's), all under the repository lock:

1. Every touched file's *before* content is stored as a blob and a journal naming
   before and after of each path (and what the caller's last step must undo) is
   written and fsynced to ``<git dir>/agent-guard/journal.json`` (per work tree;
   the lock is shared by all work trees of the repository).
2. Each file is written to a temporary file beside its target, fsynced, given
   its mode and renamed over the target; folders are fsynced.  Folders are
   opened one component at a time with ``O_NOFOLLOW``, so a symlink swapped in
   after the checks cannot redirect a write outside the tree.
   A rollback then removes the folders it emptied that the undone turn had created
   (named in the journal first: recovery makes them again).
3. The caller's last step runs (``stage`` moves the ledger ref there), then the
   journal is blanked out.  The journal file stays between commands, so the next
   one writes it in place, over blocks it already has, with one fdatasync (a
   journal torn there is unreadable: nothing was touched yet).

If the process dies anywhere in between, the next agent-guard command finds the
journal and rolls everything back to *before* (files, created folders, temp files,
and the last step, through the undo its caller hands `recover`), so the tree is
never left half-written.  Rolling back rather than forward needs no decision about
how far the dead process got.  This module knows nothing of what the last step is.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..fs.filekind import NotRegular, open_regular, read_regular
from ..repo import EXEC, FILE, GitRepo

TMP_MARK = ".agent-guard-tmp-"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class UnsafePath(Exception):
    """A path component is a symlink or not a folder at write time."""


class NotAFile(UnsafePath):
    """Something other than a regular file is at the path: a named pipe, a socket, a device, a folder.

    Never opened to find out (``filekind``): a pipe would hold the read, and the
    repository lock with it, until some process wrote to it.
    """

    def __init__(self, path: str, what: str) -> None:
        super().__init__(f"{path} is {what}, not a regular file")
        self.path = path
        self.what = what


@dataclass(frozen=True, slots=True)
class Write:
    """The state one path must reach: content (None = absent) and git mode.

    A file written over an existing one keeps that file's permission bits; a new file
    takes those of `like` when given (a rename's source), else git's for a new file.
    """

    path: str
    before: bytes | None
    after: bytes | None
    before_mode: int | None
    after_mode: int | None
    like: str | None = None
    bits: int | None = None  # the permission bits the written file gets (`write` works them out)


# Permission bits a written file may carry over: read, write and execute for each class, and
# the sticky bit.  Set-user-ID and set-group-ID are not: the kernel clears them on a write too.
_KEPT_BITS = 0o1777


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def permissions(kept: int | None, git_mode: int | None, umask: int) -> int:
    """The permission bits a file written with `git_mode` gets, over a file whose bits were `kept`.

    git records only whether a file is executable.  Over an existing file its own bits stay
    (600, 640, 700, 775...); a change of git mode sets or clears only the execute bits, as git
    does: set, for each class that may read it (600 -> 700, 644 -> 755, within the umask);
    cleared, all of them (755 -> 644).  A new file gets git's checkout bits: 666 or 777 less
    the umask.
    """
    executable = git_mode == EXEC
    if kept is None:
        return (0o777 if executable else 0o666) & ~umask
    kept &= _KEPT_BITS
    if executable and not kept & 0o111:
        return kept | ((kept & 0o444) >> 2) & ~umask
    if not executable and kept & 0o111:
        return kept & ~0o111
    return kept


# Undoes a write's last step, given the note it left in the journal and whether its writer
# died (True: a crash; False: the step failed in this process, which is still alive).
Undo = Callable[[object, bool], None]


@dataclass(frozen=True, slots=True)
class LastStep:
    """What a write does once every file is in place, inside its all-or-nothing.

    `run` does it; `note` (JSON) goes into the journal first, so that the write's own
    failure, or the recovery after a crash, can hand it to `undo`.
    """

    run: Callable[[], None]
    note: object
    undo: Undo


def state_dir(repo: GitRepo) -> Path:
    """agent-guard's folder in the common git dir: what the repository's work trees share (the lock)."""
    d = repo.commondir / "agent-guard"
    d.mkdir(exist_ok=True)
    return d


def tree_state_dir(repo: GitRepo) -> Path:
    """agent-guard's folder in the git dir of the work tree `repo` is opened on (a linked worktree has
    its own; for the main one it is ``state_dir``): what belongs to one work tree's files."""
    d = repo.gitdir / "agent-guard"
    d.mkdir(exist_ok=True)
    return d


@contextlib.contextmanager
def locked(repo: GitRepo) -> Iterator[None]:
    """Serialise agent-guard commands on one repository (released by the kernel on death)."""
    fd = os.open(state_dir(repo) / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


# A seam for the crash tests: a function they install (tests/crashpoints/sitecustomize.py)
# that `_crashpoint` calls with each point's label; None outside them.
crash_hook: Callable[[str], None] | None = None


def _crashpoint(label: str) -> None:
    """A point where the crash tests may kill the process (``crash_hook``)."""
    if crash_hook is not None:
        crash_hook(label)


# ---------------------------------------------------------------------- reading


def _open_dir(root_fd: int, parts: Sequence[str], create: bool, created: list[str] | None = None) -> int:
    fd = os.dup(root_fd)
    walked: list[str] = []
    try:
        for part in parts:
            walked.append(part)
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o777, dir_fd=fd)
                if created is not None:
                    created.append("/".join(walked))
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafePath(f"{'/'.join(walked)} is a symlink or not a folder") from None
                raise
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def read(root: Path, path: str) -> tuple[bytes | None, int | None]:
    """A work-tree file's bytes and git mode without following symlinks; (None, None) if absent."""
    parts = path.split("/")
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        try:
            dfd = _open_dir(root_fd, parts[:-1], create=False)
        except (FileNotFoundError, NotADirectoryError):
            return None, None
        try:
            try:
                fd = open_regular(parts[-1], dir_fd=dfd, follow=False)
            except FileNotFoundError:
                return None, None
            except NotRegular as exc:
                raise NotAFile(path, exc.what) from None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise UnsafePath(f"{path} is a symlink") from None
                raise
            try:
                st = os.fstat(fd)
                with os.fdopen(fd, "rb", closefd=False) as fh:
                    data = fh.read()
            finally:
                os.close(fd)
            return data, EXEC if st.st_mode & 0o111 else FILE
        finally:
            os.close(dfd)
    finally:
        os.close(root_fd)


# ---------------------------------------------------------------------- writing


def _bits(root_fd: int, path: str) -> int | None:
    """The permission bits of the regular file at `path` (no link followed on the way); None if there is none."""
    parts = path.split("/")
    try:
        dfd = _open_dir(root_fd, parts[:-1], create=False)
    except (OSError, UnsafePath):
        return None
    try:
        st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(dfd)
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def _write_one(root_fd: int, w: Write, created: list[str]) -> None:
    """Write (or delete) one path, the file with the bits `w` names (else git's for a new file)."""
    parts = w.path.split("/")
    if w.after is None:
        try:
            dfd = _open_dir(root_fd, parts[:-1], create=False)
        except FileNotFoundError:
            return
        try:
            try:
                os.unlink(parts[-1], dir_fd=dfd)
            except FileNotFoundError:
                pass
            os.fsync(dfd)
        finally:
            os.close(dfd)
        return
    dfd = _open_dir(root_fd, parts[:-1], create=True, created=created)
    try:
        tmp = f".{parts[-1][:100]}{TMP_MARK}{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_EXCL, 0o600, dir_fd=dfd)
        try:
            view = memoryview(w.after)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fchmod(fd, w.bits if w.bits is not None else permissions(None, w.after_mode, _umask()))
            os.fsync(fd)
        finally:
            os.close(fd)
        _crashpoint(f"before-rename:{w.path}")
        os.replace(tmp, parts[-1], src_dir_fd=dfd, dst_dir_fd=dfd)
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _remove_empty_dirs(root_fd: int, dirs: Sequence[str]) -> list[str]:
    """Remove each of `dirs` that is empty (deepest first, so a parent may empty in turn); the ones removed."""
    removed: list[str] = []
    for d in sorted(dirs, key=lambda x: -x.count("/")):
        parent, _, name = d.rpartition("/")
        try:
            pfd = _open_dir(root_fd, parent.split("/") if parent else [], create=False)
        except (FileNotFoundError, NotADirectoryError, UnsafePath):
            continue
        try:
            # rmdir never follows a link and refuses a folder that holds anything.
            os.rmdir(name, dir_fd=pfd)
            removed.append(d)
        except OSError:
            pass
        finally:
            os.close(pfd)
    return removed


def _remove_temps(root_fd: int, writes: Sequence[dict[str, object]]) -> None:
    for w in writes:
        parts = str(w["path"]).split("/")
        try:
            dfd = _open_dir(root_fd, parts[:-1], create=False)
        except (FileNotFoundError, UnsafePath):
            continue
        try:
            for name in os.listdir(dfd):
                if TMP_MARK in name:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name, dir_fd=dfd)
        finally:
            os.close(dfd)


def _journal_path(repo: GitRepo) -> Path:
    # Per work tree (a linked worktree has its own gitdir): recovery must restore the
    # files of the tree that was being written, not of whichever tree runs next.
    return tree_state_dir(repo) / "journal.json"


_JOURNAL_BLOCK = 4096


def _start_journal(path: Path, data: bytes) -> None:
    """Write the journal in place: the file stays between commands, blank when nothing is pending.

    The text is padded with spaces to the file's size (whole blocks), so an apply
    overwrites blocks the file already has and one fdatasync makes it durable without
    a metadata update; only a journal that outgrows the file changes its size, and
    only the file's creation needs its folder fsynced.  Written over blanks, a journal
    torn by a crash is unreadable and means no file was touched yet.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
    except FileExistsError:
        fd = os.open(path, os.O_RDWR)
        created = False
    try:
        size = os.fstat(fd).st_size
        room = max(size, -(-len(data) // _JOURNAL_BLOCK) * _JOURNAL_BLOCK)
        padded = data.ljust(room)
        half = len(data) // 2
        os.pwrite(fd, padded[:half], 0)
        _crashpoint("mid-journal")
        os.pwrite(fd, padded[half:], half)
        os.fdatasync(fd)
    finally:
        os.close(fd)
    if created:
        dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _clear_journal(path: Path) -> None:
    """Nothing pending any more: the journal's text is blanked out (the file is kept for the next command)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return
    try:
        size = os.fstat(fd).st_size
        if size:
            os.pwrite(fd, b" " * size, 0)
    finally:
        os.close(fd)


def journal_pending(path: Path) -> bool:
    """Does the journal at `path` name an unfinished write?  (The file stays, blanked out, between commands.)"""
    try:
        return bool(read_regular(path).strip())
    except (FileNotFoundError, NotRegular):  # not a journal this code wrote (see `recover`)
        return False


def _fsync_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    _crashpoint("before-journal-rename")
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def write(repo: GitRepo, writes: Sequence[Write], *, remove_dirs: Sequence[str] = (), last: LastStep | None = None) -> list[str]:
    """Write every path, then take the `last` step, all or nothing (see the module doc).

    `remove_dirs`: folders to remove once the files are written, each only if it is empty
    by then (a rollback takes away the folders the turn it undoes created).  Returns the
    folders removed.
    """
    root_fd = os.open(repo.root, _DIR_FLAGS)
    try:
        now = {p: _bits(root_fd, p) for w in writes for p in dict.fromkeys((w.path, w.like)) if p is not None}
    finally:
        os.close(root_fd)
    umask = _umask()
    files = []
    placed = []
    for w in writes:
        before_id = repo.write_blob(w.before) if w.before is not None else None
        after_id = repo.hash_blob(w.after) if w.after is not None else None
        kept = now.get(w.path) if now.get(w.path) is not None else now.get(w.like) if w.like else None
        placed.append(w if w.bits is not None else replace(w, bits=permissions(kept, w.after_mode, umask)))
        # The exact bits the path had (None: no file), so that recovery puts them back as they were.
        files.append(
            {
                "path": w.path,
                "before": before_id,
                "after": after_id,
                "before_mode": w.before_mode,
                "after_mode": w.after_mode,
                "before_bits": now.get(w.path),
            }
        )
    created: list[str] = []
    # Only folders there now: recovery makes each again, and must not make one that was not there.
    removable = [d for d in dict.fromkeys(remove_dirs) if _is_real_dir(repo.root, d)]
    removed: list[str] = []
    journal = {
        "version": 1,
        "pid": os.getpid(),
        "files": files,
        "created_dirs": created,
        "removed_dirs": removable,
        "last_step": last.note if last else None,
    }
    jpath = _journal_path(repo)
    _start_journal(jpath, json.dumps(journal).encode())
    _crashpoint("after-journal")
    try:
        root_fd = os.open(repo.root, _DIR_FLAGS)
        try:
            for i, w in enumerate(placed):
                # Folders we are about to create go into the journal first, so a crash removes them.
                missing = _missing_dirs(root_fd, w.path) if w.after is not None else []
                if missing:
                    created.extend(missing)
                    _fsync_write(jpath, json.dumps(journal).encode())
                _write_one(root_fd, w, [])
                _crashpoint(f"after-file:{i}")
            removed = _remove_empty_dirs(root_fd, removable)
            if removed:
                _crashpoint("after-dirs")
        finally:
            os.close(root_fd)
        if last is not None:
            last.run()
    except BaseException:
        # A folder swapped for a symlink after the checks, a full disk, a last step that
        # failed (the ledger ref moved by another tool), an interrupt (Ctrl-C): undo now, so
        # the caller reports a failure over an untouched tree (left to the next command, the
        # half-written tree would outlive this report).
        recover(repo, last.undo if last else _nothing_to_undo, dead_writer=False)
        raise
    _crashpoint("before-journal-removal")
    _clear_journal(jpath)
    return removed


def _nothing_to_undo(note: object, dead_writer: bool) -> None:
    pass


def _is_real_dir(root: Path, path: str) -> bool:
    """Is `path` a folder, reached without following a link?"""
    parts = path.split("/")
    try:
        root_fd = os.open(root, _DIR_FLAGS)
    except OSError:
        return False
    try:
        fd = _open_dir(root_fd, parts, create=False)
    except (OSError, UnsafePath):
        return False
    finally:
        os.close(root_fd)
    os.close(fd)
    return True


def missing_dirs(root: Path, paths: Sequence[str]) -> list[str]:
    """The folders writing `paths` would create (absent now), parents first."""
    out: list[str] = []
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        for path in paths:
            out.extend(_missing_dirs(root_fd, path))
    finally:
        os.close(root_fd)
    return list(dict.fromkeys(out))


def emptied_dirs(root: Path, dirs: Sequence[str], deleted: Sequence[str]) -> list[str]:
    """Which of `dirs` would be empty once the files `deleted` are gone (deepest first): what a
    rollback will remove, said before it runs (``--check``)."""
    gone = set(deleted)
    out: list[str] = []
    for d in sorted(dict.fromkeys(dirs), key=lambda x: -x.count("/")):
        if not _is_real_dir(root, d):
            continue
        try:
            names = os.listdir(root / d)
        except OSError:
            continue
        if all(f"{d}/{n}" in gone or f"{d}/{n}" in out for n in names):
            out.append(d)
    return out


def _missing_dirs(root_fd: int, path: str) -> list[str]:
    parts = path.split("/")[:-1]
    missing = []
    fd = os.dup(root_fd)
    try:
        for i, part in enumerate(parts):
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                missing = ["/".join(parts[: j + 1]) for j in range(i, len(parts))]
                break
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafePath(f"{'/'.join(parts[: i + 1])} is a symlink or not a folder") from None
                raise
            os.close(fd)
            fd = nfd
    finally:
        os.close(fd)
    return missing


def _changed_since(repo: GitRepo, file: dict[str, object]) -> bool:
    """Does the file hold neither its journalled before nor after bytes?

    Then someone (the user in an editor, after the crash) wrote it since, and putting
    *before* back would throw their work away: recovery leaves such a file alone.
    """
    try:
        current, _mode = read(repo.root, str(file["path"]))
    except NotAFile:
        return True  # a pipe, socket or device put there since: not ours to replace
    except UnsafePath:
        return False  # the write below refuses it too
    if current is None:
        return False
    return repo.hash_blob(current) not in (file.get("before"), file.get("after"))


def pending(repo: GitRepo) -> bool:
    """Is there an interrupted write to roll back, or a torn journal to clear? (A small read, no lock.)"""
    d = repo.gitdir / "agent-guard"
    return journal_pending(d / "journal.json") or (d / "journal.json.tmp").exists()


def recover(repo: GitRepo, undo_last: Undo, dead_writer: bool = True) -> bool:
    """Roll back an interrupted write, if its journal is there.  True if it did.

    `undo_last` undoes the write's last step from the note the journal keeps of it (the
    writer's own `LastStep.undo`).  `dead_writer`: the journal's writer is gone (a crash),
    not this process, still alive.
    """
    jpath = _journal_path(repo)
    # A kill while the journal itself was being written leaves its temporary copy (and,
    # the first time, no journal: nothing was touched yet).  Under the lock it is stale.
    jpath.with_name(jpath.name + ".tmp").unlink(missing_ok=True)
    try:
        raw = read_regular(jpath)
    except FileNotFoundError:
        return False
    except NotRegular:
        # Not a journal this code wrote: a pipe put there would hold every command.  Taken away
        # (the next write makes a journal afresh); nothing it says can be pending.
        if not jpath.is_dir():
            jpath.unlink(missing_ok=True)
        return False
    if not raw.strip():
        return False  # the journal of the last command, cleared: nothing pending
    try:
        journal = json.loads(raw)
    except ValueError:
        # A torn journal means the crash came before any file was touched.
        _clear_journal(jpath)
        return True
    root_fd = os.open(repo.root, _DIR_FLAGS)
    umask = _umask()
    try:
        files = journal.get("files", [])
        for f in files:
            if "after" in f and _changed_since(repo, f):
                continue
            before = repo.read_blob(f["before"]) if f.get("before") else None
            was = f.get("before_bits")
            # The bits the file had (a journal of an older agent-guard has none: those of the file now).
            bits = was if isinstance(was, int) else permissions(_bits(root_fd, f["path"]), f.get("before_mode"), umask)
            try:
                _write_one(root_fd, Write(f["path"], None, before, None, f.get("before_mode"), bits=bits), [])
            except UnsafePath:
                # A folder on the way is now a symlink: restoring through it would write
                # outside the tree, and nothing of ours was written there (the write
                # refuses links too).  Skip it rather than fail every later command.
                continue
        _remove_temps(root_fd, files)
        _remove_empty_dirs(root_fd, journal.get("created_dirs", []))
        for d in sorted(journal.get("removed_dirs", []), key=lambda x: x.count("/")):
            # A rollback's emptied folders: there before it, so there again after it is undone.
            try:
                os.close(_open_dir(root_fd, d.split("/"), create=True))
            except (OSError, UnsafePath):
                continue
    finally:
        os.close(root_fd)
    # (A journal written before the last step was its caller's, when it was always the
    # ledger ref's move, named the same note `ref`.)
    note = journal.get("last_step", journal.get("ref"))
    if note is not None:
        undo_last(note, dead_writer)
    _clear_journal(jpath)
    return True
