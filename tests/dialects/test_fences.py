"""Markdown fences and the path labels around them (guard/dialects/fences.py)."""

from __future__ import annotations

import pytest

from guard.dialects.fences import Fence, extract, fence_path, looks_like_patch, path_in_info, path_label

FENCE_CASES: list[tuple[str, str, list[Fence]]] = [
    (
        "plain",
        "Here it is:\n\n```python\nprint(1)\n```\ndone\n",
        [Fence("python", "print(1)\n", 4, 3, "Here it is:", 5)],
    ),
    (
        "tilde",
        "~~~\na\n~~~\n",
        [Fence("", "a\n", 2, 1, "", 3)],
    ),
    (
        "longer-opener-holds-shorter-fences",
        "````markdown\n```py\nx\n```\n````\n",
        [Fence("markdown", "```py\nx\n```\n", 2, 1, "", 5)],
    ),
    (
        "closer-may-be-longer",
        "```\na\n`````\n",
        [Fence("", "a\n", 2, 1, "", 3)],
    ),
    (
        "tilde-does-not-close-backticks",
        "```\n~~~\n```\n",
        [Fence("", "~~~\n", 2, 1, "", 3)],
    ),
    (
        "closer-has-no-info",
        "```\n```python\n```\n",
        [Fence("", "```python\n", 2, 1, "", 3)],
    ),
    (
        "unterminated-runs-to-end",
        "x.py\n```\nline1\nline2",
        [Fence("", "line1\nline2", 3, 2, "x.py", None)],
    ),
    (
        "info-with-attributes",
        '```py title="x.py"\nbody\n```',
        [Fence('py title="x.py"', "body\n", 2, 1, "", 3)],
    ),
    (
        "crlf-kept",
        "a.py\r\n```\r\none\r\ntwo\r\n```\r\n",
        [Fence("", "one\r\ntwo\r\n", 3, 2, "a.py", 5)],
    ),
    (
        "empty-body",
        "```\n```\n",
        [Fence("", "", 2, 1, "", 2)],
    ),
    (
        "indented-in-list-item",
        "1. `a.py`\n   ```python\n   def f():\n       pass\n   ```\n",
        [Fence("python", "def f():\n    pass\n", 3, 2, "1. `a.py`", 5)],
    ),
    (
        "inline-code-is-not-a-fence",
        "use ```x``` here\n```x```\n",
        [],
    ),
    (
        "preceding-skips-blank-lines-and-follows-closers",
        "one.py\n\n\n```\n1\n```\n```\n2\n```\n",
        [Fence("", "1\n", 5, 4, "one.py", 6), Fence("", "2\n", 8, 7, "```", 9)],
    ),
    (
        "closer-indented-too-far-is-body",
        "```\n    ```\n```\n",
        [Fence("", "    ```\n", 2, 1, "", 3)],
    ),
    ("no-fences", "just prose\n", []),
]


@pytest.mark.parametrize("text, expected", [(t, e) for _, t, e in FENCE_CASES], ids=[c[0] for c in FENCE_CASES])
def test_extract(text: str, expected: list[Fence]) -> None:
    assert extract(text) == expected


LABELS: list[tuple[str, str | None]] = [
    ("src/x.py", "src/x.py"),
    ("`src/x.py`", "src/x.py"),
    ("src/x.py:", "src/x.py"),
    ("`src/x.py`:", "src/x.py"),
    ("# src/x.py", "src/x.py"),
    ("## `src/x.py`", "src/x.py"),
    ("**src/x.py**", "src/x.py"),
    ("*src/x.py*", "src/x.py"),
    ("**`src/x.py`**:", "src/x.py"),
    ("File: src/x.py", "src/x.py"),
    ("**File:** `src/x.py`", "src/x.py"),
    ("filename: src/x.py", "src/x.py"),
    ("- `src/x.py`", "src/x.py"),
    ("Makefile", "Makefile"),
    ("src/new.py (new file)", "src/new.py"),
    ("### File: `a/b.rs` (new)", "a/b.rs"),
    ("src\\mycli\\__init__.py", "src\\mycli\\__init__.py"),
    ("`docs/My Notes.md`", "docs/My Notes.md"),
    ("docs/My Notes.md", None),  # spaces only inside backticks
    ("Here's the change:", None),
    ("Update src/x.py as follows:", None),
    ("...", None),
    ("python", None),
    ("https://example.com/a.py", None),
    ("e.g.", None),
    ("", None),
]


@pytest.mark.parametrize("line, expected", LABELS)
def test_path_label(line: str, expected: str | None) -> None:
    assert path_label(line) == expected


INFOS: list[tuple[str, str | None]] = [
    ("python", None),
    ("", None),
    ("c++", None),
    ("python path/to/x.py", "path/to/x.py"),
    ("path/to/x.py", "path/to/x.py"),
    ("x.py", "x.py"),
    ('py title="x.py"', "x.py"),
    ("python title=src/x.py", "src/x.py"),
    ("typescript:app/page.tsx", "app/page.tsx"),
    ("12:15:app/page.tsx", "app/page.tsx"),
    ("python {.numberLines}", None),
    ("diff", None),
]


@pytest.mark.parametrize("info, expected", INFOS)
def test_path_in_info(info: str, expected: str | None) -> None:
    assert path_in_info(info) == expected


def test_fence_path_prefers_the_glued_path() -> None:
    (fence,) = extract("other.py\n```python real.py\nx\n```\n")
    assert fence_path(fence) == "real.py"
    (fence,) = extract("Some prose.\n```python\nx\n```\n")
    assert fence_path(fence) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", True),
        ("diff --git a/x b/x\n", True),
        ("*** Begin Patch\n*** Update File: x\n", True),
        ("@@ -3,4 +3,5 @@\n", True),
        ("---\ntitle: front matter\n---\n", False),
        ("plain text\n", False),
    ],
)
def test_looks_like_patch(text: str, expected: bool) -> None:
    assert looks_like_patch(text) is expected


def test_extract_is_linear_on_many_fences() -> None:
    text = "f.py\n```\nx\n```\n" * 20000
    found = extract(text)
    assert len(found) == 20000
    assert found[-1].opener_line == 4 * 19999 + 2
