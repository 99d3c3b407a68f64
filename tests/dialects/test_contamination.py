"""Contamination of agents' edits, and markdown replies (guard/dialects/contamination.py).

The pure functions first, then ``dialects.parse`` (where they are wired in), then the
CLI in a real repository: repairs reach ``--json`` ``files[].repairs``, refusals
change nothing.
"""

from __future__ import annotations

import json

import pytest
from conftest import Repo

from guard.dialects import contamination, parse, searchreplace
from guard.model import ADDED, EditSet, Hunk, Replace
from guard.turns import stats

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
CALC_MUL = CALC.replace("return a * b", "return int(a * b)")
DIFF = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n def mul(a, b):\n-    return a * b\n+    return int(a * b)\n"
SR = "calc.py\n<<<<<<< SEARCH\n    return a * b\n=======\n    return int(a * b)\n>>>>>>> REPLACE\n"
CODEX = "*** Begin Patch\n*** Update File: calc.py\n@@ def mul(a, b):\n-    return a * b\n+    return int(a * b)\n*** End Patch\n"
ACCEPTED = "unified, codex, search-replace, json, whole, hashline"


def cat_n(text: str, first: int = 1) -> str:
    return "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(text.splitlines(), first))


def arrows(text: str, first: int = 1) -> str:
    return "".join(f"{n:6d}\u2192{line}\n" for n, line in enumerate(text.splitlines(), first))


def colons(text: str, first: int = 1) -> str:
    return "".join(f"{n}:{line}\n" for n, line in enumerate(text.splitlines(), first))


def sr(search: str, replace: str, path: str = "calc.py") -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def parsed(text: str, fmt: str = "auto", path: str | None = None) -> EditSet:
    edits, findings = parse(text, fmt, path)
    assert edits is not None, findings
    return edits


def sides(edits: EditSet) -> tuple[list[str], list[str]]:
    """Old and new lines of the first change of the first file."""
    change = edits.files[0].changes[0]
    if isinstance(change, Replace):
        return change.old.split("\n"), change.new.split("\n")
    assert isinstance(change, Hunk)
    return list(change.old_lines), [hl.text for hl in change.lines if hl.tag == ADDED]


# ---------------------------------------------------------------- reasoning before the answer


def test_reasoning_before_the_answer_is_blanked_out_keeping_line_numbers() -> None:
    text = "<thinking>\nDraft:\n" + DIFF + "</thinking>\nHere:\n" + DIFF
    out = contamination.answer(text)
    assert out.count("\n") == text.count("\n")
    assert out.endswith("Here:\n" + DIFF)
    assert out.count("--- a/calc.py") == 1


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning"])
def test_each_reasoning_tag_is_recognised(tag: str) -> None:
    text = f"<{tag}>plan</{tag}>Now the patch.\n" + DIFF
    assert contamination.answer(text) == "Now the patch.\n" + DIFF


@pytest.mark.parametrize(
    "text",
    [
        "<thinking>\nnever closed\n" + DIFF,  # which part is the answer cannot be told
        "```diff\n" + DIFF + "```\n<thinking>\nafterwards\n</thinking>\n",  # not before the answer
        DIFF + "<thinking>\nx\n</thinking>\n",
        "Text <thinking>inline</thinking>\n" + DIFF,  # not at a line start
    ],
)
def test_reasoning_is_left_alone_unless_closed_and_before_the_edit(text: str) -> None:
    assert contamination.answer(text) == text


def test_a_draft_patch_in_reasoning_is_not_applied() -> None:
    draft = DIFF.replace("int(", "round(")
    edits = parsed("<think>\n" + draft + "</think>\n\n```diff\n" + DIFF + "```\n")
    assert sides(edits) == (["def mul(a, b):", "    return a * b"], ["    return int(a * b)"])
    assert edits.repairs == ()


def test_reasoning_and_nothing_after_it_is_refused() -> None:
    edits, findings = parse("<thinking>\n" + DIFF + "</thinking>\n\n")
    assert edits is None
    assert "reasoning block and nothing after it" in findings[0].message


def test_errors_after_reasoning_name_the_line_in_the_input() -> None:
    text = "<thinking>\none\ntwo\n</thinking>\n--- a/calc.py\n+++ b/calc.py\nno hunk here\n"
    edits, findings = parse(text)
    assert edits is None
    assert findings[0].line == 7, findings


@pytest.mark.parametrize("text", ["<thinking>\nkept\n</thinking>\nbody\n", "     1\u2192kept\n     2\u2192too\n"])
def test_raw_whole_file_content_is_taken_as_it_is(text: str) -> None:
    edits = parsed(text, "whole", "prompt.txt")
    assert edits.files[0].content == text and edits.repairs == ()


# ---------------------------------------------------------------- mixed dialects


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (DIFF + "\n" + SR, [("unified", 1), ("search-replace", 9)]),
        (CODEX + "\n" + DIFF, [("codex", 1), ("unified", 8)]),
        (DIFF + "\n" + CODEX, [("unified", 1), ("codex", 8)]),
        (CODEX + "\n" + SR, [("codex", 1), ("search-replace", 9)]),
        ("```\n" + SR + "```\n\n```diff\n" + DIFF + "```\n", [("search-replace", 3), ("unified", 11)]),
        ("[calc.py#1a2b3c4d]\nreplace 6\n+    return int(a * b)\n\n" + DIFF, [("hashline", 1), ("unified", 5)]),
    ],
)
def test_mixed_dialects_are_found_with_their_first_lines(text: str, expected: list[tuple[str, int]]) -> None:
    found = contamination.mixed(text)
    assert [(name, line) for name, line, _ in found] == expected
    lines = text.split("\n")
    assert all(shown == lines[line - 1] for _, line, shown in found)


@pytest.mark.parametrize(
    "text",
    [
        DIFF,
        "```diff\n" + DIFF + "```\n\n```diff\n" + DIFF.replace("calc", "other") + "```\n",
        # Codex with unified headers pasted inside the envelope: one dialect.
        (
            "*** Begin Patch\n*** Update File: calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n"
            " def mul(a, b):\n-    return a * b\n+    return int(a * b)\n*** End Patch\n"
        ),
        # A diff whose context and added lines quote other dialects.
        ("--- a/doc.md\n+++ b/doc.md\n@@ -1,3 +1,4 @@\n *** Begin Patch\n <<<<<<< SEARCH\n+=======\n >>>>>>> REPLACE\n"),
        # SEARCH/REPLACE whose text is a patch file.
        sr("--- a/x\n+++ b/x\n@@ -1 +1 @@\n", "--- a/y\n+++ b/y\n@@ -1 +1 @@\n", "fix.patch"),
        # A Codex envelope whose added lines hold a diff.
        "*** Begin Patch\n*** Add File: fix.patch\n" + "".join("+" + ln + "\n" for ln in DIFF.splitlines()) + "*** End Patch\n",
    ],
)
def test_one_dialect_quoting_another_is_not_mixed(text: str) -> None:
    assert len(contamination.mixed(text)) < 2


def test_mixed_input_is_a_parse_error_naming_both_dialects_and_quoting_lines() -> None:
    edits, findings = parse("Diff:\n```diff\n" + DIFF + "```\nand\n```\n" + SR + "```\n")
    assert edits is None
    (f,) = findings
    assert f.code == "parse-error" and f.line == 13
    assert "unified (line 3: '--- a/calc.py')" in f.message
    assert "search-replace (line 13: '<<<<<<< SEARCH')" in f.message
    assert "--format" in f.hint and ACCEPTED in f.hint


def test_a_named_format_reads_only_its_own_part() -> None:
    edits = parsed(DIFF + "\n" + SR, "unified")
    assert edits.format == "unified" and len(edits.files[0].changes) == 1


def test_unknown_input_quotes_its_first_line_and_names_the_dialects() -> None:
    edits, findings = parse("\n\nI could not find the bug.\nSorry.\n")
    assert edits is None
    (f,) = findings
    assert "'I could not find the bug.'" in f.message and ACCEPTED in f.hint


def test_a_tie_names_the_accepted_dialects() -> None:
    text = "*** Begin Patch\n[calc.py#1a2b3c4d]\nreplace 6\n+    return 1\n*** End Patch\n"
    edits, findings = parse(text)
    assert edits is None
    assert "several dialects" in findings[0].message and ACCEPTED in findings[0].hint


# ---------------------------------------------------------------- line-number prefixes


OLD = "def mul(a, b):\n    return a * b\n"
NEW = "def mul(a, b):\n    return int(a * b)\n"
STRIPPED = (["def mul(a, b):", "    return a * b"], ["def mul(a, b):", "    return int(a * b)"])


@pytest.mark.parametrize(
    "text",
    [
        sr(cat_n(OLD, 5), NEW),
        sr(arrows(OLD, 5), NEW),
        sr(arrows(OLD, 5), arrows(NEW, 5)),
        sr(cat_n(OLD, 5), cat_n(NEW, 5)),
        sr(colons(OLD, 5), NEW),
        sr(arrows(OLD, 99998), NEW),  # numbers that grow a digit keep cat -n's width
        sr("".join(f"{n}\u2192{line}\n" for n, line in enumerate(OLD.splitlines(), 5)), NEW),  # unpadded arrows
    ],
)
def test_search_replace_with_read_output_numbers_is_stripped(text: str) -> None:
    edits = parsed(text)
    assert sides(edits) == STRIPPED
    assert edits.repairs == ("line-numbers",)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("colon on both sides: the file may hold numbered lines", sr(colons(OLD, 5), colons(NEW, 5))),
        ("colon, nothing added", sr(colons(OLD, 5), "")),
        ("yaml mapping", sr("1: fetch\n2: build\n", "steps: [fetch, build]\n", "ci.yaml")),
        ("tab-separated rows", sr("1\tada\n2\tbob\n", "1\tada\n2\tbea\n", "people.tsv")),
        ("numbers not consecutive", sr(cat_n(OLD, 5).replace("     6\t", "     8\t"), NEW)),
        ("some lines only, tab", sr(cat_n(OLD, 5).split("\n", 1)[0] + "\n    return a * b\n", NEW)),
        ("widths differ", sr("    5\tdef mul(a, b):\n     6\t    return a * b\n", NEW)),
        ("one colon line in prose", sr("12:30 meeting\n", "13:00 meeting\n", "notes.txt")),
    ],
)
def test_numbers_that_may_be_the_files_own_text_are_kept(name: str, text: str) -> None:
    edits = parsed(text)
    assert edits.repairs == (), name
    assert edits == searchreplace.parse(text), name  # exactly what the dialect parser read


def test_kept_numbers_are_the_edit_as_written() -> None:
    text = sr(colons(OLD, 5), colons(NEW, 5))
    assert sides(parsed(text)) == (["5:def mul(a, b):", "6:    return a * b"], ["5:def mul(a, b):", "6:    return int(a * b)"])


@pytest.mark.parametrize(
    "text",
    [
        sr("     5\u2192def mul(a, b):\n    return a * b\n", NEW),  # some old lines only
        sr(arrows(OLD, 5), "     5\u2192def mul(a, b):\n    return int(a * b)\n"),  # some new lines only
    ],
)
def test_arrow_numbers_on_some_lines_only_are_refused_with_a_hint(text: str) -> None:
    edits, findings = parse(text)
    assert edits is None
    (f,) = findings
    assert f.code == "parse-error" and f.path == "calc.py" and f.line == 2
    assert "some lines only" in f.message and "\u2192def mul" in f.message
    assert "without" in f.hint and "prefix" in f.hint


def test_an_empty_line_whose_tab_an_editor_trimmed_still_counts() -> None:
    text = sr("     4\n     5\tdef mul(a, b):\n", "\ndef mul(a, b, c=1):\n")
    assert sides(parsed(text))[0] == ["", "def mul(a, b):"]


def test_crlf_lines_keep_their_cr() -> None:
    text = sr("     5\tdef mul(a, b):\r\n     6\t    return a * b\r\n", NEW)
    assert sides(parsed(text))[0] == ["def mul(a, b):\r", "    return a * b\r"]


def test_diff_body_with_agent_read_numbers() -> None:
    text = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n 5:def mul(a, b):\n-6:    return a * b\n+    return int(a * b)\n"
    edits = parsed(text)
    hunk = edits.files[0].changes[0]
    assert isinstance(hunk, Hunk)
    assert [(hl.tag, hl.text) for hl in hunk.lines] == [
        (" ", "def mul(a, b):"),
        ("-", "    return a * b"),
        ("+", "    return int(a * b)"),
    ]
    assert hunk.old_start == 5 and edits.repairs == ("line-numbers",)


def test_diff_with_numbered_added_lines_in_several_runs() -> None:
    text = (
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,6 +1,6 @@\n"
        "-     1\u2192def add(a, b):\n+     1\u2192def add(a, b, c=0):\n      2\u2192    return a + b\n"
        "      3\u2192\n      4\u2192\n      5\u2192def mul(a, b):\n-     6\u2192    return a * b\n"
        "+     6\u2192    return int(a * b)\n"
    )
    edits = parsed(text)
    old, new = sides(edits)
    assert old == CALC.splitlines() and new == ["def add(a, b, c=0):", "    return int(a * b)"]


def test_codex_body_and_anchor_with_numbers() -> None:
    text = (
        "*** Begin Patch\n*** Update File: calc.py\n@@      5\u2192def mul(a, b):\n"
        "-     6\u2192    return a * b\n+    return int(a * b)\n*** End Patch\n"
    )
    edits = parsed(text)
    hunk = edits.files[0].changes[0]
    assert isinstance(hunk, Hunk)
    assert hunk.anchors == ("def mul(a, b):",) and hunk.old_lines == ("    return a * b",)


def test_str_replace_old_string_from_claude_code_read() -> None:
    text = json.dumps({"file_path": "calc.py", "old_string": cat_n(OLD, 5), "new_string": NEW})
    edits = parsed(text)
    change = edits.files[0].changes[0]
    assert isinstance(change, Replace)
    assert (change.old, change.new) == (OLD, NEW)
    assert edits.repairs == ("line-numbers",)


def test_str_replace_with_numbers_on_both_strings() -> None:
    text = json.dumps(
        {"file_path": "calc.py", "old_string": arrows(OLD, 5).rstrip("\n"), "new_string": arrows(NEW, 5).rstrip("\n")}
    )
    change = parsed(text).files[0].changes[0]
    assert isinstance(change, Replace)
    assert (change.old, change.new) == (OLD.rstrip("\n"), NEW.rstrip("\n"))


def test_str_replace_deleting_numbered_lines() -> None:
    text = json.dumps({"file_path": "calc.py", "old_string": arrows(OLD, 5), "new_string": ""})
    change = parsed(text).files[0].changes[0]
    assert isinstance(change, Replace) and (change.old, change.new) == (OLD, "")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (arrows(CALC_MUL), CALC_MUL),
        (cat_n(CALC_MUL), CALC_MUL),
        (arrows(CALC_MUL, 3), arrows(CALC_MUL, 3)),  # a whole file is numbered from 1
        (colons(CALC_MUL), colons(CALC_MUL)),  # a fixture of git agent-read output stays
    ],
)
def test_whole_file_numbered_from_one(content: str, expected: str) -> None:
    edits = parsed(f"calc.py\n```python\n{content}```\n")
    assert edits.files[0].content == expected
    assert edits.repairs == (("line-numbers",) if content != expected else ())


def test_line_numbers_leaves_an_edit_without_numbers_identical() -> None:
    edits = parsed(SR)
    assert contamination.line_numbers(edits) is edits


# ---------------------------------------------------------------- patches wrapped in JSON


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(DIFF),
        json.dumps({"patch": DIFF}),
        json.dumps({"diff": DIFF, "explanation": "mul returns an int"}, indent=2),
        json.dumps({"name": "apply_diff", "arguments": json.dumps({"patch": DIFF})}),
        json.dumps([{"type": "tool_use", "input": {"diff": DIFF}}]),
        "```json\n" + json.dumps({"patch": DIFF}) + "\n```\n",
        DIFF.replace("\n", "\\n"),  # one line of escapes, no quotes
    ],
)
def test_a_diff_wrapped_in_json_is_unwrapped(text: str) -> None:
    assert contamination.unwrapped(text) == DIFF
    assert contamination.clean(text) == (DIFF, ("escape",))
    edits = parsed(text)
    assert edits.format == "unified" and edits.repairs == ("escape",)
    assert sides(edits) == (["def mul(a, b):", "    return a * b"], ["    return int(a * b)"])


def test_search_replace_in_a_json_string_is_unwrapped() -> None:
    edits = parsed(json.dumps(SR))
    assert edits.format == "search-replace" and edits.repairs == ("escape",)


@pytest.mark.parametrize("fmt", ["json", "unified"])
def test_a_named_format_is_unwrapped_too(fmt: str) -> None:
    edits = parsed(json.dumps({"patch": DIFF}), fmt)
    assert edits.format == "unified" and edits.repairs == ("escape",)


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"patch": DIFF, "alternative": DIFF.replace("int(", "round(")}),  # which one?
        json.dumps({"file_path": "calc.py", "note": "no patch here"}),
        "just prose with a \\n in it",
        json.dumps("plain string"),
    ],
)
def test_nothing_or_several_patches_in_json_is_not_unwrapped(text: str) -> None:
    assert contamination.unwrapped(text) is None


def test_two_patches_in_json_are_refused_with_a_hint() -> None:
    edits, findings = parse(json.dumps({"patch": DIFF, "alternative": DIFF.replace("int(", "round(")}))
    assert edits is None
    assert findings[0].code == "parse-error" and "send the patch text itself" in findings[0].hint


def test_a_broken_diff_in_json_reports_what_is_wrong_with_the_diff() -> None:
    edits, findings = parse(json.dumps({"patch": "--- a/calc.py\n+++ b/calc.py\nnot a hunk\n"}))
    assert edits is None
    assert "followed by no hunk" in findings[0].message


def test_a_codex_tool_call_is_the_codex_dialect_not_a_repair() -> None:
    edits = parsed(json.dumps({"name": "apply_patch", "arguments": {"input": CODEX}}))
    assert edits.format == "codex" and edits.repairs == ()


# ---------------------------------------------------------------- numbered pastes of a whole edit


@pytest.mark.parametrize("number", [cat_n, arrows, colons])
def test_a_numbered_paste_of_a_whole_diff_is_denumbered(number) -> None:  # type: ignore[no-untyped-def]
    text = number(DIFF)
    assert contamination.clean(text) == (DIFF, ("line-numbers",))
    edits = parsed(text)
    assert edits.format == "unified" and edits.repairs == ("line-numbers",)


def test_a_numbered_fence_in_a_reply_is_denumbered() -> None:
    text = "The patch:\n\n```diff\n" + arrows(DIFF) + "```\n\nCheers.\n"
    cleaned, repairs = contamination.clean(text)
    assert repairs == ("line-numbers",)
    assert cleaned == "The patch:\n\n```diff\n" + DIFF + "```\n\nCheers.\n"
    assert parsed(text).repairs == ("line-numbers",)


def test_an_edit_that_parses_is_never_denumbered_as_a_whole() -> None:
    # Whole-file content that is itself read output parses as a whole-file write: kept.
    text = "out.txt\n```\n" + colons("a\nb\n") + "```\n"
    assert parsed(text).files[0].content == "1:a\n2:b\n"


# ---------------------------------------------------------------- classification


def test_line_numbers_is_classified_as_line_arithmetic() -> None:
    assert stats.CLASS_OF["line-numbers"] == "line arithmetic and invented context"
    assert stats.CLASS_OF["escape"] == "whitespace drift"


# ---------------------------------------------------------------- in a repository


def _applied(repo: Repo, cli, text: str, *args: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    result = cli("apply", "--json", *args, input=text)
    assert result.code == 0, result
    report = result.json()
    assert report["status"] == "applied", result
    return report


def _refused(repo: Repo, cli, text: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    snapshot = repo.snapshot()
    result = cli("apply", "--json", input=text)
    assert result.code == 1, result
    report = result.json()
    assert report["status"] == "refused" and repo.snapshot() == snapshot
    return report


def test_repairs_reach_every_file_of_the_json_report(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"calc.py": CALC, "other.py": "x = 1\n"})
    text = sr(cat_n(OLD, 5), NEW) + "\nother.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    report = _applied(repo, cli, text)
    assert [(f["path"], f["repairs"]) for f in report["files"]] == [  # type: ignore[index, union-attr]
        ("calc.py", ["line-numbers"]),
        ("other.py", ["line-numbers"]),
    ]
    assert repo.read("calc.py") == CALC_MUL.encode() and repo.read("other.py") == b"x = 2\n"


def test_escape_repair_in_the_report_and_the_human_output(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"calc.py": CALC})
    report = _applied(repo, cli, json.dumps({"patch": DIFF}))
    assert report["format"] == "unified"
    assert report["files"][0]["repairs"] == ["escape"]  # type: ignore[index]
    assert repo.read("calc.py") == CALC_MUL.encode()


def test_line_numbers_and_a_locator_repair_together(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"calc.py": CALC})
    # The numbers are stripped; then the pasted text still needs its trailing blanks forgiven.
    text = sr("     5\tdef mul(a, b):   \n     6\t    return a * b\n", NEW)
    report = _applied(repo, cli, text)
    assert set(report["files"][0]["repairs"]) == {"line-numbers", "trailing-whitespace"}  # type: ignore[index]


def test_numbers_the_file_really_has_are_matched_as_written(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    fixture = "[a.py#1a2b3c4d]\n1:import os\n2:print(os.sep)\n"
    repo.commit({"read.txt": fixture})
    text = sr("1:import os\n2:print(os.sep)\n", "1:import sys\n2:print(sys.argv)\n", "read.txt")
    report = _applied(repo, cli, text)
    assert report["files"][0]["repairs"] == []  # type: ignore[index]
    assert repo.read("read.txt") == b"[a.py#1a2b3c4d]\n1:import sys\n2:print(sys.argv)\n"


def test_partial_numbers_are_refused_and_nothing_changes(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"calc.py": CALC})
    report = _refused(repo, cli, sr("     5\u2192def mul(a, b):\n    return a * b\n", NEW))
    assert [f["code"] for f in report["findings"]] == ["parse-error"]  # type: ignore[union-attr]


def test_mixed_reply_is_refused_and_nothing_changes(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"calc.py": CALC})
    report = _refused(repo, cli, "```diff\n" + DIFF + "```\n\n" + CODEX)
    (f,) = report["findings"]  # type: ignore[misc]
    assert "unified" in f["message"] and "codex" in f["message"] and "'*** Begin Patch'" in f["message"]


def test_codex_envelope_with_unified_headers_applies(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"calc.py": CALC})
    text = (
        "*** Begin Patch\n*** Update File: calc.py\ndiff --git a/calc.py b/calc.py\nindex 1234567..89abcde 100644\n"
        "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n def mul(a, b):\n-    return a * b\n+    return int(a * b)\n"
        "*** End Patch\n"
    )
    report = _applied(repo, cli, text)
    assert report["format"] == "codex"
    assert repo.read("calc.py") == CALC_MUL.encode()


GREET = 'def greet(name):\n    print("Hello, " + name)\n'
GREET_NEW = GREET.replace('print("Hello, " + name)', 'print(f"Hello, {name}!")')
GREET_DIFF = (
    '--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    print("Hello, " + name)\n'
    '+    print(f"Hello, {name}!")\n'
)
GREET_SR = sr('    print("Hello, " + name)\n', '    print(f"Hello, {name}!")\n', "greet.py")
THINK = "<thinking>\nLet me look at calc.py first.\n```diff\n" + DIFF.replace("int(", "round(") + "```\nNo, int.\n</thinking>\n"
CODE = "\n```python\nprint(mul(2, 1.5))\n```\n"

MARKDOWN = {
    "unified in two fences, prose around": (
        "Two fixes.\n\n```diff\n" + DIFF + "```\n\nand\n\n```patch\n" + GREET_DIFF + "```\n\nDone.\n",
        "unified",
    ),
    "unified after reasoning, code fence after": (
        THINK + "\n```diff\n" + DIFF + "```\n" + CODE + "\n```diff\n" + GREET_DIFF + "```\n",
        "unified",
    ),
    "unified in a bare fence": ("```\n" + DIFF + "```\n" + GREET_DIFF.join(["```\n", "```\n"]), "unified"),
    "search-replace in two fences": (
        "First:\n\n```python\n" + SR + "```\n\nSecond:\n\n```python\n" + GREET_SR + "```\nThat's it.\n",
        "search-replace",
    ),
    "search-replace after reasoning": (THINK + SR + "\n" + GREET_SR + CODE, "search-replace"),
    "codex in a fence after reasoning": (
        THINK + "```\n*** Begin Patch\n*** Update File: calc.py\n@@ def mul(a, b):\n-    return a * b\n"
        '+    return int(a * b)\n*** Update File: greet.py\n@@\n-    print("Hello, " + name)\n'
        '+    print(f"Hello, {name}!")\n*** End Patch\n```\n' + CODE,
        "codex",
    ),
    "json in a fence, prose around": (
        "Calling the tool:\n```json\n"
        + json.dumps(
            [
                {"file_path": "calc.py", "old_string": "a * b", "new_string": "int(a * b)"},
                {"file_path": "greet.py", "old_string": '"Hello, " + name', "new_string": 'f"Hello, {name}!"'},
            ]
        )
        + "\n```\nBoth files are done.\n",
        "json",
    ),
    "json after reasoning": (
        "<think>old_string must be unique</think>\n"
        + json.dumps({"file_path": "calc.py", "old_string": "a * b", "new_string": "int(a * b)"})
        + "\n"
        + json.dumps({"file_path": "greet.py", "old_string": '"Hello, " + name', "new_string": 'f"Hello, {name}!"'}),
        "json",
    ),
    "whole files after reasoning": (
        "<reasoning>Rewrite both.</reasoning>\ncalc.py\n```python\n"
        + CALC_MUL
        + "```\n\n**greet.py**\n```python\n"
        + GREET_NEW
        + "```\n",
        "whole",
    ),
}


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_markdown_replies_apply_as_one_edit(name: str, repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    text, dialect = MARKDOWN[name]
    repo.commit({"calc.py": CALC, "greet.py": GREET})
    report = _applied(repo, cli, text)
    assert report["format"] == dialect
    assert sorted(f["path"] for f in report["files"]) == ["calc.py", "greet.py"]  # type: ignore[union-attr]
    assert all(f["repairs"] == [] for f in report["files"])  # type: ignore[union-attr]
    assert repo.read("calc.py") == CALC_MUL.encode() and repo.read("greet.py") == GREET_NEW.encode()
    turn = report["turn"]
    assert isinstance(turn, dict)
    assert len(repo.git("log", "--format=%H", f"{turn['commit']}^!").split()) == 1  # one turn, one commit
