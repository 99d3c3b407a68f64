"""`untracked`: an edit may change only files git tracks, and create files only if allowed.

An agent that modifies an untracked file changes something the ledger cannot
restore from git, and one that creates files where the policy forbids it adds
what nobody asked for.
"""

from __future__ import annotations

from ..model import Finding, Op
from .base import CheckInput


def check(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        if change.before is None or change.op is Op.CREATE:
            if not inp.policy.allow_create:
                findings.append(Finding(
                    "untracked", level, change.path, None,
                    f"creating files is not allowed by policy ({change.path} does not exist; "
                    f"paths.create is false, from {inp.policy.source('paths.create')})",
                    "edit an existing file instead, or ask the user to create this one",
                ))
            continue
        source = change.old_path if change.op is Op.RENAME and change.old_path else change.path
        if not inp.tracked(source):
            verb = {Op.DELETE: "delete", Op.RENAME: "rename"}.get(change.op, "modify")
            findings.append(Finding(
                "untracked", level, source, None,
                f"the edit would {verb} {source}, which git does not track; its old content could not be restored",
                f"ask the user to `git add {source}` first, or leave it out of the edit",
            ))
    return findings
