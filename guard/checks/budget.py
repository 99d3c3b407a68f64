"""`budget`: how much one edit, one turn, one session and one commit may change.

Per edit: files touched, lines added and removed, hunks, and the size of the
agent's input.  Per turn and per session: what the agent already used plus this
edit.  And no file may grow beyond ``max_file_bytes``.  A message names the
limit, the value seen and the policy layer that set it.

A commit (``CheckInput.committed``) is held to ``per_edit``, its bytes being those of
the lines it adds and removes, and to ``max_file_bytes`` only where it takes a file
past it: it has no agent, so no turn or session.
"""

from __future__ import annotations

from typing import Iterator, Mapping

from ..model import FileChange, Finding
from .base import CheckInput, Committed

_WHAT = {
    "files": "files", "lines_added": "added lines", "lines_removed": "removed lines",
    "hunks": "hunks", "bytes": "bytes of edit input",
}
_COMMITTED_WHAT = {**_WHAT, "bytes": "bytes of changed lines"}
_SCOPE = {"per_edit": "this edit", "per_turn": "this turn", "per_session": "this session"}
_HINT = {
    "per_edit": "split the change into smaller edits",
    "per_turn": "finish this turn and continue in the next one, or ask the user to raise the limit",
    "per_session": "this session's budget is spent; ask the user to review and raise the limit",
}


def measure(inp: CheckInput) -> dict[str, int]:
    """This edit's use of each budget key (a commit's, when the input is committed)."""
    changes = inp.changes
    return {
        "files": len({c.path for c in changes}),  # a rename is one file
        "lines_added": sum(len(c.added) for c in changes),
        "lines_removed": sum(len(c.removed) for c in changes),
        "hunks": sum(c.hunks for c in changes),
        "bytes": inp.edit_bytes if inp.committed is None else sum(_changed_bytes(c) for c in changes),
    }


def _exceeded(used: Mapping[str, int], limits: Mapping[str, int]) -> Iterator[tuple[str, int, int]]:
    """(key, value, limit) of each limit `used` goes past."""
    for key, limit in limits.items():
        value = used.get(key, 0)
        if value > limit:
            yield key, value, limit


def _over(scope: str, used: Mapping[str, int], inp: CheckInput, level: str) -> list[Finding]:
    out: list[Finding] = []
    for key, value, limit in _exceeded(used, inp.policy.budget(scope)):
        setting = f"budget.{scope}.{key}"
        out.append(Finding(
            "budget", level, None, None,
            f"{_SCOPE[scope]} would reach {value:,} {_WHAT.get(key, key)}; the limit is {limit:,} "
            f"({setting}, from {inp.policy.source(setting)})",
            _HINT[scope]))
    return out


def check(inp: CheckInput, level: str) -> list[Finding]:
    if inp.committed is not None:
        return _per_commit(inp, inp.committed, level)
    policy = inp.policy
    edit = measure(inp)
    findings = _over("per_edit", edit, inp, level)
    for scope, prior in (("per_turn", inp.usage.turn), ("per_session", inp.usage.session)):
        total = {key: prior.get(key, 0) + edit[key] for key in edit}
        findings += _over(scope, total, inp, level)
    limit = policy.max_file_bytes
    if limit is not None:
        for change in inp.changes:
            if change.after is not None and len(change.after) > limit:
                findings.append(Finding(
                    "budget", level, change.path, None,
                    f"{change.path} would be {len(change.after):,} bytes; the limit is {limit:,} "
                    f"(budget.max_file_bytes, from {policy.source('budget.max_file_bytes')})",
                    "keep the file smaller (split it), or ask the user to raise budget.max_file_bytes"))
    return findings


# --- a commit -------------------------------------------------------------------------------
def _changed_bytes(c: FileChange) -> int:
    """Bytes of the lines a change adds and removes (all of a new or deleted file)."""
    if c.before is None or c.after is None:
        return len(c.after if c.after is not None else c.before or b"")
    return sum(len(t.encode("utf-8", "surrogateescape")) + 1 for _n, t in (*c.added, *c.removed))


def _split_hint(committed: Committed, key: str) -> str:
    commit = committed.commit
    how = (f"split commit {commit[:10]} into smaller ones (`git rebase -i {commit[:10]}^`, "
           "mark it `edit`, then `git reset HEAD^` and commit in parts)" if commit else
           "commit it in parts: unstage some of it (`git restore --staged PATH`, or `git reset -p`) and commit the rest first")
    return f"{how}; or raise budget.per_edit.{key} in .agent-guard.yaml"


def _per_commit(inp: CheckInput, committed: Committed, level: str) -> list[Finding]:
    if not inp.changes:
        return []
    policy = inp.policy
    used = measure(inp)
    out: list[Finding] = []
    for key, value, limit in _exceeded(used, policy.budget("per_edit")):
        setting = f"budget.per_edit.{key}"
        out.append(Finding(
            "budget", level, None, None,
            f"{committed.label} has {value:,} {_COMMITTED_WHAT.get(key, key)}; one commit may have {limit:,} "
            f"({setting}, from {policy.source(setting)})", _split_hint(committed, key)))
    most = policy.max_file_bytes
    if most is not None:
        for c in inp.changes:
            if c.after is not None and len(c.after) > most and (c.before is None or len(c.before) <= most):
                out.append(Finding(
                    "budget", level, c.path, None,
                    f"{c.path} becomes {len(c.after):,} bytes in {committed.label}; the limit is {most:,} "
                    f"(budget.max_file_bytes, from {policy.source('budget.max_file_bytes')})",
                    "keep large files out of the repository (or split the file), or raise budget.max_file_bytes"))
    return out
