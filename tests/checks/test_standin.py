"""Stand-ins (issue 36): code an edit removes, with only lines that are not code in its place.

Each elision here wrote a line no phrase or note rule knew: the shape is what gives it away.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, no_attr, placeholder
from guard.checks.comments import Spans, syntax_for
from guard.checks.linekind import BLANK, CLOSER, CODE, COMMENT, EMPTY, STRING, STUB, line_kind
from guard.checks.pointers import gives_reason, points
from guard.model import FileChange, Finding, Op
from guard.tree.diffs import changed_lines as regions
from guard.tree.diffs import make_change

DEFAULT = policy_mod.load(None, "default")


def modify(path: str, before: str, after: str) -> FileChange:
    return make_change(path, Op.MODIFY, before.encode(), after.encode(), old_mode=0o100644, new_mode=0o100644)


def run(*changes: FileChange) -> list[Finding]:
    return placeholder.check(CheckInput(changes, DEFAULT, lambda _p: True, no_attr, None), "error")


# One loop a language, its body (the lines a stand-in replaces) between `head` and `tail`.
LOOPS = {
    "py": (
        "def total(lines, rates):\n    total = 0\n    for line in lines:\n",
        "        if line.quantity <= 0:\n            continue\n        rate = rates.get(line.code, 0)\n"
        "        total += line.price * (1 + rate)\n",
        "    return total\n",
        "        ",
    ),
    "js": (
        "function total(lines, rates) {\n  let total = 0;\n  for (const line of lines) {\n",
        "    if (line.quantity <= 0) continue;\n    const rate = rates[line.code] ?? 0;\n    total += line.price * (1 + rate);\n",
        "  }\n  return total;\n}\n",
        "    ",
    ),
    "go": (
        "func Total(lines []Line, rates map[string]float64) float64 {\n\ttotal := 0.0\n\tfor _, line := range lines {\n",
        "\t\tif line.Quantity <= 0 {\n\t\t\tcontinue\n\t\t}\n\t\ttotal += line.Price * (1 + rates[line.Code])\n",
        "\t}\n\treturn total\n}\n",
        "\t\t",
    ),
    "rs": (
        "fn total(lines: &[Line]) -> f64 {\n    let mut total = 0.0;\n    for line in lines {\n",
        "        if line.quantity == 0 {\n            continue;\n        }\n        total += line.price * line.rate();\n",
        "    }\n    total\n}\n",
        "        ",
    ),
    "rb": (
        "def total(lines)\n  total = 0\n  lines.each do |line|\n",
        "    next if line.quantity <= 0\n    rate = RATES.fetch(line.code, 0)\n    total += line.price * (1 + rate)\n",
        "  end\n  total\nend\n",
        "    ",
    ),
    "sql": (
        "SELECT\n",
        "    c.id AS customer_id,\n    c.name AS customer_name,\n    SUM(l.price) AS net,\n",
        "FROM customers c\nJOIN lines l ON l.customer_id = c.id;\n",
        "    ",
    ),
    "html": (
        '<ul class="notes">\n',
        "  <li>Prices are in euros.</li>\n  <li>Tax is rounded per line.</li>\n  <li>Payment is due in 30 days.</li>\n",
        "</ul>\n",
        "  ",
    ),
}


def stand_in(lang: str, *new: str) -> FileChange:
    """The loop of `lang` with its body replaced by the lines `new` (at the body's indentation)."""
    head, body, tail, indent = LOOPS[lang]
    return modify(f"a.{lang}", head + body + tail, head + "".join(f"{indent}{line}\n" for line in new) + tail)


# Each would pass a check that reads words: no vocabulary of elisions names them.
STAND_INS = [
    ("py", "# old loop"),
    ("py", "# loop from v1"),
    ("py", "# see previous version for the loop"),
    ("py", "# (lines 2-7 of the old version)"),
    ("py", '"""Body identical to the previous version."""'),
    ("py", "..."),
    ("py", "pass"),
    ("py", "raise NotImplementedError  # original body"),
    ("py", "# TODO: fill in the rest"),
    ("py", "# [same loop]"),
    ("py", "# -- unchanged --"),
    ("py", "# ... existing computation ..."),
    ("js", "// --snip--"),
    ("js", "/** existing implementation */"),
    ("js", 'throw new Error("not implemented");'),
    ("go", "// --snip--"),
    ("go", 'panic("TODO")'),
    ("rs", "// --snip--"),
    ("rs", "todo!() // existing body"),
    ("rs", "unimplemented!()"),
    ("rb", "# loop as in the first version"),
    ("rb", "raise NotImplementedError"),
    ("sql", "-- (columns as before)"),
    ("html", "<!-- rest of list -->"),
    ("html", "<li>...</li>"),
]


@pytest.mark.parametrize(("lang", "line"), STAND_INS)
def test_a_line_that_does_no_work_in_place_of_code_is_a_stand_in(lang: str, line: str) -> None:
    (f,) = run(stand_in(lang, line))
    assert f.code == "placeholder" and f.line == LOOPS[lang][0].count("\n") + 1
    assert "removes" in f.message and "that code is deleted" in f.message


def test_the_finding_says_what_went_and_what_stands_in_its_place() -> None:
    (f,) = run(stand_in("py", "# old loop"))
    assert f.message.startswith("the edit removes 4 lines of code here (the first: 'if line.quantity <= 0:')")
    assert "puts only a comment in their place ('# old loop')" in f.message
    (f,) = run(stand_in("rs", "unimplemented!()"))
    assert "puts only a stub in their place" in f.message


def test_a_multi_line_stand_in_is_one_finding_at_the_line_that_points() -> None:
    found = run(stand_in("js", "/*", " * the loop body is", " * as it was", " */"))
    assert [f.line for f in found] == [6]


# --------------------------------------------------------------------------- what is not one


def test_a_plain_deletion_is_not_a_stand_in() -> None:
    assert run(stand_in("py")) == []
    assert run(stand_in("py", "")) == []


def test_new_code_beside_a_comment_is_not_judged_by_its_shape() -> None:
    assert run(stand_in("py", "# Same as above, but skips zero-rate lines", "total += sum(priced(lines))")) == []
    assert run(stand_in("js", "// The previous implementation looped by hand", "total = lines.reduce(add, 0);")) == []


def test_a_note_in_an_ellipsis_beside_new_code_still_stands_in() -> None:
    (f,) = run(stand_in("js", "// ... tax calculation as before ...", "lineCount += 1;"))
    assert f.line == 4


def test_code_commented_out_is_not_a_stand_in() -> None:
    _head, body, _tail, _indent = LOOPS["py"]
    commented = [f"# {line.strip()}" for line in body.splitlines()]
    assert run(stand_in("py", "# disabled until #123 is fixed", *commented)) == []
    # A block comment opened where the code was, closed further down: the code after it is commented out.
    before = 'package x\n\nimport (\n\t"testing"\n\t"os"\n)\n\nfunc TestA(t *testing.T) {\n\tos.Exit(1)\n}\n'
    after = "package x\n\n/*\n\nfunc TestA(t *testing.T) {\n\tos.Exit(1)\n}\n*/\n"
    assert run(modify("a_test.go", before, after)) == []


def test_a_note_that_says_why_the_code_went_is_not_a_stand_in() -> None:
    for note in (
        "# Empty lines are rejected by the parser now, so no check is needed here.",
        "# No longer needed: the importer drops zero-quantity lines.",
        "# Tax is computed by the ledger service (see ledger.py) since v2.",
        "# ParseLines drops empty lines before they get here, so there is nothing to skip.",
    ):
        assert run(stand_in("py", note)) == [], note


def test_a_reason_does_not_excuse_a_pointer_or_a_stub() -> None:
    assert len(run(stand_in("py", "# removed for brevity"))) == 1
    assert len(run(stand_in("py", "# unchanged, since it works"))) == 1
    assert len(run(stand_in("rs", 'unimplemented!("moved to the ledger now")'))) == 1


def test_code_moved_within_the_edit_is_not_a_stand_in() -> None:
    head, body, tail, _indent = LOOPS["py"]
    before = head + body + tail + "\n\ndef other():\n    pass\n"
    moved = "\n".join("    " + line.strip() for line in body.splitlines()) + "\n"
    after = head + "        # the per-line work is done by line_total() below\n" + tail
    after += "\n\ndef line_total(line, rates):\n" + moved + "\n\ndef other():\n    pass\n"
    assert run(modify("a.py", before, after)) == []
    # ...and to another file of the same edit.
    after_here = head + "        # per-line work lives in lines.py\n" + tail
    assert run(modify("a.py", head + body + tail, after_here), modify("lines.py", "", moved)) == []


def test_the_whole_edit_is_judged_not_one_hunk() -> None:
    # One hunk moves the code, the other leaves a note where it was: applied as one edit, nothing is lost.
    head, body, tail, _indent = LOOPS["py"]
    gone = modify("a.py", head + body + tail, head + "        # see below\n" + tail)
    elsewhere = modify("b.py", "x = 1\n", "x = 1\n" + body)
    assert run(gone, elsewhere) == []
    assert len(run(gone)) == 1


def test_an_old_comment_reworded_beside_a_deletion_is_not_a_stand_in() -> None:
    before = "def f(self):\n    #: the configuration\n    self.config = {}\n    if config:\n        self.config.update(config)\n"
    after = "def f(self):\n    #: the configuration, as a :class:`Config`\n"
    assert run(modify("a.py", before, after)) == []


def test_a_heading_or_a_doc_comment_for_what_follows_is_not_a_stand_in() -> None:
    before = "var messages = [];\n\nget('/', function(){\n  this.pass('/chat')\n})\n\napp.get('/', index);\n"
    after = "var messages = [];\n\n// Routes\n\napp.get('/', index);\n"
    assert run(modify("app.js", before, after)) == []
    before = "struct S {\n    tmp1: Vec<u8>,\n    tmp2: Vec<u8>,\n    pos: usize,\n}\n"
    after = "struct S {\n    /// The current position in buf.\n    pos: usize,\n}\n"
    assert run(modify("s.rs", before, after)) == []


def test_whole_definitions_removed_with_a_note_are_a_deletion() -> None:
    before = 'package cmd\n\nimport (\n\t"testing"\n)\n\nfunc TestFind(t *testing.T) {\n\tif find() == "" {\n'
    before += '\t\tt.Fatal("not found")\n\t}\n}\n'
    assert run(modify("cmd_test.go", before, "package cmd\n\n/* todo: write tests */\n")) == []
    # ...but not when the note says they are still somewhere.
    assert len(run(modify("cmd_test.go", before, "package cmd\n\n/* tests unchanged */\n"))) == 1


def test_a_return_value_is_code() -> None:
    # `None` as a Rust function's last expression is what it returns: a real change, not a stand-in.
    before = "fn one(&self) -> Option<String> {\n    let x = self.a();\n    let y = self.b(x);\n    Some(y)\n}\n"
    after = "fn one(&self) -> Option<String> {\n    None\n}\n"
    assert run(modify("a.rs", before, after)) == []


def test_the_policy_exemptions_apply() -> None:
    pol = policy_mod.load(None, "default")
    pol = replace(pol, data={**pol.data, "placeholder": {**pol.data.get("placeholder", {}), "exempt": [r"old loop"]}})
    found = placeholder.check(CheckInput((stand_in("py", "# old loop"),), pol, lambda _p: True, no_attr, None), "error")
    assert found == []


# --------------------------------------------------------------------------- the parts


def test_regions_pair_removed_and_added_lines_by_place() -> None:
    change = modify("a.py", "a\nb\nc\nd\ne\n", "a\nB\nc\nX\nY\ne\n")
    got = [([t for _n, t in r.removed], [t for _n, t in r.added]) for r in regions(change)]
    assert got == [(["b"], ["B"]), (["d"], ["X", "Y"])]


@pytest.mark.parametrize(
    ("path", "line", "kind"),
    [
        ("a.py", "    # note", COMMENT),
        ("a.py", "    pass", EMPTY),
        ("a.py", "    ...", EMPTY),
        ("a.py", "    raise NotImplementedError", STUB),
        ("a.py", '    raise ValueError("bad line")', CODE),
        ("a.py", '    """Doc."""', STRING),
        ("a.py", '    "a",', CODE),
        ("a.py", "    )", CLOSER),
        ("a.py", "", BLANK),
        ("a.js", "  ; // unchanged", COMMENT),
        ("a.js", '  throw new Error("not implemented");', STUB),
        ("a.js", '  throw new Error("bad line");', CODE),
        ("a.js", "  '...';", STRING),
        ("a.rs", "    todo!()", STUB),
        ("a.rs", "    None", CODE),
        ("a.go", '\tpanic("TODO: loop")', STUB),
        ("a.html", "  <li>...</li>", EMPTY),
        ("a.html", "  <li>Due in 30 days.</li>", CODE),
        ("a.sh", "  : # loop as before", EMPTY),
        ("a.sh", "  :", EMPTY),
        ("a.c", "    ...", CODE),  # after `int f(int a,`: a C prototype's varargs
    ],
)
def test_what_a_line_is(path: str, line: str, kind: str) -> None:
    lines = ["int f(int a,", line] if path == "a.c" else ["x = 1", line]
    got, _said = line_kind(Spans(lines, syntax_for(path)), 1, path.endswith(".py"))
    assert got == kind


def test_what_a_note_says() -> None:
    for note in ("old loop", "loop from v1", "the rest", "same as before", "[same loop]", "existing code", "... tax ..."):
        assert points(note), note
    for note in ("assume the same extension for partials", "existing customers pay monthly", "todo: write tests"):
        assert not points(note), note
    assert not points("rest of the code", before="# rest of the code")  # an old note moved is not a new one
    for note in ("no longer needed", "handled by the caller now", "moved to tax.py", "see #123", "because X"):
        assert gives_reason(note), note
    assert not gives_reason("compute the tax of each line")


# --------------------------------------------------------------------------- prose: a pointer in place of lines of a docstring

DOC = '''def total(items, rates):
    """Sum the prices of the items, with tax.

    Items without a price count as zero.
    Negative prices are refunds and lower the total.
    The tax rate of an item comes from `rates`.
    """
    return sum(i.price for i in items)
'''
TWO = "    Negative prices are refunds and lower the total.\n    The tax rate of an item comes from `rates`.\n"
JSDOC = "/**\n * Sum the prices.\n *\n * Items without a price count as zero.\n * Negative prices are refunds.\n */\n"
JSDOC += "function t() {}\n"


@pytest.mark.parametrize(
    "line",
    [
        "Rest of the docstring unchanged.",
        "The remaining paragraphs are unchanged.",
        "[unchanged]",
        "Same as before.",
        "(see previous version)",
        "Other notes as before.",
        "See the old docstring for the rest.",
        "Remaining lines omitted.",
        "Resto sin cambios.",
    ],
)
def test_a_line_that_only_points_at_the_rest_of_a_docstring_stands_in_for_it(line: str) -> None:
    (f,) = run(modify("a.py", DOC, DOC.replace(TWO, f"    {line}\n")))
    assert f.line == 5 and "only points at them" in f.message
    (f,) = run(modify("a.js", JSDOC, JSDOC.replace(" * Negative prices are refunds.\n", f" * {line}\n")))
    assert f.line == 5


@pytest.mark.parametrize(
    "line",
    [
        "Items are returned unchanged.",  # says what the code does
        "Same as total(), but without tax.",
        "Negative prices are refunds, as before.",
        "...",  # an example's "and so on"
        "unchanged.",  # the end of the sentence the line above begins (a paragraph re-wrapped)
        "The getIndex() is not changed.",
    ],
)
def test_prose_that_says_something_is_not_a_pointer(line: str) -> None:
    assert run(modify("a.py", DOC, DOC.replace(TWO, f"    {line}\n"))) == []


def test_a_doctest_ellipsis_is_the_doctest_s() -> None:
    doc = 'def f():\n    """\n    >>> f()\n    Traceback (most recent call last):\n'
    doc += '      File "x", line 1\n    ValueError\n    """\n'
    new = doc.replace('      File "x", line 1\n', "    ...\n")
    assert run(modify("a.py", doc, new)) == []


# --------------------------------------------------------------------------- beside new code, and one line


def test_a_stub_under_a_new_guard_stands_in_for_the_body() -> None:
    (f,) = run(stand_in("py", "if line.kind == 'credit':", '    raise NotImplementedError("credit lines")'))
    assert "a stub" in f.message


def test_a_stub_that_is_a_new_definitions_body_is_not_a_stand_in() -> None:
    before = "class A:\n    def area(self):\n        w = self.w\n        return w * self.h\n"
    after = "class A:\n    def area(self):\n        raise NotImplementedError\n\n"
    after += "    def name(self):\n        raise NotImplementedError\n"
    found = run(modify("a.py", before, after))
    # The body of `area` went for a stub (a stand-in); `name`'s stub is a new definition's.
    assert [f.line for f in found] == [3]


def test_a_line_of_code_whose_note_points_stands_in() -> None:
    for line in ("_ = line  # unchanged", "continue  # rest as before"):
        assert len(run(stand_in("py", line))) == 1, line
    assert len(run(stand_in("js", "void line; // body unchanged"))) == 1


def test_a_short_label_in_an_ellipsis_beside_new_code_stands_in() -> None:
    (f,) = run(stand_in("js", "// ... existing validation ...", "const strict = true;"))
    assert f.line == 4
    # ...but not a sentence that goes on from the comment before it.
    assert run(stand_in("js", "// the cases come in order", "// ... and near the maximum ...", "check(max);")) == []


def test_one_line_for_a_short_pointer() -> None:
    head = "def f(log, n):\n    if n:\n"
    before, tail = head + "        log.warning('skipped %d', n)\n", "    return n\n"
    assert len(run(modify("a.py", before + tail, head + "        pass  # logging as before\n" + tail))) == 1
    assert len(run(modify("a.py", before + tail, head + "        # warn as before\n" + tail))) == 1
    # One line gone for a comment that says something is for the phrase rules, and passes.
    assert run(modify("a.py", before + tail, head + "        pass  # the caller logs this\n" + tail)) == []


def test_a_long_sentence_that_explains_is_a_reason() -> None:
    note = "# No fprintf here: the function runs in a signal handler, and stdio is not async-signal-safe."
    assert run(stand_in("py", note)) == []
    # A list of what the removed code did is not one.
    assert len(run(stand_in("py", "# skip empty lines, look up the rate, add net and tax, count the skipped"))) == 1


# --------------------------------------------------------------------------- never a crash

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = [
    "x = 1", "    y = f(x)", "}", "end", "    # note", "// ... as before ...", "/*", " * text", " */", '"""', "    '''",
    "    ...", "pass", "todo!()", "raise NotImplementedError", "<li>...</li>", "-- rest", "#!/bin/sh", "", "  ",
    "def g():", "fn h() {", "  return 0;", "continue  # unchanged", "`", "'", '"', "(void)x;", "[...]",
]  # fmt: skip


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(_PIECES), max_size=12),
    st.lists(st.sampled_from(_PIECES), max_size=12),
    st.sampled_from(("a.py", "a.js", "a.rs", "a.go", "a.rb", "a.c", "a.sh", "a.sql", "a.html", "a.md", "a.txt")),
)
def test_any_change_is_judged_without_an_exception(old: list[str], new: list[str], path: str) -> None:
    before = "\n".join(["head()", *old, "tail()"]) + "\n"
    after = "\n".join(["head()", *new, "tail()"]) + "\n"
    for f in run(modify(path, before, after)):
        assert f.code == "placeholder" and f.line is not None
