"""`untracked`: an edit may change only files git tracks, and create files only if allowed.

A rename creates its new name: under ``paths.create: false`` it is refused like a new file.

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
        creates = change.before is None or change.op is Op.CREATE
        # A move makes a path that was not there (the destination of a rename must not exist):
        # under `paths.create: false` it is a create like any other.
        moves = bool(change.old_path) and change.old_path != change.path
        if (creates or moves) and not inp.policy.allow_create:
            what = (
                f"moving {change.old_path} to {change.path} creates {change.path}"
                if moves and not creates
                else f"{change.path} does not exist"
            )
            findings.append(
                Finding(
                    "untracked",
                    level,
                    change.path,
                    None,
                    f"creating files is not allowed by policy ({what}; "
                    f"paths.create is false, from {inp.policy.source('paths.create')})",
                    "edit the file where it is instead, or ask the user to move it"
                    if moves and not creates
                    else "edit an existing file instead, or ask the user to create this one",
                )
            )
        if creates:
            continue
        source = change.old_path if change.op is Op.RENAME and change.old_path else change.path
        if not inp.tracked(source):
            verb = {Op.DELETE: "delete", Op.RENAME: "rename"}.get(change.op, "modify")
            findings.append(
                Finding(
                    "untracked",
                    level,
                    source,
                    None,
                    f"the edit would {verb} {source}, which git does not track; its old content could not be restored",
                    f"ask the user to `git add {source}` first, or leave it out of the edit",
                )
            )
    return findings
