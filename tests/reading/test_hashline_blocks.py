"""Hashline block ops, registers and moves: the grammar (guard/dialects/hashline.py) and the engine's
side (guard/reading/registers.py); the behaviour per language is pinned by tests/cases/hashline-*."""

from __future__ import annotations

import re

import pytest

from guard.dialects import hashline
from guard.model import FileEdit, LineRange, Op, ParseError

HEAD = "[a.py#1a2b3c4d]\n"


def changes(text: str) -> tuple[object, ...]:
    (fe,) = hashline.parse(HEAD + text).files
    return fe.changes


def test_block_ops_and_their_spellings() -> None:
    assert changes("PUT 4*:\n+x\n") == (LineRange(4, 4, ("x",), None, 2, block=4),)
    assert changes("PUT >4*:\n+x\n") == (LineRange(5, 4, ("x",), None, 2, block=4),)
    assert changes("CUT 4*\n") == (LineRange(4, 4, (), None, 2, block=4),)
    for spelled, want in (
        ("replace block 4\n+x\n", LineRange(4, 4, ("x",), None, 2, block=4)),
        ("SWAP.BLK 4:\n+x\n", LineRange(4, 4, ("x",), None, 2, block=4)),
        ("delete block 4\n", LineRange(4, 4, (), None, 2, block=4)),
        ("DEL.BLK 4\n", LineRange(4, 4, (), None, 2, block=4)),
        ("insert after block 4\n+x\n", LineRange(5, 4, ("x",), None, 2, block=4)),
        ("INS.BLK 4:\n+x\n", LineRange(5, 4, ("x",), None, 2, block=4)),
        ("replace 4*\n+x\n", LineRange(4, 4, ("x",), None, 2, block=4)),
    ):
        assert changes(spelled) == (want,), spelled


def test_registers_named_and_unlabeled() -> None:
    got = changes("CUT 4.=6 @f\nPUT >10 @f\nPUT <2 @f\nCUT 8*\nPUT >12\nPUT 14* @f\n")
    assert got == (
        LineRange(4, 6, (), None, 2, cut="f"),
        LineRange(11, 10, (), None, 3, paste="f"),  # a named register pastes any number of times
        LineRange(2, 1, (), None, 4, paste="f"),
        LineRange(8, 8, (), None, 5, block=8, cut="@1"),  # the unlabeled cut, paired with the paste after it
        LineRange(13, 12, (), None, 6, paste="@1"),
        LineRange(14, 14, (), None, 7, block=14, paste="f"),
    )
    # `@` alone is the unlabeled register, in any spelling.
    assert changes("delete 3\ninsert after 9 @\n") == (
        LineRange(3, 3, (), None, 2, cut="@1"),
        LineRange(10, 9, (), None, 3, paste="@1"),
    )
    # An unlabeled cut that nothing pastes is a delete.
    assert changes("CUT 3\n") == (LineRange(3, 3, (), None, 2),)


def test_registers_cross_files_and_moves() -> None:
    edits = hashline.parse("[a.py#1a2b]\nCUT 4* @f\n[b.py#3c4d]\nPUT >2 @f\nMV 'lib/b c.py'\n")
    assert edits.files == (
        FileEdit("a.py", Op.MODIFY, changes=(LineRange(4, 4, (), None, 2, block=4, cut="f"),), base="1a2b", source_line=1),
        FileEdit(
            "lib/b c.py",
            Op.RENAME,
            old_path="b.py",
            changes=(LineRange(3, 2, (), None, 4, paste="f"),),
            base="3c4d",
            source_line=3,
        ),
    )
    (fe,) = hashline.parse("[b.py#3c4d]\nmove to c.py\n").files
    assert fe == FileEdit("c.py", Op.RENAME, old_path="b.py", base="3c4d", source_line=1)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("PUT >9 @nothing\n", "unknown register @nothing"),
        ("PUT >9 @f\nCUT 2 @f\n", "pasted before it is cut"),
        ("CUT 2 @f\nCUT 4 @f\n", "cut twice"),
        ("PUT >9\n", "nothing to paste"),
        ("CUT 2\nCUT 4\nPUT >9\n", "2 unlabeled cuts are pending"),
        ("CUT 2 @f\nPUT >9 @f\n+x\n", "takes no body rows"),
        ("CUT 2\nPUT 5.=6\n", "needs a named register"),
        ("PUT >9:\n", "needs at least one '+' body row"),
        ("PUT 4*:\n", "needs at least one '+' body row"),
        ("PUT 4*\n", "needs a named register"),
        ("PUT 4*..6:\n+x\n", "not a hashline op"),
        ("PUT >$*:\n+x\n", "not a block"),
        ("MV b.py\nMV c.py\n", "moved twice"),
        ("MV a.py\n", "onto itself"),
        ("REM\nMV b.py\n", "must be the only op"),
    ],
)
def test_refusals(text: str, needle: str) -> None:
    with pytest.raises(ParseError, match=re.escape(needle)):
        hashline.parse(HEAD + text)


def test_the_hint_of_an_empty_insert_names_the_paste() -> None:
    with pytest.raises(ParseError) as info:
        hashline.parse(HEAD + "PUT >9:\n")
    assert "drop the ':' and name a register" in info.value.hint


# --------------------------------------------------------------------------- the engine's side


SRC = "import os\n\n\ndef helper(path):\n    return os.path.basename(path)\n\n\ndef main():\n    print(1)\n"
DST = '"""Utilities."""\n\n\ndef other():\n    return 2\n'


def tag_of(out: str) -> str:
    return out.splitlines()[0][1:-1].rpartition("#")[2]


def test_a_move_across_files_is_one_turn_rolled_back_as_one(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"app.py": SRC, "util.py": DST})
    before = repo.snapshot()
    t1, t2 = tag_of(cli("read", "app.py").stdout), tag_of(cli("read", "util.py").stdout)
    r = cli("apply", "--json", input=f"[app.py#{t1}]\nCUT 4* @helper\n[util.py#{t2}]\nPUT >4* @helper\nMV lib/paths.py\n")
    assert r.code == 0, r
    report = r.json()
    assert {(f["op"], f["path"]) for f in report["files"]} == {("modify", "app.py"), ("rename", "lib/paths.py")}
    assert repo.read("lib/paths.py").decode() == DST + "def helper(path):\n    return os.path.basename(path)\n"
    assert "def helper" not in repo.read("app.py").decode()
    assert not (repo.root / "util.py").exists()
    log = cli("log", "--json").json()
    assert len(log["turns"]) == 1 and len(log["turns"][0]["files"]) == 2, log
    back = cli("rollback", "--json")
    assert back.code == 0, back
    after = repo.snapshot()
    assert {k: v for k, v in after.items() if not k.startswith("<")} == {
        k: v for k, v in before.items() if not k.startswith("<")
    }, "rollback left the files changed"
    assert repo.read("app.py").decode() == SRC and repo.read("util.py").decode() == DST
    assert not (repo.root / "lib").exists()


def test_a_refused_move_changes_neither_file(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"app.py": SRC, "util.py": DST})
    t1, t2 = tag_of(cli("read", "app.py").stdout), tag_of(cli("read", "util.py").stdout)
    repo.write({"util.py": DST.replace("return 2", "return 3")})  # next to where the paste goes
    before = repo.snapshot()
    r = cli("apply", "--json", input=f"[app.py#{t1}]\nCUT 4* @helper\n[util.py#{t2}]\nPUT >5 @helper\n")
    assert r.code == 1, r
    assert "stale" in {f["code"] for f in r.json()["findings"]}
    assert repo.snapshot() == before


def test_a_block_the_read_did_not_show_whole_is_refused(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"app.py": SRC})
    t = tag_of(cli("read", "app.py", "--lines", "1:4").stdout)
    before = repo.snapshot()
    r = cli("apply", "--json", input=f"[app.py#{t}]\nPUT 4*:\n+def helper(path):\n+    return path\n")
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "stale" and "never showed" in f["message"] and "--lines 5:5" in f["hint"]
    assert repo.snapshot() == before


def test_a_block_op_in_a_file_that_is_gone(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"app.py": SRC})
    t = tag_of(cli("read", "app.py").stdout)
    (repo.root / "app.py").unlink()
    r = cli("apply", "--json", input=f"[app.py#{t}]\nCUT 4*\n")
    assert r.code == 1 and r.json()["findings"][0]["code"] == "missing", r


def test_check_mode_and_the_python_api(repo):  # type: ignore[no-untyped-def]
    import guard

    repo.commit({"app.py": SRC})
    shown = guard.read("app.py", repo=repo.root, agent="bot")
    t = tag_of(shown)
    report = guard.apply(f"[app.py#{t}]\nCUT 8*\n", repo=repo.root, agent="bot", check=True)
    assert report.status == "checked", report.findings
    assert report.changes[0].after == SRC.replace("def main():\n    print(1)\n", "").encode()
    assert repo.read("app.py").decode() == SRC
