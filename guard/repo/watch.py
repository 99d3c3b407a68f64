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

import ctypes
import ctypes.util
import errno
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x002, 0x004, 0x008
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x040, 0x080, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF = 0x400, 0x800
_UNMOUNT, _Q_OVERFLOW, _IGNORED = 0x2000, 0x4000, 0x8000
_ONLYDIR, _DONT_FOLLOW, _ISDIR = 0x01000000, 0x02000000, 0x40000000
_MASK = (
    _MODIFY
    | _ATTRIB
    | _CLOSE_WRITE
    | _MOVED_FROM
    | _MOVED_TO
    | _CREATE
    | _DELETE
    | _DELETE_SELF
    | _MOVE_SELF
    | _ONLYDIR
    | _DONT_FOLLOW
)
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len; then len bytes of name


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


_libc: ctypes.CDLL | None = None
SHARE = 4  # a watch takes at most this fraction of the user's inotify watches: 1/SHARE


def _limit() -> int:
    """How many inotify watches the user may hold (``fs.inotify.max_user_watches``)."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", "rb") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return 8192  # the kernel's old default


def _load() -> ctypes.CDLL | None:
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            lib.inotify_init1.argtypes = [ctypes.c_int]
            lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc = lib
        except (OSError, AttributeError):
            return None
    return _libc


class Watch:
    """inotify watches on `root` and the `folders` below it (a resource: ``with Watch(...) as w``).

    `skip` names top-level entries whose events are not wanted (the checkout's ``.git``)."""

    def __init__(self, root: Path, folders: Iterable[str], skip: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.skip = skip
        self._fd = -1
        self._where: dict[int, str] = {}
        self._sound = False
        lib = _load()
        folders = list(folders)
        if lib is None or len(folders) + 1 > _limit() // SHARE:
            return  # not a share of the user's watches that leaves enough to the rest (an editor's own)
        fd = lib.inotify_init1(_NONBLOCK | _CLOEXEC)
        if fd < 0:
            return
        self._fd = fd
        base = os.fsencode(root)
        add = lib.inotify_add_watch
        for folder in ("", *folders):
            wd = add(fd, base + b"/" + os.fsencode(folder) if folder else base, _MASK)
            if wd < 0:
                if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR):
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
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @property
    def active(self) -> bool:
        return self._sound and self._fd >= 0

    def touched(self) -> Touched | None:
        """What was touched since the watch was set; None when that cannot be told."""
        if not self.active:
            return None
        files: set[str] = set()
        folders: set[str] = set()
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                return None
            if not data:
                break
            at = 0
            while at + _EVENT.size <= len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size : at + _EVENT.size + size].split(b"\0", 1)[0]
                at += _EVENT.size + size
                if mask & (_Q_OVERFLOW | _UNMOUNT):
                    return None
                where = self._where.get(wd)
                if where is None:
                    continue
                if not name:  # the watched folder itself: removed, renamed, or its watch dropped
                    if mask & (_DELETE_SELF | _MOVE_SELF | _IGNORED):
                        if not where:
                            return None  # the root itself
                        folders.add(where)
                    continue
                text = os.fsdecode(name)
                if not where and text in self.skip:
                    continue
                path = f"{where}/{text}" if where else text
                (folders if mask & _ISDIR else files).add(path)
        return Touched(frozenset(files), frozenset(folders))
