"""What agent-guard keeps from one call to the next in a process, and the one rule it keeps it by.

A kept answer is given again only under a key that holds everything it was worked out from:

- worked out from values alone (a policy text's settings, a pattern compiled from a glob, the
  outline of a source text), it is kept by those values (``by_value`` for a function,
  ``ByValue`` for a store): the same key, the same answer, whatever happened in between;
- read from files (git's configuration, the effective policy), it is kept with the files'
  stamps (``Stamps``: device, inode, size, modification and change times of each, and "not
  there" for one that is missing) and the environment variables it read: it is given again
  only while a fresh look at every one of them finds it as it was.  It is not kept at all
  when a file changed within the last two seconds: a change within the same tick of a file
  system's clock would leave its stamp as it was (git's "racy" rule for its index).

Nothing here is written to disk; each kept thing has one owner (the module that makes the
answer), and a test holds each to a fresh read (``tests/fs/test_kept.py`` for the rule).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Generic, Hashable, Iterable, TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
F = TypeVar("F", bound=Callable[..., object])

RACY_NS = 2_000_000_000  # two seconds: the coarsest clock of a common file system (FAT's)

Stamp = tuple[int, int, int, int, int] | None  # device, inode, size, mtime, ctime; None: nothing there


def stamp(path: str) -> Stamp:
    """The stamp of the file at `path` (links followed), None when nothing is there to read."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


@dataclass(frozen=True, slots=True)
class Stamps:
    """The stamps of the files an answer was read from, and the environment variables it read."""

    files: tuple[tuple[str, Stamp], ...]
    env: tuple[tuple[str, str | None], ...] = ()

    @classmethod
    def now(cls, files: Iterable[str], env: Iterable[str] = ()) -> Stamps:
        return cls(
            tuple((f, stamp(f)) for f in dict.fromkeys(files)),
            tuple((k, os.environ.get(k)) for k in dict.fromkeys(env)),
        )

    def unchanged(self) -> bool:
        """Whether a fresh look finds every file and variable as stamped."""
        get = os.environ.get
        for k, v in self.env:
            if get(k) != v:
                return False
        for f, s in self.files:
            if stamp(f) != s:
                return False
        return True

    def racy(self) -> bool:
        """Whether a file changed too recently for its stamp to tell a later change apart."""
        now = time.time_ns()
        return any(s is not None and now - max(s[3], s[4]) < RACY_NS for _f, s in self.files)


class ByStamps(Generic[T]):
    """Answers read from files, kept by key with the stamps of what each was read from.

    ``get`` gives an answer only while its stamps are unchanged; ``keep`` keeps one unless a file
    it was read from is racy.  At most `size` keys, the oldest dropped first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: dict[Hashable, tuple[Stamps, T]] = {}

    def get(self, key: Hashable) -> T | None:
        found = self._kept.get(key)
        if found is None:
            return None
        if not found[0].unchanged():
            del self._kept[key]
            return None
        return found[1]

    def keep(self, key: Hashable, stamps: Stamps, answer: T) -> None:
        self._kept.pop(key, None)
        if stamps.racy():
            return
        if len(self._kept) >= self._size:
            del self._kept[next(iter(self._kept))]
        self._kept[key] = (stamps, answer)

    def clear(self) -> None:
        self._kept.clear()


class ByValue(Generic[K, T]):
    """Answers worked out from values alone, kept by those values (a text too large to be its own
    key is keyed by a digest of it): the newest `size`, each use making one the newest.  Safe to
    share between a session's threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: OrderedDict[K, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> T | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def keep(self, key: K, answer: T) -> None:
        with self._lock:
            self._kept[key] = answer
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


def by_value(size: int | None) -> Callable[[F], F]:
    """Keep a function's answers by its arguments: for a function of its arguments alone, which
    reads nothing else (no file, no clock, no environment), so no change can make one stale."""

    def wrap(fn: F) -> F:
        return lru_cache(maxsize=size)(fn)  # type: ignore[return-value]

    return wrap
