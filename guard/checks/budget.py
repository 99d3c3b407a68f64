"""`budget`: how much one edit, one turn and one session may change.

Per edit: files touched, lines added and removed, hunks, and the size of the
agent's input.  Per turn and per session: what the agent already used plus this
edit.  And no file may grow beyond ``max_file_bytes``.  A message names the
limit, the value seen and the policy layer that set it.
"""

from __future__ import annotations

from typing import Mapping

from ..model import Finding
from .base import CheckInput

_WHAT = {
    "files": "files", "lines_added": "added lines", "lines_removed": "removed lines",
    "hunks": "hunks", "bytes": "bytes of edit input",
}
_SCOPE = {"per_edit": "this edit", "per_turn": "this turn", "per_session": "this session"}
_HINT = {
    "per_edit": "split the change into smaller edits",
    "per_turn": "finish this turn and continue in the next one, or ask the user to raise the limit",
    "per_session": "this session's budget is spent; ask the user to review and raise the limit",
}


def measure(inp: CheckInput) -> dict[str, int]:
    """This edit's use of each budget key."""
    return {
        "files": len({c.path for c in inp.changes}),  # a rename is one file
        "lines_added": sum(len(c.added) for c in inp.changes),
        "lines_removed": sum(len(c.removed) for c in inp.changes),
        "hunks": sum(c.hunks for c in inp.changes),
        "bytes": inp.edit_bytes,
    }


def _over(scope: str, used: Mapping[str, int], limits: Mapping[str, int], inp: CheckInput, level: str) -> list[Finding]:
    out: list[Finding] = []
    for key, limit in limits.items():
        value = used.get(key, 0)
        if value > limit:
            setting = f"budget.{scope}.{key}"
            out.append(Finding(
                "budget", level, None, None,
                f"{_SCOPE[scope]} would reach {value:,} {_WHAT.get(key, key)}; the limit is {limit:,} "
                f"({setting}, from {inp.policy.source(setting)})",
                _HINT[scope]))
    return out


def check(inp: CheckInput, level: str) -> list[Finding]:
    policy = inp.policy
    edit = measure(inp)
    findings = _over("per_edit", edit, policy.budget("per_edit"), inp, level)
    for scope, prior in (("per_turn", inp.usage.turn), ("per_session", inp.usage.session)):
        total = {key: prior.get(key, 0) + edit[key] for key in edit}
        findings += _over(scope, total, policy.budget(scope), inp, level)
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
