"""The one package that talks to git.

It imports pygit2 (and alone runs git), translates its errors, and hands the rest of
agent-guard bytes, paths, hex object ids and the plain values of ``values``:

- ``handle``: `GitRepo`, one repository opened once: trees, commits, refs, the index,
  config and attributes;
- ``objects``: blobs through libgit2 (ids, writes, verified reads);
- ``attributes``: gitattributes look-ups: for one call, one alone, or as of a commit;
- ``config``: the configuration as git reads it, with the file of each entry (a handle
  keeps it while those files are unchanged);
- ``shadow`` and ``checkout_files``: the verify checkout, and its files handled as
  a place commands may have tampered with;
- ``merge``: git's three-way merge of one file, in memory (imported as ``guard.repo.merge``
  where a merge runs: most commands never merge, and need not load it);
- ``linediff``: git's diff of two sequences of lines or characters (``guard.repo.linediff``,
  where ``diffs.aligned`` meets sequences too long for difflib);
- ``remerge``: git's merge of a merge commit's parents, done again in memory to tell what
  the merge adds of its own (``GitRepo.remerge``, for a commit range's check);
- ``errors`` and ``values``: what the others raise and return;
- ``binding``: pygit2 imported, whatever certificate files the environment names (first, here).
"""

from __future__ import annotations

from .binding import load

load()  # before any module here imports pygit2 itself

from .errors import GitError, NotARepository, RefLocked, RefMoved, UnreadableAttributes
from .handle import GitRepo
from .values import EXEC, FILE, GITLINK, LINK, CommitInfo, Entry, TreeChange

__all__ = [
    "EXEC",
    "FILE",
    "GITLINK",
    "LINK",
    "CommitInfo",
    "Entry",
    "GitError",
    "GitRepo",
    "NotARepository",
    "RefLocked",
    "RefMoved",
    "TreeChange",
    "UnreadableAttributes",
]
