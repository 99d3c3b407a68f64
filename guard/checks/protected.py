"""`path-protected`: the policy's protected globs and allow-list, and control files, on every path an edit touches.

A rename is judged on both its names: moving a protected file away is changing it.
Control files (``guard.files.control``) are judged by name here, so a commit that changes
`.gitattributes` or `.pre-commit-config.yaml` is reported (a warning at commit time, worded for
the person committing: what it means for their commit, and the key that lets agents change it); an
agent's edit of one never gets this far (``target.resolve`` refuses it first).  The
``[tool.agent-guard]`` table of the top-level pyproject.toml is judged by what the change
does to it (``policy.pyproject``): the rest of that file is the agents' to change.
"""

from __future__ import annotations

from dataclasses import replace

from ..files.control import finding as control_finding
from ..files.control import fixed_kind
from ..files.paths import protected_finding
from ..model import Finding
from ..policy.pyproject import FILE, table_finding
from .base import LEVELS, CheckInput


def check(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    # Runs always (git's folders), but control files are reported only where the check is on.
    controls = inp.policy.level("path-protected") in LEVELS
    committing = inp.committed is not None  # the person committing reads the findings, not an agent
    for change in inp.changes:
        for path in dict.fromkeys(p for p in (change.old_path, change.path) if p):
            finding = protected_finding(path, inp.policy, committing)
            if finding is None and controls:
                what = fixed_kind(path)
                finding = control_finding(path, what, inp.policy, level, committing=committing) if what is not None else None
            if finding is not None:
                findings.append(finding)
        if FILE in (change.path, change.old_path):
            table = table_finding(change.path, change.old_path, change.before, change.after, committing)
            if table is not None:
                # Like the policy's own files for an agent's edit; at commit time, the check's level.
                findings.append(table if inp.committed is None else replace(table, severity=level))
    return findings
