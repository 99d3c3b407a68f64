"""Whitespace errors in added lines (git's rules) and the `--whitespace=fix` repair."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from guard import policy as policy_mod
from guard.checks import CheckInput, no_attr, run, whitespace
from guard.checks.whitespace import ALL, DEFAULT, Rules, fix, fix_line, line_errors, parse_rules
from guard.model import FileChange, Op
from guard.tree.diffs import make_change

STRICT = policy_mod.load(None, "strict")  # whitespace: error
PRESET = policy_mod.load(None, "default")  # whitespace: fix

ALL_RULES = Rules(frozenset({"blank-at-eol", "space-before-tab", "indent-with-non-tab", "blank-at-eof"}))
TAB_RULES = Rules(frozenset({"blank-at-eol", "tab-in-indent"}))

LINES = [
    ("clean", "    x = 1", DEFAULT, []),
    ("trailing-space", "x = 1 ", DEFAULT, ["blank-at-eol"]),
    ("trailing-tab", "x = 1\t", DEFAULT, ["blank-at-eol"]),
    ("only-blanks", "   ", DEFAULT, ["blank-at-eol"]),
    ("stray-cr", "x = 1\r", DEFAULT, ["blank-at-eol"]),
    ("cr-at-eol-loosens", "x = 1\r", DEFAULT | {"cr-at-eol"}, []),
    ("cr-at-eol-keeps-spaces", "x = 1 \r", DEFAULT | {"cr-at-eol"}, ["blank-at-eol"]),
    ("space-before-tab", " \tx", DEFAULT, ["space-before-tab"]),
    ("space-between-tabs", "\t \tx", DEFAULT, ["space-before-tab"]),
    ("tab-then-spaces-ok", "\t  x", DEFAULT, []),
    ("space-tab-inside-text", "x \ty", DEFAULT, []),
    ("eight-spaces-default-ok", "        x", DEFAULT, []),
    ("indent-with-non-tab", "        x", frozenset({"indent-with-non-tab"}), ["indent-with-non-tab"]),
    ("seven-spaces-ok", "       x", frozenset({"indent-with-non-tab"}), []),
    ("tab-then-eight-spaces", "\t        x", frozenset({"indent-with-non-tab"}), ["indent-with-non-tab"]),
    ("tab-in-indent", "\tx", frozenset({"tab-in-indent"}), ["tab-in-indent"]),
    ("tab-in-text-ok", "x\ty", frozenset({"tab-in-indent"}), []),
    ("disabled", "x = 1 ", frozenset(), []),
    ("several", " \tx ", DEFAULT, ["blank-at-eol", "space-before-tab"]),
]


@pytest.mark.parametrize("text,enabled,expected", [c[1:] for c in LINES], ids=[c[0] for c in LINES])
def test_line_errors(text: str, enabled: frozenset[str], expected: list[str]) -> None:
    assert line_errors(text, Rules(frozenset(enabled))) == expected


FIXES = [
    ("trailing", "x = 1  \t", DEFAULT, "x = 1"),
    ("blank-line", "   \t", DEFAULT, ""),
    ("stray-cr", "x\r", DEFAULT, "x"),
    ("cr-at-eol-kept", "x  \r", DEFAULT | {"cr-at-eol"}, "x\r"),
    ("space-before-tab-dropped", "  \tx", DEFAULT, "\tx"),
    ("full-tab-of-spaces", "        \tx", DEFAULT, "\t\tx"),
    ("spaces-after-last-tab-kept", " \t  x", DEFAULT, "\t  x"),
    ("indent-with-non-tab", "          x", frozenset({"indent-with-non-tab"}), "\t  x"),
    ("tab-in-indent", "\t\tx", frozenset({"tab-in-indent"}), "                x"),
    ("tab-in-indent-to-stop", "  \tx", frozenset({"tab-in-indent"}), "        x"),
    ("clean-untouched", "\tx = 1", DEFAULT, "\tx = 1"),
    ("inner-whitespace-untouched", "x  =\t1", DEFAULT, "x  =\t1"),
]


@pytest.mark.parametrize("text,enabled,expected", [c[1:] for c in FIXES], ids=[c[0] for c in FIXES])
def test_fix_line(text: str, enabled: frozenset[str], expected: str) -> None:
    rules = Rules(frozenset(enabled))
    fixed = fix_line(text, rules)
    assert fixed == expected
    assert line_errors(fixed, rules) == []


def test_tabwidth() -> None:
    rules = parse_rules("indent-with-non-tab,tabwidth=4", Rules())
    assert rules.tabwidth == 4 and line_errors("    x", rules) == ["indent-with-non-tab"]
    assert fix_line("      x", rules) == "\t  x"


RULE_SPECS = [
    ("", DEFAULT),
    ("-blank-at-eof", DEFAULT - {"blank-at-eof"}),
    ("-trailing-space", DEFAULT - {"blank-at-eol", "blank-at-eof"}),
    ("tab-in-indent,cr-at-eol", DEFAULT | {"tab-in-indent", "cr-at-eol"}),
    ("indent-with-non-tab,tab-in-indent", DEFAULT | {"indent-with-non-tab"}),  # git refuses both
    ("nonsense,-space-before-tab", DEFAULT - {"space-before-tab"}),
]


@pytest.mark.parametrize("spec,expected", RULE_SPECS, ids=[s or "empty" for s, _e in RULE_SPECS])
def test_parse_rules(spec: str, expected: frozenset[str]) -> None:
    assert parse_rules(spec, Rules()).enabled == expected


def modify(path: str, before: bytes, after: bytes) -> FileChange:
    return make_change(path, Op.MODIFY, before, after, old_mode=0o100644, new_mode=0o100644)


Attr = Callable[[str, str], "str | bool | None"]


def inp(*changes: FileChange, policy: policy_mod.Policy = STRICT, core: str | None = None, attr: Attr = no_attr) -> CheckInput:
    return CheckInput(changes, policy, lambda _p: True, attr, core)


def test_check_reports_added_lines_only() -> None:
    change = modify("a.py", b"old = 1  \nx = 1\n", b"old = 1  \nx = 2 \n")
    findings = whitespace.check(inp(change), "error")
    assert [(f.line, f.code, f.severity) for f in findings] == [(2, "whitespace", "error")]
    # The line is quoted with its blanks made visible (the finding is about them), and the
    # message does not repeat the finding's location.
    assert findings[0].message == "trailing whitespace (blank-at-eol) in the added line 'x = 2·' (· a space)"
    assert findings[0].hint


def test_the_quoted_line_shows_tabs_and_a_long_lines_end() -> None:
    change = modify("a.py", b"", b" \tx = 1\t\n" + b"y" * 150 + b"  \n")
    first, second = whitespace.check(inp(change), "error")
    assert first.message.endswith("in the added line ' →x = 1→' (→ a tab)")
    assert second.message.endswith("in the added line '..." + "y" * 95 + "··' (· a space)")


def test_crlf_is_not_trailing_whitespace() -> None:
    change = modify("a.py", b"a\r\n", b"a\r\nb\r\nc \r\n")
    assert [f.line for f in whitespace.check(inp(change), "error")] == [3]


def test_blank_at_eof() -> None:
    change = modify("a.py", b"a\n", b"a\nb\n\n\n")
    findings = whitespace.check(inp(change), "error")
    assert [(f.line, "blank-at-eof" in f.message, "lines 3-4" in f.message) for f in findings] == [(3, True, True)]


def test_kept_blank_lines_at_eof_are_fine() -> None:
    assert whitespace.check(inp(modify("a.py", b"a\n\n", b"b\n\n")), "error") == []


def test_core_whitespace_and_attributes(tmp_path: Path) -> None:
    change = modify("a.c", b"x\n", b"x\n        y;\n")
    assert whitespace.check(inp(change), "error") == []
    assert len(whitespace.check(inp(change, core="indent-with-non-tab"), "error")) == 1

    def attr_set(path: str, name: str) -> str | bool | None:
        return True if name == "whitespace" else None

    def attr_unset(path: str, name: str) -> str | bool | None:
        return False if name == "whitespace" else None

    def attr_value(path: str, name: str) -> str | bool | None:
        return "indent-with-non-tab,tabwidth=4" if name == "whitespace" else None

    assert len(whitespace.check(inp(change, attr=attr_set), "error")) == 1  # set: git's full set
    trailing = modify("a.c", b"x\n", b"x \n")
    assert whitespace.check(inp(trailing, attr=attr_unset), "error") == []
    assert whitespace.check(inp(trailing, attr=attr_unset, core="trailing-space"), "error") == []
    assert len(whitespace.check(inp(modify("a.c", b"x\n", b"x\n    y;\n"), attr=attr_value), "error")) == 1
    assert whitespace.rules_for("a.c", inp(change, attr=attr_set)).enabled == ALL


def test_policy_rules_replace_the_default(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("whitespace: {rules: space-before-tab}\n")
    pol = policy_mod.load(None, str(f))
    assert whitespace.check(inp(modify("a", b"x\n", b"x \n"), policy=pol), "error") == []
    assert len(whitespace.check(inp(modify("a", b"x\n", b" \tx\n"), policy=pol), "error")) == 1


def test_fix_rebuilds_the_change() -> None:
    before = b"\xef\xbb\xbfkeep  \r\nmid\r\n"
    after = b"\xef\xbb\xbfkeep  \r\nmid\r\nnew \t\r\n \tind\r\n\r\n  \r\n"
    change = modify("a.txt", before, after)
    fixed = fix(change, Rules())
    assert fixed.after == b"\xef\xbb\xbfkeep  \r\nmid\r\nnew\r\n\tind\r\n"  # kept line, BOM and CRLF untouched
    assert fixed.repairs == ("whitespace-fix",)
    assert [t for _n, t in fixed.added] == ["new", "\tind"]
    assert "+new\r\n" in fixed.diff
    assert fix(fixed, Rules()) is fixed


@pytest.mark.parametrize("whole", [True, False])
def test_fix_keeps_whether_the_edit_wrote_the_whole_file(whole: bool) -> None:
    """A whole-file write stays one after the fix: the stand-in rule judges every line such a
    write adds when it shrinks the file (``checks.in_place``), not only those where lines went."""
    change = modify("a.txt", b"a\nb\nc\n", b"a  \n")._replace(whole=whole)
    fixed = fix(change, Rules())
    assert fixed.after == b"a\n"
    assert fixed.whole is whole


def test_fix_without_final_newline() -> None:
    fixed = fix(modify("a", b"a\n", b"a\nb  "), Rules())
    assert fixed.after == b"a\nb"


def test_fix_whole_file_of_blank_lines() -> None:
    fixed = fix(make_change("a", Op.CREATE, None, b"\n\n"), Rules())
    assert fixed.after == b""


MD = Rules(DEFAULT, linebreak=True)
MARKDOWN = [
    # (line, errors, fixed): pre-commit-hooks' trailing-whitespace --markdown-linebreak-ext rule
    ("a line break  ", [], "a line break  "),
    ("three spaces   ", ["blank-at-eol"], "three spaces  "),
    ("blanks before it \t  ", ["blank-at-eol"], "blanks before it  "),
    ("a tab after  \t", ["blank-at-eol"], "a tab after"),
    ("one space ", ["blank-at-eol"], "one space"),
    ("    ", ["blank-at-eol"], ""),
]


@pytest.mark.parametrize("text,errors,fixed", MARKDOWN, ids=[repr(c[0]) for c in MARKDOWN])
def test_markdown_line_break_is_kept(text: str, errors: list[str], fixed: str) -> None:
    assert line_errors(text, MD) == errors
    assert fix_line(text, MD) == fixed and line_errors(fixed, MD) == []
    assert fix_line(text, Rules(DEFAULT)) == text.rstrip()  # elsewhere every trailing blank goes


def test_markdown_files_are_named_by_the_policy(tmp_path: Path) -> None:
    before, after = b"# Notes\n", b"# Notes\nfirst line  \nsecond line\n"
    for name in ("README.md", "docs/guide.markdown", "NOTES.MD"):
        result = run(inp(modify(name, before, after), policy=PRESET))
        assert result.changes[0].after == after and not result.findings, name
        assert whitespace.check(inp(modify(name, before, after)), "error") == []
    fixed = run(inp(modify("notes.txt", before, after), policy=PRESET))
    assert fixed.changes[0].after == b"# Notes\nfirst line\nsecond line\n"
    own = tmp_path / "policy.yaml"
    own.write_text("whitespace:\n  markdown_linebreak_ext: [txt]\n")
    txt = policy_mod.load(None, str(own))
    assert run(inp(modify("notes.txt", before, after), policy=txt)).changes[0].after == after
    assert run(inp(modify("README.md", before, after), policy=txt)).changes[0].after != after
    own.write_text("whitespace:\n  markdown_linebreak_ext: ['*']\n")
    assert run(inp(modify("x.py", before, after), policy=policy_mod.load(None, str(own)))).changes[0].after == after
    own.write_text("whitespace:\n  markdown_linebreak_ext: [a/b]\n")
    assert "expected a file extension such as md" in " ".join(policy_mod.validate_file(own))


def test_run_fixes_when_level_is_fix() -> None:
    change = modify("a.py", b"x = 1\n", b"x = 1\ny = 2   \n")
    result = run(inp(change, policy=PRESET))
    assert result.changes[0].after == b"x = 1\ny = 2\n"
    assert "whitespace-fix" in result.changes[0].repairs
    assert not [f for f in result.findings if f.code == "whitespace"]


def test_run_reports_when_level_is_error() -> None:
    change = modify("a.py", b"x = 1\n", b"x = 1\ny = 2   \n")
    result = run(inp(change, policy=STRICT))
    assert result.changes == (change,)
    assert [f.code for f in result.findings] == ["whitespace"]


def test_apply_keeps_a_markdown_line_break(repo, cli) -> None:  # type: ignore[no-untyped-def]
    # `whitespace: fix` must not change what a file means: two trailing spaces end a Markdown line.
    repo.commit({"README.md": "# Notes\nfirst\n", "notes.txt": "first\n"})
    for name in ("README.md", "notes.txt"):
        patch = f"--- a/{name}\n+++ b/{name}\n@@ -1,2 +1,3 @@\n # Notes\n first\n+second line  \n"
        if name == "notes.txt":
            patch = f"--- a/{name}\n+++ b/{name}\n@@ -1 +1,2 @@\n first\n+second line  \n"
        result = cli("apply", "--json", input=patch)
        assert result.code == 0, result
        kept = name == "README.md"
        assert repo.read(name).endswith(b"second line  \n" if kept else b"second line\n"), name
        assert ("whitespace-fix" in result.json()["files"][0]["repairs"]) is not kept


def test_attributes_of_a_gitattributes_deleted_from_the_work_tree_still_hold(repo, cli) -> None:  # type: ignore[no-untyped-def]
    """git reads a tracked .gitattributes that the work tree lacks (deleted, not staged) from the
    index: `-whitespace` there still turns the check and its repair off, as `git check-attr` says."""
    repo.commit({".gitattributes": "*.txt -whitespace\n", "a.txt": "a\nb\n"})
    (repo.root / ".gitattributes").unlink()
    assert repo.git("check-attr", "whitespace", "a.txt") == "a.txt: whitespace: unset\n"
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c   \n"
    r = cli("apply", "--json", input=patch)
    assert r.code == 0 and r.json()["files"][0]["repairs"] == [], r
    assert repo.read("a.txt") == b"a\nc   \n"
    repo.git("rm", "-q", "--cached", ".gitattributes")  # the deletion staged: git no longer reads it
    r = cli("apply", "--json", input="--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-c   \n+d  \n")
    assert r.code == 0 and r.json()["files"][0]["repairs"] == ["whitespace-fix"], r
    assert repo.read("a.txt") == b"a\nd\n"


def test_fix_leaves_a_line_the_edit_sent_again_as_the_file_had_it() -> None:
    # A line the edit wrote again, re-indented with the rest of its block, kept its old trailing
    # blanks: the fix repairs what the edit writes, not what the file held (issue 36).
    before = b"if x:\n    keep()  \n    old()\n"
    after = b"if x:\n  keep()  \n  new()\n"
    fixed = fix(modify("a.py", before, after), Rules())
    assert fixed.after == after
    # A trailing blank the edit itself added to a line it sent again is the edit's, and goes.
    fixed = fix(modify("a.py", b"if x:\n    keep()\n", b"if x:\n    keep()  \n    new()\n"), Rules())
    assert fixed.after == b"if x:\n    keep()\n    new()\n"
