"""A baseline: the findings a repository had when it adopted the check, which later checks pass over.

An existing repository seldom passes every check on the first day (test fixtures full
of conflict markers, old files with trailing blanks).  ``agent-guard check --all-files
--write-baseline FILE`` records today's findings; a policy that names the file
(``baseline: FILE``) makes every later `check` report only findings it does not list.

A finding is recorded by a fingerprint that survives edits elsewhere in the file: its
path, its code, and the text of the line it is about (not the line's number, which any
line added above it changes); a finding about no line, by its message.  The same
fingerprint may be listed several times (three identical blank-ended lines in one file):
a check passes over as many as the baseline counts, and reports the next one.  A finding
about no file (a commit's budget) is about the commit, not the repository: never listed.

The file is one of the policy's own files (``Policy.own_files``): agents cannot change
it, since a line it lists passes the check.  A range of commits reads it as committed
at the range's base, as it reads the policy, so no commit of the range can list its own
findings.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import UsageError
from ..model import FileChange, Finding
from ..repo import EXEC, FILE, GitRepo

VERSION = 1
Key = tuple[str, str, str]  # (path, code, the line's text, or the message of a finding about no line)


def _key(f: Finding, lines: dict[str, dict[int, str]]) -> Key | None:
    if not f.path:
        return None
    if f.line is not None:
        text = lines.get(f.path, {}).get(f.line)
        if text is not None:
            return f.path, f.code, text
    return f.path, f.code, f.message


def _lines(changes: Sequence[FileChange], findings: Sequence[Finding]) -> dict[str, dict[int, str]]:
    """The added lines of the files `findings` name, by number (built for those files only)."""
    named = {f.path for f in findings if f.path and f.line is not None}
    return {c.path: dict(c.added) for c in changes if c.path in named}


def keys(findings: Sequence[Finding], changes: Sequence[FileChange]) -> list[Key | None]:
    """Each finding's fingerprint (None: a finding about no file, which no baseline lists)."""
    lines = _lines(changes, findings)
    return [_key(f, lines) for f in findings]


class Baseline:
    """The fingerprints a baseline file lists, each with how many times (spent as findings match them)."""

    def __init__(self, where: str, counts: Counter[Key]) -> None:
        self.where = where
        self.left = counts
        self.matched = 0

    def passes(self, key: Key | None) -> bool:
        """Does the baseline list this finding (one more time)?  Each listing passes one finding."""
        if key is None or self.left.get(key, 0) <= 0:
            return False
        self.left[key] -= 1
        self.matched += 1
        return True

    def unlisted(self, findings: Sequence[Finding], changes: Sequence[FileChange]) -> list[Finding]:
        """`findings` (of `changes`) without those the baseline lists."""
        if not findings:
            return []
        return [f for f, key in zip(findings, keys(findings, changes)) if not self.passes(key)]


def parse(data: bytes, where: str) -> Baseline:
    """A baseline file's text (`where` names it in messages); a usage error when it is not one."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(
            f"baseline {where} is not a baseline file: {exc}; write it again with "
            "agent-guard check --all-files --write-baseline FILE"
        ) from None
    entries = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(entries, list):
        raise UsageError(
            f"baseline {where} is not a version-{VERSION} baseline file; write it again with "
            "agent-guard check --all-files --write-baseline FILE"
        )
    counts: Counter[Key] = Counter()
    for i, e in enumerate(entries):
        path, code, line = (e.get(k) for k in ("path", "code", "text")) if isinstance(e, dict) else (None,) * 3
        count = e.get("count", 1) if isinstance(e, dict) else None
        if (
            not (isinstance(path, str) and isinstance(code, str) and isinstance(line, str))
            or not isinstance(count, int)
            or isinstance(count, bool)
            or count < 1
        ):
            raise UsageError(
                f"baseline {where}: entry {i} is not {{path, code, text, count}}; write it again with "
                "agent-guard check --all-files --write-baseline FILE"
            )
        counts[(path, code, line)] += count
    return Baseline(where, counts)


def from_work_tree(root: Path, path: str) -> Baseline | None:
    """The baseline at `path` in the work tree (None: there is none)."""
    from ..fs.filekind import NotRegular, read_regular

    try:
        data = read_regular(root / path, follow=False)
    except FileNotFoundError:
        return None
    except NotRegular as exc:
        raise UsageError(f"baseline {path} is {exc.what}, not a regular file") from None
    except OSError as exc:
        raise UsageError(f"cannot read the baseline {path}: {exc.strerror}") from None
    return parse(data, path)


def from_commit(repo: GitRepo, commit: str, path: str, name: str) -> Baseline | None:
    """The baseline at `path` as committed in `commit` (named `name` in messages); None: not there."""
    entry = repo.tree_entry(repo.commit_tree(commit), path)
    if entry is None or entry.mode not in (FILE, EXEC):
        return None
    data = repo.read_blob(entry.oid)
    return None if data is None else parse(data, f"{name}:{path}")


def text(findings: Sequence[Finding], changes: Sequence[FileChange]) -> tuple[str, int]:
    """The baseline file listing `findings` (of `changes`), and how many it lists; sorted, so that
    writing it again over the same findings changes nothing."""
    counts = Counter(k for k in keys(findings, changes) if k is not None)
    entries = [{"path": p, "code": c, "text": t, "count": n} for (p, c, t), n in sorted(counts.items())]
    doc = {
        "version": VERSION,
        "tool": "agent-guard",
        "about": "findings agent-guard check passes over: path, code and the text of the line (or the message)",
        "findings": entries,
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n", sum(counts.values())


def write(target: str, content: str) -> None:
    """Write `content` to `target` (a path from the current folder) in one step (a rename)."""
    tmp = f"{target}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(content)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise UsageError(f"cannot write the baseline {target}: {exc.strerror}") from None


def described(files: Iterable[str]) -> str:
    names = sorted(set(files))
    return f"{len(names)} file{'s' if len(names) != 1 else ''}"
