"""Python syntax edit by edit (guard.syntax.python): the same verdicts as a whole parse.

- The lexer's outline never names a line where no top-level statement starts: over
  tricky hand-written modules, and over the modules of this Python's standard
  library (a sample, every file that parses).
- `new_error` agrees with parsing both sides whole, for random edits of a module
  (hypothesis), one after another as a session makes them, and for the edits that
  look harmless in the stretch alone but break the module (a decorator left without
  its definition, `from __future__` moved down, a clause at column 0).
"""

from __future__ import annotations

import ast
import random
import sysconfig
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard.syntax import python as pysyntax


def whole_error(text: str) -> tuple[int, int, str] | None:
    return pysyntax.parse(text)[1]


def truth(before: str, after: str) -> tuple[int, int, str] | None:
    """What new_error must say: after's own error, when before parsed."""
    err = whole_error(after)
    return err if err is not None and whole_error(before) is None else None


def true_starts(text: str) -> set[int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text)
    return set(pysyntax._ast_starts(tree))


TRICKY = [
    # col-0 code inside a triple-quoted string, and a string that ends mid-line
    'x = """\ndef f():\n    pass\nimport os\n"""\ny = 1\n',
    "x = '''\nclass A:\n'''\nz = 2\n",
    'x = """\nabc\n"""  or y\nw = 3\n',
    # brackets across lines, with col-0 names inside
    "x = (\nfoo,\nbar)\ny = [\n1,\n]\nz = {\n'a': 1}\n",
    # continuation lines
    "x = 1 + \\\ny\nz = 2\n",
    "# a comment \\\ny = 3\n",
    # decorators: the def under them is not a start
    "@dec\n@other(1,\n2)\ndef f():\n    pass\n\n@dec\nclass C:\n    pass\nv = 1\n",
    # clauses at column 0
    "if a:\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n"
    "while x:\n    pass\nelse:\n    pass\n",
    # quotes inside comments and strings, escapes
    "x = 'it\\'s'  # don't\ny = \"a \\\" b\"\nz = r'\\''\nw = b'\\\\'\n",
    "s = 'a\\\nb'\nt = 1\n",
    # f-strings, nested quotes of the other kind
    "name = f\"{d['k']}\"\nother = f'{x!r:>{w}}'\n",
    # semicolons and one-line compound statements
    "a = 1; b = 2\nif a: b = 3\nfor i in x: pass\n",
    # brackets in strings and comments
    "x = '('\ny = 1  # )\nz = \")]}\"\nw = 4\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_lexed_starts_are_statement_starts(text: str) -> None:
    lexed = pysyntax._lexed(text)
    assert lexed is not None
    assert set(lexed) <= true_starts(text)


def test_lexer_gives_up_on_what_it_cannot_follow() -> None:
    assert pysyntax._lexed("x = 'open\ny = 1\n") is None  # unterminated string
    assert pysyntax._lexed("x = 1)\ny = 2\n") is None  # a closing bracket too many


def _stdlib_sample(count: int) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.glob("*.py"))
    random.Random(7).shuffle(files)
    return files[:count]


def test_lexer_over_the_standard_library() -> None:
    checked = covered = total = 0
    for path in _stdlib_sample(150):
        try:
            text = path.read_text("utf-8")
            real = true_starts(text)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lexed = pysyntax._lexed(text)
        if lexed is None:
            continue
        assert set(lexed) <= real, (path, sorted(set(lexed) - real)[:5])
        checked += 1
        covered += len(lexed)
        total += len(real)
    if checked == 0:
        pytest.skip("no standard library sources on this machine")
    assert covered >= 0.9 * total  # it takes nearly every start, not just a safe few


# --------------------------------------------------------------------------- edits


BASE = """\
from __future__ import annotations

import os


def alpha(x):
    \"\"\"Alpha.

def not_code(:
\"\"\"
    return (x +
1)


@decorator
def beta(y):
    if y:
        return 1
    else:
        return 2


class Gamma:
    value = [
        1,
    ]

    def method(self):
        return '''
class Inside:
'''


delta = alpha(1) + \\
    beta(2)
"""

# Lines an edit may put anywhere: most keep the module parsing somewhere, many do not.
POOL = [
    "x = 1",
    "    y = 2",
    "def f():",
    "    return 3",
    "",
    "# note",
    "@decorator",
    "else:",
    "    pass",
    "(",
    ")",
    '"""',
    "'''",
    "z = (1,",
    "from __future__ import division",
    "class K:",
    "        deep = 1",
    "import sys",
    "if x:",
    "elif y:",
    "    ]",
    "return 4",
    "\\",
    "s = 'unterminated",
]


def _edit(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randrange(0, 3))
    new = [rng.choice(POOL) for _ in range(rng.randrange(0, 3))]
    return "\n".join(lines[:a] + new + lines[b:])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_new_error_agrees_with_whole_parses(seed: int) -> None:
    rng = random.Random(seed)
    before = BASE
    # A session: each edit starts from the text the previous one left.
    for _ in range(4):
        after = _edit(before, rng)
        if after == before:
            continue
        assert pysyntax.new_error(before, after) == truth(before, after), (before, after)
        if whole_error(after) is None:
            before = after


def test_new_error_for_a_first_seen_file_and_after() -> None:
    before = BASE + "".join(f"\ndef f{i}(a):\n    return a + {i}\n" for i in range(300))
    fine = before.replace("return a + 150\n", "return a + 150  # changed\n")
    broken = before.replace("return a + 151\n", "return (a + 151\n")
    assert pysyntax.new_error(before, fine) is None
    assert pysyntax.new_error(fine, broken) == whole_error(broken) is not None


@pytest.mark.parametrize(
    "before, after",
    [
        # the stretch alone parses, the module does not
        ("@decorator\ndef f():\n    pass\n\nx = 1\n", "@decorator\nx = 2\n\nx = 1\n"),
        ("import os\n\ny = 1\n", "import os\n\nfrom __future__ import annotations\ny = 1\n"),
        ("if a:\n    pass\nb = 1\n", "if a:\n    pass\nelse:\n    pass\nb = 1\n"),  # fine: else joins the if
        ("x = '''\nq = 1\n'''\nz = 2\n", "x = '''\nq = '''\n'''\nz = 2\n"),
        ("x = (\n1,\n)\nw = 1\n", "x = (\n1,\n\nw = 1\n"),
        ("def f():\n    return 1\n\ng = 2\n", "def f():\n    return 1\n    \\\ng = 2\n"),
    ],
)
def test_edits_that_the_stretch_alone_would_misjudge(before: str, after: str) -> None:
    assert pysyntax.new_error(before, after) == truth(before, after)


def test_a_file_that_did_not_parse_is_not_held_to_it() -> None:
    before = "def f(:\n    pass\n\nx = 1\n"
    after = "def f(:\n    pass\n\nx = (\n"
    assert pysyntax.new_error(before, after) is None
