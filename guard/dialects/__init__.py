"""Input dialects: each is a module with ``NAME``, ``detect(text) -> int`` and
``parse(text, path=None) -> EditSet`` (raising ``ParseError``), registered below.

Parsers do no I/O.  ``detect`` returns a confidence from 0 (not this dialect) to
100 (certainly this dialect); ``auto`` takes the single best score.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..model import EditSet, Finding, ParseError, error
from ..report.audience import CLI, Audience
from . import contamination

# Dialect name -> module.  Imported on first use so start-up pays only for what runs.
DIALECTS: dict[str, str] = {
    "unified": "guard.dialects.unified",
    "codex": "guard.dialects.codex",
    "search-replace": "guard.dialects.searchreplace",
    "json": "guard.dialects.jsonedit",
    "whole": "guard.dialects.whole",
    "hashline": "guard.dialects.hashline",
    "hashline-json": "guard.dialects.hashline_json",
    "lazy": "guard.dialects.lazy",
    "structural": "guard.dialects.structural",
}

# Dialects `auto` considers: for each, the highest score its `detect` gives, and a string
# that every input it gives a score above 0 holds (None: no such string); the tests hold
# each `detect` to both.  `lazy` snippets look like placeholder elision and are only ever
# taken when asked for by name.  A dialect that could neither beat nor tie the best score
# so far is not asked, nor one whose string the input lacks (it scores 0), and its module
# is not imported: a git diff loads no Codex, SEARCH/REPLACE, JSON or whole-file parser,
# and only input holding `"pat` (every structural rewrite's "pattern" or "pat") loads the
# structural one (which scores a rewrite above `json`, so the JSON parser is not asked).
AUTO: dict[str, tuple[int, str | None]] = {
    "unified": (100, None),
    "codex": (100, "*** Begin Patch"),
    "structural": (95, '"pat'),
    "search-replace": (90, None),
    "json": (90, None),
    "hashline-json": (95, '"edits"'),
    "hashline": (100, "["),
    "whole": (20, None),
}

ACCEPTED = ", ".join(DIALECTS)


def module(name: str) -> ModuleType:
    return importlib.import_module(DIALECTS[name])


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:120]
    return ""


def detect(text: str) -> tuple[str | None, dict[str, int]]:
    """The one dialect with the best score (None: none scored, or a tie), and the scores of those asked."""
    scores: dict[str, int] = {}
    for name, (ceiling, marker) in AUTO.items():
        if scores and ceiling < max(scores.values()):
            continue
        if marker is not None and marker not in text:
            scores[name] = 0
            continue
        try:
            scores[name] = module(name).detect(text)
        except ModuleNotFoundError:
            continue
    best = max(scores.values(), default=0)
    if best <= 0:
        return None, scores
    winners = [n for n, s in scores.items() if s == best]
    return (winners[0] if len(winners) == 1 else None), scores


def _hint(exc: ParseError, audience: Audience, fallback: str) -> str:
    """The parser's hint, after how this reader reads the file it names (if it names one)."""
    hint = exc.hint or fallback
    if exc.read is None:
        return hint
    how = f"read the file with {audience.read(exc.read, as_written=True)}"
    return f"{how}; {hint}" if hint else how


def parse(
    text: str, dialect: str = "auto", path: str | None = None, audience: Audience = CLI
) -> tuple[EditSet | None, list[Finding]]:
    """Parse `text` in `dialect` (or detect it, for "auto"): an EditSet, or parse-error findings.

    Known contamination is handled around the dialect parsers (contamination.py):
    reasoning before the answer is blanked out, mixed dialects are refused, a patch
    wrapped in JSON or pasted with line numbers is retried once cleaned when no
    dialect could read it, and pasted line-number prefixes are stripped.
    """
    raw_content = dialect == "whole" and path is not None  # the input is a file's bytes, as they are
    if not raw_content:
        answer = contamination.answer(text)
        if text.strip() and not answer.strip():
            return None, [
                error(
                    "parse-error",
                    path,
                    1,
                    "the input is a reasoning block and nothing after it",
                    "send the edit itself after the closing tag of the reasoning",
                )
            ]
        text = answer
    edits, findings = _parse(text, dialect, path, audience)
    if edits is None and not raw_content:
        cleaned, repairs = contamination.clean(text)
        if repairs:
            again, later = _parse(cleaned, "auto" if dialect == "json" else dialect, path, audience)
            if again is not None:
                edits = again._replace(repairs=tuple(dict.fromkeys(again.repairs + repairs)))
            elif contamination.ESCAPE in repairs:
                findings = later  # the wrapper is gone: what is left to say is about the patch
    if edits is None or raw_content:
        return edits, findings
    try:
        return contamination.line_numbers(edits), []
    except ParseError as exc:
        return None, [error("parse-error", exc.path or path, exc.line, exc.message, _hint(exc, audience, ""))]


def _mixed(text: str, path: str | None, audience: Audience) -> Finding | None:
    found = contamination.mixed(text)
    if len(found) < 2:
        return None
    said = " and ".join(f"{name} (line {line}: {shown[:80]!r})" for name, line, shown in found)
    return error(
        "parse-error",
        path,
        found[1][1],
        f"input mixes dialects: {said}",
        f"send one dialect per call, or name the one to read with {audience.option('format')}; accepted dialects: {ACCEPTED}",
    )


def _parse(text: str, dialect: str, path: str | None, audience: Audience) -> tuple[EditSet | None, list[Finding]]:
    guessed = dialect == "auto"
    if guessed:
        mixed = _mixed(text, path, audience)
        if mixed is not None:
            return None, [mixed]
        name, scores = detect(text)
        if name is None:
            tied = sorted(n for n, s in scores.items() if s and s == max(scores.values()))
            if tied:
                msg = f"input looks like several dialects at once ({', '.join(tied)})"
                hint = f"send one dialect per call, or name it with {audience.option('format')}; accepted dialects: {ACCEPTED}"
            elif not text.strip():
                msg, hint = "empty input", f"send an edit in one of: {ACCEPTED}"
            else:
                msg = f"input is in no dialect agent-guard reads; first line: {_first_line(text)!r}"
                hint = f"accepted dialects: {ACCEPTED}"
            return None, [error("parse-error", path, 1, msg, hint)]
        dialect = name
    if dialect not in DIALECTS:
        return None, [error("parse-error", path, None, f"unknown format {dialect!r}", f"accepted dialects: {ACCEPTED}")]
    try:
        edits = module(dialect).parse(text, path=path)
    except ParseError as exc:
        hint = _hint(exc, audience, f"this was read as {dialect}; accepted dialects: {ACCEPTED}")
        return None, [error("parse-error", exc.path or path, exc.line, exc.message, hint)]
    if not edits.files and not edits.rewrites:
        return None, [error("parse-error", path, 1, f"the {dialect} input holds no edit", "send at least one file change")]
    return (edits._replace(detected=True) if guessed else edits), []
