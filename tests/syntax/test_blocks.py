"""Where the syntax blocks of a file open and end (guard/syntax/blocks.py)."""

from __future__ import annotations

import pytest

from guard.syntax import blocks, languages


def spans(path: str, text: str) -> dict[int, int]:
    return blocks.spans(path, text.split("\n"))


def test_python_statements_decorators_and_expressions() -> None:
    text = (
        "import os\n"  # 1
        "\n"  # 2
        "@cache\n"  # 3
        "@other(\n"  # 4
        "    1)\n"  # 5
        "def f(a,\n"  # 6
        "      b):\n"  # 7
        "    if a:\n"  # 8
        "        return {\n"  # 9
        "            1: 2,\n"  # 10
        "        }\n"  # 11
        "    try:\n"  # 12
        "        pass\n"  # 13
        "    except ValueError:\n"  # 14
        "        raise\n"  # 15
        "    return b\n"  # 16
    )
    got = spans("m.py", text)
    assert got[3] == 16  # the decorated definition opens on its first decorator
    assert got[6] == 16  # its `def` line opens the definition without them
    assert 4 not in got  # a later decorator is inside the definition
    assert got[8] == 11 and got[9] == 11 and got[12] == 15 and got[14] == 15
    assert 1 not in got and 16 not in got and 2 not in got  # one line, or blank: no block


def test_python_that_does_not_parse_is_unreadable() -> None:
    with pytest.raises(blocks.Unreadable, match="does not parse as Python"):
        spans("m.py", "def f(:\n    pass\n")


@pytest.mark.skipif(not languages.available("typescript"), reason="tree-sitter-typescript not installed")
def test_typescript_export_and_decorated_method() -> None:
    text = (
        "export function f(a: number) {\n"  # 1
        "  if (a) {\n"  # 2
        "    return 1;\n"  # 3
        "  }\n"  # 4
        "  return 2;\n"  # 5
        "}\n"  # 6
        "\n"  # 7
        "class A {\n"  # 8
        "  @Input()\n"  # 9
        "  @Other()\n"  # 10
        "  get x(): number {\n"  # 11
        "    return 1;\n"  # 12
        "  }\n"  # 13
        "}\n"  # 14
    )
    got = spans("a.ts", text)
    assert got[1] == 6 and got[2] == 4 and got[8] == 14
    assert got[9] == 13 and got[10] == 13 and got[11] == 13  # decorators open the method with them
    assert 4 not in got and 6 not in got


@pytest.mark.skipif(not languages.available("go"), reason="tree-sitter-go not installed")
def test_go_a_line_that_closes_one_block_opens_none() -> None:
    text = "package p\n\nfunc f() int {\n\tif true {\n\t\treturn 1\n\t} else {\n\t\treturn 2\n\t}\n}\n"
    got = spans("p.go", text)
    assert got == {3: 9, 4: 8}


@pytest.mark.skipif(not languages.available("rust"), reason="tree-sitter-rust not installed")
def test_rust_attributes_open_their_item() -> None:
    text = "#[derive(Debug)]\n#[allow(x)]\npub struct S {\n    a: i32,\n}\n"
    got = spans("s.rs", text)
    assert got == {1: 5, 2: 5, 3: 5}


def test_markdown_headings_hold_their_deeper_headings() -> None:
    text = (
        "# Title\n"  # 1
        "\n"  # 2
        "Intro.\n"  # 3
        "\n"  # 4
        "## A\n"  # 5
        "\n"  # 6
        "```sh\n"  # 7
        "# not a heading\n"  # 8
        "```\n"  # 9
        "\n"  # 10
        "### A.1\n"  # 11
        "deep\n"  # 12
        "\n"  # 13
        "Setext B\n"  # 14
        "--------\n"  # 15
        "\n"  # 16
        "text b\n"  # 17
        "\n"  # 18
    )
    got = spans("README.md", text)
    assert got == {1: 17, 5: 12, 11: 12, 14: 17}


def test_front_matter_is_no_heading() -> None:
    assert spans("x.md", "---\ntitle: x\n---\n\n# H\nbody\n") == {5: 6}


def test_no_grammar_for_the_kind_of_file() -> None:
    with pytest.raises(blocks.Unreadable, match="not in 'f.lua'"):
        spans("f.lua", "function f()\nend\n")
    with pytest.raises(blocks.Unreadable):
        spans("notes.txt", "a\nb\n")


def test_nearest_and_enclosing() -> None:
    found = {3: 16, 6: 16, 8: 11, 9: 11, 12: 15, 14: 15}
    assert blocks.nearest(found, 10, 3) == [8, 9, 12]
    assert blocks.enclosing(found, 10) == (9, 11)
    assert blocks.enclosing(found, 3) is None
