"""Find where each change goes, tolerant of bookkeeping mistakes, never guessing.

Each change is matched against the file *as it was* (several changes to one file
never see each other's results), through named tiers that loosen the comparison
one step at a time.  A tier that finds exactly one place wins; a tier that finds
several refuses with ``ambiguous`` instead of falling through; a tier that finds
none hands over to the next.  The tiers a match needed are reported as repairs.

Normalisations are cumulative and always applied in one fixed order, whatever
the order of the tiers: ``eol`` (drop a CR before the line end), ``unicode``
(typographic quotes, dashes, exotic spaces, zero-width characters),
``trailing-whitespace`` (spaces and tabs at the end of a line), ``indent`` (the
edit's lines shifted by one uniform indent, which is then applied to its new
lines).  ``escape`` retries with JSON-style escapes (``\\n``, ``\\t``, ``\\"``,
``\\\\``) decoded.  ``fuzz`` lets *context* lines differ or be invented, never
removed lines.  ``offset`` is reported when a line-number hint was wrong,
``recount`` when a hunk's header counts disagreed with its body (or stray blank
context at a hunk's edge had to be dropped).

Lines the edit does not change keep their exact bytes from the file.
Matching is index-based: a dictionary from normalised line to positions gives
the candidates of the rarest line of the block, so a hunk costs O(candidates x
hunk length), never O(file length x hunk length).

The package, one module per kind of change: ``index`` (the file index, the tiers,
block matching), ``hunk`` (diff hunks and Codex chunks; SEARCH/REPLACE blocks are
hunks), ``substring`` (str_replace texts), ``line_range`` (line ranges), ``snippet`` and ``pieces``
(lazy snippets), ``likeness`` (second places a loose match must rule out), ``hints``
(what a `not-found` shows), ``splice`` (the ``Located`` value every locator gives,
and applying splices), ``rebase`` (git's merge rule for an edit made against other
text than the file holds now).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..model import Change, Finding, Hunk, Replace, Snippet
from ..text.textfile import Text
from .hunk import locate_hunk
from .index import ALL_TIERS, UNICODE, file_index, unescape
from .splice import Located, Splice, apply_splices, miscount_finding, overlaps

__all__ = ["ALL_TIERS", "UNICODE", "Located", "Splice", "apply_splices", "locate_changes", "unescape"]


def locate_changes(text: Text, changes: Sequence[Change], tiers: Sequence[str], path: str, ordered: bool = True) -> Located:
    """Locate every change of one file against `text` as it was: one Located for the file.

    `ordered` changes (diff hunks, Codex chunks) must appear in file order: each is
    looked for after the previous one, which also narrows what counts as unique.
    """
    fi = file_index(text)
    splices: list[Splice] = []
    repairs: list[str] = []
    notes: list[str] = []
    findings: list[Finding] = []
    lo = 0
    drift = 0
    for ch in changes:
        window = (lo if ordered else 0, len(fi.keys))
        if isinstance(ch, Hunk):
            miscounted = ch.declared_old is not None and (
                ch.declared_old != len(ch.old_lines) or (ch.declared_new is not None and ch.declared_new != len(ch.new_lines))
            )
            if miscounted and "recount" not in tiers:
                findings.append(miscount_finding(ch, path))
                continue
            got = locate_hunk(fi, ch, tiers, window, path, drift)
            if got.splices and miscounted:
                got = replace(got, repairs=got.repairs + ("recount",))
            if got.splices and ch.old_start is not None and ch.old_lines:
                drift = got.splices[0].start - (ch.old_start - 1)
            if got.splices:
                lo = got.splices[0].end
        # The other kinds' locators load with the first change of their kind: a diff's
        # apply does not pay for them.
        elif isinstance(ch, Replace):
            from .substring import locate_replace

            got = locate_replace(fi, ch, tiers, path)  # unordered: looked for in the whole file
        elif isinstance(ch, Snippet):
            from .snippet import locate_snippet

            got = locate_snippet(fi, ch, tiers, path)
        else:
            from .line_range import locate_range

            got = locate_range(fi, ch, path)
        splices += got.splices
        repairs += got.repairs
        notes += got.notes
        findings += got.findings
    findings += overlaps(splices, path)
    return Located(tuple(splices), tuple(repairs), tuple(notes), tuple(findings))
