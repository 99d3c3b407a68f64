"""str_replace-style JSON edits (guard/dialects/jsonedit.py)."""

from __future__ import annotations

import json

import pytest

from guard.dialects import jsonedit, searchreplace, whole
from guard.model import Change, EditSet, FileEdit, LineRange, Op, ParseError, Replace


def changes(path: str, *items: Change, line: int = 1) -> FileEdit:
    return FileEdit(path, Op.MODIFY, changes=items, source_line=line)


def write(path: str, content: str, line: int = 1) -> FileEdit:
    return FileEdit(path, Op.MODIFY, content=content, create_missing=True, source_line=line)


def edits(*files: FileEdit) -> EditSet:
    return EditSet(files=files, format="json")


def js(value: object) -> str:
    return json.dumps(value)


EDIT = {"file_path": "src/a.py", "old_string": "x = 1", "new_string": "x = 2"}

PARSE_CASES: list[tuple[str, str, EditSet]] = [
    ("claude-edit", js(EDIT), edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 1)))),
    (
        "replace-all",
        js({**EDIT, "replace_all": True}),
        edits(changes("src/a.py", Replace("x = 1", "x = 2", True, 1))),
    ),
    ("claude-write", js({"file_path": "n.py", "content": "a\nb\n"}), edits(write("n.py", "a\nb\n"))),
    (
        "claude-multiedit",
        js(
            {
                "file_path": "m.py",
                "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "", "replace_all": True}],
            }
        ),
        edits(changes("m.py", Replace("a", "b", False, 1), Replace("c", "", True, 1))),
    ),
    (
        "text-editor-str-replace-new-str-optional",
        js({"command": "str_replace", "path": "/repo/a.py", "old_str": "gone\n"}),
        edits(changes("/repo/a.py", Replace("gone\n", "", False, 1))),
    ),
    (
        "text-editor-create",
        js({"command": "create", "path": "c.txt", "file_text": "hello\n"}),
        edits(FileEdit("c.txt", Op.CREATE, content="hello\n", source_line=1)),
    ),
    (
        "text-editor-insert",
        js({"command": "insert", "path": "i.py", "insert_line": 0, "new_str": "import os\nimport re\n"}),
        edits(changes("i.py", LineRange(1, 0, ("import os", "import re"), source_line=1))),
    ),
    (
        "opencode-camel-case",
        js({"filePath": "o.ts", "oldString": "let", "newString": "const", "replaceAll": True}),
        edits(changes("o.ts", Replace("let", "const", True, 1))),
    ),
    (
        "mcp-edit-file",
        js({"path": "p.md", "edits": [{"oldText": "# A", "newText": "# B"}], "dryRun": False}),
        edits(changes("p.md", Replace("# A", "# B", False, 1))),
    ),
    (
        "function-call-arguments-string",
        js({"name": "Edit", "arguments": js(EDIT)}),
        edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 1))),
    ),
    (
        "openai-function-wrapper",
        js({"id": "call_1", "type": "function", "function": {"name": "edit", "arguments": js(EDIT)}}),
        edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 1))),
    ),
    (
        "tool-use-and-hook-payload",
        js({"type": "tool_use", "id": "t", "name": "Write", "input": {"file_path": "w.py", "content": ""}})
        + "\n"
        + js({"session_id": "s", "tool_name": "Edit", "tool_input": EDIT}),
        edits(write("w.py", ""), changes("src/a.py", Replace("x = 1", "x = 2", False, 2), line=2)),
    ),
    (
        "json-lines-merge-per-file-in-order",
        js(EDIT)
        + "\n"
        + js({"file_path": "b.py", "content": "b"})
        + "\n\n"
        + js({"file_path": "src/a.py", "old_string": "y", "new_string": "z"})
        + "\n",
        edits(
            changes("src/a.py", Replace("x = 1", "x = 2", False, 1), Replace("y", "z", False, 4)),
            write("b.py", "b", line=2),
        ),
    ),
    (
        "pretty-array-items-keep-their-lines",
        json.dumps([EDIT, {"file_path": "b.py", "content": "b"}], indent=2),
        edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 2), line=2), write("b.py", "b", line=7)),
    ),
    (
        "fenced-in-prose",
        "I'll make this edit:\n\n```json\n" + js(EDIT) + "\n```\n\nDone.\n",
        edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 4), line=4)),
    ),
    (
        "openai-message-tool-calls",
        js(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"type": "function", "function": {"name": "Edit", "arguments": js(EDIT)}}],
            }
        ),
        edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 1))),
    ),
    (
        "anthropic-message-content-blocks",
        js(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "name": "Edit", "input": EDIT}],
            }
        ),
        edits(changes("src/a.py", Replace("x = 1", "x = 2", False, 1))),
    ),
    (
        "crlf-text-kept",
        js({"file_path": "w.py", "old_string": "a\r\n", "new_string": "b\r\n"}),
        edits(changes("w.py", Replace("a\r\n", "b\r\n", False, 1))),
    ),
]


@pytest.mark.parametrize("text, expected", [(t, e) for _, t, e in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parse(text: str, expected: EditSet) -> None:
    assert jsonedit.parse(text) == expected


def test_given_path_names_objects_without_one() -> None:
    parsed = jsonedit.parse(js({"old_string": "a", "new_string": "b"}), path="p.py")
    assert parsed == edits(changes("p.py", Replace("a", "b", False, 1)))


ERROR_CASES: list[tuple[str, str, int, str]] = [
    ("view-is-a-read", js({"command": "view", "path": "a.py"}), 1, "view is a read, not an edit"),
    ("empty-old-string", js({**EDIT, "old_string": ""}), 1, 'empty "old_string"'),
    ("empty-old-str", js({"command": "str_replace", "path": "a", "old_str": "", "new_str": "x"}), 1, 'empty "old_str"'),
    ("unknown-shape-names-keys", '{"x": 1,\n "y": 2}', 1, "(keys: x, y)"),
    (
        "syntax-error-line-column",
        '[\n  {"file_path": "a.py",\n   "content": "x"\n  }\n  {"file_path": "b"}\n]',
        5,
        "line 5 column 3",
    ),
    # A missing colon: Python 3.13's json puts a trailing comma's error on the comma's line, older ones on the next.
    ("syntax-error-inside-fence", 'Edit:\n```json\n{"file_path": "a",\n "x" 1}\n```\n', 4, "invalid JSON at line 4"),
    ("wrapped-diff-string", js("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 1, "diff or patch inside a JSON string"),
    ("wrapped-diff-field", js({"patch": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}), 1, 'JSON field "patch"'),
    (
        "wrapped-codex-patch",
        js({"name": "apply_patch", "arguments": {"input": "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}}),
        1,
        'JSON field "input"',
    ),
    (
        "whole-and-edit-one-file",
        js({"file_path": "a", "content": "x"}) + "\n" + js({**EDIT, "file_path": "a"}),
        2,
        "both written whole and edited",
    ),
    ("negative-insert-line", js({"command": "insert", "path": "a", "insert_line": -1, "new_str": "x"}), 1, '"insert_line"'),
    ("bad-arguments-string", js({"name": "Edit", "arguments": "{nope"}), 1, 'the "arguments" string'),
    ("unknown-command", js({"command": "undo_edit", "path": "a"}), 1, "unknown command 'undo_edit'"),
    ("missing-new-string", js({"file_path": "a", "old_string": "x"}), 1, '"new_string" of the edit at line 1 is missing'),
    ("non-string-content", js({"file_path": "a", "content": 3}), 1, '"content" of the edit at line 1 is a int'),
    ("no-path", js({"old_string": "a", "new_string": "b"}), 1, "names no file"),
    ("replace-all-not-bool", js({**EDIT, "replace_all": "yes"}), 1, "must be true or false"),
    ("bad-edits-item", js({"file_path": "a", "edits": [{"old": "x"}]}), 1, "edit #1 of a at line 1 has no old/new"),
    ("a-number", "42", 1, "no JSON found"),
    ("read-only-object", js({"name": "Read", "arguments": {"file_path": "a.py"}}), 1, "a read, not an edit"),
]


@pytest.mark.parametrize("text, line, fragment", [(t, n, f) for _, t, n, f in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_parse_error(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        jsonedit.parse(text)
    assert info.value.line == line
    assert fragment in info.value.message
    assert info.value.hint


def test_hints_say_what_to_do() -> None:
    with pytest.raises(ParseError) as info:
        jsonedit.parse(js({**EDIT, "old_string": ""}))
    assert '"content"' in info.value.hint and '"create"' in info.value.hint
    with pytest.raises(ParseError) as info:
        jsonedit.parse(js({"patch": "diff --git a/x b/x\n"}))
    assert "send the patch text itself" in info.value.hint
    with pytest.raises(ParseError) as info:
        jsonedit.parse('{"x": 1}')
    assert "accepted shapes" in info.value.hint and '"old_string"' in info.value.hint


DETECT_CASES: list[tuple[str, str, int]] = [
    ("edit-object", js(EDIT), 90),
    ("json-lines", js(EDIT) + "\n" + js(EDIT), 90),
    ("fenced-edit", "Sure:\n```json\n" + js(EDIT) + "\n```\n", 80),
    ("wrapped-diff", js({"patch": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}), 10),
    ("bare-diff-string", js("--- a/x\n+++ b/x\n"), 10),
    ("broken-json-with-edit-keys", '{"file_path": "a", "content": ', 30),
    ("view-command", js({"command": "view", "path": "a"}), 30),
    ("json-without-edit-keys", '{"x": 1}', 5),
    ("fenced-json-file-content", 'package.json\n```json\n{"name": "x"}\n```\n', 0),
    ("search-replace", "a.json\n```json\n<<<<<<< SEARCH\n{}\n=======\n[]\n>>>>>>> REPLACE\n```\n", 0),
    ("unified-diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 0),
    ("prose", "Hello.\n", 0),
    ("prose-opening-with-a-quote", '"Hello," she said.\n', 0),
    ("prose-opening-with-a-link", "[docs](https://x.y) say hi\n", 0),
    ("json-lines-without-edit-keys", '{"x": 1}\n{"y": 2}\n', 5),
    ("argv-wrapped-codex-patch", js(["apply_patch", "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"]), 10),
]


@pytest.mark.parametrize("text, score", [(t, s) for _, t, s in DETECT_CASES], ids=[c[0] for c in DETECT_CASES])
def test_detect(text: str, score: int) -> None:
    assert jsonedit.detect(text) == score


def test_other_dialects_do_not_claim_json() -> None:
    for text in (js(EDIT), "Edit:\n```json\n" + js(EDIT) + "\n```\n"):
        assert whole.detect(text) == 0
        assert searchreplace.detect(text) == 0


def test_linear_on_many_lines() -> None:
    text = "\n".join(js({"file_path": f"f{i % 7}.py", "old_string": "a", "new_string": "b"}) for i in range(20000))
    parsed = jsonedit.parse(text)
    assert len(parsed.files) == 7
    assert parsed.files[0].changes[-1] == Replace("a", "b", False, 20000)
