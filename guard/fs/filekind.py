"""Files that are not what a path claims: reading a regular file without ever waiting on a special one.

A named pipe (FIFO) holds an open for reading until some process opens it for writing:
in a repository nobody writes to, forever, and under the repository lock every other
agent-guard command waits behind it.  A socket cannot be opened at all (ENXIO), and a
device reads without end (``/dev/zero``) or acts on being opened (a tape rewinds).
agent-guard reads regular files only: each path is looked at first (``stat``), opened
with ``O_NONBLOCK`` (so a pipe swapped in after that look cannot hold the open either)
and looked at again through the open descriptor.  ``kind`` names what is there instead.
"""

from __future__ import annotations

import errno
import os
import stat

_READ = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def kind(mode: int) -> str | None:
    """What a file of `mode` is, said for a message, when it is not a regular file; None when it is one."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


class NotRegular(OSError):
    """Something other than a regular file is at a path agent-guard was to read; nothing was waited on."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(errno.EINVAL, f"{what}, not a regular file", path)
        self.path = path
        self.what = what

    def __str__(self) -> str:
        return f"{self.path} is {self.what}, not a regular file"


def open_regular(path: str | os.PathLike[str], *, dir_fd: int | None = None, follow: bool = True) -> int:
    """A read-only descriptor of the regular file at `path` (``O_NONBLOCK``, which a regular file ignores).

    `follow`: whether a symbolic link at `path` is followed (without it, ``ELOOP`` is raised
    for one, as ``O_NOFOLLOW`` does).  ``FileNotFoundError`` when nothing is there;
    ``NotRegular`` when something other than a regular file is, before or after the open.
    """
    name = os.fspath(path)
    shown = name if isinstance(name, str) else os.fsdecode(name)
    what = kind(os.stat(name, dir_fd=dir_fd, follow_symlinks=follow).st_mode)
    if what is not None and not (what == "a symbolic link" and not follow):
        raise NotRegular(shown, what)
    try:
        fd = os.open(name, _READ | (0 if follow else os.O_NOFOLLOW), dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket swapped in since the look
            raise NotRegular(shown, "a socket") from None
        raise
    try:
        what = kind(os.fstat(fd).st_mode)
        if what is not None:
            raise NotRegular(shown, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str], *, follow: bool = True) -> bytes:
    """The bytes of the regular file at `path` (see ``open_regular``)."""
    fd = open_regular(path, follow=follow)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def write_new(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to a file made at `path`, which must not be there (a stale one is removed first:
    a name, never what a link there points at); ``O_EXCL | O_NOFOLLOW``, mode 0600.  For the
    temporary file a state file is renamed from: nothing planted at its name is written through."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
