"""The Codex apply_patch dialect: envelopes, wrappers, repairs and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guard.dialects import codex
from guard.model import EditSet, FileEdit, Hunk, HunkLine, Op, ParseError

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "codex-scenarios"
# The scenarios whose point is a refusal by the parser (the rest refuse later, if at all).
CORPUS_PARSE_ERRORS = {
    "005_rejects_empty_patch",
    "008_rejects_empty_update_hunk",
    "013_rejects_invalid_hunk_header",
}


def patch(*body: str, eol: str = "\n") -> str:
    return eol.join(("*** Begin Patch", *body, "*** End Patch")) + eol


def hunk(
    *lines: str,
    at: int,
    anchors: tuple[str, ...] = (),
    at_eof: bool = False,
    old_start: int | None = None,
) -> Hunk:
    tagged = tuple(HunkLine(line[:1] or " ", line[1:]) for line in lines)
    return Hunk(lines=tagged, old_start=old_start, anchors=anchors, at_eof=at_eof, source_line=at)


def update(path: str, *hunks: Hunk, at: int) -> FileEdit:
    return FileEdit(path=path, op=Op.MODIFY, changes=hunks, source_line=at)


def add(path: str, content: str, at: int) -> FileEdit:
    return FileEdit(path=path, op=Op.CREATE, content=content, source_line=at)


def delete(path: str, at: int) -> FileEdit:
    return FileEdit(path=path, op=Op.DELETE, source_line=at)


SIMPLE = ("*** Update File: a.py", "@@", "-x = 1", "+x = 2")
SIMPLE_EDIT = update("a.py", hunk("-x = 1", "+x = 2", at=3), at=2)


def simple_at(line: int, flat: bool = False) -> FileEdit:
    """SIMPLE_EDIT with its Begin line at input line `line` (every line `line` when flat)."""
    return update("a.py", hunk("-x = 1", "+x = 2", at=line if flat else line + 2), at=line if flat else line + 1)


PARSES = [
    pytest.param(
        patch("*** Add File: notes/a.txt", "+one", "+", "+three"),
        [add("notes/a.txt", "one\n\nthree\n", 2)],
        id="add-file",
    ),
    pytest.param(patch("*** Add File: empty.txt"), [add("empty.txt", "", 2)], id="add-file-without-lines"),
    pytest.param(patch("*** Delete File: old.txt"), [delete("old.txt", 2)], id="delete-file"),
    pytest.param(
        patch("*** Update File: a.py", "@@", " keep", "-old", "+new"),
        [update("a.py", hunk(" keep", "-old", "+new", at=3), at=2)],
        id="update-one-chunk",
    ),
    pytest.param(
        patch("*** Update File: old/name.txt", "*** Move to: new/dir/name.txt", "@@", "-a", "+b"),
        [
            FileEdit(
                path="new/dir/name.txt",
                op=Op.RENAME,
                old_path="old/name.txt",
                changes=(hunk("-a", "+b", at=4),),
                source_line=2,
            )
        ],
        id="update-move-to-is-rename",
    ),
    pytest.param(
        patch("*** Update File: same.txt", "*** Move to: same.txt", "@@", "-a", "+b"),
        [update("same.txt", hunk("-a", "+b", at=4), at=2)],
        id="move-to-own-path-is-modify",
    ),
    pytest.param(
        patch("*** Update File: m.txt", "@@", "-line2", "+changed2", "@@", "-line4", "+changed4"),
        [update("m.txt", hunk("-line2", "+changed2", at=3), hunk("-line4", "+changed4", at=6), at=2)],
        id="two-chunks",
    ),
    pytest.param(
        patch("*** Update File: a.py", "@@ def f():", "-    return 1", "+    return 2"),
        [update("a.py", hunk("-    return 1", "+    return 2", at=3, anchors=("def f():",)), at=2)],
        id="anchor",
    ),
    pytest.param(
        patch(
            "*** Update File: a.py",
            "@@ class A:",
            "@@     def f(self):",
            "-        pass",
            "+        return 1",
        ),
        [
            update(
                "a.py",
                hunk("-        pass", "+        return 1", at=3, anchors=("class A:", "    def f(self):")),
                at=2,
            )
        ],
        id="stacked-anchors-keep-indent",
    ),
    pytest.param(
        patch("*** Update File: a.py", "@@", "@@ def g():", "-a", "+b"),
        [update("a.py", hunk("-a", "+b", at=3, anchors=("def g():",)), at=2)],
        id="plain-header-then-anchor",
    ),
    pytest.param(
        patch("*** Update File: t.txt", "@@", " first", "-second", "+second updated", "*** End of File"),
        [update("t.txt", hunk(" first", "-second", "+second updated", at=3, at_eof=True), at=2)],
        id="end-of-file-marker",
    ),
    pytest.param(
        patch("*** Update File: t.txt", "@@", "-a", "+b", "*** End of File", "@@ z", "-c", "+d"),
        [update("t.txt", hunk("-a", "+b", at=3, at_eof=True), hunk("-c", "+d", at=7, anchors=("z",)), at=2)],
        id="chunk-after-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: a.py", " keep", "-old", "+new", "@@ tail", "-y", "+z"),
        [update("a.py", hunk(" keep", "-old", "+new", at=3), hunk("-y", "+z", at=6, anchors=("tail",)), at=2)],
        id="first-chunk-without-header",
    ),
    pytest.param(
        patch("*** Update File: a.py", "@@", " one", "", "-two", "+2"),
        [update("a.py", hunk(" one", " ", "-two", "+2", at=3), at=2)],
        id="empty-body-line-is-empty-context",
    ),
    pytest.param(
        patch("*** Update File: a.py", "@@", " @@ not a header", "-x", "+y"),
        [update("a.py", hunk(" @@ not a header", "-x", "+y", at=3), at=2)],
        id="context-line-that-looks-like-a-header",
    ),
    pytest.param(
        patch(
            "*** Add File: nested/new.txt",
            "+created",
            "*** Delete File: delete.txt",
            "*** Update File: modify.txt",
            "@@",
            "-line2",
            "+changed",
        ),
        [
            add("nested/new.txt", "created\n", 2),
            delete("delete.txt", 4),
            update("modify.txt", hunk("-line2", "+changed", at=6), at=5),
        ],
        id="several-operations",
    ),
    pytest.param(
        patch("", "*** Delete File: a", "", "*** Add File: b", "+x", "", "\t", "*** Delete File: c", ""),
        [delete("a", 3), add("b", "x\n", 5), delete("c", 9)],
        id="blank-lines-between-operations",
    ),
    pytest.param(
        patch("*** Update File: a.py", "", "@@", "-a", "+b", "*** End of File", "", "@@", "-c", "+d"),
        [update("a.py", hunk("-a", "+b", at=4, at_eof=True), hunk("-c", "+d", at=9), at=2)],
        id="blank-lines-around-chunk-headers",
    ),
    pytest.param(
        " *** Begin Patch\t\n  *** Update File:   sp ace.txt \t\n\t@@ \n-one\n+two\n *** End Patch \n",
        [update("sp ace.txt", hunk("-one", "+two", at=3), at=2)],
        id="padded-markers-and-path",
    ),
    pytest.param(
        patch(
            "*** Add File: crlf.txt",
            "+x",
            "+y",
            "*** Update File: b.txt",
            "@@ anchor",
            " ctx",
            "",
            "-old",
            "+new",
            eol="\r\n",
        ),
        [
            add("crlf.txt", "x\r\ny\r\n", 2),
            update("b.txt", hunk(" ctx\r", " \r", "-old\r", "+new\r", at=6, anchors=("anchor",)), at=5),
        ],
        id="crlf-markers-stripped-body-keeps-cr",
    ),
    pytest.param(
        patch("*** Update File: a.py", "@@ -12,3 +12,4 @@ def f():", " a", "+b", " c"),
        [update("a.py", hunk(" a", "+b", " c", at=3, old_start=12), at=2)],
        id="numbered-header-keeps-old-start",
    ),
    pytest.param(
        patch("*** Update File: a.py", "@@ -5,0 +6,1 @@", "+new"),
        [update("a.py", hunk("+new", at=3, old_start=6), at=2)],
        id="numbered-insertion-header",
    ),
    pytest.param(
        patch("*** Update File: src/x.py", "--- a/src/x.py", "+++ b/src/x.py", "@@ -1 +1 @@", "-a", "+b"),
        [update("src/x.py", hunk("-a", "+b", at=5, old_start=1), at=2)],
        id="unified-header-pair-for-same-file-dropped",
    ),
    pytest.param(
        patch(
            "*** Update File: x.py",
            "*** Move to: y.py",
            "diff --git a/x.py b/y.py",
            "index 83db48f..bf269f4 100644",
            "--- a/x.py\t2024-01-01 00:00:00",
            "+++ b/y.py",
            "@@",
            "-a",
            "+b",
        ),
        [FileEdit(path="y.py", op=Op.RENAME, old_path="x.py", changes=(hunk("-a", "+b", at=8),), source_line=2)],
        id="diff-git-header-for-same-file-dropped",
    ),
    pytest.param(
        patch("*** Update File: x.diff", "--- a/x", " ctx", "+y"),
        [update("x.diff", hunk("--- a/x", " ctx", "+y", at=3), at=2)],
        id="lone-dash-line-is-a-removal",
    ),
    pytest.param(
        "Here is the change:\n\n```bash\napply_patch <<'EOF'\n" + patch(*SIMPLE) + "EOF\n```\nDone.\n",
        [simple_at(5)],
        id="heredoc-in-fence-with-prose",
    ),
    pytest.param("apply_patch <<EOF\n" + patch(*SIMPLE) + "EOF\n", [simple_at(2)], id="heredoc-bare-word"),
    pytest.param('apply_patch <<"PATCH"\n' + patch(*SIMPLE) + "PATCH\n", [simple_at(2)], id="heredoc-double-quoted"),
    pytest.param("<<'EOF'\n" + patch(*SIMPLE) + "EOF\n", [simple_at(2)], id="heredoc-alone"),
    pytest.param(
        "bash -lc \"apply_patch <<'EOF'\n"
        + patch("*** Update File: a.py", "@@", '-print(\\"hi\\")', '+print(\\"bye \\$USER\\")')
        + 'EOF\n"\n',
        [update("a.py", hunk('-print("hi")', '+print("bye $USER")', at=4), at=3)],
        id="bash-lc-double-quoted-with-escapes",
    ),
    pytest.param(
        'bash -lc \'apply_patch <<"EOF"\n' + patch("*** Update File: a.py", "@@", "-it'\\''s", "+it is") + "EOF'\n",
        [update("a.py", hunk("-it's", "+it is", at=4), at=3)],
        id="bash-lc-single-quoted",
    ),
    pytest.param(json.dumps(["apply_patch", patch(*SIMPLE)]), [simple_at(1, flat=True)], id="json-argv"),
    pytest.param(
        json.dumps({"command": ["bash", "-lc", "apply_patch <<'EOF'\n" + patch(*SIMPLE) + "EOF\n"]}, indent=2),
        [simple_at(5, flat=True)],
        id="json-argv-bash-heredoc",
    ),
    pytest.param(json.dumps({"input": patch(*SIMPLE)}), [simple_at(1, flat=True)], id="json-tool-call-input"),
    pytest.param(
        "I'll call the tool:\n" + json.dumps({"name": "apply_patch", "patch": patch(*SIMPLE)}) + "\nthen test.",
        [simple_at(2, flat=True)],
        id="json-tool-call-patch-with-prose",
    ),
    pytest.param(
        json.dumps(
            {
                "type": "function",
                "function": {"name": "apply_patch", "arguments": json.dumps({"input": patch(*SIMPLE)})},
            }
        ),
        [simple_at(1, flat=True)],
        id="json-arguments-string-with-input",
    ),
    pytest.param(
        "```json\n" + json.dumps({"arguments": json.dumps({"command": ["apply_patch", patch(*SIMPLE)]})}) + "\n```\n",
        [simple_at(2, flat=True)],
        id="json-arguments-string-with-command-in-fence",
    ),
    pytest.param(
        "Sure.\n\n```diff\n" + patch(*SIMPLE) + "```\n\nLet me know.\n",
        [simple_at(4)],
        id="markdown-fence-with-prose",
    ),
    pytest.param(
        "1. Apply:\n   ```\n" + "".join("   " + line + "\n" for line in patch(*SIMPLE, " ctx").splitlines()) + "   ```\n",
        [update("a.py", hunk("-x = 1", "+x = 2", " ctx", at=5), at=4)],
        id="fence-nested-in-list-item",
    ),
    pytest.param(
        "apply_patch <<'EOF'\\n" + patch(*SIMPLE).replace("\n", "\\n") + "EOF",
        [simple_at(1, flat=True)],
        id="escaped-one-liner",
    ),
    pytest.param(patch(*SIMPLE).rstrip("\n"), [SIMPLE_EDIT], id="no-final-newline"),
    pytest.param(patch(*SIMPLE) + "\nThat is all.\n*** Not a marker\n", [SIMPLE_EDIT], id="text-after-end-ignored"),
    pytest.param(
        "\ufeff" + patch("*** Update File: ü.txt", "@@", " naïve", "-café", "+café ★"),
        [update("ü.txt", hunk(" naïve", "-café", "+café ★", at=3), at=2)],
        id="bom-and-unicode",
    ),
]


@pytest.mark.parametrize(("text", "files"), PARSES)
def test_parse(text: str, files: list[FileEdit]) -> None:
    assert codex.parse(text) == EditSet(files=tuple(files), format="codex")


REFUSALS = [
    pytest.param("hello\n", 1, "no '*** Begin Patch'", id="no-begin"),
    pytest.param("*** Add File: a\n+x\n*** End Patch\n", 1, "no '*** Begin Patch'", id="no-begin-before-ops"),
    pytest.param("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n", 5, "missing '*** End Patch'", id="truncated"),
    pytest.param("*** Begin Patch\n*** Add File: a\n+x", 3, "missing '*** End Patch'", id="truncated-in-add"),
    pytest.param(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a\n@@\n-x\nEOF\n",
        6,
        "missing '*** End Patch'",
        id="truncated-in-heredoc",
    ),
    pytest.param(
        "Patch:\n```\n*** Begin Patch\n*** Delete File: a\n```\nmore prose\n",
        5,
        "missing '*** End Patch'",
        id="truncated-in-fence",
    ),
    pytest.param(json.dumps({"input": "*** Begin Patch\n*** Delete File: a\n"}), 1, "missing", id="truncated-json"),
    pytest.param(patch(), 2, "the patch is empty", id="empty-patch"),
    pytest.param(patch("", "  "), 4, "the patch is empty", id="empty-patch-with-blank-lines"),
    pytest.param(patch("*** Update File: foo.txt"), 2, "has no chunks", id="update-without-chunks"),
    pytest.param(
        patch("*** Update File: foo.txt", "*** Move to: bar.txt", "*** Delete File: x"),
        2,
        "has no chunks",
        id="move-without-chunks",
    ),
    pytest.param(patch("*** Update File: a", "@@"), 3, "has no lines", id="empty-chunk"),
    pytest.param(
        patch("*** Update File: a", "@@@ x", "-y"),
        3,
        "invalid chunk header at line 3: '@@@ x'",
        id="invalid-header",
    ),
    pytest.param(patch("*** Update File: a", "@@", "-x", "@@x", "+y"), 5, "'@@x'", id="invalid-later-header"),
    pytest.param(
        patch("*** Frobnicate File: foo"),
        2,
        "unknown line at line 2: '*** Frobnicate File: foo'",
        id="unknown-marker",
    ),
    pytest.param(patch("*** Update File: a", "@@", "-x", "*** Bogus"), 5, "unknown line", id="unknown-marker-in-chunk"),
    pytest.param(patch("*** Delete File: a", "+x"), 3, "unexpected line", id="lines-after-delete"),
    pytest.param(patch("*** Add File: a", "+x", "y"), 4, "does not start with '+'", id="add-line-without-plus"),
    pytest.param(patch("*** Add File: a", "+x", "", "+z"), 4, "does not start with '+'", id="add-blank-line-inside"),
    pytest.param(patch("*** Add File: "), 2, "'*** Add File:' at line 2 names no path", id="add-empty-path"),
    pytest.param(patch("*** Update File:", "@@", "-x"), 2, "names no path", id="update-empty-path"),
    pytest.param(patch("*** Delete File: \t"), 2, "names no path", id="delete-blank-path"),
    pytest.param(patch("*** Update File: a", "*** Move to:", "@@", "-x"), 3, "names no path", id="move-empty-path"),
    pytest.param(patch("*** Delete File: a", "*** Move to: b"), 3, "unknown line", id="move-to-astray"),
    pytest.param(
        patch("*** Update File: a.py", "--- a/b.py", "+++ b/b.py", "@@", "-x"),
        3,
        "does not name 'a.py'",
        id="diff-header-for-other-file",
    ),
    pytest.param(
        patch("*** Update File: a.py", "diff --git a/b.py b/b.py", "@@", "-x"),
        3,
        "does not name",
        id="diff-git-other-file",
    ),
    pytest.param(patch(*SIMPLE) + patch("*** Delete File: b"), 7, "a second '*** Begin Patch'", id="two-envelopes"),
    pytest.param(patch("*** Begin Patch", "*** Delete File: a"), 2, "unknown line", id="nested-begin"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), REFUSALS)
def test_refusal(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseError) as caught:
        codex.parse(text)
    assert fragment in caught.value.message
    assert caught.value.line == line
    assert caught.value.hint


def test_hints_list_the_alternatives() -> None:
    with pytest.raises(ParseError) as caught:
        codex.parse(patch("*** Frobnicate File: foo"))
    assert caught.value.hint == ("expected one of '*** Add File: ', '*** Delete File: ', '*** Update File: ', '*** End Patch'")
    with pytest.raises(ParseError) as caught:
        codex.parse(patch("*** Update File: a", "@@", "-x", "*** Oops"))
    assert "'@@', '*** End of File'" in caught.value.hint
    assert caught.value.path == "a"
    with pytest.raises(ParseError) as caught:
        codex.parse(patch("*** Delete File: a", "*** Move to: b"))
    assert "must directly follow its '*** Update File: '" in caught.value.hint


@pytest.mark.parametrize(
    ("text", "score"),
    [
        pytest.param(patch(*SIMPLE), 100, id="bare"),
        pytest.param("  *** Begin Patch \r\n*** Delete File: a\r\n", 100, id="padded-truncated"),
        pytest.param("```\napply_patch <<'EOF'\n" + patch(*SIMPLE) + "EOF\n```\n", 100, id="heredoc-in-fence"),
        pytest.param(json.dumps(["apply_patch", patch(*SIMPLE)]), 85, id="json-argv"),
        pytest.param("apply_patch <<'EOF'\\n*** Begin Patch\\n", 85, id="escaped-one-liner"),
        pytest.param('BEGIN = "*** Begin Patch"\n', 0, id="marker-quoted-in-code"),
        pytest.param("--- a/t.txt\n+++ b/t.txt\n@@ -1 +1 @@\n *** Begin Patch\n", 30, id="unified-diff-of-a-patch"),
        pytest.param("--- a/t.txt\n+++ b/t.txt\n@@ -0,0 +1 @@\n+*** Begin Patch\n", 0, id="added-line-only"),
        pytest.param("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", 0, id="search-replace"),
        pytest.param("", 0, id="empty"),
    ],
)
def test_detect(text: str, score: int) -> None:
    assert codex.detect(text) == score


def test_parse_is_linear_on_large_input() -> None:
    body = [line for k in range(20000) for line in (f"@@ anchor {k}", f"-old {k}", f"+new {k}")]
    edits = codex.parse(patch("*** Update File: big.txt", *body))
    assert len(edits.files[0].changes) == 20000


def _scenarios() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if (p / "patch.txt").is_file()) if CORPUS.is_dir() else []


@pytest.mark.parametrize("scenario", _scenarios() or [None], ids=lambda p: p.name if p else "absent")
def test_codex_scenarios(scenario: Path | None) -> None:
    if scenario is None:
        pytest.skip(f"corpus not found at {CORPUS}")
    expectations = json.loads((CORPUS / "agent-guard-expectations.json").read_text(encoding="utf-8"))
    rows = {row["scenario"]: row for row in expectations["scenarios"]}
    text = (scenario / "patch.txt").read_text(encoding="utf-8")
    assert codex.detect(text) == 100
    if scenario.name in CORPUS_PARSE_ERRORS:
        assert rows[scenario.name]["agent_guard_result"] == "refused"
        assert "parse-error" in rows[scenario.name]["suggested_finding"]
        with pytest.raises(ParseError) as caught:
            codex.parse(text)
        assert caught.value.line is not None and caught.value.hint
    else:
        edits = codex.parse(text)
        assert edits.format == "codex" and edits.files and not edits.repairs


@pytest.mark.parametrize(
    "lines, repairs, hunks",
    [
        pytest.param(("@@", "-x", "+y", "@@"), ("empty-chunk",), 1, id="trailing-empty-section"),
        pytest.param(("@@", "-x", "+y", "@@", "@@", "-z"), ("empty-chunk",), 2, id="empty-section-between"),
        pytest.param(("@@ ctx", "@@", "-x"), ("empty-chunk",), 1, id="anchor-heading-nothing"),
        pytest.param(("@@", "-x", "@@ ctx", "*** End of File"), ("empty-chunk",), 1, id="empty-eof-section"),
        pytest.param(("@@", " a", "b", "-c", "+C"), ("context-prefix",), 1, id="context-without-its-space"),
    ],
)
def test_bookkeeping_models_get_wrong_is_put_right_and_named(
    lines: tuple[str, ...], repairs: tuple[str, ...], hunks: int
) -> None:
    """Habits seen in real models' failing calls: each parses, and says what was put right."""
    (fe,) = codex.parse(patch("*** Update File: a", *lines)).files
    assert fe.repairs == repairs and len(fe.changes) == hunks


def test_a_patch_of_only_empty_sections_is_still_refused() -> None:
    with pytest.raises(ParseError) as caught:
        codex.parse(patch("*** Update File: a", "@@", "@@"))
    assert "has no lines" in caught.value.message
