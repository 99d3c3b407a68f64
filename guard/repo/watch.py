"""What changed in a folder tree while commands ran, told by the kernel (Linux inotify).

The shadow checkout (``shadow.py``) must find what a verify command left behind and put it back.
Asking git (``git diff-files`` and ``git ls-files --others``) reads every file's metadata, which on
a 100,000-file checkout costs about a second; the kernel can instead say which entries were
touched.  A ``Watch`` is set on every folder of the checkout before the command starts and read
after it ends:

- a file written, truncated, closed after writing, its mode or link count changed, made, removed
  or renamed: its path;
- a folder made, removed or renamed: the folder, meaning everything below it (a folder made while
  the command ran has no watch of its own, so what happened inside it is not known one by one).

It answers None (ask git about everything) whenever it cannot be sure: not Linux, more folders
than a quarter of the user's watches (``/proc/sys/fs/inotify/max_user_watches``: the rest stay
for the user's editor and tools), a watch refused, the kernel's event queue overflowed, a
watched folder unmounted.  A write through a second name of a file (a hard link) is an event for
that name only: ``Shadow.settle`` asks git about everything when a touched file has more than one
name.  What it cannot see: writes through a hard link made from outside the checkout, through a
file mapped into memory after its descriptor was closed, and by a process that outlives the
command (a full walk would not see the last two either).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..fs import inotify


@dataclass(frozen=True, slots=True)
class Touched:
    """What a ``Watch`` saw: paths of files, and folders whose whole content is in doubt
    (relative to the watched root, ``/``-separated, without a trailing ``/``)."""

    files: frozenset[str]
    folders: frozenset[str]

    def paths(self) -> list[str]:
        """Every path to ask git about (a folder as a path names all below it), shallowest first,
        none below a folder already listed."""
        out: list[str] = []
        folders = sorted(self.folders, key=lambda p: (p.count("/"), p))
        kept: set[str] = set()
        for folder in folders:
            if not _under(folder, kept):
                kept.add(folder)
                out.append(folder)
        out += sorted(p for p in self.files if not _under(p, kept))
        return out


def _under(path: str, folders: set[str]) -> bool:
    parts = path.split("/")
    return any("/".join(parts[:i]) in folders for i in range(1, len(parts) + 1))


class Watch:
    """inotify watches on `root` and the `folders` below it (a resource: ``with Watch(...) as w``).

    `skip` names top-level entries whose events are not wanted (the checkout's ``.git``)."""

    def __init__(self, root: Path, folders: Iterable[str], skip: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.skip = skip
        self._ino: inotify.Inotify | None = None
        self._where: dict[int, str] = {}
        self._sound = False
        folders = list(folders)
        if len(folders) + 1 > inotify.allowance():
            return  # not a share of the user's watches that leaves enough to the rest (an editor's own)
        try:
            self._ino = inotify.Inotify()
        except OSError:
            return  # not Linux, or no inotify
        for folder in ("", *folders):
            try:
                wd = self._ino.add(str(root / folder) if folder else str(root))
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    continue  # gone already (a sealed path's folder is never written); its parent reports it
                self.close()  # the watch limit, or no permission: cannot be sure of anything
                return
            self._where[wd] = folder
        self._sound = True

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._ino is not None:
            self._ino.close()
            self._ino = None

    @property
    def active(self) -> bool:
        return self._sound and self._ino is not None

    def touched(self) -> Touched | None:
        """What was touched since the watch was set; None when that cannot be told."""
        if not self.active:
            return None
        assert self._ino is not None
        files: set[str] = set()
        folders: set[str] = set()
        try:
            events = self._ino.read()
        except OSError:
            return None
        for ev in events:
            if ev.mask & (inotify.OVERFLOW | inotify.UNMOUNT):
                return None
            where = self._where.get(ev.wd)
            if where is None:
                continue
            if not ev.name:  # the watched folder itself: removed, renamed, or its watch dropped
                if ev.mask & (inotify.DELETE_SELF | inotify.MOVE_SELF | inotify.IGNORED):
                    if not where:
                        return None  # the root itself
                    folders.add(where)
                continue
            if not where and ev.name in self.skip:
                continue
            path = f"{where}/{ev.name}" if where else ev.name
            (folders if ev.mask & inotify.ISDIR else files).add(path)
        return Touched(frozenset(files), frozenset(folders))
