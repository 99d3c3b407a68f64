"""``git agent-read PATH [--lines A:B]``: a file as numbered lines under a ``[PATH#TAG]`` header.

What it prints::

    [src/app.py#1a2b3c4d]
    1:first line
    2:second line
    (lines 1-2 of 40)        only when --lines showed part of the file
    (empty file)             only for an empty file

``PATH`` in the header is written as the argument is read: relative to the current
folder, as for git (``[app.py#...]`` in ``src/`` for ``src/app.py``), so an edit under
the header, sent from the same folder, names the same file.  A path the policy
protects (``.env*``, the policy's own files, git's folders) is refused as
``path-protected`` unless the policy says ``read_protected: true``.  ``TAG`` is the
first 8 hex digits of the git
blob id of the content shown.  The blob is written to the object database and the
read is recorded for the agent with the lines it showed (guard/reading/reads.py), so a
hashline edit under that header (guard/dialects/hashline.py) applies to exactly that
content: re-anchored when the file has moved on in a way that keeps the edit's
lines intact, refused as ``stale`` otherwise, and refused for lines never shown.
Line text is printed without its line terminator; nothing else is changed.
The command line is guard/cli/read.py.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..files import paths
from ..files.target import special_file
from ..model import Finding, error
from ..record import reads
from ..report.audience import Audience
from ..text.textfile import decode
from ..text.wording import span
from ..tree import worktree

if TYPE_CHECKING:
    from .engine import Guard

TAG_DIGITS = 8
_TO_END = 1 << 62


class Unreadable(Exception):
    """The file cannot be shown (missing, outside the repository, binary...): exit 1."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def parse_lines(spec: str) -> tuple[int, int]:
    """``A:B``, ``A:`` (to the end), ``:B`` or ``A`` -> an inclusive 1-based range."""
    from ..bounds import LINE, OutOfRange

    text = spec.strip().replace("..", ":").replace("-", ":")
    first, sep, last = text.partition(":")
    if not all(part.strip().isascii() and (part.strip().isdigit() or not part.strip()) for part in (first, last)) or not (
        first.strip() or last.strip()
    ):
        raise ValueError(
            f"{spec[:40]!r} is not a line range; write A:B, A: or :B, line numbers from 1 to {int(LINE.high):,}, e.g. 10:40"
        )
    try:
        a = int(LINE.read(first)) if first.strip() else 1
        b = (int(LINE.read(last)) if last.strip() else _TO_END) if sep else a
    except OutOfRange as exc:
        raise ValueError(f"{spec!r}: a line number {exc}") from None
    if a < 1 or b < a:
        raise ValueError(
            f"{spec[:40]!r} is not a line range: B must not be less than A (line numbers from 1 to {int(LINE.high):,})"
        )
    return a, b


@dataclass(frozen=True, slots=True)
class Shown:
    """What a read showed: the header's path and tag, the lines shown (A to B of N), their text."""

    path: str  # repository-relative
    header_path: str  # as the header names it (from the current folder)
    blob: str  # the git blob id of the content shown; the tag is its first TAG_DIGITS digits
    first: int
    last: int  # first > last: no line (an empty file)
    total: int
    lines: tuple[str, ...]  # lines first..last, without their terminators

    @property
    def header(self) -> str:
        return f"[{self.header_path}#{self.blob[:TAG_DIGITS]}]"

    def text(self) -> str:
        """What `git agent-read` prints (see the module doc)."""
        out = [self.header] + [f"{self.first + i}:{line}" for i, line in enumerate(self.lines)]
        if not self.total:
            out.append("(empty file)")
        elif (self.first, self.last) != (1, self.total):
            out.append(f"({span(self.first, self.last)} of {self.total})")
        return "\n".join(out) + "\n"

    def as_dict(self) -> dict[str, object]:
        """`git agent-read --json`: the header to edit under, and the lines by number."""
        return {
            "version": 1,
            "path": self.path,
            "header": self.header,
            "tag": self.blob[:TAG_DIGITS],
            "blob": self.blob,
            "first": self.first,
            "last": self.last,
            "total": self.total,
            "lines": [{"line": self.first + i, "text": line} for i, line in enumerate(self.lines)],
        }


def read(
    guard_session: "Guard",
    path: str,
    lines: tuple[int, int] | None = None,
    agent: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    audience: Audience | None = None,
) -> str:
    """`path` as `git agent-read` prints it; records the read for `agent` (``shown``)."""
    return shown(guard_session, path, lines, agent, cwd, audience).text()


def shown(
    guard_session: "Guard",
    path: str,
    lines: tuple[int, int] | None = None,
    agent: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    audience: Audience | None = None,
) -> Shown:
    """`path` as a read shows it; records the read for `agent`.

    A relative `path` starts from `cwd` (default: the current folder) when that is inside
    the work tree, else from the root, as for ``Guard.apply``; the header names the file
    the same way.  Hints name `audience`'s tools (default: the command line).  Raises
    ``Unreadable`` when the file cannot be shown.
    """
    from ..checks import content_finding
    from .engine import default_agent

    who = default_agent(agent)
    repo = guard_session.repo
    here = guard_session.folder(cwd)
    reader = audience or Audience("cli", here)
    raw = paths.from_folder(here, path)
    # The engine's own resolver: a protected path (.env, the policy, git's folders) is not
    # shown, nor stored as a blob, unless the policy says read_protected: true.  `src/`
    # names a folder as surely as `src` does: the name is judged without its slash.
    rel, finding = guard_session.resolve(raw.rstrip("/") or raw, guard_session.policy(who), reading=True)
    if finding is not None or rel is None:
        raise Unreadable(finding or error("path-outside", path, None, f"{path!r} is not a file in the repository"))
    folder = _folder(guard_session.root, rel)
    if folder is not None:
        raise Unreadable(folder)
    if raw.endswith("/"):
        raise Unreadable(
            error(
                "missing",
                rel,
                None,
                f"{path!r} names a folder, and there is no folder {rel}",
                f"name a file (without the trailing '/'), e.g. {rel}",
            )
        )
    with worktree.locked(repo):
        try:
            data, _mode = worktree.read(guard_session.root, rel)
        except worktree.NotAFile as exc:
            raise Unreadable(_folder(guard_session.root, rel) or special_file(exc, creates=False)) from None
        except worktree.UnsafePath as exc:
            raise Unreadable(
                _folder(guard_session.root, rel)
                or error(
                    "path-outside",
                    rel,
                    None,
                    f"{exc}: agent-guard never reads through a symlink",
                    "read the file the link points to, by its own path inside the repository",
                )
            ) from None
        if data is None:
            raise Unreadable(
                error(
                    "missing",
                    rel,
                    None,
                    f"{rel} does not exist",
                    f"check the path ({paths.start_rule(here)}), or create the file with {reader.create(rel)}",
                )
            )
        bad = content_finding(rel, data, repo.attr)
        if bad is not None:
            raise Unreadable(bad)
        text = decode(data)
        n = len(text.lines)
        a, b = lines if lines is not None else (1, n)
        b = min(b, n)
        if n and a > n:
            raise Unreadable(
                error(
                    "not-found",
                    rel,
                    a,
                    f"line {a} is past the end of {rel} ({n} lines)",
                    f"read lines 1 to {n}, e.g. with {reader.read(rel, who, (max(1, n - 39), n))}",
                )
            )
        blob = repo.write_blob(data)
        reads.record(repo, guard_session.reader(who), rel, blob, (a, b) if a <= b else None)
    return Shown(rel, posixpath.relpath(rel, here) if here else rel, blob, a, b, n, tuple(text.lines[a - 1 : b]))


SHOWN_ENTRIES = 10  # names of a folder listed in the hint of a read that named it


def _folder(root: Path, rel: str) -> Finding | None:
    """The finding for a read of a plain folder (not a link to one: the resolver refused those)."""
    full = root / rel
    if full.is_symlink() or not full.is_dir():
        return None
    try:
        names = sorted(n + ("/" if (full / n).is_dir() else "") for n in os.listdir(full) if n != ".git")
    except OSError:
        names = []
    listed = ", ".join(f"{rel}/{n}" for n in names[:SHOWN_ENTRIES])
    more = f" and {len(names) - SHOWN_ENTRIES} more" if len(names) > SHOWN_ENTRIES else ""
    what = f"it holds {listed}{more}" if names else "it is empty"
    return error("missing", rel, None, f"{rel} is a folder, not a file; a read shows one file", f"name a file in it: {what}")
