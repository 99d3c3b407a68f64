"""Precision and recall of the `placeholder` check (run by hand).

Precision: every line of large installed code bases is fed to the check as added
lines, one whole file per FileChange (so the lexer sees each file from its start,
and the file name picks the comment syntax).  Real code holds no placeholders, so
every finding is a false positive; each is printed so the patterns can be
tightened.  Corpora: the Python standard library (sysconfig's "stdlib", without
site-packages unless --site-packages), the C/C++ headers under /usr/include, and
JavaScript/TypeScript under /usr/lib, /usr/local/lib and /usr/share.

A third pass judges the edit, not the comment: every line that holds an ellipsis
or a trigger word of a phrase or of a note ("unchanged", "omitted", "rest of",
"existing", "keep", "same", "etc", "...": real docstrings, doc comments, license
headers, strings and code alike) is written in
place of an older version of itself and its neighbours (each of those three lines
changed), as a real edit of that text would be.  The placeholder check judges
such a line by what the edit does (it stands where old lines go), so this is the
strictest real-text test of that rule; any finding is a false positive.

Recall: a fixed set of placeholder lines in many comment syntaxes, each put
between two lines of code; every one must be found.  Then a set of elisions
outside comments: docstrings, block and doc comments, strings, whole-file writes.  With --aider, also the elision
comments in the aider chat transcript of ../shared/corpora (skipped when missing).

    python bench/placeholder_precision.py [--site-packages] [--aider] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import sysconfig
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.checks import phrases, placeholder  # noqa: E402
from guard.checks.base import CheckInput, no_attr  # noqa: E402
from guard.model import FileChange, Op  # noqa: E402
from guard.policy import load  # noqa: E402
from guard.tree.diffs import make_change  # noqa: E402

POLICY = load(None, "default")
CODE_SUFFIXES = {".py", ".h", ".hpp", ".hh", ".c", ".cc", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"}

# (file name, placeholder line): 48 lines in 14 comment syntaxes.
RECALL: list[tuple[str, str]] = [
    ("a.py", "    # ... existing code ..."),
    ("a.py", "    # ... rest of the function unchanged"),
    ("a.py", "    # rest of the code unchanged"),
    ("a.py", "    # (keep existing code)"),
    ("a.py", "    # ... (other methods remain the same)"),
    ("a.py", "    # ..."),
    ("a.py", "    # …"),
    ("a.py", "    # unchanged code"),
    ("a.py", "    # same as before"),
    ("a.py", "    # previous code here"),
    ("a.py", "    # other methods ..."),
    ("a.py", "    pass  # ... rest of the implementation here"),
    ("a.py", "    # Rest of the class remains the same"),
    ("a.pyi", "    # ... existing methods ..."),
    ("a.js", "  // ... existing code ..."),
    ("a.js", "  // rest of the file stays the same"),
    ("a.js", "  /* ... */"),
    ("a.js", "  // ..."),
    ("a.tsx", "      {/* ... existing JSX ... */}"),
    ("a.ts", "  // (keep existing imports)"),
    ("a.ts", "  // ... other methods"),
    ("a.go", "\t// ... rest of the implementation as before"),
    ("a.go", "\t// existing code here"),
    ("a.rs", "    // ... (rest of the method unchanged)"),
    ("a.rs", "    // rest of the implementation remains unchanged"),
    ("a.java", "    // ... other methods ..."),
    ("a.java", "    /* rest of the class unchanged */"),
    ("a.c", "    /* ... existing code ... */"),
    ("a.cpp", "    // ... previous code remains the same ..."),
    ("a.cs", "        // ... keep all other methods unchanged"),
    ("a.html", "  <!-- ... existing markup ... -->"),
    ("a.html", "  <!-- rest of the page unchanged -->"),
    ("a.vue", "    <!-- ... -->"),
    ("a.md", "<!-- ... rest of the file unchanged ... -->"),
    ("a.sql", "  -- ... existing columns ..."),
    ("a.sql", "  -- rest of the query unchanged"),
    ("a.lua", "  -- ... existing code ..."),
    ("a.hs", "  -- ... other functions remain the same"),
    ("a.lisp", "  ;; ... existing code ..."),
    ("a.clj", "  ; rest of the function unchanged"),
    ("a.ini", "; ... existing settings ..."),
    ("a.tex", "% ... rest of the document unchanged"),
    ("a.erl", "    % ... existing code ..."),
    ("a.sh", "  # ... rest of the script unchanged"),
    ("a.rb", "  # ... existing methods ..."),
    ("a.yaml", "  # ... existing steps ..."),
    ("a.css", "  /* ... existing styles ... */"),
    ("a.php", "    // ... existing code ..."),
]

_CODE_AROUND = {
    ".py": ("def f(x):", "    return x"),
    ".pyi": ("class A:", "    def g(self) -> int: ..."),
    ".js": ("function f(x) {", "}"),
    ".ts": ("function f(x: number) {", "}"),
    ".tsx": ("  return (<div>", "  </div>);"),
    ".go": ("func f(x int) int {", "}"),
    ".rs": ("fn f(x: i32) -> i32 {", "}"),
    ".java": ("class A {", "}"),
    ".c": ("int f(int x) {", "}"),
    ".cpp": ("int f(int x) {", "}"),
    ".cs": ("class A {", "}"),
    ".html": ("<div>", "</div>"),
    ".vue": ("<template>", "</template>"),
    ".md": ("# Title", "Some text."),
    ".sql": ("SELECT a,", "FROM t;"),
    ".lua": ("function f(x)", "end"),
    ".hs": ("f x = x", "g y = y"),
    ".lisp": ("(defun f (x)", "  x)"),
    ".clj": ("(defn f [x]", "  x)"),
    ".ini": ("[section]", "key = 1"),
    ".tex": ("\\section{A}", "\\end{document}"),
    ".erl": ("f(X) ->", "    X."),
    ".sh": ("f() {", "}"),
    ".rb": ("class A", "end"),
    ".yaml": ("steps:", "  - run: make"),
    ".css": (".a {", "}"),
    ".php": ("function f($x) {", "}"),
}


def change_of(path: str, data: bytes, text: str, rewrite: bool = False) -> FileChange:
    """Every line of `text` as an added line: a new file, or (rewrite) one replacing old code."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    added = tuple((i + 1, line.removesuffix("\r")) for i, line in enumerate(lines))
    if not rewrite:
        return FileChange(path, Op.CREATE, None, None, data, None, 0o100644, added=added)
    # As if the edit also removed code: the strictest reading for a bare `# ...`.
    return FileChange(path, Op.MODIFY, None, b"old()\n", data, 0o100644, 0o100644, added=added, removed=((1, "old()"),))


def in_place_change(path: str, text: str) -> tuple[FileChange, int] | None:
    """`text` as the new version of a file whose lines with a trigger word (and their
    neighbours) each had another version before, without the phrase: (the change, lines judged)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lower = [ln.lower() for ln in lines]
    words = phrases.VOCAB + phrases.NOTE_VOCAB  # the phrases' trigger words, and the notes'
    hits = [i for i, ln in enumerate(lower) if len(ln) <= 1000 and any(w in ln for w in words)]
    if not hits:
        return None
    marked = {j for i in hits for j in (i - 1, i, i + 1) if 0 <= j < len(lines)}
    # The older version held none of the phrase (else the check rightly calls it no new marker),
    # and was a line of the same kind: its words and ellipses go, its comment marks, quotes and
    # punctuation stay (an older comment was a comment, an older line of code was code).
    old = [_older(ln) if j in marked else ln for j, ln in enumerate(lines)]
    before = ("\n".join(old) + "\n").encode()
    change = make_change(path, Op.MODIFY, before, ("\n".join(lines) + "\n").encode(), old_mode=0o100644, new_mode=0o100644)
    return change, len(hits)


# Words an older version of a line keeps: what makes the line the statement it is.
_KEYWORDS = frozenset(
    "def class return raise throw if else elif for while try except finally with import from new const let var "
    "function fn pub struct enum impl match switch case break continue yield async await static public private "
    "define include ifdef ifndef endif undef pragma".split()
)


def _older(line: str) -> str:
    """`line` as an older version of it that says nothing: each word `older` but the keywords that make
    it the statement it is (an older `raise` was a `raise`), no ellipsis."""
    return re.sub(r"[^\W\d_]+", lambda m: m.group() if m.group() in _KEYWORDS else "older", re.sub(r"\.{2,}|…|⋯", "", line))


def corpus_files(site_packages: bool) -> Iterator[tuple[str, Path]]:
    """(name for the syntax, file) of every code file in the corpora."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for dirpath, dirnames, filenames in os.walk(stdlib):
        if not site_packages:
            dirnames[:] = [d for d in dirnames if d not in ("site-packages", "dist-packages")]
        for f in sorted(filenames):
            if f.endswith(".py"):
                yield "stdlib", Path(dirpath) / f
    for dirpath, _dirs, filenames in os.walk("/usr/include"):
        for f in sorted(filenames):
            p = Path(dirpath) / f
            # C++ standard headers have no suffix (`vector`); they are C++ all the same.
            if p.suffix in CODE_SUFFIXES or (p.suffix == "" and "/c++/" in dirpath):
                yield "include", p
    for top in ("/usr/lib", "/usr/local/lib", "/usr/share"):
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if not d.startswith("python")]
            for f in sorted(filenames):
                if f.endswith((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")) and not f.endswith(".min.js"):
                    yield "javascript", Path(dirpath) / f


def precision(site_packages: bool, limit: int | None, mode: str, batch: int = 40) -> dict[str, tuple[int, int, int]]:
    """corpus -> (lines judged, files, false positives); prints every false positive.

    `mode`: "create" (every file new), "rewrite" (every file replacing a line of code),
    "in-place" (the lines with a trigger word each written over an older version).
    """
    stats: dict[str, list[int]] = {}
    pending: dict[str, list[FileChange]] = {}

    def flush(corpus: str) -> None:
        changes = tuple(pending.pop(corpus, []))
        if not changes:
            return
        inp = CheckInput(changes, POLICY, lambda _p: True, no_attr, None)
        for f in placeholder.check(inp, "error"):
            if f.line is not None:
                stats[corpus][2] += 1
                print(f"FP {mode} {corpus}: {f.path}:{f.line}: {f.message}")

    for corpus, path in corpus_files(site_packages):
        if limit and corpus in stats and stats[corpus][0] >= limit:
            continue
        try:
            data = path.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if b"\x00" in data or (mode == "in-place" and "\r" in text):
            continue
        name = str(path) if path.suffix else str(path) + ".hpp"
        s = stats.setdefault(corpus, [0, 0, 0])
        s[1] += 1
        if mode == "in-place":
            got = in_place_change(name, text)
            if got is None:
                continue
            change, judged = got
        else:
            change = change_of(name, data, text, mode == "rewrite")
            judged = text.count("\n") + (0 if text.endswith("\n") else 1)
        s[0] += judged
        pending.setdefault(corpus, []).append(change)
        if len(pending[corpus]) >= batch:
            flush(corpus)
    for corpus in list(pending):
        flush(corpus)
    return {k: (v[0], v[1], v[2]) for k, v in stats.items()}


# Elisions outside comments, judged by what the edit does: (file, old text, new text).
_DOC = 'def f(x):\n    """Sum.\n\n    One.\n    Two.\n    Three.\n    """\n    return x\n'
_BLOCK = "/**\n * Open it.\n * Returns a handle.\n * Close it after.\n */\nint open_it(void);\n"
_HEADER = "".join(f"int api_{i}(void);\n" for i in range(80))
RECALL_IN_PLACE: list[tuple[str, str, str, bool]] = [
    ("a.py", _DOC, _DOC.replace("    One.\n    Two.\n    Three.\n", "    ... rest of the docstring unchanged ...\n"), False),
    ("a.py", _DOC, _DOC.replace("    One.\n    Two.\n    Three.\n", "    (rest of the docstring omitted)\n"), False),
    ("a.py", _DOC, _DOC.replace("    One.\n    Two.\n    Three.\n", "    rest of the function unchanged\n"), False),
    (
        "a.h",
        _BLOCK,
        _BLOCK.replace(" * Returns a handle.\n * Close it after.\n", " * ... rest of the comment unchanged ...\n"),
        False,
    ),
    ("a.js", _BLOCK, _BLOCK.replace(" * Returns a handle.\n * Close it after.\n", " * ... existing docs ...\n"), False),
    ("a.py", "x = 1\nmsg = 'hello'\ny = 2\n", "x = 1\nmsg = '... existing code ...'\ny = 2\n", False),
    ("a.h", _HEADER, "int api_0(void);\n/* ... existing code ... */\n", True),
    ("a.h", _HEADER, "int api_0(long);\n// ...\n", True),
    ("a.py", _HEADER, "x = 1\n# rest of the file unchanged\n", True),
]


def recall_in_place() -> tuple[int, int]:
    found = 0
    for name, old, new, whole in RECALL_IN_PLACE:
        change = make_change(name, Op.MODIFY, old.encode(), new.encode(), old_mode=0o100644, new_mode=0o100644)._replace(
            whole=whole
        )
        hit = bool(placeholder.check(CheckInput((change,), POLICY, lambda _p: True, no_attr, None), "error"))
        found += hit
        if not hit:
            print(f"MISSED in place {name}: {new[:80]!r}")
    return found, len(RECALL_IN_PLACE)


def recall_cases() -> list[tuple[str, str]]:
    return RECALL


def aider_cases() -> list[tuple[str, str]]:
    """Elision comments written by real models, from the aider transcript (if present)."""
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "aider-chat" / "chat-history.md"
    if not corpus.is_file():
        return []
    import re

    fence = re.compile(r"^```(\w+)")
    elision = re.compile(r"^\s*(#|//)\s*(\.\.\.|…)")
    lang_suffix = {"python": "a.py", "javascript": "a.js", "js": "a.js", "typescript": "a.ts"}
    cases: list[tuple[str, str]] = []
    lang = None
    for line in corpus.read_text(encoding="utf-8").splitlines():
        m = fence.match(line)
        if m:
            lang = m.group(1)
            continue
        if line.startswith("```"):
            lang = None
            continue
        if lang in lang_suffix and elision.match(line):
            cases.append((lang_suffix[lang], line))
    return cases


def recall(cases: list[tuple[str, str]], verbose: bool = True) -> tuple[int, int, set[str]]:
    found = 0
    syntaxes: set[str] = set()
    from guard.checks.comments import syntax_for

    for name, line in cases:
        suffix = "." + name.rsplit(".", 1)[-1]
        before, after = _CODE_AROUND.get(suffix, ("x = 1", "y = 2"))
        # The marker replaces a line of real code, as in an agent's lazy edit.
        old = f"{before}\n    compute(x)\n    more(x)\n{after}\n".encode()
        change = make_change(name, Op.MODIFY, old, f"{before}\n{line}\n{after}\n".encode(), old_mode=0o100644, new_mode=0o100644)
        inp = CheckInput((change,), POLICY, lambda _p: True, no_attr, None)
        hit = any(f.line == 2 for f in placeholder.check(inp, "error"))
        syntaxes.add(syntax_for(name).name)
        found += hit
        if not hit and verbose:
            print(f"MISSED {name}: {line!r}")
    return found, len(cases), syntaxes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site-packages", action="store_true", help="also scan the installed third-party packages")
    ap.add_argument("--aider", action="store_true", help="also measure recall on the aider transcript")
    ap.add_argument("--limit", type=int, default=None, help="stop each corpus after about N lines")
    args = ap.parse_args()

    print("precision: every line of real code as an added line; any finding is a false positive")
    titles = {
        "create": "new files",
        "rewrite": "rewrites (the edit also removes code)",
        "in-place": "lines with a trigger word, each written in place of an older version (prose, licenses, code)",
    }
    for mode, title in titles.items():
        t0 = time.perf_counter()
        stats = precision(args.site_packages, args.limit, mode)
        elapsed = time.perf_counter() - t0
        total_lines = sum(s[0] for s in stats.values())
        total_fp = sum(s[2] for s in stats.values())
        print(f"\n  as {title}:")
        for corpus, (lines, files, fps) in stats.items():
            print(
                f"  {corpus:<11} {lines:>10,} lines {files:>7,} files {fps:>4} false positives "
                f"= {fps * 100_000 / max(lines, 1):.2f} per 100,000 lines"
            )
        print(
            f"  {'total':<11} {total_lines:>10,} lines {'':>13} {total_fp:>4} false positives "
            f"= {total_fp * 100_000 / max(total_lines, 1):.2f} per 100,000 lines  ({elapsed:.1f} s)"
        )

    found, total, syntaxes = recall(recall_cases())
    print(
        f"\nrecall on the built-in set: {found}/{total} = {100 * found / total:.1f}% "
        f"over {len(syntaxes)} comment syntaxes ({', '.join(sorted(syntaxes))})"
    )
    found, total = recall_in_place()
    print(f"recall outside comments (docstrings, doc comments, strings, whole-file writes): {found}/{total}")
    if args.aider:
        cases = aider_cases()
        if cases:
            found, total, _ = recall(cases)
            print(f"recall on the aider transcript's elision comments: {found}/{total} = {100 * found / total:.1f}%")
        else:
            print("aider transcript not found (../shared/corpora); skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
