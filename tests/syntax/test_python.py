"""Python syntax of an edit (``languages.new_python_problem``): the parser's own error for the
edited text, and only when the original parsed.

The edits below look harmless in the lines they touch and break the module, or the
reverse; each verdict must be the one parsing both sides whole gives.
"""

from __future__ import annotations

import ast
import warnings

import pytest

from guard.syntax import languages


def truth(before: str, after: str) -> tuple[int, int, str] | None:
    """What an edit's check must say: after's own error (``ast.parse``), when before parsed."""

    def error(text: str) -> tuple[int, int, str] | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
        except SyntaxError as exc:
            return exc.lineno or 1, exc.offset or 1, exc.msg
        return None

    err = error(after)
    return err if err is not None and error(before) is None else None


def judged(before: str, after: str) -> tuple[int, int, str] | None:
    found = languages.new_python_problem(before.encode(), after.encode())
    return None if found is None else (found.line, found.column, found.message)


BASE = '@decorator\ndef beta(y):\n    if y:\n        return 1\n    return 2\n\n\nx = """\nclass Inside:\n"""\n'


@pytest.mark.parametrize(
    "before, after",
    [
        (BASE, BASE.replace("return 2", "return 3")),
        (BASE, BASE.replace("return 2", "return (2")),
        # the touched lines alone parse, the module does not
        ("@decorator\ndef f():\n    pass\n\nx = 1\n", "@decorator\nx = 2\n\nx = 1\n"),
        ("import os\n\ny = 1\n", "import os\n\nfrom __future__ import annotations\ny = 1\n"),
        ("if a:\n    pass\nb = 1\n", "if a:\n    pass\nelse:\n    pass\nb = 1\n"),  # fine: else joins the if
        ("x = '''\nq = 1\n'''\nz = 2\n", "x = '''\nq = '''\n'''\nz = 2\n"),
        ("x = (\n1,\n)\nw = 1\n", "x = (\n1,\n\nw = 1\n"),
        ("def f():\n    return 1\n\ng = 2\n", "def f():\n    return 1\n    \\\ng = 2\n"),
    ],
)
def test_the_verdict_is_the_whole_parse(before: str, after: str) -> None:
    assert judged(before, after) == truth(before, after)


def test_an_error_is_the_parsers_own() -> None:
    before = "".join(f"\ndef f{i}(a):\n    return a + {i}\n" for i in range(300))
    broken = before.replace("return a + 151\n", "return (a + 151\n")
    assert judged(before, broken) == truth(before, broken) is not None
    problem = languages.new_python_problem(before.encode(), broken.encode())
    assert problem is not None and problem.language == "python"


def test_a_file_that_did_not_parse_is_not_held_to_it() -> None:
    assert judged("def f(:\n    pass\n\nx = 1\n", "def f(:\n    pass\n\nx = (\n") is None


def test_nul_bytes_are_a_problem_not_a_crash() -> None:  # deep nesting: tests/test_nesting.py
    assert judged("x = 1\n", "x = 1\0\n") == (1, 1, "source code string cannot contain null bytes")


def test_the_target_version_is_the_projects() -> None:
    walrus = "if (n := 1):\n    pass\n"
    assert languages.new_python_problem(b"x = 1\n", walrus.encode(), (3, 7)) is not None
    assert languages.new_python_problem(b"x = 1\n", walrus.encode(), (3, 8)) is None
