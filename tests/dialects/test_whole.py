"""Whole files in path-labelled fences (guard/dialects/whole.py)."""

from __future__ import annotations

import json

import pytest

from guard.dialects import jsonedit, searchreplace, whole
from guard.model import EditSet, FileEdit, Op, ParseError


def write(path: str, content: str, line: int) -> FileEdit:
    return FileEdit(path, Op.MODIFY, content=content, create_missing=True, source_line=line)


def edits(*files: FileEdit) -> EditSet:
    return EditSet(files=files, format="whole")


PARSE_CASES: list[tuple[str, str, EditSet]] = [
    ("one-file", "src/a.py\n```python\nprint(1)\n```\n", edits(write("src/a.py", "print(1)\n", 2))),
    (
        "label-variants",
        "Here are the files.\n\n`a.py`:\n```\na\n```\n## b.py\n```\nb\n```\n**c/d.py**\n```\nc\n```\n"
        "File: e.txt\n\n```text\ne\n```\n",
        edits(write("a.py", "a\n", 4), write("b.py", "b\n", 8), write("c/d.py", "c\n", 12), write("e.txt", "e\n", 17)),
    ),
    (
        "path-glued-to-opener",
        'Prose.\n```python src/x.py\nx\n```\n```src/y.py\ny\n```\n```py title="z.py"\nz\n```\n',
        edits(write("src/x.py", "x\n", 2), write("src/y.py", "y\n", 5), write("z.py", "z\n", 8)),
    ),
    ("tilde-fence", "notes.md\n~~~markdown\n# Title\n~~~\n", edits(write("notes.md", "# Title\n", 2))),
    (
        "longer-fence-holds-a-markdown-file",
        "README.md\n````markdown\nUse:\n```sh\nmake\n```\n````\n",
        edits(write("README.md", "Use:\n```sh\nmake\n```\n", 2)),
    ),
    ("crlf-kept", "w.bat\r\n```\r\n@echo off\r\n```\r\n", edits(write("w.bat", "@echo off\r\n", 2))),
    ("empty-file", "empty.txt\n```\n```\n", edits(write("empty.txt", "", 2))),
    (
        "list-item-dedented",
        "1. `pkg/m.py`\n   ```python\n   def f():\n       return 1\n   ```\n",
        edits(write("pkg/m.py", "def f():\n    return 1\n", 2)),
    ),
    ("bare-name", "Makefile\n```make\nall:\n\ttrue\n```\n", edits(write("Makefile", "all:\n\ttrue\n", 2))),
    ("absolute-path", "/repo/a.py\n```\nx\n```\n", edits(write("/repo/a.py", "x\n", 2))),
    (
        "json-file-content",
        'package.json\n```json\n{"name": "x"}\n```\n',
        edits(write("package.json", '{"name": "x"}\n', 2)),
    ),
    ("no-final-newline-in-reply", "a.txt\n```\nx\n```", edits(write("a.txt", "x\n", 2))),
]


@pytest.mark.parametrize("text, expected", [(t, e) for _, t, e in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parse(text: str, expected: EditSet) -> None:
    assert whole.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    ["plain content\n", "a.py\n```python\nnot a fence here\n```\n", "", "no newline"],
)
def test_given_path_takes_the_raw_text(text: str) -> None:
    assert whole.parse(text, path="dir/f.txt") == edits(write("dir/f.txt", text, 1))


ERROR_CASES: list[tuple[str, str, int, str]] = [
    ("unlabelled-fence", "Run this:\n```bash\nmake test\n```\n", 2, "not labelled with a file path"),
    (
        "second-fence-unlabelled",
        "a.py\n```\na\n```\nThen run it:\n```\npython a.py\n```\n",
        6,
        "the line before it is 'Then run it:'",
    ),
    ("nothing-before-fence", "```python\nx\n```\n", 1, "nothing precedes it"),
    ("unterminated-fence", "a.py\n```python\ndef f():\n", 2, "never closed"),
    ("same-file-twice", "a.py\n```\n1\n```\na.py\n```\n2\n```\n", 6, "a.py is given whole twice, at lines 2 and 6"),
    ("no-fence", "just prose\n", 1, "no fenced file"),
]


@pytest.mark.parametrize("text, line, fragment", [(t, n, f) for _, t, n, f in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_parse_error(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        whole.parse(text)
    assert info.value.line == line
    assert fragment in info.value.message
    assert info.value.hint


def test_unlabelled_hint_shows_the_shape() -> None:
    with pytest.raises(ParseError) as info:
        whole.parse("```\nx\n```\n")
    assert "path/to/file.py\n```python" in info.value.hint and "--path" in info.value.hint


DETECT_CASES: list[tuple[str, str, int]] = [
    ("labelled", "a.py\n```python\nx\n```\n", 20),
    ("labelled-many", "a.py\n```\nx\n```\n\n`b/c.ts`:\n```ts\ny\n```\n", 20),
    ("json-file-content", 'package.json\n```json\n{"name": "x"}\n```\n', 20),
    ("one-unlabelled", "a.py\n```\nx\n```\nRun:\n```\nmake\n```\n", 0),
    ("unterminated", "a.py\n```\nx\n", 0),
    ("no-fence", "a.py\n", 0),
    ("search-replace", "a.py\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n", 0),
    ("fenced-diff", "a.py\n```diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n```\n", 0),
    ("codex", "a.py\n```\n*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n*** End Patch\n```\n", 0),
    ("fenced-json-edit", "edit.json\n```json\n" + json.dumps({"file_path": "a", "content": "x"}) + "\n```\n", 0),
]


@pytest.mark.parametrize("text, score", [(t, s) for _, t, s in DETECT_CASES], ids=[c[0] for c in DETECT_CASES])
def test_detect(text: str, score: int) -> None:
    assert whole.detect(text) == score


def test_whole_files_are_claimed_by_whole_alone() -> None:
    text = "src/a.py\n```python\nprint(1)\n```\n"
    assert (whole.detect(text), searchreplace.detect(text), jsonedit.detect(text)) == (20, 0, 0)
