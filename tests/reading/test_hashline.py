"""Hashline reads and edits: guard/reading/hashline_read.py, guard/dialects/hashline.py,
guard/reading/anchors.py, guard/reading/reads.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

import guard
from guard.dialects import detect, hashline
from guard.model import FileEdit, LineRange, Op, ParseError

FILE = "".join(f"line {i}\n" for i in range(1, 11))  # line 1 .. line 10


def tag_of(out: str) -> str:
    head = out.splitlines()[0]
    assert head.startswith("[") and head.endswith("]"), out
    return head[1:-1].rpartition("#")[2]


@pytest.fixture
def ten(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": FILE})
    return repo


# --------------------------------------------------------------------------- git agent-read


def test_read_prints_header_and_numbered_lines(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"src/a.py": "def f():\n    return 1\n"})
    r = cli("read", "src/a.py")
    assert r.code == 0, r
    blob = repo.git("hash-object", "src/a.py").strip()
    assert r.stdout == f"[src/a.py#{blob[:8]}]\n1:def f():\n2:    return 1\n"


def test_read_tag_names_a_blob_stored_in_the_object_database(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "committed\n"})
    repo.write({"a.txt": "not committed anywhere\n"})
    r = cli("read", "a.txt")
    tag = tag_of(r.stdout)
    assert repo.git("cat-file", "-t", tag).strip() == "blob"
    assert repo.git("cat-file", "-p", tag) == "not committed anywhere\n"


def test_read_lines_range_and_footer(ten, cli):  # type: ignore[no-untyped-def]
    r = cli("read", "a.txt", "--lines", "3:5")
    assert r.code == 0, r
    assert r.stdout.splitlines()[1:] == ["3:line 3", "4:line 4", "5:line 5", "(lines 3-5 of 10)"]
    assert cli("read", "a.txt", "--lines", "9:").stdout.splitlines()[1:] == ["9:line 9", "10:line 10", "(lines 9-10 of 10)"]
    assert cli("read", "a.txt", "--lines", ":2").stdout.splitlines()[1:] == ["1:line 1", "2:line 2", "(lines 1-2 of 10)"]
    assert cli("read", "a.txt", "--lines", "7").stdout.splitlines()[1:] == ["7:line 7", "(line 7 of 10)"]
    assert cli("read", "a.txt", "--lines", "8:99").stdout.splitlines()[-1] == "(lines 8-10 of 10)"


def test_read_records_the_lines_shown(ten, cli):  # type: ignore[no-untyped-def]
    cli("read", "a.txt", "--lines", "3:5")
    cli("read", "a.txt", "--lines", "6:7", "--agent", "claude")
    cli("read", "a.txt", "--lines", "8:9")
    blob = ten.git("hash-object", "a.txt").strip()
    record = json.loads((ten.root / ".git" / "agent-guard" / "reads" / "agent.json").read_text())
    assert record["files"]["a.txt"] == {"blob": blob, "shown": [[3, 5], [8, 9]]}
    other = json.loads((ten.root / ".git" / "agent-guard" / "reads" / "claude.json").read_text())
    assert other["files"]["a.txt"]["shown"] == [[6, 7]]
    ten.write({"a.txt": FILE + "more\n"})
    cli("read", "a.txt", "--lines", "1:2")
    record = json.loads((ten.root / ".git" / "agent-guard" / "reads" / "agent.json").read_text())
    assert record["files"]["a.txt"]["shown"] == [[1, 2]]  # new content: the old ranges are gone


def test_read_empty_crlf_and_unterminated_files(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"empty.txt": "", "dos.txt": b"a\r\nb\r\n", "tail.txt": "x\ny"})
    assert cli("read", "empty.txt").stdout.splitlines()[1:] == ["(empty file)"]
    assert cli("read", "dos.txt").stdout.splitlines()[1:] == ["1:a", "2:b"]
    assert cli("read", "tail.txt").stdout.splitlines()[1:] == ["1:x", "2:y"]


def test_read_paths_are_relative_to_the_current_folder(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"src/pkg/m.py": "m\n", "top.txt": "t\n"})
    # The header names the file as the argument did, so an edit sent from the same folder finds it.
    r = cli("read", "m.py", cwd=repo.root / "src" / "pkg")
    assert r.stdout.startswith("[m.py#"), r
    r = cli("read", "../../top.txt", cwd=repo.root / "src" / "pkg")
    assert r.stdout.startswith("[../../top.txt#"), r
    assert cli("read", "top.txt").stdout.startswith("[top.txt#")


@pytest.mark.parametrize(
    "files, args, code, needle",
    [
        ({"a.txt": "a\n"}, ("read", "missing.txt"), 1, "missing"),
        ({"bin.dat": b"\x00\x01\x02"}, ("read", "bin.dat"), 1, "binary"),
        ({"a.txt": "a\n"}, ("read", ".git/config"), 1, "path-protected"),
        ({"a.txt": "a\n"}, ("read", "../outside.txt"), 1, "path-outside"),
        ({"a.txt": "a\nb\n"}, ("read", "a.txt", "--lines", "5:9"), 1, "past the end"),
        ({"a.txt": "a\n"}, ("read", "a.txt", "--lines", "x:y"), 2, "--lines"),
        ({"a.txt": "a\n"}, ("read", "a.txt", "--lines", "4:2"), 2, "--lines"),
    ],
)
def test_read_refusals(repo, cli, files, args, code, needle):  # type: ignore[no-untyped-def]
    repo.commit(files)
    r = cli(*args)
    assert r.code == code, r
    # A file that cannot be shown is the command's report (stdout); a usage error goes to stderr.
    said, quiet = (r.stdout, r.stderr) if code == 1 else (r.stderr, r.stdout)
    assert needle in said and quiet == "", r


@pytest.mark.parametrize("where, arg", [("", "src"), ("", "src/"), ("", "src//"), ("src", "."), ("src/pkg", "..")])
def test_reading_a_folder_says_it_is_a_folder(repo, cli, where, arg):  # type: ignore[no-untyped-def]
    repo.commit({"src/app.py": "a\n", "src/pkg/m.py": "m\n"})
    before = repo.snapshot()
    r = cli("read", arg, cwd=repo.root / where)
    assert r.code == 1 and r.stderr == "", r
    assert "src: missing: src is a folder, not a file" in r.stdout, r
    assert "it holds src/app.py, src/pkg/" in r.stdout and "symlink" not in r.stdout, r
    assert repo.snapshot() == before


def test_a_trailing_slash_on_a_file_or_nothing(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "a\n"})
    r = cli("read", "a.txt/")
    assert r.code == 1 and "names a folder, and there is no folder a.txt" in r.stdout, r
    r = cli("read", "nope/")
    assert r.code == 1 and "there is no folder nope" in r.stdout, r


def test_a_link_to_a_folder_is_still_refused_as_a_link(repo, cli, tmp_path):  # type: ignore[no-untyped-def]
    repo.commit({"src/app.py": "a\n"})
    (repo.root / "ln").symlink_to(repo.root / "src")
    r = cli("read", "ln")
    assert r.code == 1 and "path-outside" in r.stdout and "symbolic link" in r.stdout, r


def test_python_api_read(ten):  # type: ignore[no-untyped-def]
    out = guard.read("a.txt", repo=ten.root, lines=(2, 3), agent="bot")
    assert out.splitlines()[1:] == ["2:line 2", "3:line 3", "(lines 2-3 of 10)"]
    assert (ten.root / ".git" / "agent-guard" / "reads" / "bot.json").exists()


# --------------------------------------------------------------------------- parsing


def test_parse_maps_every_op_to_line_ranges() -> None:
    text = (
        "[src/a.py#1A2B3C4D]\n"
        "replace 2..3:\n+x\n\n+y\n"
        "insert before 5\n+b\n"
        "insert after 0\n+top\n"
        "insert after $\n+end\n"
        "delete 7\n"
        "delete 8..$\n"
        "insert after 6\n++plus\n+\n"
    )
    (fe,) = hashline.parse(text).files
    assert fe == FileEdit(
        "src/a.py",
        Op.MODIFY,
        base="1a2b3c4d",
        source_line=1,
        changes=(
            LineRange(2, 3, ("x", "", "y"), None, 2),
            LineRange(5, 4, ("b",), None, 6),
            LineRange(1, 0, ("top",), None, 8),
            LineRange(hashline.LAST + 1, hashline.LAST, ("end",), None, 10),
            LineRange(7, 7, (), None, 12),
            LineRange(8, hashline.LAST, (), None, 13),
            LineRange(7, 6, ("+plus", ""), None, 14),
        ),
    )


def test_parse_oh_my_pi_spellings() -> None:
    text = "[a.ts#0A3B]\nPUT 1.=2:\n+x\nPUT <4:\n+y\nPUT >5:\n+z\nCUT 7..8\nSWAP 9:\n+w\nDEL 10\nINS.HEAD:\n+h\nINS.TAIL:\n+t\n"
    (fe,) = hashline.parse(text).files
    assert fe.base == "0a3b"
    assert [(c.start, c.end, c.new) for c in fe.changes] == [  # type: ignore[union-attr]
        (1, 2, ("x",)),
        (4, 3, ("y",)),
        (6, 5, ("z",)),
        (7, 8, ()),
        (9, 9, ("w",)),
        (10, 10, ()),
        (1, 0, ("h",)),
        (0, -1, ("t",)),
    ]
    (rem,) = hashline.parse("[a.ts#0A3B]\nREM\n").files
    assert rem.op is Op.DELETE and rem.changes == (LineRange(1, hashline.LAST, (), None, 2),)


def test_parse_create_fences_prose_envelope_and_crlf() -> None:
    text = "I'll add it:\n\n```\n[new/file.py]\ncreate\n+a\n+b\n```\nThat's all.\n"
    (fe,) = hashline.parse(text).files
    assert fe == FileEdit("new/file.py", Op.CREATE, content="a\nb\n", source_line=4)
    (fe,) = hashline.parse("*** Begin Patch\n[a#abcd]\nreplace 1\n+x\n*** End Patch\n").files
    assert fe.changes == (LineRange(1, 1, ("x",), None, 3),)
    (fe,) = hashline.parse("[a#abcd]\r\nreplace 1\r\n+x\r\n").files
    assert fe.changes == (LineRange(1, 1, ("x",), None, 2),)
    (fe,) = hashline.parse("[a#abcd]\nreplace 1\n+x\r\n").files  # mixed: the CR is content
    assert fe.changes == (LineRange(1, 1, ("x\r",), None, 2),)


def test_parse_allows_the_word_line_and_ignores_bracketed_prose() -> None:
    text = "Fixes [Issue#12]\n[see the docs]\n[a#abcd]\nreplace line 3\n+x\ndelete lines 4..6\ninsert after line 9:\n+y\n"
    (fe,) = hashline.parse(text).files
    assert [(c.start, c.end) for c in fe.changes] == [(3, 3), (4, 6), (10, 9)]  # type: ignore[union-attr]


def test_parse_merges_sections_of_one_file() -> None:
    (fe,) = hashline.parse("[a#abcd]\ndelete 1\n[b#1234]\ndelete 2\n[a#abcd]\ndelete 3\n").files[:1]
    assert [c.start for c in fe.changes] == [1, 3]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text, line, needle",
    [
        ("replace 1\n+x\n", 1, "before any"),
        ("[a#abcd]\nreplace 3\n", 2, "needs at least one"),
        ("[a#abcd]\ninsert after 2\n", 2, "needs at least one"),
        ("[a#abcd]\ndelete 3\n+x\n", 3, "takes no body"),
        ("[a#abcd]\n+x\n", 2, "no op above"),
        ("[a#abcd]\n-old\n+new\n", 2, "not a hashline op"),
        ("[a#abcd]\n1:line one\n", 2, "not a hashline op"),
        ("[a#abcd]\n@@ -1 +1 @@\n", 2, "not a hashline op"),
        ("[a#abcd]\nXCHG.BLK 4..6:\n+x\n", 2, "not a hashline op"),
        ("[a#zz]\nreplace 1\n+x\n", 1, "not a tag"),
        ("[a]\nreplace 1\n+x\n", 1, "has no tag"),
        ("[a#abcd]\nreplace 5..3\n+x\n", 2, "ends before it starts"),
        ("[a#abcd]\nreplace 0\n+x\n", 2, "start at 1"),
        ("[a#abcd]\ninsert before 0\n+x\n", 2, "no line 0"),
        ("[a#abcd]\ndelete file\ndelete 3\n", 2, "only op"),
        ("[a#abcd]\ncreate\n+x\n", 2, "new file"),
        ("[a#abcd]\n", 1, "has no op"),
        ("[a#abcd]\ndelete 1\n[a#ef01]\ndelete 2\n", 3, "two tags"),
        ("just prose\n", 1, "no [PATH#TAG]"),
    ],
)
def test_parse_errors_name_the_line_and_the_fix(text: str, line: int, needle: str) -> None:
    with pytest.raises(ParseError) as info:
        hashline.parse(text)
    assert info.value.line == line
    assert needle in info.value.message
    assert info.value.hint


SAMPLES = {
    "unified": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n",
    "codex": "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch\n",
    "search-replace": "a.txt\n```\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n",
    "json": '{"file_path": "a.txt", "old_string": "old", "new_string": "new"}',
    "whole": "a.txt\n```\nnew content\n```\n",
    "hashline": "[a.txt#1a2b3c4d]\nreplace 1\n+new\n",
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_detect_is_exclusive(name: str) -> None:
    found, scores = detect(SAMPLES[name])
    assert found == name, scores
    if name != "hashline":
        assert scores["hashline"] == 0


@pytest.mark.parametrize(
    "text, score",
    [
        ("[a.txt#1a2b]\nPUT 1..2:\n+x\n", 90),
        ("Here you go:\n```\n[a.txt#1a2b3c4d]\ndelete 3\n```\n", 90),
        ("[new.py]\ncreate\n+x\n", 70),
        ("[a.txt#1a2b3c4d]\n1:line one\n2:line two\n", 0),  # read output, not an edit
        ("docs/hashline.md\n```\n[a.txt#1a2b3c4d]\nreplace 1\n+x\n```\n", 0),  # a whole file that quotes one
        ("See [the docs]\nreplace the old parts\n", 0),
        ("*** Begin Patch\n[a.txt#1a2b3c4d]\nreplace 1\n+x\n*** End Patch\n", 100),  # ties with codex: asks for --format
    ],
)
def test_detect_scores(text: str, score: int) -> None:
    assert hashline.detect(text) == score


# --------------------------------------------------------------------------- applying


def apply(cli, text: str, *args: str):  # type: ignore[no-untyped-def]
    return cli("apply", "--json", *args, input=text)


def test_each_op_applies(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    edit = (
        f"[a.txt#{tag}]\n"
        "replace 2..3\n+TWO\n"
        "insert before 5\n+before five\n"
        "insert after 6\n+after six\n"
        "delete 8..9\n"
        "insert after $\n+eleven\n"
        "insert after 0\n+zero\n"
    )
    r = apply(cli, edit)
    assert r.code == 0, r
    assert r.json()["format"] == "hashline"
    assert ten.read("a.txt").decode() == (
        "zero\nline 1\nTWO\nline 4\nbefore five\nline 5\nline 6\nafter six\nline 7\nline 10\neleven\n"
    )


def test_delete_file_and_create(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    r = apply(cli, f"[a.txt#{tag}]\ndelete file\n[b/new.txt]\ncreate\n+hello\n")
    assert r.code == 0, r
    assert not (ten.root / "a.txt").exists()
    assert ten.read("b/new.txt") == b"hello\n"
    assert {f["op"] for f in r.json()["files"]} == {"delete", "create"}


def test_delete_file_needs_every_line_shown(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt", "--lines", "1:4").stdout)
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{tag}]\nREM\n")
    assert r.code == 1, r
    assert r.json()["findings"][0]["code"] == "stale"
    assert "never showed" in r.json()["findings"][0]["message"]
    assert ten.snapshot() == before


def test_edit_keeps_crlf_and_missing_final_newline(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"dos.txt": b"a\r\nb\r\nc\r\n", "tail.txt": b"x\ny"})
    t1 = tag_of(cli("read", "dos.txt").stdout)
    t2 = tag_of(cli("read", "tail.txt").stdout)
    r = apply(cli, f"[dos.txt#{t1}]\nreplace 2\n+B\n[tail.txt#{t2}]\nreplace 2\n+Y\n")
    assert r.code == 0, r
    assert repo.read("dos.txt") == b"a\r\nB\r\nc\r\n"
    assert repo.read("tail.txt") == b"x\nY"


def test_stale_tag_is_refused_and_the_tree_is_unchanged(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    ten.write({"a.txt": FILE.replace("line 3\n", "line three\n")})
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{tag}]\nreplace 3\n+LINE 3\n")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "stale" and f["line"] == 3
    assert "line 3 no longer holds" in f["message"]
    assert "git agent-read a.txt" in f["hint"] and "line three" in f["hint"]
    assert ten.snapshot() == before


def test_reanchored_after_an_insertion_above(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    ten.write({"a.txt": "new first\nnew second\n" + FILE})
    r = apply(cli, f"[a.txt#{tag}]\nreplace 5\n+FIVE\ninsert after 8\n+after eight\n")
    assert r.code == 0, r
    assert r.json()["files"][0]["repairs"] == ["offset"]
    lines = ten.read("a.txt").decode().splitlines()
    assert lines[:2] == ["new first", "new second"]
    assert lines[6] == "FIVE" and lines[10] == "after eight" and lines[9] == "line 8"


def test_change_elsewhere_keeps_the_edit_where_it_was(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    ten.write({"a.txt": FILE.replace("line 9\n", "line nine\n")})
    r = apply(cli, f"[a.txt#{tag}]\nreplace 2\n+TWO\n")
    assert r.code == 0, r
    assert r.json()["files"][0]["repairs"] == []
    assert ten.read("a.txt").decode() == FILE.replace("line 9\n", "line nine\n").replace("line 2\n", "TWO\n")


def test_ranges_moved_by_different_offsets_merge_as_git_would(ten, cli):  # type: ignore[no-untyped-def]
    """A line added between the two ranges since the read: no one offset, but git's merge is clean."""
    tag = tag_of(cli("read", "a.txt").stdout)
    meanwhile = FILE.replace("line 5\n", "line 5\nsomeone else's\n")
    ten.write({"a.txt": meanwhile})
    r = apply(cli, f"[a.txt#{tag}]\nreplace 2\n+TWO\nreplace 8\n+EIGHT\n")
    assert r.code == 0, r
    assert r.json()["files"][0]["repairs"] == ["3way"]
    assert ten.read("a.txt").decode() == meanwhile.replace("line 2\n", "TWO\n").replace("line 8\n", "EIGHT\n")


def test_a_line_changed_next_to_the_edit_since_the_read_is_stale(ten, cli):  # type: ignore[no-untyped-def]
    """The edited line is intact and unmoved, but the one above it changed: git's merge calls it a conflict."""
    tag = tag_of(cli("read", "a.txt").stdout)
    ten.write({"a.txt": FILE.replace("line 4\n", "line four\n")})
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{tag}]\nreplace 5\n+FIVE\n")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "stale" and f["line"] == 4 and "next to the lines the edit changes" in f["message"], f
    assert "line four" in f["hint"] and "git agent-read a.txt --lines" in f["hint"]
    assert ten.snapshot() == before


def test_edit_outside_the_lines_shown_is_refused(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt", "--lines", "1:5").stdout)
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{tag}]\nreplace 4..6\n+x\n")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "stale" and "line 6" in f["message"] and "never showed" in f["message"]
    assert "git agent-read a.txt --lines 6:6" in f["hint"]
    assert ten.snapshot() == before
    # An insertion needs a shown line on one side: after line 5 is fine, after 7 is not.
    assert apply(cli, f"[a.txt#{tag}]\ninsert after 7\n+x\n").code == 1
    r = apply(cli, f"[a.txt#{tag}]\ninsert after 5\n+x\n")
    assert r.code == 0, r


def test_reads_add_up_for_the_same_content(ten, cli):  # type: ignore[no-untyped-def]
    cli("read", "a.txt", "--lines", "1:3")
    tag = tag_of(cli("read", "a.txt", "--lines", "7:8").stdout)
    r = apply(cli, f"[a.txt#{tag}]\nreplace 2\n+TWO\nreplace 8\n+EIGHT\n")
    assert r.code == 0, r


def test_edit_without_a_read_or_by_another_agent_is_refused(ten, cli):  # type: ignore[no-untyped-def]
    blob = ten.git("hash-object", "a.txt").strip()
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{blob[:8]}]\nreplace 1\n+x\n")
    assert r.code == 1 and r.json()["findings"][0]["code"] == "stale", r
    assert "has no read of a.txt" in r.json()["findings"][0]["message"]
    cli("read", "a.txt", "--agent", "claude")
    r = apply(cli, f"[a.txt#{blob[:8]}]\nreplace 1\n+x\n", "--agent", "codex")
    assert r.code == 1, r
    assert "git agent-read --agent codex a.txt" in r.json()["findings"][0]["hint"]
    assert ten.snapshot() == before
    assert apply(cli, f"[a.txt#{blob[:8]}]\nreplace 1\n+x\n", "--agent", "claude").code == 0


def test_permissive_stale_level_applies_unread_edit_with_a_warning(ten, cli):  # type: ignore[no-untyped-def]
    blob = ten.git("hash-object", "a.txt").strip()
    r = apply(cli, f"[a.txt#{blob[:8]}]\nreplace 1\n+x\n", "--policy", "permissive")
    assert r.code == 0, r
    assert [(f["code"], f["severity"]) for f in r.json()["findings"]] == [("stale", "warning")]


def test_an_older_tag_than_the_last_read_is_refused(ten, cli):  # type: ignore[no-untyped-def]
    old = tag_of(cli("read", "a.txt").stdout)
    ten.write({"a.txt": FILE + "line 11\n"})
    new = tag_of(cli("read", "a.txt").stdout)
    r = apply(cli, f"[a.txt#{old}]\nreplace 1\n+x\n")
    assert r.code == 1, r
    assert f"#{new}" in r.json()["findings"][0]["message"]


def test_out_of_range_lines_are_not_found(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    before = ten.snapshot()
    for op in ("replace 10..11\n+x\n", "delete 12\n", "insert after 11\n+x\n", "insert before 12\n+x\n"):
        r = apply(cli, f"[a.txt#{tag}]\n{op}")
        assert r.code == 1, (op, r)
        assert r.json()["findings"][0]["code"] == "not-found", op
    assert ten.snapshot() == before


def test_overlapping_ops_are_refused(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{tag}]\nreplace 2..4\n+x\ndelete 4\n")
    assert r.code == 1 and r.json()["findings"][0]["code"] == "overlap", r
    assert ten.snapshot() == before


def test_second_edit_against_the_same_read_is_reanchored(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    assert apply(cli, f"[a.txt#{tag}]\ninsert after 2\n+new a\n+new b\n").code == 0
    r = apply(cli, f"[a.txt#{tag}]\nreplace 9\n+NINE\n")
    assert r.code == 0, r
    assert r.json()["files"][0]["repairs"] == ["offset"]
    assert ten.read("a.txt").decode().splitlines()[10] == "NINE"


def test_four_hex_digit_tags(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    r = apply(cli, f"[a.txt#{tag[:4].upper()}]\nPUT 3:\n+THREE\nCUT 4\nPUT >$:\n+end\n")
    assert r.code == 0, r
    assert ten.read("a.txt").decode().splitlines()[2:4] == ["THREE", "line 5"]
    assert ten.read("a.txt").decode().endswith("line 10\nend\n")


def test_check_mode_changes_nothing(ten, cli):  # type: ignore[no-untyped-def]
    tag = tag_of(cli("read", "a.txt").stdout)
    before = ten.snapshot()
    r = apply(cli, f"[a.txt#{tag}]\nreplace 1\n+x\n", "--check")
    assert r.code == 0 and r.json()["status"] == "checked", r
    assert ten.snapshot() == before


# --------------------------------------------------------------------------- read-before-edit


SR = "a.txt\n```\n<<<<<<< SEARCH\nline 3\n=======\nline three\n>>>>>>> REPLACE\n```\n"
SR2 = "a.txt\n```\n<<<<<<< SEARCH\nline 4\n=======\nline four\n>>>>>>> REPLACE\n```\n"


def test_read_before_edit_off_by_default(ten, cli):  # type: ignore[no-untyped-def]
    r = apply(cli, SR)
    assert r.code == 0, r


def test_read_before_edit_in_strict(ten, cli):  # type: ignore[no-untyped-def]
    before = ten.snapshot()
    r = apply(cli, SR, "--policy", "strict")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "stale" and "has not read a.txt" in f["message"] and "read_before_edit" in f["message"]
    assert "git agent-read a.txt" in f["hint"]
    assert ten.snapshot() == before
    cli("read", "a.txt", "--lines", "1:2")  # any read of the current content will do
    assert apply(cli, SR, "--policy", "strict").code == 0
    # The agent knows what it wrote itself: a second edit needs no new read.
    assert apply(cli, SR2, "--policy", "strict").code == 0
    # Someone else changes the file since: the edit, made against what the agent last saw,
    # merges by git's rule where the change is apart from it...
    ten.write({"a.txt": ten.read("a.txt").decode() + "extra\n"})
    r = apply(cli, SR.replace("line 3", "line 5").replace("line three", "line five"), "--policy", "strict")
    assert r.code == 0 and r.json()["files"][0]["repairs"] == ["3way"], r
    assert ten.read("a.txt").decode().endswith("line five\nline 6\nline 7\nline 8\nline 9\nline 10\nextra\n")
    # ... and is refused where it touches or adjoins it: read again first.
    ten.write({"a.txt": ten.read("a.txt").decode().replace("line 6\n", "LINE SIX\n")})
    before = ten.snapshot()
    # An edit that does not even fit what the agent saw is refused as before.
    r = apply(cli, SR.replace("line 3", "LINE SIX").replace("line three", "line 6"), "--policy", "strict")
    assert r.code == 1 and "changed since agent last read it" in r.json()["findings"][0]["message"], r
    r = apply(cli, SR.replace("line 3", "line 7").replace("line three", "line seven"), "--policy", "strict")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "stale" and "changed since the agent last saw it" in f["message"] and "LINE SIX" in f["hint"], f
    assert ten.snapshot() == before
    # That refusal carries the edit re-anchored by git's rule (guard/pipeline/suggest/): it shows lines of
    # the current content, which count as a read of it (as any read does), so that, sent back, it lands.
    s = r.json()["suggestion"]
    assert "line seven" in s["edit"] and apply(cli, s["edit"], "--policy", "strict").code == 0
    assert "LINE SIX\nline seven\n" in ten.read("a.txt").decode()


def test_read_before_edit_is_per_agent_and_skips_new_files(ten, cli):  # type: ignore[no-untyped-def]
    cli("read", "a.txt", "--agent", "claude")
    assert apply(cli, SR, "--policy", "strict", "--agent", "codex").code == 1
    assert apply(cli, SR, "--policy", "strict", "--agent", "claude").code == 0
    r = apply(cli, "[brand/new.txt]\ncreate\n+hi\n", "--policy", "strict")
    assert r.code == 0, r


def test_read_before_edit_in_a_policy_file(ten, cli):  # type: ignore[no-untyped-def]
    ten.commit({".agent-guard.yaml": "read_before_edit: true\n"})
    r = apply(cli, SR)
    assert r.code == 1 and "from" in r.json()["findings"][0]["message"], r
    ten.commit({".agent-guard.yaml": "read_before_edit: true\nchecks: {stale: warning}\n"})
    r = apply(cli, SR)
    assert r.code == 0, r
    assert [(f["code"], f["severity"]) for f in r.json()["findings"]] == [("stale", "warning")]


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """Files, then reads (path, --lines or None), then edits to the tree, then the input."""

    name: str
    before: dict[str, str]
    edit: str  # {TAG} / {TAG4} stand for the tag of the last read
    after: dict[str, str | None] | None = None  # expected files (None: deleted)
    error: str | None = None  # expected finding code when refused
    reads: tuple[tuple[str, str | None], ...] = (("a.txt", None),)
    meanwhile: dict[str, str] = field(default_factory=dict)
    repairs: tuple[str, ...] = ()


ABC = "a\nb\nc\nd\ne\n"

CASES = [
    Case("replace-one-line", {"a.txt": ABC}, "[a.txt#{TAG}]\nreplace 2\n+B\n", {"a.txt": "a\nB\nc\nd\ne\n"}),
    Case("replace-grows", {"a.txt": ABC}, "[a.txt#{TAG}]\nreplace 2..3\n+B1\n+B2\n+B3\n", {"a.txt": "a\nB1\nB2\nB3\nd\ne\n"}),
    Case("insert-at-top", {"a.txt": ABC}, "[a.txt#{TAG}]\ninsert before 1\n+top\n", {"a.txt": "top\n" + ABC}),
    Case("insert-at-end", {"a.txt": ABC}, "[a.txt#{TAG}]\nINS.TAIL:\n+end\n", {"a.txt": ABC + "end\n"}),
    Case("insert-into-empty-file", {"a.txt": ""}, "[a.txt#{TAG}]\ninsert after 0\n+first\n", {"a.txt": "first\n"}),
    Case("delete-to-end", {"a.txt": ABC}, "[a.txt#{TAG}]\ndelete 3..$\n", {"a.txt": "a\nb\n"}),
    Case(
        "blank-rows-in-body",
        {"a.txt": ABC},
        "[a.txt#{TAG}]\nreplace 3\n+c1\n\n+c2\n\ndelete 5\n",
        {"a.txt": "a\nb\nc1\n\nc2\nd\n"},
    ),
    Case(
        "put-cut-compat-in-a-fence",
        {"a.txt": ABC, "b.txt": "x\n"},
        "```\n[a.txt#{TAG4}]\nPUT <2:\n+a2\nCUT 4..5\n```\n",
        {"a.txt": "a\na2\nb\nc\n", "b.txt": "x\n"},
    ),
    Case("delete-file", {"a.txt": ABC}, "[a.txt#{TAG}]\ndelete file\n", {"a.txt": None}),
    Case("create-file", {"a.txt": ABC}, "[n/new.txt]\ncreate\n+one\n+two\n", {"n/new.txt": "one\ntwo\n"}, reads=()),
    Case("create-over-existing", {"a.txt": ABC}, "[a.txt]\ncreate\n+x\n", error="exists", reads=()),
    Case(
        "reanchor-after-insert-above",
        {"a.txt": ABC},
        "[a.txt#{TAG}]\nreplace 4\n+D\n",
        {"a.txt": "z\na\nb\nc\nD\ne\n"},
        meanwhile={"a.txt": "z\n" + ABC},
        repairs=("offset",),
    ),
    Case(
        "reanchor-after-deletion-above",
        {"a.txt": ABC},
        "[a.txt#{TAG}]\ninsert after 4\n+d2\n",
        {"a.txt": "b\nc\nd\nd2\ne\n"},
        meanwhile={"a.txt": "b\nc\nd\ne\n"},
        repairs=("offset",),
    ),
    Case(
        "stale-edited-line",
        {"a.txt": ABC},
        "[a.txt#{TAG}]\nreplace 3\n+C\n",
        error="stale",
        meanwhile={"a.txt": "a\nb\nCC\nd\ne\n"},
    ),
    Case(
        "stale-line-inserted-inside-range",
        {"a.txt": ABC},
        "[a.txt#{TAG}]\ndelete 2..4\n",
        error="stale",
        meanwhile={"a.txt": "a\nb\nnew\nc\nd\ne\n"},
    ),
    Case(
        "stale-delete-file-after-append", {"a.txt": ABC}, "[a.txt#{TAG}]\nREM\n", error="stale", meanwhile={"a.txt": ABC + "f\n"}
    ),
    Case(
        "stale-empty-file-filled",
        {"a.txt": ""},
        "[a.txt#{TAG}]\ninsert after 0\n+x\n",
        error="stale",
        meanwhile={"a.txt": "someone\n"},
    ),
    Case("unshown-lines", {"a.txt": ABC}, "[a.txt#{TAG}]\nreplace 1..3\n+x\n", error="stale", reads=(("a.txt", "2:5"),)),
    Case("past-the-end", {"a.txt": ABC}, "[a.txt#{TAG}]\nreplace 6\n+x\n", error="not-found"),
    Case("missing-file", {"a.txt": ABC}, "[a.txt#{TAG}]\nreplace 1\n+x\n", error="missing", meanwhile={"a.txt": ""}),
    Case("parse-error", {"a.txt": ABC}, "[a.txt#{TAG}]\nreplace 1\n-a\n+x\n", error="parse-error"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(repo, cli, case: Case) -> None:  # type: ignore[no-untyped-def]
    repo.commit(case.before)
    tag = "0000"
    for path, span in case.reads:
        out = cli("read", path, *(("--lines", span) if span else ()))
        assert out.code == 0, out
        tag = tag_of(out.stdout)
    for path, content in case.meanwhile.items():
        if case.name == "missing-file":
            (repo.root / path).unlink()
        else:
            repo.write({path: content})
    snapshot = repo.snapshot()
    r = apply(cli, case.edit.replace("{TAG4}", tag[:4]).replace("{TAG}", tag))
    if case.error is not None:
        assert r.code == 1, r
        assert case.error in [f["code"] for f in r.json()["findings"]], r
        assert repo.snapshot() == snapshot
        return
    assert r.code == 0, r
    assert case.after is not None
    for path, want in case.after.items():
        if want is None:
            assert not (repo.root / path).exists(), path
        else:
            assert repo.read(path).decode() == want, path
    assert tuple(r.json()["files"][0]["repairs"]) == case.repairs


def test_read_json_gives_the_header_and_the_lines_by_number(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"src/app.py": "a\nb\nc\n"})
    doc = cli("read", "app.py", "--lines", "2:3", "--json", cwd=repo.root / "src").json()
    text = cli("read", "app.py", "--lines", "2:3", cwd=repo.root / "src").stdout
    assert doc["header"] == text.splitlines()[0] == f"[app.py#{doc['tag']}]" and doc["path"] == "src/app.py"
    assert doc["blob"].startswith(doc["tag"]) and (doc["first"], doc["last"], doc["total"]) == (2, 3, 3)
    assert doc["lines"] == [{"line": 2, "text": "b"}, {"line": 3, "text": "c"}]
    # An edit under that header, sent from the same folder, applies as one under the printed one.
    assert cli("apply", input=f"{doc['header']}\nreplace 2\n+B\n", cwd=repo.root / "src").code == 0
    missing = cli("read", "nope.py", "--json")
    assert missing.code == 1 and missing.json()["findings"][0]["code"] == "missing", missing
