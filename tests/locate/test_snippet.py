"""The `lazy` dialect: update snippets with elided code, merged deterministically.

Behaviour is pinned by the folders of tests/cases_lazy/<name>/, in the layout and
with the checks of tests/cases/ (tests/casefolders.py), sent with ``--format lazy``.
"""

from __future__ import annotations

import json
from pathlib import Path

import casefolders
import pytest

from guard.dialects import lazy
from guard.locate import ALL_TIERS, apply_splices, locate_changes
from guard.model import Snippet
from guard.text.textfile import split

CASES = Path(__file__).resolve().parents[1] / "cases_lazy"


@pytest.mark.parametrize("name", casefolders.names(CASES))
def test_case(name: str, repo, cli) -> None:  # type: ignore[no-untyped-def]
    casefolders.run(CASES / name, repo, cli, ("--format", "lazy"))


def test_enough_cases() -> None:
    assert len([p for p in CASES.iterdir() if p.is_dir()]) >= 30


# --------------------------------------------------------------------------- the parser


@pytest.mark.parametrize(
    "line",
    [
        "# ... existing code ...",
        "    // ... existing code ...",
        "<!-- ... existing code ... -->",
        "  {/* ... existing JSX ... */}",
        "/* ... */",
        "# ...",
        "-- ... rest of the file unchanged",
        "    // rest of the method stays the same",
        "# ... other methods ...",
        # In other words, languages and disguises (the placeholder check's notes, firm ones):
        "# body unchanged",
        "    // everything below stays as it was",
        "# [lines 10-40 unchanged]",
        "// 其余代码不变",
        "# остальной код без изменений",
        "# r\u0435st of the c\u043ede unchanged",
        "# rest of the co\u200bde unchanged",
        "# ⋯ existing code ⋯",
    ],
)
def test_markers(line: str) -> None:
    assert lazy.is_marker(line)


@pytest.mark.parametrize(
    "line",
    [
        "x = 1  # ... existing code ...",
        "# Compute the totals.",
        "...",
        "print('... existing code ...')",
        "#include <stdio.h>",
        "// TODO: handle errors",
        "    # noqa",
        # Notes that may head new code are not markers (a misread marker would keep lines the snippet replaces):
        "# same as above",
        "# rest of the code",
        "# existing code",
        "    # keep the cache warm",
        "# sum the rest",
    ],
)
def test_not_markers(line: str) -> None:
    assert not lazy.is_marker(line)


def test_parse_path_and_json() -> None:
    es = lazy.parse("x = 1\n# ... existing code ...\n", path="a.py")
    assert es.format == "lazy"
    (fe,) = es.files
    assert fe.path == "a.py" and not fe.create_missing
    assert fe.changes == (Snippet(("x = 1", "# ... existing code ..."), (1,), 1),)
    es = lazy.parse(json.dumps({"target_file": "b.py", "instructions": "add y", "code_edit": "y = 2\n"}))
    assert es.files[0].path == "b.py" and es.files[0].create_missing  # no marker: the whole file


@pytest.mark.parametrize(
    "text, says",
    [
        ("no fence here", "no snippet found"),
        ("a.py\n```python\n# ... existing code ...\n```\n", "only markers"),
        ("a.py\n```python\nx = 1\n", "never closed"),
        ("a.py\n```\nx = 1\n```\na.py\n```\ny = 1\n```\n", "two snippets"),
        ('{"target_file": "a.py"}', "code_edit"),
    ],
)
def test_parse_refusals(text: str, says: str) -> None:
    with pytest.raises(Exception) as info:
        lazy.parse(text)
    assert says in str(info.value)


def test_auto_never_picks_lazy(cli, repo) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "def f():\n    return 1\n"})
    result = cli("apply", "--json", input="a.py\n```python\ndef f():\n    # ... existing code ...\n```\n")
    assert result.json()["format"] != "lazy"


# --------------------------------------------------------------------------- the merge, in-process


def merge(path: str, before: str, snippet: str) -> tuple[str | None, list[str]]:
    fe = lazy.parse(snippet, path=path).files[0]
    text = split(before)
    out = locate_changes(text, fe.changes, ALL_TIERS, path)
    if out.findings:
        return None, [f.code for f in out.findings]
    return apply_splices(text, out.splices)[0].encode().decode(), []


def test_crlf_file_keeps_crlf() -> None:
    before = "a = 1\r\nb = 2\r\nc = 3\r\n"
    after, codes = merge("x.py", before, "a = 1\nz = 9\nb = 2\n# ... existing code ...\n")
    assert codes == []
    assert after == "a = 1\r\nz = 9\r\nb = 2\r\nc = 3\r\n"


def test_anchor_with_trailing_blanks_keeps_the_file_line() -> None:
    before = "def f():  \n    return 1\n\nx = 2\n"
    after, codes = merge("x.py", before, "def f():\n    log()\n    return 1\n# ... existing code ...\n")
    assert codes == []
    assert after == "def f():  \n    log()\n    return 1\n\nx = 2\n"


def test_missing_grammar_falls_back_on_indentation(monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.syntax import languages

    monkeypatch.setattr(languages, "enclosing", lambda *_a: None)
    before = "class A:\n    def f(self):\n        return 1\n\n\ndef g():\n    pass\n"
    snippet = "class A:\n    # ... existing code ...\n\n    def h(self):\n        return 2\n# ... existing code ...\n"
    after, codes = merge("x.py", before, snippet)
    assert codes == []
    assert after == "class A:\n    def f(self):\n        return 1\n\n    def h(self):\n        return 2\n\n\ndef g():\n    pass\n"


# --------------------------------------------------------------------------- runs of repeated lines

DEF_A = "def a(x):\n    y = x + 1\n    z = y * 2\n    log(z)\n    return z\n"
DEF_C = "def c(x, y):\n    z = y * 2\n    y = x + 1\n    log(z)\n    return z\n"


def test_a_run_of_repeated_lines_anchors_where_it_occurs_once() -> None:
    # Every shown line occurs twice or more; `y = x + 1` then `z = y * 2` occurs in a() only.
    before = DEF_A + "\n\n" + DEF_C
    after, codes = merge("x.py", before, "# ...\n    y = x + 1\n    z = y * 2\n    return z\n# ...\n")
    assert codes == []
    assert after == DEF_A.replace("    log(z)\n", "") + "\n\n" + DEF_C


def test_a_run_that_occurs_twice_anchors_nothing() -> None:
    before = DEF_A + "\n\n" + DEF_A.replace("def a", "def b")
    after, codes = merge("x.py", before, "# ...\n    y = x + 1\n    z = y * 2\n    return z\n# ...\n")
    assert after is None and codes == ["ambiguous"]


def test_the_search_for_runs_is_bounded() -> None:
    # 20,000 lines of two repeated statements, and 2,000 runs of them between markers: no run is
    # unique, and the search gives up within its budget (a refusal, never a long wait or a guess).
    a, b = "    result = compute(alpha, beta)", "    other = transform(gamma, delta)"
    before = "".join((a if i % 3 else b) + "\n" for i in range(20_000))
    snippet = "# ...\n" + "".join(f"{a}\n{a}\n{b}\n{a}\n{a}\n{b}\n{a}\n# ...\n" for _ in range(2_000))
    after, codes = merge("x.py", before, snippet)
    assert after is None and codes == ["ambiguous"]


# --------------------------------------------------------------------------- near copies beside a marker (issue 36)

LOAD = "import os\n\n\ndef load(path):\n    data = read_file(path)\n    rows = parse_rows(data)\n    return rows\n"


def test_new_lines_that_copy_the_kept_lines_beside_them_are_ambiguous() -> None:
    # No context above the changed lines: they may replace the two lines above the anchor, or join
    # them.  Inserted beside them, the old lines would stay, duplicated under a new name.
    snippet = "# ... existing code ...\n    data = read_file_v2(path)\n    rows = parse_rows_v2(data)\n    return rows\n"
    after, codes = merge("app.py", LOAD, snippet)
    assert after is None and codes == ["ambiguous"]
    # Shown with the line above them, the same lines replace the two: no doubt left.
    snippet = "# ... existing code ...\ndef load(path):\n    data = read_file_v2(path)\n    rows = parse_rows_v2(data)\n"
    snippet += "    return rows\n"
    after, codes = merge("app.py", LOAD, snippet)
    assert codes == [] and after == LOAD.replace("read_file(", "read_file_v2(").replace("parse_rows(", "parse_rows_v2(")


def test_a_new_definition_beside_a_kept_one_is_an_addition() -> None:
    before = "class A:\n    def f(self):\n        return 1\n\n\ndef g():\n    pass\n"
    snippet = "class A:\n    # ... existing code ...\n\n    def load(self):\n        return 2\n# ... existing code ...\n"
    after, codes = merge("x.py", before, snippet)
    assert codes == [] and after is not None and "    def f(self):\n        return 1\n\n    def load(self):" in after
