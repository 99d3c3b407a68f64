"""ast-grep's templates (guard/structural/template.py): metavariables, and the indentation of what they put in."""

from __future__ import annotations

import pytest

from guard.structural import languages, template


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("newApi($$$ARGS)", [("ARGS", True)]),
        ("$A = $B", [("A", False), ("B", False)]),
        ("$$A", [("A", False)]),  # two `$` read as one
        ("$$$$A", [("A", True)]),  # the first `$` is text
        ("$(x); ${A}; $; $a", []),  # no name: text
        ("$1 $_ $A_1", [("1", False), ("_", False), ("A_1", False)]),
        ("x$Ay", [("A", False)]),  # a template reads a name wherever it stands
    ],
)
def test_slots(text: str, want: list[tuple[str, bool]]) -> None:
    assert [(s.name, s.many) for s in template.slots(text)] == want


def test_a_slot_knows_the_indentation_of_its_line() -> None:
    got = template.slots("if x:\n    $$$BODY\n  $Y")
    assert [(s.name, s.indent) for s in got] == [("BODY", 4), ("Y", 2)]


@pytest.mark.parametrize(
    ("text", "end", "want"),
    [
        ("    foo(", 8, 4),  # the first line: its own spaces
        ("a\n      b = f(", 14, 6),
        ("a\n\t  b", 5, 0),  # a tab first: no indentation
        ("a\n  \t b", 6, 2),  # the spaces that open the line, up to its first other character
        ("x\n" + " " * 600 + "y", 602, 0),  # the line starts more than 512 bytes back
        (" " * 500 + "y", 500, 500),  # the first line, within 512 bytes of the start (ast-grep's rule)
        (" " * 600, 600, 0),  # ... and not past them
        ("x\n" + " " * 511 + "y", 513, 511),  # the line's start is the 512th byte back: seen
        ("x\n" + " " * 512 + "y", 514, 0),  # the 513th: not
        ("x\n" + "é" * 255 + "  y", 2 + 255 + 2, 0),  # 510 bytes of é + 2 spaces: the line starts at byte 514 back
        ("x\n" + "é" * 254 + "  y", 2 + 254 + 2, 0),  # a non-space first: 0, within the window
    ],
)
def test_indent_before(text: str, end: int, want: int) -> None:
    assert template.indent_before(text, end) == want


def test_reindent() -> None:
    assert template.reindent("a\n      b\n    c", 4, 0) == "a\n  b\nc"
    assert template.reindent("a\n  b\n\nc", 0, 3) == "a\n     b\n   \n   c"  # empty lines too, as ast-grep
    assert template.reindent("a\nb", 2, 2) == "a\nb"
    assert template.reindent("one line", 0, 8) == "one line"
    assert template.reindent("a\n x\n   y", 2, 0) == "a\n x\n y"  # a line with fewer spaces keeps them


def test_fill_moves_a_metavariable_to_the_template_line_then_the_whole_to_the_match() -> None:
    source = "if (true) {\n  a(\n    1\n      + 2\n      + 3\n  )\n}"
    start = source.index("a(")
    arg = source.index("1"), source.index("3") + 1
    got = template.fill(
        "c(\n  $B\n)", template.slots("c(\n  $B\n)"), source, start, lambda name: arg if name == "B" else None, lambda name: None
    )
    assert got == "c(\n    1\n      + 2\n      + 3\n  )"  # ast-grep's own worked example


def test_fill_puts_nothing_for_an_empty_list() -> None:
    got = template.fill("f($$$ARGS)", template.slots("f($$$ARGS)"), "g()", 0, lambda name: None, lambda name: None)
    assert got == "f()"


@pytest.mark.parametrize(
    ("pattern", "single", "many"),
    [
        ("f($A, $$$REST)", {"A"}, {"REST"}),
        ("$$A + $_ + $$$_X + $$$", {"A"}, set()),
        ("x$A + $Ab + $A$B", set(), set()),  # inside a longer name: no metavariable
        ('"$A" + $B', {"A", "B"}, set()),  # text cannot tell a string: the matches do (`unbound`)
    ],
)
def test_pattern_names(pattern: str, single: set[str], many: set[str]) -> None:
    assert template.pattern_names(pattern) == (frozenset(single), frozenset(many))


def test_mismatches_are_named_once() -> None:
    assert template.mismatches("f($A)", "g($B, $B, $A)") == ["$B is a single node in `to` but not in the pattern"]
    assert template.mismatches("f($$$A)", "g($$$A)") == []


@pytest.mark.parametrize(
    ("pattern", "lang", "want"),
    [
        ("print($$$ARGS)", "python", "print(µµµARGS)"),
        ("f($A, $$B, $$$, $x, $$)", "go", "f(µA, µµB, µµµ, $x, $$)"),
        ("$(x) + $A", "javascript", "$(x) + $A"),
    ],
)
def test_pattern_source(pattern: str, lang: str, want: str) -> None:
    found = languages.named(lang)
    assert found is not None
    assert languages.pattern_source(pattern, found) == want


@pytest.mark.parametrize(
    ("path", "want"),
    [
        ("src/a.ts", "typescript"),
        ("a.tsx", "tsx"),
        ("x/y.mjs", "javascript"),
        ("lib.h", "c"),
        ("a.pyi", "python"),
        (".bashrc", None),
        ("Makefile", None),
        ("a.PY", None),
        ("a.", None),
    ],
)
def test_language_of_a_path(path: str, want: str | None) -> None:
    got = languages.of_path(path)
    assert (got.name if got else None) == want
