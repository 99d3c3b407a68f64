"""Splices, the one value every locator produces, and applying them to a file's text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..model import Finding, Hunk, error
from ..text.textfile import Text, split
from ..text.wording import span


@dataclass(frozen=True, slots=True)
class Splice:
    """Replace file lines [start, end) with `new` ((text, terminator) pairs).

    A splice placed although some of the lines it keeps differ from the file (the
    ``fuzz`` tier, a lazy snippet's loose line) also carries the edit's own view:
    ``seen``, those file lines as the edit saw them, and ``meant``, what the edit
    makes of them.  Such a splice is not written as it is: git's three-way merge of
    the two views with the file decides (``rebase.onto_file``).
    """

    start: int
    end: int
    new: tuple[tuple[str, str], ...]
    source_line: int = 0
    final_newline: bool | None = None  # set when the edit says how the file must end
    seen: tuple[tuple[str, str], ...] | None = None
    meant: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True, slots=True)
class Located:
    """What locating gives, one value out of every locator: the splices to make, the
    repairs they needed, notes; or the findings that refuse the change (then no splices).

    ``locate_changes`` gives one for a whole file, gathered from each change's.
    """

    splices: tuple[Splice, ...] = ()
    repairs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()

    @classmethod
    def refusing(cls, finding: Finding) -> Located:
        return cls(findings=(finding,))


def miscount_finding(h: Hunk, path: str) -> Finding:
    return error(
        "parse-error",
        path,
        h.source_line or None,
        f"the hunk at input line {h.source_line} declares {h.declared_old} old and {h.declared_new} new lines "
        f"but holds {len(h.old_lines)} and {len(h.new_lines)}, and this policy's locate tiers exclude `recount`",
        f"count the lines again: {len(h.old_lines)} old (context and '-') and {len(h.new_lines)} new "
        "(context and '+'), or regenerate the diff",
    )


def overlaps(splices: list[Splice], path: str) -> list[Finding]:
    found = []
    ordered = sorted(splices, key=lambda s: (s.start, s.end))
    for a, b in zip(ordered, ordered[1:]):
        if b.start < a.end or (b.start == a.end and (a.start == a.end or b.start == b.end) and a.start == b.start):
            found.append(
                error(
                    "overlap",
                    path,
                    b.start + 1,
                    f"two edits touch the same lines of {path} ({span(a.start + 1, max(a.end, a.start + 1))} "
                    f"and {span(b.start + 1, max(b.end, b.start + 1))})",
                    "merge them into one edit, or make each edit cover different lines",
                )
            )
    return found


def apply_splices(text: Text, splices: Iterable[Splice]) -> tuple[Text, list[tuple[int, int, int, int]]]:
    """The new text and the changed regions (a0, a1, b0, b1) for the diff."""
    lines: list[str] = []
    eols: list[str] = []
    regions: list[tuple[int, int, int, int]] = []
    pos = 0
    final: bool | None = None
    for sp in sorted(splices, key=lambda s: (s.start, s.end)):
        lines.extend(text.lines[pos : sp.start])
        eols.extend(text.eols[pos : sp.start])
        b0 = len(lines)
        for ln, e in sp.new:
            lines.append(ln)
            eols.append(e)
        regions.append((sp.start, sp.end, b0, len(lines)))
        pos = sp.end
        if sp.final_newline is not None:
            final = sp.final_newline
    lines.extend(text.lines[pos:])
    eols.extend(text.eols[pos:])
    dominant = text.dominant_eol()
    if final is None:
        final = text.final_newline if text.lines else True
    # Only the old last line can lack a terminator; if lines now follow it, it needs one.
    if "" in eols[:-1]:
        for i in range(len(eols) - 1):
            if eols[i] == "":
                eols[i] = dominant
    if eols:
        if not final:
            eols[-1] = ""
        elif eols[-1] == "":
            eols[-1] = dominant
    if text.lines and (not text.final_newline or not final):
        n, m = len(text.lines), len(lines)
        a_s, b_s = (regions[-1][0], regions[-1][2]) if pos == n and regions else (n, m)
        regions.append((max(0, a_s - 1), n, max(0, b_s - 1), m))
    return Text(tuple(lines), tuple(eols), text.bom), _merge_regions(regions)


def _merge_regions(regions: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    out: list[tuple[int, int, int, int]] = []
    for r in sorted(regions):
        if out and r[0] <= out[-1][1]:
            a0, a1, b0, b1 = out[-1]
            out[-1] = (a0, max(a1, r[1]), b0, max(b1, r[3]))
        else:
            out.append(r)
    return out


def whole_text(text: Text, content: str) -> tuple[Text, list[str]]:
    """A whole-file write's new text over `text` (empty: a new file), keeping its BOM and (uniform)
    line endings: (text, repairs)."""
    bom = text.bom
    if content.startswith("\ufeff"):
        content, bom = content[1:], True
    new = split(content, bom)
    repairs: list[str] = []
    if text.lines and all(e == "\r\n" for e in text.eols if e) and all(e != "\r\n" for e in new.eols):
        new = Text(new.lines, tuple("\r\n" if e else "" for e in new.eols), bom)
        repairs.append("eol")
    return new, repairs
