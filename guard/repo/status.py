"""The work tree against the index, as ``git status`` sees it; and an index's entries.

``git status`` compares each tracked file's stat data with the index and reads only the
files whose stat changed (its untracked cache and an fsmonitor, when configured, spare
it even the walk), so asking it costs what the tree's metadata costs, not its bytes.  It
is run with ``GIT_OPTIONAL_LOCKS=0`` so that it never rewrites the index while it looks:
a snapshot taken around a command must not be what changes the index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .errors import GitError

_TIMEOUT = 600  # seconds: a status of a very large tree on a slow disk


@dataclass(frozen=True, slots=True)
class Dirty:
    """A path the work tree holds otherwise than the index: changed, deleted, conflicted, or untracked.

    `kind`: "modified" (its work-tree file differs from its index entry), "deleted" (tracked,
    not in the work tree), "untracked" (not ignored, not in the index), "repository" (an
    untracked folder that is a repository of its own), "conflicted" (unmerged in the index).
    """

    path: str
    kind: str


def _git(root: Path, what: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` (the command `what`) in `root` with `env` over this process's environment, bounded
    in time; a ``GitError`` when it cannot run or does not answer (its exit status is the caller's)."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            env={**os.environ, **env},
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git {what} did not answer within {_TIMEOUT} s") from None
    except OSError as exc:
        raise GitError(f"cannot run git {what}: {exc}") from None


def dirty(root: Path, paths: Sequence[str] | None = None) -> list[Dirty]:
    """Every path whose work-tree state differs from the index, and every untracked file that is
    not ignored (each file, not its folder), as ``git status`` lists them; with `paths`, only
    those at or below one of them (each a path of the tree, taken literally)."""
    if paths is not None and not paths:
        return []
    spec = [] if paths is None else ["--", *paths]
    flags = ["--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"]
    proc = _git(
        root,
        "status",
        ["--literal-pathspecs", "-c", "core.quotePath=false", "status", *flags, *spec],
        {"GIT_OPTIONAL_LOCKS": "0"},
    )
    if proc.returncode != 0:
        raise GitError(f"git status failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    out: list[Dirty] = []
    for record in proc.stdout.split(b"\0"):
        if not record:
            continue
        text = os.fsdecode(record)
        tag = text[:1]
        if tag == "?":
            path = text[2:]
            out.append(Dirty(path.rstrip("/"), "repository" if path.endswith("/") else "untracked"))
        elif tag == "1":
            fields = text.split(" ", 8)
            worktree = fields[1][1]
            if worktree != ".":
                out.append(Dirty(fields[8], "deleted" if worktree == "D" else "modified"))
        elif tag == "u":
            out.append(Dirty(text.split(" ", 10)[10], "conflicted"))
    return out


def index_tree(root: Path, index_file: Path) -> str | None:
    """The tree the index file `index_file` records, as ``git write-tree`` writes it (from the
    index's cached trees where they are valid); None when it has none (an unmerged entry) or git
    fails.  git may rewrite `index_file` (with its cached trees filled in): give it a copy or a link."""
    try:
        proc = _git(root, "write-tree", ["write-tree"], {"GIT_INDEX_FILE": str(index_file)})
    except GitError:
        return None
    out = proc.stdout.decode("ascii", "replace").strip()
    return out if proc.returncode == 0 and len(out) in (40, 64) else None


class IndexFile:
    """One index file, asked about a few paths.  git answers (``git ls-files``, ``git write-tree``):
    it reads a 100,000-entry index in about 10 ms, where libgit2 takes 75-110 ms to load one
    (bench/README.md, "Shell turns"), and a shell turn asks about the few paths a command changed."""

    MANY = 64  # paths asked at once past which git lists every entry rather than match each path

    def __init__(self, path: str | os.PathLike[str] | None, root: Path) -> None:
        self.path = None if path is None else os.fspath(path)
        self.root = root
        self._known: dict[str, tuple[str, int] | None] = {}

    def learn(self, paths: Iterable[str]) -> None:
        """Ask git about `paths` at once; ``entry`` then answers them without a process each."""
        todo = [p for p in dict.fromkeys(paths) if p not in self._known]
        if not todo:
            return
        if self.path is None or not os.path.exists(self.path):
            self._known.update(dict.fromkeys(todo))
            return
        wanted = set(todo)
        args = ["ls-files", "-s", "-z"] + ([] if len(todo) > self.MANY else ["--", *todo])
        for record in self._git(*args).split(b"\0"):
            head, tab, name = record.partition(b"\t")
            fields = head.split(b" ")
            path = os.fsdecode(name)
            if tab and len(fields) == 3 and fields[2] == b"0" and path in wanted:
                self._known[path] = (fields[1].decode("ascii"), int(fields[0], 8))
        for p in todo:
            self._known.setdefault(p, None)

    def entry(self, path: str) -> tuple[str, int] | None:
        """(blob id, mode) of `path`'s stage-0 entry, or None."""
        if path not in self._known:
            self.learn([path])
        return self._known[path]

    def tree(self) -> str | None:
        """The tree this index records (``git write-tree``: from its cached trees where they are
        valid); None when there is no index file.  git is given a link to the file (it may write
        the index it is given, with its cached trees filled in), never the file itself."""
        if self.path is None or not os.path.exists(self.path):
            return None
        folder, name = os.path.split(self.path)
        link = os.path.join(folder, f".{name}.tree.{os.getpid()}")
        try:
            try:
                os.link(self.path, link)
            except FileExistsError:
                os.unlink(link)
                os.link(self.path, link)
            except OSError:
                shutil.copyfile(self.path, link)
            got = index_tree(self.root, Path(link))
        except OSError as exc:
            raise GitError(f"cannot read the index {self.path}: {exc}") from None
        finally:
            for leftover in (link, link + ".lock"):
                try:
                    os.unlink(leftover)
                except OSError:
                    pass
        if got is None:  # unmerged entries: no tree
            raise GitError(f"cannot read the index {self.path} as a tree (git write-tree failed: a conflict?)")
        return got

    def _git(self, *args: str) -> bytes:
        proc = _git(
            self.root, args[0], ["--literal-pathspecs", *args], {"GIT_INDEX_FILE": str(self.path), "GIT_OPTIONAL_LOCKS": "0"}
        )
        if proc.returncode != 0:
            raise GitError(f"cannot read the index {self.path}: {proc.stderr.decode('utf-8', 'replace').strip()}")
        return proc.stdout
