"""The verify checkouts' folder, and files in it handled as a place commands may have tampered with.

A checkout is where the policy's commands run (``shadow``), so anything in it may be
what a command left: a link where a file was, a folder where a link was, a folder made
unwritable.  Files here are written whole by renaming a new file over the old name,
never through a link; removed as links, never through them; and the folder the
checkouts live in is the user's alone (``home``, ``private``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from .errors import GitError

if TYPE_CHECKING:
    from .handle import GitRepo


class NotPrivate(GitError):
    """The checkouts' folder is not the user's alone, or there is none outside the work tree."""


# ------------------------------------------------------------------ where the checkouts live


def home(repo: GitRepo) -> Path:
    """The folder of `repo`'s checkouts, one per agent below it (see the module doc): in the user's
    cache, named by a hash of the git dir (each linked worktree has its own index, so its own
    checkouts); the git dir's own folder when the cache lies in the work tree (a home folder kept
    in git) and the git dir does not.  ``NotPrivate`` when neither is outside the work tree."""
    from hashlib import sha256

    tree = Path(os.path.realpath(repo.root))
    gitdir = Path(os.path.realpath(repo.gitdir))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if os.path.isabs(base):
        folder = Path(base) / "agent-guard" / "verify" / sha256(os.fsencode(gitdir)).hexdigest()[:24]
        if not _within(folder, tree):
            return folder
    if not _within(gitdir, tree):
        return repo.gitdir / "agent-guard" / "verify"
    raise NotPrivate(
        f"no folder outside the work tree {tree} for the verify checkouts: the user's cache ({base}) and the "
        "git dir are both inside it"
    )


def _within(path: Path, tree: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == tree or tree in real.parents


def private(folder: Path) -> None:
    """Make `folder` (mode 0700) when it is missing; ``NotPrivate`` when it is not a folder of this
    user's that only they may write (a command of another user's could put files in the checkout)."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise NotPrivate(f"{folder} is not a folder (a link or a file is there); remove it")
    if st.st_uid != os.geteuid():
        raise NotPrivate(f"{folder} belongs to uid {st.st_uid}, not to you (uid {os.geteuid()}); remove it")
    if st.st_mode & 0o022:
        raise NotPrivate(f"others may write {folder} (mode {stat.S_IMODE(st.st_mode):04o}); make it 0700 or remove it")


def put(path: Path, data: bytes) -> None:
    """Write `path` whole by renaming a new file over it: a link a command left there (to the user's
    `.git/config`, say) is replaced, never written through."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    clear(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    rename_over(tmp, path)


def rename_over(tmp: Path, path: Path) -> None:
    """Rename `tmp` over `path`, whatever a command left at `path` (a folder is removed first)."""
    if is_folder(path):
        remove_tree(path)
    os.replace(tmp, path)


def is_folder(path: Path) -> bool:
    """A folder itself, not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def clear(path: Path) -> None:
    """Remove whatever is at `path` (a folder and all in it, a file, a link as a link), if anything."""
    if is_folder(path):
        remove_tree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def inside(folder: str) -> bool:
    """Is `folder` a path below the checkout's top, as git names one (no `..`, `.`, empty part, `.git`)?"""
    parts = folder.split("/")
    return all(p not in ("", ".", "..") for p in parts) and parts[0] != ".git"


def linked(path: Path) -> bool:
    """Is `path` a file with another name (a hard link)?"""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def parents(paths: Iterable[str]) -> set[str]:
    """Every folder on the way to each of `paths` (``a/b/c`` gives ``a`` and ``a/b``)."""
    out: set[str] = set()
    for path in paths:
        cut = path.rfind("/")
        while cut > 0:
            folder = path[:cut]
            if folder in out:
                break
            out.add(folder)
            cut = folder.rfind("/")
    return out


def nul_split(data: bytes) -> list[str]:
    return [os.fsdecode(p) for p in data.split(b"\0") if p]


def nul_join(paths: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def remove_path(work: Path, path: str, prune: bool = True) -> None:
    """Remove `path` (a file, a link, or a folder and all in it) from the checkout at `work`, never
    through a link: a folder on the way that is a link means the path is not there.  With `prune`,
    folders it leaves empty go too."""
    parts = [p for p in path.split("/") if p]
    if not parts or any(p in (".", "..") for p in parts) or parts[0] == ".git":
        return
    here = work
    for part in parts[:-1]:
        here = here / part
        try:
            if not stat.S_ISDIR(os.lstat(here).st_mode):
                return
        except OSError:
            return
    clear(here / parts[-1])
    if prune:
        for depth in range(len(parts) - 1, 0, -1):
            try:
                os.rmdir(work.joinpath(*parts[:depth]))
            except OSError:
                break


def remove_tree(folder: Path) -> None:
    """Remove a folder and everything in it, links as links; folders a command made unwritable too."""

    def retry(func: Callable[..., object], path: str, _exc: object) -> None:
        parent = os.path.dirname(path)
        with contextlib.suppress(OSError):
            os.chmod(parent, 0o700)
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
        try:
            func(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise

    # rmtree never follows a link inside the tree.
    if sys.version_info >= (3, 12):
        shutil.rmtree(folder, onexc=retry)
    else:
        shutil.rmtree(folder, onerror=retry)
