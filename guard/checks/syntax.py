"""`syntax`: the edit leaves a file that no longer parses, where the original did.

An agent's edit that drops a bracket or mis-indents a block still matches and
applies; the result only fails later, in a build or at import time.  After an edit
is located, each touched file whose language has a parser here (see
``guard.syntax.languages``) is parsed as it would be written.  Only when that parse fails is
the original parsed too: a file that did not parse before is not held to it (it
may use syntax newer than our parser, or be a template), and the common case costs
one parse per file.  Python is parsed edit by edit (``guard.syntax.python``): only the
top-level statements an edit touched, when that settles it.  Deleted files, new files and files of other languages are
not judged.

The finding names the parser's error line and message, and the edited line
nearest to it (an error is often reported a few lines after the slip that caused
it).  Python is parsed for the oldest version the project supports when its
pyproject.toml says (``requires-python``, ruff, black or mypy targets).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..model import FileChange, Finding
from ..text.regex import lazy
from ..text.textfile import NotText, decode
from ..text.wording import CLIP
from .base import CheckInput, quote

if TYPE_CHECKING:
    from ..syntax.languages import Problem

_HUNK = lazy(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _root(inp: CheckInput) -> Path | None:
    """The repository's root, where pyproject.toml is, when the engine's lookups reveal it.

    CheckInput carries no root yet; the engine passes the repository's own `attr`
    lookup, whose repository knows it.  Without a root Python is parsed unnarrowed.
    """
    for source in (inp, getattr(inp.attr, "__self__", None), getattr(inp.tracked, "__self__", None)):
        root = getattr(source, "root", None)
        if isinstance(root, Path):
            return root
    return None


def edited_lines(change: FileChange) -> list[int]:
    """Lines of the new file the edit touched: each added line, and where lines were removed."""
    touched = {n for n, _t in change.added}
    if change.removed:
        nxt = 0  # the number the next line of the new side will have; 0 before the first hunk
        for raw in change.diff.split("\n"):
            m = _HUNK().match(raw)
            if m:
                nxt = int(m.group(1)) + (1 if m.group(2) == "0" else 0)
            elif nxt and raw.startswith(("+", " ")):
                nxt += 1
            elif nxt and raw.startswith("-"):
                touched.add(nxt)  # removed lines sat just before this line
    return sorted(touched)


def _nearest(lines: list[int], target: int) -> int | None:
    return min(lines, key=lambda n: (abs(n - target), n)) if lines else None


def _show(lines: tuple[str, ...], at: int, column: int) -> str:
    """The lines around `at`, the error's column marked; a long line shows ``CLIP`` characters
    from a little before the column (the same stretch of each line, so the mark stays under it)."""
    lo, hi = max(1, at - 2), min(len(lines), at + 2)
    long = any(len(lines[n - 1]) > CLIP for n in range(lo, hi + 1))
    start = max(0, column - 1 - CLIP // 4) if long else 0

    def shown(text: str) -> str:
        if not long:
            return text
        cut = text[start : start + CLIP]
        return ("..." if start else "") + cut + ("..." if len(text) > start + CLIP else "")

    out = [f"{n:>6}| {shown(lines[n - 1])}" for n in range(lo, hi + 1)]
    if 1 <= at <= len(lines):
        out.insert(at - lo + 1, "      | " + " " * max(0, column - 1 - start + (3 if start else 0)) + "^")
    return "\n".join(out)


def judge(change: FileChange, python: tuple[int, int] | None = None) -> tuple[Problem, int | None] | None:
    """(the parse problem the edit introduces, nearest edited line), or None."""
    from ..syntax import languages  # on first use: commands that check nothing do not load it

    if change.before is None or change.after is None or change.before == change.after:
        return None
    langs = [lang for lang in languages.languages_for(change.path) if languages.available(lang)]
    if not langs:
        return None
    if langs == ["python"]:
        # Parsed edit by edit: only the statements the edit touched, when that settles it.
        found_py = languages.new_python_problem(change.before, change.after, python)
        return None if found_py is None else (found_py, _nearest(edited_lines(change), found_py.line))
    found: dict[str, Problem] = {}
    for lang in langs:
        problem = languages.problem(lang, change.after, python)
        if problem is None:
            return None  # some grammar accepts the result
        found[lang] = problem
    # The result fails every grammar: it counts only against one that accepted the original.
    for lang, problem in found.items():
        if languages.problem(lang, change.before, python) is None:
            return problem, _nearest(edited_lines(change), problem.line)
    return None


def check(inp: CheckInput, level: str) -> list[Finding]:
    from ..syntax import languages

    findings: list[Finding] = []
    python = None
    for change in inp.changes:
        if "python" in languages.languages_for(change.path) and python is None:
            python = languages.python_target(_root(inp))
        verdict = judge(change, python)
        if verdict is None:
            continue
        prob, near = verdict
        try:
            lines = decode(change.after or b"").lines
        except NotText:
            continue
        path = change.path
        if near is not None and lines:
            near = min(near, len(lines))
            edit = f"; the nearest edited line is {near}: {quote(lines[near - 1])}"
        else:
            edit = ""
        target = f" (parsed as Python {python[0]}.{python[1]})" if python and prob.language == "python" else ""
        findings.append(
            Finding(
                "syntax",
                level,
                path,
                prob.line,
                f"after this edit {path} no longer parses as {prob.language}{target}: {prob.message} "
                f"(column {prob.column}){edit}",
                "the file parsed before the edit; fix the edit so it still does (a bracket, quote or indent "
                f"lost or added near line {near or prob.line}):\n" + _show(lines, prob.line, prob.column),
            )
        )
    return findings
