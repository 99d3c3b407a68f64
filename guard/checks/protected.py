"""`path-protected`: the policy's protected globs and allow-list, on every path an edit touches.

A rename is judged on both its names: moving a protected file away is changing it.
"""

from __future__ import annotations

from ..model import Finding
from ..paths import protected_finding
from .base import CheckInput


def check(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        for path in dict.fromkeys(p for p in (change.old_path, change.path) if p):
            finding = protected_finding(path, inp.policy)
            if finding is not None:
                findings.append(finding)
    return findings
