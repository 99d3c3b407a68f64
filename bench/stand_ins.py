"""Stand-ins for code: recall on elisions, false alarms on honest edits (run by hand).

Every entry is an edit of a small real-looking source file in ``stand_ins/templates``
(one a language: Python, JavaScript, TypeScript, Go, Rust, Ruby, Java, C, shell, PHP,
SQL, HTML), sent through the whole engine as an agent's JSON str_replace call
(``Guard.apply(..., check=True)`` in a scratch repository holding every template).
An elision counts as found when the report holds a ``placeholder`` finding; an honest
edit is a false alarm when it does.  Any other refusal of an entry is printed: the
entry is broken (its old text is not in the template, say), not a verdict.

Two kinds of list, each frozen once written (a figure is never made better by editing
a list; a new list is added instead):

- **wordings** (``*wordings*.txt``): ``LANG | TEXT``, one a line.  TEXT replaces the
  body of the template's loop (the 5-9 lines indented under its loop header, ``BODY``
  below), each of its lines put at the body's indentation; ``\\n`` breaks TEXT into
  lines, ``\\t`` is a tab, ``\\uXXXX`` a character.  LANG is the template's suffix.
- **edits** (``*edits*.txt``): whole edits, each a header ``### LANG: what it is`` and
  one or more hunks against templates.  A hunk starts with ``@@ FILE`` (a template's
  name) and holds lines prefixed like a diff's: `` `` kept, ``-`` removed, ``+`` added.
  The kept and removed lines, in order, are the str_replace's old text (it must occur
  once in the template); the kept and added lines its new text.  Several hunks make one
  call with several edits (one file) or an array of calls (several files): one edit.

Which list is which, and whether it is held out (written by someone who had not read
the rule, measured once), is said at the top of each file.

    python bench/stand_ins.py [--show] [LIST ...]     (default: every list in stand_ins/)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV  # noqa: E402  (bench/, this script's folder)

HERE = Path(__file__).resolve().parent / "stand_ins"
TEMPLATES = HERE / "templates"

# suffix -> (template, the loop header whose indented lines are the body a wording replaces)
BODY: dict[str, tuple[str, str]] = {
    "py": ("invoice.py", "    for line in lines:"),
    "js": ("invoice.js", "  for (const line of lines) {"),
    "ts": ("invoice.ts", "  for (const line of lines) {"),
    "go": ("invoice.go", "\tfor _, line := range lines {"),
    "rs": ("invoice.rs", "    for line in lines {"),
    "rb": ("invoice.rb", "    lines.each do |line|"),
    "java": ("Invoice.java", "        for (Line line : lines) {"),
    "c": ("invoice.c", "    for (size_t i = 0; i < n; i++) {"),
    "sh": ("invoice.sh", 'for file in "$@"; do'),
    "php": ("invoice.php", "    foreach ($lines as $line) {"),
    "sql": ("invoice.sql", "SELECT"),
    "html": ("invoice.html", '  <ul class="notes">'),
}


@dataclass(frozen=True)
class Entry:
    list_name: str
    lang: str
    title: str
    calls: tuple[dict[str, object], ...]  # the JSON str_replace calls of one edit


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def body_span(lines: list[str], header: str) -> tuple[int, int]:
    """[start, stop) of the lines indented deeper than `header`, right after it."""
    at = lines.index(header)
    depth = len(_indent(header).expandtabs(4))
    stop = at + 1
    while stop < len(lines) and lines[stop].strip() and len(_indent(lines[stop]).expandtabs(4)) > depth:
        stop += 1
    return at + 1, stop


def _unescape(text: str) -> str:
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return text.replace("\\t", "\t")


def read_wordings(path: Path) -> list[Entry]:
    out: list[Entry] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        lang, bar, text = raw.partition(" | ")
        lang = lang.strip()
        if not bar or lang not in BODY:
            raise SystemExit(f"{path.name}: not `LANG | TEXT` with a known LANG: {raw!r}")
        name, header = BODY[lang]
        lines = (TEMPLATES / name).read_text(encoding="utf-8").split("\n")
        start, stop = body_span(lines, header)
        indent = _indent(lines[start])
        new = [indent + _unescape(part) for part in text.split("\\n")]
        call = {"file_path": name, "old_string": "\n".join(lines[start:stop]), "new_string": "\n".join(new)}
        out.append(Entry(path.name, lang, text, (call,)))
    return out


def read_edits(path: Path) -> list[Entry]:
    out: list[Entry] = []
    entry: tuple[str, str] | None = None
    hunks: list[tuple[str, list[str], list[str]]] = []

    def close() -> None:
        if entry is None:
            return
        if not hunks:
            raise SystemExit(f"{path.name}: {entry[1]!r} has no hunk")
        by_file: dict[str, list[dict[str, object]]] = defaultdict(list)
        for name, old, new in hunks:
            template = (TEMPLATES / name).read_text(encoding="utf-8")
            found = template.count("\n".join(old))
            if found != 1 or not old:
                raise SystemExit(f"{path.name}: {entry[1]!r}: the old text of a hunk occurs {found} times in {name}")
            by_file[name].append({"old_string": "\n".join(old), "new_string": "\n".join(new)})
        calls = tuple(
            {"file_path": name, **edits[0]} if len(edits) == 1 else {"file_path": name, "edits": edits}
            for name, edits in by_file.items()
        )
        out.append(Entry(path.name, entry[0], entry[1], calls))

    for raw in path.read_text(encoding="utf-8").split("\n"):
        if raw.startswith("### "):
            close()
            lang, _colon, title = raw[4:].partition(":")
            entry, hunks = (lang.strip(), title.strip()), []
        elif raw.startswith("@@ "):
            if entry is None:
                raise SystemExit(f"{path.name}: a hunk before any `### ` header")
            hunks.append((raw[3:].strip(), [], []))
        elif entry is not None and hunks and raw[:1] in (" ", "-", "+"):
            _name, old, new = hunks[-1]
            if raw[0] in " -":
                old.append(_unescape(raw[1:]))
            if raw[0] in " +":
                new.append(_unescape(raw[1:]))
        elif raw.strip() and not raw.startswith("#"):
            raise SystemExit(f"{path.name}: a line that is no part of an entry: {raw!r}")
    close()
    return out


def read_list(path: Path) -> tuple[list[Entry], bool]:
    """The entries of one list, and whether they are elisions (True) or honest edits (False)."""
    first = path.read_text(encoding="utf-8").split("\n", 1)[0].lower()
    elisions = "elision" in first or "stand-in" in first
    entries = read_wordings(path) if "wordings" in path.name else read_edits(path)
    return entries, elisions


class Engine:
    """A scratch repository holding every template, edited through Guard.apply."""

    def __init__(self, root: Path) -> None:
        from guard.pipeline.engine import Guard

        os.environ.update(GIT_ENV)
        for template in TEMPLATES.iterdir():
            (root / template.name).write_bytes(template.read_bytes())
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
            subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=60, check=True)
        self.guard = Guard(root)

    def judge(self, entry: Entry) -> tuple[bool, list[str]]:
        """(a placeholder finding, the codes of every other error finding)."""
        data = entry.calls[0] if len(entry.calls) == 1 else list(entry.calls)
        report = self.guard.apply(json.dumps(data), format="json", check=True)
        codes = [f.code for f in report.findings if f.severity == "error"]
        return "placeholder" in codes, [c for c in codes if c != "placeholder"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lists", nargs="*", help="list files (default: every .txt in bench/stand_ins)")
    ap.add_argument("--show", action="store_true", help="print every miss and false alarm")
    ap.add_argument("--parse-only", action="store_true", help="read and count the lists, judge nothing")
    args = ap.parse_args()
    paths = [Path(p) for p in args.lists] or sorted(HERE.glob("*.txt"))
    if args.parse_only:
        for path in paths:
            entries, elisions = read_list(path)
            langs = sorted({e.lang for e in entries})
            kind = "elisions" if elisions else "honest edits"
            print(f"{path.name}: {len(entries)} {kind} in {len(langs)} languages ({', '.join(langs)})")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(Path(tmp))
        for path in paths:
            entries, elisions = read_list(path)
            per_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            broken = 0
            for entry in entries:
                flagged, others = engine.judge(entry)
                if others and not flagged:
                    broken += 1
                    print(f"  BROKEN ENTRY ({', '.join(others)}) {entry.lang}: {entry.title!r}")
                    continue
                per_lang[entry.lang][0] += flagged == elisions
                per_lang[entry.lang][1] += 1
                if args.show and flagged != elisions:
                    print(f"  {'MISSED' if elisions else 'FALSE ALARM'} {entry.lang}: {entry.title!r}")
            right = sum(r for r, _n in per_lang.values())
            total = sum(n for _r, n in per_lang.values())
            what = "found" if elisions else "passed (not flagged)"
            tail = f", {broken} broken" if broken else ""
            print(f"{path.name}: {right}/{total} {what} ({100 * right / max(total, 1):.1f}%){tail}")
            for lang, (r, n) in sorted(per_lang.items()):
                print(f"    {lang:<5} {r}/{n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
