"""`no-op`: an edit that changes nothing.

An agent that sends the text a file already holds believes it changed something;
it is editing the wrong place, or repeating an edit that already landed.
"""

from __future__ import annotations

from ..model import Finding, Op
from .base import CheckInput


def check(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        moved = change.op is Op.RENAME or (change.old_path is not None and change.old_path != change.path)
        same_mode = change.old_mode == change.new_mode or change.old_mode is None or change.new_mode is None
        if change.before is not None and change.before == change.after and same_mode and not moved:
            findings.append(
                Finding(
                    "no-op",
                    level,
                    change.path,
                    None,
                    f"the edit changes nothing in {change.path}",
                    "the file already holds this text; skip this edit or check you are editing the right place",
                )
            )
    return findings
