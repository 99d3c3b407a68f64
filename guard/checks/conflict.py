"""`conflict-marker`: added lines that are merge-conflict markers.

``<<<<<<< ``, ``|||||||``, ``=======`` and ``>>>>>>> `` at the start of a line, of
the length the ``conflict-marker-size`` attribute gives (7 by default), as git's
own check sees them.  A lone ``=======`` is also a reStructuredText or Markdown
underline, so it counts only next to an opening or closing marker in the same
file.  Patches (``*.patch``, ``*.diff``) and files that already held the same
marker line are left alone.
"""

from __future__ import annotations

import re

from ..fs.kept import by_value
from ..model import FileChange, Finding
from .base import CheckInput, lines_containing, quote

_SKIP_SUFFIXES = (".patch", ".diff")


@by_value(16)
def _conflict_markers(size: int) -> re.Pattern[str]:
    return re.compile(rf"(?:<{{{size}}}|>{{{size}}}|\|{{{size}}})(?:[ \t]|$)|={{{size}}}$")


def _size(path: str, inp: CheckInput) -> int:
    value = inp.attr(path, "conflict-marker-size")
    if isinstance(value, str) and value.isdigit() and 1 <= int(value) <= 1024:
        return int(value)
    return 7


def _old_lines(change: FileChange) -> set[str]:
    if change.before is None:
        return set()
    return set(change.before.decode("utf-8", "replace").replace("\r\n", "\n").split("\n"))


def check(inp: CheckInput, level: str) -> list[Finding]:
    findings: list[Finding] = []
    for change in inp.changes:
        if change.after is None or not change.added or change.path.lower().endswith(_SKIP_SUFFIXES):
            continue
        size = _size(change.path, inp)
        conflict_marker = _conflict_markers(size)
        # A `=======` line counts only beside an opening or closing marker: look for it
        # only when one of those is there (a pass over the text saved for most files).
        suspects = lines_containing(change, [c * size for c in "<>|"], inp.blocks)
        if not suspects:
            continue
        suspects = lines_containing(change, [c * size for c in "<>|="], inp.blocks)
        found = [change.added[i] for i in suspects if conflict_marker.match(change.added[i][1])]
        if not found:
            continue
        old = _old_lines(change)
        found = [(n, t) for n, t in found if t not in old]
        if not any(t[0] in "<>|" for _n, t in found):
            continue  # lone `=======` lines: headings, not a conflict
        for number, text in found:
            findings.append(
                Finding(
                    "conflict-marker",
                    level,
                    change.path,
                    number,
                    f"the added line {quote(text)} is a merge-conflict marker",
                    "resolve the conflict: keep the right side's lines and drop the marker lines",
                )
            )
    return findings
