"""Linux's inotify, through the C library (``ctypes``): watches on folders, and the events they report.

What the kernel says, in its words (inotify(7)): an event is queued when a process changes a
watched folder's entry or a file in it, at the moment of the system call, so once a command has
ended, every change it made is in the queue.  It does not see writes through a shared memory map,
nor changes made by another machine to a network file system; and a full queue drops events (then
``OVERFLOW`` is reported, and whoever reads the events must look again at everything).

On a system without inotify, ``Inotify()`` raises ``OSError``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
import sys
from dataclasses import dataclass

MODIFY, ATTRIB, CLOSE_WRITE = 0x2, 0x4, 0x8
MOVED_FROM, MOVED_TO, CREATE, DELETE = 0x40, 0x80, 0x100, 0x200
DELETE_SELF, MOVE_SELF = 0x400, 0x800
UNMOUNT, OVERFLOW, IGNORED = 0x2000, 0x4000, 0x8000
ONLYDIR, DONT_FOLLOW, EXCL_UNLINK = 0x01000000, 0x02000000, 0x04000000
ISDIR = 0x40000000
# What a folder's watch asks for: every change to an entry of the folder or to a file in it.
CHANGES = MODIFY | ATTRIB | CLOSE_WRITE | MOVED_FROM | MOVED_TO | CREATE | DELETE | DELETE_SELF | MOVE_SELF
_CLOEXEC, _NONBLOCK = 0o2000000, 0o4000
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (struct inotify_event)


@dataclass(frozen=True, slots=True)
class Event:
    """One event: the watch it came from (-1 for ``OVERFLOW``), what happened, and the entry's name
    in the watched folder ("" when the event is about the folder itself)."""

    wd: int
    mask: int
    name: str


def _libc() -> ctypes.CDLL:
    if not sys.platform.startswith("linux"):
        raise OSError(errno.ENOSYS, "inotify is Linux's")
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except AttributeError:
        raise OSError(errno.ENOSYS, "no inotify in this C library") from None
    return libc


class Inotify:
    """One inotify instance: a file descriptor that never blocks, and the folders it watches."""

    def __init__(self) -> None:
        self._libc = _libc()
        fd = self._libc.inotify_init1(_CLOEXEC | _NONBLOCK)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        self.fd: int = fd

    def add(self, path: str) -> int:
        """Watch the folder at `path` (links not followed); its watch descriptor."""
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), CHANGES | ONLYDIR | DONT_FOLLOW | EXCL_UNLINK)
        if wd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), path)
        return int(wd)

    def remove(self, wd: int) -> None:
        """Stop a watch (one the kernel has already ended is no error)."""
        self._libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> list[Event]:
        """Every event queued now (none when the queue is empty)."""
        out: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            if not data:
                return out
            at = 0
            while at + _HEADER.size <= len(data):
                wd, mask, _cookie, size = _HEADER.unpack_from(data, at)
                raw = data[at + _HEADER.size : at + _HEADER.size + size]
                at += _HEADER.size + size
                out.append(Event(wd, mask, os.fsdecode(raw.rstrip(b"\0"))))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


SHARE = 4  # one watcher takes at most this fraction of the user's watches: 1/SHARE (an editor has its own)


def allowance() -> int:
    """How many folders one watcher may watch: a share of the user's watches (``SHARE``)."""
    return watch_limit() // SHARE


def watch_limit() -> int:
    """How many watches this user may hold (``fs.inotify.max_user_watches``), 8,192 when unknown."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 8192
