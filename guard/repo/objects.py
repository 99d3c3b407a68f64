"""A handle's blobs: their ids, and the loose objects it writes as git writes them.

Three speed-ups of the apply path sit behind one object, `Objects`, that a `GitRepo`
handle owns (``repo.objects``), so that nothing is kept between two handles:

- `blob_id`: plain SHA-1 (OpenSSL) where it gives libgit2's id, instead of libgit2's
  collision-detecting SHA-1 (for contents of `SHA1_FROM` bytes and more);
- the ids of the last few contents hashed: an apply hashes the same bytes several
  times (the sync check, the journal, the turn), and a session's next edit starts
  from the bytes the last one wrote;
- blobs stored as loose objects by `_write_loose` at git's own compression setting,
  where libgit2 would deflate every one at level 1.

Each has an equivalence test: ``tests/repo/test_repo_objects.py`` and
``tests/test_apply_fast_paths.py``.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

import pygit2

# Small contents only, and few: the memory of ids holds the bytes.
_IDS_KEPT = 16
_IDS_MAX_SIZE = 1 << 20


# Contents from this size up are hashed with plain SHA-1 (`blob_id`): importing hashlib
# (OpenSSL) costs a process ~1 ms, what plain SHA-1 saves on ~1.5 MB.
SHA1_FROM = 1 << 20


def blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob."""
    if len(data) >= SHA1_FROM and data.isascii():
        import hashlib  # here: only a large content pays for OpenSSL's start-up

        # Plain SHA-1 (OpenSSL) is six times faster than libgit2's collision-detecting
        # SHA-1 and gives the same id for every input but a collision attack, whose
        # near-collision blocks are random bytes: never all ASCII.
        h = hashlib.sha1(b"blob %d\0" % len(data))
        h.update(data)
        return h.hexdigest()
    return str(pygit2.hash(data))


@dataclass(frozen=True, slots=True)
class Loose:
    """How a repository's blobs are stored as loose objects: where, at which zlib level, fsynced or not."""

    folder: str
    level: int
    fsync: bool


def loose_settings(folder: str, config: Callable[[str], str | None]) -> Loose | None:
    """How `_write_loose` stores blobs in the objects `folder`, from git's config; None: through libgit2.

    libgit2 deflates every loose object at level 1 and ignores git's compression
    settings (its level 0 writes no zlib stream at all, which it cannot read back):
    three quarters of the cost of storing a 60 KB file, on every apply.
    Unless ``core.looseCompression`` (or ``core.compression``) names a level, blobs
    are written as git writes them with ``looseCompression = 0`` (a zlib stream of
    stored blocks; the next ``git gc`` packs them compressed).  A repository with
    another object format (SHA-256) or shared permissions writes through libgit2.
    """
    level = 0
    for key in ("core.looseCompression", "core.compression"):
        said = config(key)
        if said is not None:
            try:
                level = int(said)
            except ValueError:
                continue
            level = 6 if level == -1 else max(0, min(9, level))  # -1: zlib's default
            break
    fsync = (config("core.fsyncObjectFiles") or "").lower() in ("true", "yes", "on", "1")
    fmt = (config("extensions.objectformat") or "sha1").lower()
    usable = fmt == "sha1" and config("core.sharedRepository") is None and os.path.isdir(folder)
    return Loose(folder, level, fsync) if usable else None


class Objects:
    """One handle's blob writer, with its memory of recent blob ids (see the module doc)."""

    def __init__(self, repo: pygit2.Repository, loose: Callable[[], Loose | None]) -> None:
        """`loose`: how blobs are stored, asked on the first write (it reads git's config)."""
        self._repo = repo
        self._read_loose = loose
        self._loose: tuple[Loose | None] | None = None
        self._ids: OrderedDict[bytes, str] = OrderedDict()
        self._lock = threading.Lock()

    def hash_blob(self, data: bytes) -> str:
        got = self._ids.get(data)
        if got is None:
            got = blob_id(data)
            self._remember(data, got)
        return got

    def write_blob(self, data: bytes) -> str:
        got = self._ids.get(data)
        if got is not None and self._repo.odb.exists(got):
            return got
        loose = self.loose()
        if loose is None:
            got = str(self._repo.create_blob(data))
            self._remember(data, got)
            return got
        got = self.hash_blob(data)
        if not self._repo.odb.exists(got):
            _write_loose(loose, got, b"blob %d\0" % len(data), data)
        return got

    def loose(self) -> Loose | None:
        """How blobs are stored as loose objects (`loose_settings`); None: through libgit2."""
        if self._loose is None:
            self._loose = (self._read_loose(),)
        return self._loose[0]

    def _remember(self, data: bytes, oid: str) -> None:
        if len(data) > _IDS_MAX_SIZE:
            return
        with self._lock:
            self._ids[data] = oid
            self._ids.move_to_end(data)
            while len(self._ids) > _IDS_KEPT:
                self._ids.popitem(last=False)


def _write_loose(loose: Loose, oid: str, header: bytes, data: bytes) -> None:
    """Store one object as git does: deflated beside its final name, then renamed into place (read-only)."""
    folder = os.path.join(loose.folder, oid[:2])
    final = os.path.join(folder, oid[2:])
    import zlib

    z = zlib.compressobj(loose.level)
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
            view = view[os.write(fd, view) :]
        if loose.fsync:
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
    the bytes a check reads (9.5 MB for a commit of 1,000 files: ~20 ms).  libgit2
    holds this switch for the whole process, so no handle can hold it for itself:
    it is the program's to throw, at its edge, when the command owns the process and
    ends after it (``cli.program.run``, through ``cli.check``); never a library
    call's.  This is the one place agent-guard touches it.  It changes no id agent-guard
    computes or writes (ids are hashed on write, never taken from a read):
    tests/repo/test_repo_objects.py holds objects written with it off to `git hash-object`
    and `git fsck --full`.
    """
    pygit2.option(pygit2.enums.Option.ENABLE_STRICT_HASH_VERIFICATION, 0)
