"""`placeholder`: added text that stands in for code ("... existing code ...").

Lazy elision is an agent writing ``# ... rest of the function unchanged ...`` where
the code should be; applied as written, it deletes that code.  Only added lines
count, and only phrases the removed lines did not already hold.  Two judgements:

**What the edit does** (wherever the phrase stands: code, comment, doc comment,
docstring, string).  An added line holding a strong elision phrase (one wrapped in
an ellipsis or brackets, ``... rest of the function unchanged ...``, or a bare one
such as ``rest of the code unchanged``) that stands where the edit removes lines its
added text does not hold is a placeholder: those lines are gone, and the phrase
says they were meant to stay.  In prose (docstrings, doc comments, strings) a bare
phrase that ends a sentence (``... are unchanged.``) or continues one is prose.
A whole-file write (any dialect) that shrinks the file and holds such a phrase, or
ends with a bare marker (``...``, ``// ...``), is refused the same way.

A note in any wording counts there too (``notes``: read for what it says, in ten
languages, look-alike letters and invisible characters folded): a comment-only line,
a line of a docstring or doc comment, or a note in brackets or an ellipsis
(``[lines 2-4 unchanged]``) that stands where the edit removes lines and says the
code is kept, elsewhere, omitted or the same (``# rest of the code``, ``# body
unchanged``, ``// 其余代码不变``).  A note that says so firmly (``# body unchanged``,
``# other methods omitted``) is a placeholder whatever the edit writes around it; one
that says less (``# same as above``, ``# existing code``, ``# etc.``) only when it is all
the edit writes there, for among new lines it may as well head them.  In prose only
firm notes count, standing alone and not ending a sentence.  A comment that explains
the new code (``# sum the items with the builtin``, ``# keep the cache warm``) holds
words that say what code does, and is never one.

**Comments that look like markers**, found with ``comments.CommentMap``, so Python's
Ellipsis, JS spread, Go/C variadics, Rust ``..``, strings, docstrings and doctests
never count as comments:
- a comment holding an elision phrase in an ellipsis or brackets is a placeholder
  wherever it is, and so is a bare phrase (``rest of the class unchanged``) unless it
  ends a sentence begun on the comment line above, or sits in a doc comment;
- a comment holding only ``...``, or a looser ``... your app logic``, is one when it
  stands alone among code lines and the edit removes code (it stands in for that
  code); inside a run of comments it continues an example or a list, and in a new
  file it deletes nothing;
- such a weak marker still counts when the edit shrinks the file drastically, or when
  the new text ends with it.

Speed and safety: only lines with an ellipsis or a trigger word are looked at
(``str.find`` over the added block, not a regex trying every position; text that is
not ASCII is folded first, and searched for the words of other scripts too; a note's
trigger words only among lines that stand where the edit removes lines), each is
first judged on its line alone, and the file is lexed only for those that could
still be placeholders.  A line longer than ``phrases.MAX_LINE`` is never a marker and is
not judged or searched at all, and no judged text is longer than ``phrases.MAX_BODY``: the
patterns cannot spend more than a bounded time on any line an agent sends.

The words and patterns, and ``judge``, are in ``phrases``; comments that look like
markers in ``markers``; what the edit does in ``in_place``; the stand-in rule (a line
that does no work where code was) in ``standin``.  This module makes the findings.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..fs.kept import by_value
from ..model import FileChange, Finding
from ..text.lookalikes import disguised, fold
from ..tree.diffs import ChangedLines, changed_lines
from . import standin
from .base import CheckInput, capped, hits, quote
from .in_place import in_place, norm, regions_of
from .markers import Marker, file_markers, last_nonblank, line_count
from .phrases import TWO_WORDS

HINT = "write the full code or leave that region out of the edit"
# At commit time the person committing reads it: their way out of the check, when the text is meant.
COMMIT_HINT = (
    "write the code in full, or take those lines out of the commit; if the text is meant to stay (a test "
    "fixture, a document about elision), keep the check off the file: `exclude: {{placeholder: [{path!r}]}}` "
    "in .agent-guard.yaml"
)
WHOLE_HINT = (
    "send the whole new text, every line of it, or change the file with a diff or SEARCH/REPLACE edit of the lines that change"
)


@by_value(64)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.MULTILINE) if patterns else None


def check(inp: CheckInput, level: str) -> list[Finding]:
    policy = inp.policy
    extra = _compiled(policy.placeholder_patterns)
    exempt = _compiled(policy.placeholder_exempt)
    findings: list[Finding] = []
    edit = standin.Edit(inp.changes)  # the stand-in rule judges the whole edit: code may move between files
    for change in inp.changes:
        if change.after is None or not change.added:
            continue
        regions = changed_lines(change) if change.removed else []
        found = file_markers(change, exempt, inp.blocks)
        found += in_place(change, exempt, {m.line for m in found if m.strong}, inp.blocks, regions)
        if extra is not None:
            for _i, n, t in hits(change, extra, inp.blocks):
                m = extra.search(t)
                if m and not (exempt is not None and exempt.search(t)):
                    found.append(Marker(n, t, m.group(), True))
        found = _new_only(change, found)
        phrased = _findings(change, found, level, regions)
        known = {f.line for f in phrased if f.line is not None}
        findings += phrased + standin.findings(change, regions, edit, level, known, exempt)
    if inp.committed is not None:
        findings = [replace(f, hint=COMMIT_HINT.format(path=f.path)) for f in findings]
    return capped(findings)


def _new_only(change: FileChange, found: list[Marker]) -> list[Marker]:
    """Drop markers the removed lines already held: moving a placeholder is not adding one."""
    if not found or not change.removed:
        return found
    old_lines = {norm(t) for _n, t in change.removed}
    old_text = "\n".join(old_lines)

    def held(m: Marker) -> bool:
        # A bare `...` is in any code that spreads or takes varargs: only the same line counts as moved.
        words = TWO_WORDS().search(m.phrase) is not None
        return norm(m.text) in old_lines or (words and norm(m.phrase) in old_text)

    return [m for m in found if not held(m)]


def _findings(change: FileChange, found: list[Marker], level: str, lines: list[ChangedLines] | None = None) -> list[Finding]:
    path = change.path
    out: list[Finding] = []
    regions = regions_of(change, lines) if change.removed and any(m.strong and not m.whole for m in found) else {}
    for m in found:
        if not m.strong:
            continue
        if m.whole:
            out.append(Finding("placeholder", level, path, m.line, m.whole, WHOLE_HINT))
            continue
        gone = m.replaces or sum(1 for t in regions.get(m.line, ()) if t.strip())
        if gone:
            effect = f"applied as written it would delete the {_count(gone, 'line')} it stands in for"
        else:
            effect = "it adds no code, only a note that code belongs there"
        said = repr(m.phrase)
        if disguised(m.phrase):
            said += f", which reads {fold(m.phrase).strip()!r}: look-alike or invisible characters"
        out.append(
            Finding(
                "placeholder", level, path, m.line, f"the added line {quote(m.text)} stands in for code ({said}); {effect}", HINT
            )
        )
    weak = [m for m in found if not m.strong]
    if not weak or change.before is None or change.after is None:
        return out
    old_n, new_n = line_count(change.before), line_count(change.after)
    if new_n < old_n * 0.5 and old_n - new_n > 20:
        m = weak[0]
        out.append(
            Finding(
                "placeholder",
                level,
                path,
                m.line,
                f"the edit shrinks the file from {old_n} to {new_n} lines around {quote(m.text)}; "
                "the marker looks like elided code",
                HINT,
            )
        )
    elif new_n < old_n and weak[-1].line == last_nonblank(change.after):
        m = weak[-1]
        out.append(
            Finding(
                "placeholder",
                level,
                path,
                m.line,
                f"the new text ends with {quote(m.text)} and is shorter than before; the rest of the file looks elided",
                HINT,
            )
        )
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"
