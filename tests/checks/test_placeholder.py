"""The placeholder check: what it must find, and every kind of `...` it must leave alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, markers, no_attr, placeholder
from guard.model import FileChange, Finding, Op
from guard.tree.diffs import make_change

DEFAULT = policy_mod.load(None, "default")


def modify(path: str, before: str, after: str) -> FileChange:
    return make_change(path, Op.MODIFY, before.encode(), after.encode(), old_mode=0o100644, new_mode=0o100644)


def create(path: str, after: str) -> FileChange:
    return make_change(path, Op.CREATE, None, after.encode(), new_mode=0o100644)


def run(*changes: FileChange, policy: policy_mod.Policy = DEFAULT) -> list[Finding]:
    return placeholder.check(CheckInput(changes, policy, lambda _p: True, no_attr, None), "error")


def elide(path: str, head: str, marker: str, tail: str) -> FileChange:
    """An edit that replaces two lines of code between `head` and `tail` with `marker`."""
    return modify(path, f"{head}\n    compute(x)\n    more(x)\n{tail}\n", f"{head}\n{marker}\n{tail}\n")


# (file, line that replaces code) -- each must be reported at line 2.
FOUND = [
    ("a.py", "    # ... existing code ..."),
    ("a.py", "    # ... rest of the function unchanged"),
    ("a.py", "    # rest of the code unchanged"),
    ("a.py", "    # Rest of the implementation remains the same"),
    ("a.py", "    # rest of the method stays the same"),
    ("a.py", "    # rest of the class as before"),
    ("a.py", "    # rest of the file here"),
    ("a.py", "    # (keep existing code)"),
    ("a.py", "    # (keep existing imports)"),
    ("a.py", "    # unchanged code"),
    ("a.py", "    # same as before"),
    ("a.py", "    # previous code here"),
    ("a.py", "    # old code as is"),
    ("a.py", "    # the existing code as is"),
    ("a.js", "  // rest of the function as is"),
    ("a.py", "    # other methods ..."),
    ("a.py", "    # ... (other methods remain the same)"),
    ("a.py", "    # ..."),
    ("a.py", "    # …"),
    ("a.py", "    x = 1  # ... rest of the implementation here"),
    ("a.pyi", "    # ... existing methods ..."),
    ("a.js", "  // ... existing code ..."),
    ("a.js", "  // ..."),
    ("a.js", "  /* ... */"),
    ("a.js", "  /* rest of the function unchanged */"),
    ("a.js", "  ..."),
    ("a.jsx", "      {/* ... */}"),
    ("a.tsx", "      {/* ... existing JSX ... */}"),
    ("a.ts", "  // (keep existing imports)"),
    ("a.go", "\t// ... rest of the implementation as before"),
    ("a.go", "\t// other methods ..."),
    ("a.rs", "    // ... (rest of the method unchanged)"),
    ("a.java", "    /* rest of the class unchanged */"),
    ("a.c", "    /* ... existing code ... */"),
    ("a.cpp", "    // ... previous code remains the same ..."),
    ("a.html", "  <!-- ... existing markup ... -->"),
    ("a.html", "  <!-- rest of the page unchanged -->"),
    ("a.md", "<!-- ... -->"),
    ("a.sql", "  -- rest of the query unchanged"),
    ("a.lua", "  -- ... existing code ..."),
    ("a.hs", "  -- ... other functions remain the same"),
    ("a.lisp", "  ;; ... existing code ..."),
    ("a.clj", "  ; rest of the function unchanged"),
    ("a.ini", "; ... existing settings ..."),
    ("a.tex", "% ... rest of the document unchanged"),
    ("a.erl", "    % ... existing code ..."),
    ("a.sh", "  # ... rest of the script unchanged"),
    ("a.yaml", "  # ... existing steps ..."),
    ("a.css", "  /* ... existing styles ... */"),
    ("a.php", "    // ... existing code ..."),
    ("Makefile", "\t# ... existing rules ..."),
    ("notes.unknown", "# ... existing code ..."),
]


@pytest.mark.parametrize("path,marker", FOUND, ids=[f"{p}:{m.strip()}" for p, m in FOUND])
def test_placeholder_found(path: str, marker: str) -> None:
    findings = run(elide(path, "def f(x):", marker, "    return x"))
    assert [f.line for f in findings] == [2], findings
    f = findings[0]
    assert f.code == "placeholder" and f.severity == "error" and f.path == path
    assert marker.strip() in f.message
    assert f.hint == "write the full code or leave that region out of the edit"


# (id, file, old text, new text): real code that holds `...` or the trigger words.
NOT_FOUND = [
    ("python-ellipsis-body", "a.py", "", "def f(): ...\n"),
    ("python-ellipsis-index", "a.py", "", "y = x[..., 0]\n"),
    ("python-ellipsis-statement", "a.py", "", "def f(x):\n    ...\n    return x\n"),
    ("python-stub-file", "a.pyi", "", "def f(x: int) -> int: ...\nclass A:\n    def g(self) -> None: ...\n"),
    ("python-protocol", "a.py", "", "class P(Protocol):\n    ...\n"),
    ("python-ellipsis-default", "a.py", "", "def f(x=...):\n    return x is ...\n"),
    ("string-with-dots", "a.py", "", 'msg = "loading ..."\nother = "# ... existing code ..."\n'),
    ("docstring", "a.py", "", 'def f():\n    """Do it.\n\n    # ... existing code ...\n    ...\n    """\n'),
    ("doctest", "a.py", "", 'def f():\n    """\n    >>> for i in range(2):\n    ...     print(i)\n    """\n'),
    ("js-spread", "a.js", "", "const o = {...obj, ...rest};\nf(...args);\n"),
    ("js-rest", "a.js", "", "function f(...args) {\n  return [...args];\n}\n"),
    ("js-template-literal", "a.js", "", "const s = `\n// ... existing code ...\n`;\n"),
    ("ts-spread-line", "a.ts", "", "const all = [\n  ...first,\n  ...second,\n];\n"),
    ("go-variadic", "a.go", "", "func f(args ...int) {\n\tg(args...)\n}\n"),
    ("c-varargs", "a.c", "", "int printf(const char *fmt, ...);\n"),
    ("c-varargs-own-line", "a.h", "", "int f(\n    const char *fmt,\n    ...\n    );\n"),
    ("rust-rest-pattern", "a.rs", "", "let Point { x, .. } = p;\nfor i in 0..n {}\n"),
    ("rust-range-inclusive", "a.rs", "", "match x { 0..=9 => {}, _ => {} }\n"),
    ("comment-run-example", "a.py", "", "x = 1\n# for x in y:\n#     ...\n# done\ny = 2\n"),
    ("block-comment-list", "a.c", "", "/*\n * 1.0\n * ...\n * 2.0\n */\nint x;\n"),
    ("block-comment-prose", "a.c", "", "/*\n * the existing values unchanged\n */\nint x;\n"),
    ("doc-comment", "a.rs", "", "/// All other fields are unchanged.\nfn f() {}\n"),
    (
        "sentence-continues",
        "a.py",
        "",
        "if x:\n    # we cannot use it, so return the\n    # original code unchanged.\n    return y\n",
    ),
    ("trailing-prose-ellipsis", "a.py", "", "x = 1\n# Try again...\ny = 2\n"),
    ("leading-prose-ellipsis", "a.py", "", "x = 1\n# ...but only on Tuesdays\ny = 2\n"),
    ("bare-dots-new-file", "a.js", "", "function f() {\n  // ...\n}\n"),
    ("trailing-dots-comment", "a.py", "", "x = f(a)  # ...\n"),
    ("region-delimiter", "a.py", "old()\n", "x = 1\n# ... end original helper() code.\ny = 2\n"),
    ("prose-word-existing", "a.py", "", "# Use the existing connection if there is one\nconn = pool.get()\n"),
    ("markdown-prose", "README.md", "", "Wait for it...\n\n# Rest of the guide\n\n... and more.\n"),
    ("yaml-document-end", "a.yaml", "", "a: 1\n...\n"),
    ("kept-placeholder", "a.py", "x = 1\n# ... existing code ...\ny = 2\n", "x = 1\n# ... existing code ...\ny = 3\n"),
    ("moved-placeholder", "a.py", "a = 1\n# ... existing code ...\n", "# ... existing code ...\na = 1\n"),
]


@pytest.mark.parametrize("path,before,after", [c[1:] for c in NOT_FOUND], ids=[c[0] for c in NOT_FOUND])
def test_not_a_placeholder(path: str, before: str, after: str) -> None:
    change = modify(path, before, after) if before else create(path, after)
    assert run(change) == []


def test_only_added_lines_are_judged() -> None:
    before = "x = 1\n# ... existing code ...\ny = 2\n"
    assert run(modify("a.py", before, before.replace("y = 2", "y = 3"))) == []


def test_shrinking_rewrite_around_a_weak_marker() -> None:
    before = "".join(f"x{i} = {i}\n" for i in range(60))
    # `# ...` inside a run of comments would be an example, but the file lost 55 lines.
    after = "x0 = 0\n# first\n# ...\n# last\nx59 = 59\n"
    findings = run(modify("a.py", before, after))
    assert len(findings) == 1 and findings[0].line == 3
    assert "shrinks the file from 60 to 5 lines" in findings[0].message


def test_small_edit_with_a_weak_marker_is_fine() -> None:
    before = "".join(f"x{i} = {i}\n" for i in range(60))
    after = before.replace("x30 = 30\n", "# values:\n# ...\n")
    assert run(modify("a.py", before, after)) == []


def test_rewrite_that_ends_with_a_marker() -> None:
    before = "".join(f"x{i} = {i}\n" for i in range(10))
    after = "x0 = 0\n# notes\n# ...\n"
    findings = run(modify("a.py", before, after))
    assert len(findings) == 1 and findings[0].line == 3 and "ends with" in findings[0].message


def test_policy_patterns_and_exempt(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("placeholder:\n  patterns: ['TODO: implement']\n  exempt: ['keep-me']\n")
    pol = policy_mod.load(None, str(f))
    findings = run(elide("a.py", "def f():", "    pass  # TODO: implement", "    return 1"), policy=pol)
    assert [(x.line, "TODO: implement" in x.message) for x in findings] == [(2, True)]
    assert run(elide("a.py", "def f():", "    # ... existing code ... keep-me", "    return 1"), policy=pol) == []


def test_severity_is_the_level() -> None:
    change = elide("a.py", "def f():", "    # ... existing code ...", "    return 1")
    out = placeholder.check(CheckInput((change,), DEFAULT, lambda _p: True, no_attr, None), "warning")
    assert [f.severity for f in out] == ["warning"]


def test_deleted_and_binary_files_are_skipped() -> None:
    gone = make_change("a.py", Op.DELETE, b"# ... existing code ...\n", None)
    binary = make_change("a.bin", Op.CREATE, None, b"\x00# ... existing code ...\n")
    assert run(gone, binary) == []


def test_many_findings_are_capped() -> None:
    head = "".join(f"x{i} = {i}\n# ... existing code ...\n" for i in range(30))
    findings = run(modify("a.py", "old = 1\n", head))
    assert len(findings) == 21 and findings[-1].line is None and "10 more" in findings[-1].message


def test_block_comment_followed_by_code() -> None:
    findings = run(elide("a.c", "int f(int x) {", "    /* ... existing code ... */ x++;", "}"))
    assert [f.line for f in findings] == [2]


SUFFIXES = (
    "unchanged",
    "the same",
    "as before",
    "as is",
    "here",
    "intact",
    "untouched",
    "omitted",
    "elided",
    "not shown",
    "same as before",
    "as it was",
    "from before",
    "goes here",
    "go here",
    "for brevity",
)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_phrase_the_judge_accepts_passes_the_first_pass(suffix: str) -> None:
    # The word list (VOCAB) decides which comment lines are judged at all: a phrase the
    # judge would call a placeholder but that holds none of its words is never seen.
    from guard.checks.comments import syntax_for
    from guard.checks.markers import suspect
    from guard.checks.phrases import VOCAB

    syntax = syntax_for("a.py")
    judged = 0
    for owner in ("", "the ", "all the "):
        for adjective in ("existing", "previous", "original", "prior", "old", "other", "unchanged"):
            for noun in ("code", "methods", "tests", "logic"):
                for verb in ("", " is", " remains", " stays"):
                    text = f"    # {owner}{adjective} {noun}{verb} {suffix}"
                    if suspect(text, syntax) is None:
                        continue
                    judged += 1
                    assert any(w in text.lower() for w in VOCAB), text
    assert judged


# --------------------------------------------------------------------------- elision inside documentation

# (file, opening line, inner-line prefix, closing line): a doc comment, block comment or docstring
# in each language whose comments the check reads.
DOCS = [
    ("a.py", '    """Sum the items.', "    ", '    """'),
    ("a.pyi", "    '''Sum the items.", "    ", "    '''"),
    ("a.js", "  /**", "   * ", "   */"),
    ("a.ts", "  /**", "   * ", "   */"),
    ("a.tsx", "  /*", "   * ", "   */"),
    ("a.java", "    /**", "     * ", "     */"),
    ("a.kt", "    /**", "     * ", "     */"),
    ("a.c", "/*", " * ", " */"),
    ("a.h", "/**", " * ", " */"),
    ("a.cpp", "/*!", " * ", " */"),
    ("a.cs", "    /// <summary>", "    /// ", "    /// </summary>"),
    ("a.go", "// Sum adds the items.", "// ", "//"),
    ("a.rs", "/// Sums the items.", "/// ", "///"),
    ("b.rs", "//! The crate.", "//! ", "//!"),
    ("a.rb", "# Sums the items.", "# ", "#"),
    ("a.php", "    /**", "     * ", "     */"),
    ("a.swift", "/// Sums the items.", "/// ", "///"),
    ("a.css", "/*", "   ", "*/"),
    ("a.scss", "// Theme.", "// ", "//"),
    ("a.html", "<!--", "  ", "-->"),
    ("a.sh", "# Sums the items.", "# ", "#"),
    ("a.sql", "-- Sums the items.", "-- ", "--"),
    ("a.lua", "--[[", "  ", "]]"),
    ("a.hs", "{-", "  ", "-}"),
]
ELISIONS = ("... rest of the comment unchanged ...", "(rest of the docstring omitted)", "rest of the comment unchanged")


@pytest.mark.parametrize("path, opener, prefix, closer", DOCS)
@pytest.mark.parametrize("phrase", ELISIONS)
def test_elision_inside_documentation_is_found_in_every_language(
    path: str, opener: str, prefix: str, closer: str, phrase: str
) -> None:
    # Two of three documentation lines replaced by an elision line: the edit deletes them.
    inner = ["The items are summed from the left.", "An empty list sums to zero.", "Floats are summed exactly."]
    before = "\n".join([opener, *(prefix + t for t in inner), closer, "code()"]) + "\n"
    after = "\n".join([opener, prefix + inner[0], prefix + phrase, closer, "code()"]) + "\n"
    found = run(modify(path, before, after))
    assert [f.line for f in found] == [3], (path, phrase, found)


# --------------------------------------------------------------------------- notes in any wording (issue 23 §4)

BODY = "def total(items):\n    count = 0\n    for item in items:\n        count += item.price\n    return count\n"
THREE = "    count = 0\n    for item in items:\n        count += item.price\n"


def swap(note: str, path: str = "a.py", then: str = "") -> FileChange:
    """A str_replace of the three lines of `BODY`'s loop for `note` (and the new lines `then`)."""
    return modify(path, BODY, BODY.replace(THREE, f"    {note}\n{then}"))


# The wordings the issue found let through, and their disguises: each replaces three lines alone.
ISSUE_WORDINGS = [
    "# rest of the code",
    "# remaining code",
    "# body unchanged",
    "# (same as above)",
    "# [lines 2-4 unchanged]",
    "# ⋯ existing code ⋯",
    "# rest of the c\u043ede",
    "# rem\u0430ining code",
    "# body un\u200bchanged",
    "# rest of the co\u200dde",
    "# ｂｏｄｙ ｕｎｃｈａｎｇｅｄ",
    "# \u202eremaining code",
]


@pytest.mark.parametrize("note", ISSUE_WORDINGS)
def test_a_note_in_any_wording_that_replaces_code_is_a_placeholder(note: str) -> None:
    found = run(swap(note))
    assert [f.line for f in found] == [2], found
    assert "would delete the 3 lines it stands in for" in found[0].message


# Notes that say code is left out whatever follows them (FIRM), and notes that may head the new code (BARE).
FIRM_NOTES = [
    "# body unchanged",
    "# no changes to the rest",
    "# rest of the loop as before",
    "// [lines 2-4 unchanged]",
    "# other statements omitted",
    "# keep the existing logic",
    "# 其余代码不变",
    "# остальной код без изменений",
]
BARE_NOTES = ["# rest of the code", "# same as above", "# existing code", "# ditto", "# etc."]


@pytest.mark.parametrize("note", FIRM_NOTES)
def test_a_firm_note_is_a_placeholder_even_above_new_code(note: str) -> None:
    found = run(swap(note, then="    count = sum(i.price for i in items)\n"))
    assert [f.line for f in found] == [2], found


@pytest.mark.parametrize("note", BARE_NOTES)
def test_a_bare_note_above_new_code_heads_it(note: str) -> None:
    assert run(swap(note, then="    count = sum(i.price for i in items)\n")) == []
    assert [f.line for f in run(swap(note))] == [2]


# Comments that explain the new code: never placeholders, above new code or alone.
EXPLANATIONS = [
    "# sum the items with the builtin",
    "# keep the cache warm",
    "# unchanged inputs are skipped",
    "# the rest of the list is sorted already",
    "# drop lines that are unchanged",
    "# same order as the input",
    "# we keep the remaining lines",
    "# Leave the sys module alone.",
    "# remaining bytes are copied as they are",
    "# считаем сумму остальных элементов",
    "# 复制其余字节",
]


@pytest.mark.parametrize("note", EXPLANATIONS)
def test_a_comment_that_explains_new_code_is_not_a_placeholder(note: str) -> None:
    assert run(swap(note, then="    count = sum(i.price for i in items)\n")) == []


def test_a_note_that_replaces_nothing_is_not_judged_by_its_meaning() -> None:
    # A new comment beside the old lines deletes nothing (only the unmistakable phrases count there).
    assert run(modify("a.py", BODY, BODY.replace("    return count\n", "    # the rest of the code\n    return count\n"))) == []
    assert run(create("b.py", "# remaining code\nx = 1\n")) == []


def test_a_note_that_ends_mid_sentence_is_prose() -> None:
    # (Over new code: in place of the code alone, any comment is a stand-in, whatever it says.)
    then = "    # in the other branch\n    count = sum(i.price for i in items)\n"
    assert run(swap("# the rest of the code is the same as", then=then)) == []


def test_a_disguised_note_is_named_as_it_reads() -> None:
    (f,) = run(swap("# b\u043edy unch\u0430nged"))
    assert "which reads 'body unchanged': look-alike or invisible characters" in f.message


# --------------------------------------------------------------------------- elision inside a docstring (issue 23 §6)

DOC_BODY = 'def total(items):\n    """Sum the prices."""\n' + THREE + "    return count\n"


@pytest.mark.parametrize(
    "line",
    [
        "... rest of the implementation as before ...",
        "rest of the implementation as before",
        "(implementation unchanged)",
        "Body unchanged from the previous version",
        "r\u0435st of the implementation \u0430s before",
        "остальной код без изменений",
    ],
)
def test_an_elision_in_a_docstring_that_replaces_code_is_a_placeholder(line: str) -> None:
    after = DOC_BODY.replace('    """Sum the prices."""\n' + THREE, f'    """Sum the prices.\n\n    {line}\n    """\n')
    found = run(modify("a.py", DOC_BODY, after))
    assert [f.line for f in found] == [4], found


@pytest.mark.parametrize(
    "line", ["Other fields are left unchanged.", "Return the rest of the list unchanged.", "the remaining logic is identical"]
)
def test_documentation_in_a_docstring_is_prose(line: str) -> None:
    # A sentence, or a line of a paragraph, documents; new code replaces the old.
    text = (
        f'    """Sum the prices.\n\n    {line}\n    More about it.\n    """\n'
        if not line.endswith(".")
        else f'    """Sum the prices.\n\n    {line}\n    """\n'
    )
    after = DOC_BODY.replace('    """Sum the prices."""\n' + THREE, text + "    count = sum(i.price for i in items)\n")
    assert run(modify("a.py", DOC_BODY, after)) == []


def test_a_bracketed_ellipsis_stands_for_code_where_dots_cannot_be_code() -> None:
    js = "function f(x) {\n  const a = g(x);\n  const b = h(a);\n  return b;\n}\n"
    found = run(modify("a.js", js, js.replace("  const a = g(x);\n  const b = h(a);\n", "  [...]\n")))
    assert [f.line for f in found] == [2]
    # Python prints `[...]` for a list that holds itself; a doctest shows it.
    doc = 'def f():\n    """\n    >>> x = [1]\n    """\n'
    assert run(modify("a.py", doc, doc.replace(">>> x = [1]", ">>> x = []; x.append(x); x\n    [...]"))) == []


def test_a_heading_between_blank_lines_is_not_a_bare_note() -> None:
    # `# other helper functions` over the helpers heads them; at the end of a block, standing for its
    # last lines, the same note elides them.
    before = (
        "class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\n"
        "    def c(self):\n        return 3\n"
    )
    heading = before.replace("    def b(self):\n        return 2\n", "    # other helper functions\n")
    assert run(modify("a.py", before, heading)) == []
    tail = before.replace("        return 3\n", "        # the rest of the code\n")
    assert [f.line for f in run(modify("a.py", before, tail))] == [9]
    at_end = before + "\n\ndef f():\n    x = 1\n    y = 2\n    return x + y\n\n\nz = 1\n"
    elided = at_end.replace("    y = 2\n    return x + y\n", "    # remaining code\n")
    assert [f.line for f in run(modify("a.py", at_end, elided))] == [14]


def _last_nonblank_by_lines(data: bytes) -> int:
    """The rule `markers.last_nonblank` keeps, read line by line: the last line `bytes.strip` leaves something of."""
    lines = data.split(b"\n")
    return next((i + 1 for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), 0)


def test_the_last_line_with_text_is_found_without_splitting_the_file() -> None:
    pieces = [b"", b"x", b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\xc2\xa0", b"\xe3\x80\x80", b"code()", b"\n", b"\r\n"]
    # Every sequence of up to four pieces: blank lines at the end, CRLF, a form feed, a
    # non-breaking space (bytes of text, not blank to bytes.strip), none at all.
    cases = [b""]
    for _ in range(4):
        cases = [c + p for c in cases for p in pieces] + cases
    assert len(set(cases)) > 5000
    for data in set(cases):
        assert markers.last_nonblank(data) == _last_nonblank_by_lines(data), data
