"""oh-my-pi's JSON hashline calls: guard/dialects/hashline_json.py, and the engine's side (anchors.py)."""

from __future__ import annotations

import json

import pytest

from guard.dialects import detect, hashline, hashline_json
from guard.model import LAST_SEEN, LineRange, ParseError, Replace
from guard.text import linehash

FILE = "".join(f"line {i}\n" for i in range(1, 11))
LINES = FILE.splitlines()


def a(n: int, rule: str = "hex32") -> str:
    """The anchor of line n of FILE as oh-my-pi printed it under `rule`."""
    return linehash.anchor(rule, n, LINES[n - 1])


def call(*items: object, path: str = "a.txt") -> str:
    return json.dumps({"path": path, "edits": list(items)})


def changes(text: str) -> tuple[object, ...]:
    (fe,) = hashline_json.parse(text).files
    assert fe.path == "a.txt"
    return fe.changes


# --------------------------------------------------------------------------- parsing


def test_shape_3_items() -> None:
    got = changes(
        call(
            {"set_line": {"anchor": "2:aa", "new_text": "TWO"}},
            {"replace_lines": {"start_anchor": "4:bb", "end_anchor": "5:cc", "new_text": "x\ny"}},
            {"insert_after": {"anchor": "7:dd", "text": "after"}},
            {"delete_line": {"anchor": "9:ee"}},
            {"set_line": {"anchor": "10:ff", "new_text": ""}},
        )
    )
    r = ("hex32",)
    assert got == (
        LineRange(2, 2, ("TWO",), None, 1, hashes=((2, "aa", r),)),
        LineRange(4, 5, ("x", "y"), None, 1, hashes=((4, "bb", r), (5, "cc", r))),
        LineRange(8, 7, ("after",), None, 1, hashes=((7, "dd", r),)),
        LineRange(9, 9, (), None, 1, hashes=((9, "ee", r),)),
        LineRange(10, 10, (), None, 1, hashes=((10, "ff", r),)),
    )
    (fe,) = hashline_json.parse(call({"set_line": {"anchor": "2:aa", "new_text": "x"}})).files
    assert fe.base == LAST_SEEN


def test_shape_2_and_three_base36_digits() -> None:
    got = changes(
        call(
            {"single": {"loc": "3:0f", "replacement": "x"}},
            {"range": {"start": "5:1a", "end": "6:2b", "replacement": ""}},
            {"insertAfter": {"loc": "8:3c9", "content": "y"}},
        )
    )
    assert got == (
        LineRange(3, 3, ("x",), None, 1, hashes=((3, "0f", ("hex32",)),)),
        LineRange(5, 6, (), None, 1, hashes=((5, "1a", ("hex32",)), (6, "2b", ("hex32",)))),
        LineRange(9, 8, ("y",), None, 1, hashes=((8, "3c9", ("base36x3",)),)),
    )


def test_shape_1_strings_objects_and_text() -> None:
    s1 = ("stripped64", "base36", "seeded64")
    got = changes(
        call(
            {"src": "2:aa", "dst": "TWO"},
            {"src": "4:bb..5:cc", "dst": ""},
            {"src": "7:dd..", "dst": "after"},
            {"src": "..9:ee| line 9", "dst": "before"},
            {"src": {"kind": "range", "start": "1:rv", "end": "1:rv"}, "dst": "ONE"},
        )
    )
    assert got == (
        LineRange(2, 2, ("TWO",), None, 1, hashes=((2, "aa", s1),)),
        LineRange(4, 5, (), None, 1, hashes=((4, "bb", s1), (5, "cc", s1))),
        LineRange(8, 7, ("after",), None, 1, hashes=((7, "dd", s1),)),
        LineRange(9, 8, ("before",), None, 1, hashes=((9, "ee", s1),)),
        LineRange(1, 1, ("ONE",), None, 1, hashes=((1, "rv", s1), (1, "rv", s1))),
    )
    # A src that names no line is text to find (oh-my-pi's "substring" kind).
    assert changes(call({"src": "line 10", "dst": "TEN"}, {"src": {"kind": "substring", "needle": "line 9"}})) == (
        Replace("line 10", "TEN", False, 1),
        Replace("line 9", "", False, 1),
    )


def test_line_id_shapes() -> None:
    r = ("line-id",)
    got = changes(
        call(
            {"op": "replace", "pos": "2#ZP", "lines": ["TWO"]},
            {"op": "replace", "pos": "4#QV", "end": "5#HB", "lines": None},
            {"op": "append", "pos": "7#KT", "lines": "a\nb"},
            {"op": "prepend", "lines": ["top"]},
            {"op": "append", "lines": ["end"]},
            {"op": "insert", "after": "8#ZZ", "before": "9#PP", "content": ["mid"]},
            {"op": "set", "tag": "10#MM", "content": []},
        )
    )
    assert got == (
        LineRange(2, 2, ("TWO",), None, 1, hashes=((2, "ZP", r),)),
        LineRange(4, 5, (), None, 1, hashes=((4, "QV", r), (5, "HB", r))),
        LineRange(8, 7, ("a", "b"), None, 1, hashes=((7, "KT", r),)),
        LineRange(1, 0, ("top",), None, 1),
        LineRange(0, -1, ("end",), None, 1),
        LineRange(9, 8, ("mid",), None, 1, hashes=((8, "ZZ", r), (9, "PP", r))),
        LineRange(10, 10, (), None, 1, hashes=((10, "MM", r),)),
    )


def test_what_models_got_wrong_in_the_shape_and_is_read_anyway() -> None:
    # "edits" as a JSON string holding the list; a field beside its op; an op whose value is its anchor.
    inner = json.dumps([{"set_line": {"anchor": "2:aa"}, "new_text": "TWO"}])
    got = changes(json.dumps({"path": "a.txt", "edits": inner}))
    assert got == (LineRange(2, 2, ("TWO",), None, 1, hashes=((2, "aa", ("hex32",)),)),)
    got = changes(call({"insert_after": "3:bb", "text": "x", "intent": "add a line"}))
    assert got == (LineRange(4, 3, ("x",), None, 1, hashes=((3, "bb", ("hex32",)),)),)
    # A list of calls, for two files.
    two = hashline_json.parse(
        json.dumps(
            [
                json.loads(call({"set_line": {"anchor": "1:aa", "new_text": "x"}})),
                json.loads(call({"delete_line": {"anchor": "1:aa"}}, path="b.txt")),
            ]
        )
    )
    assert [fe.path for fe in two.files] == ["a.txt", "b.txt"]


@pytest.mark.parametrize(
    "text, needle",
    [
        (call({"set_line": {"anchor": "6a:57", "new_text": "x"}}), "is not an anchor"),
        (call({"insert_after": {"anchor": "3:aa", "text": ""}}), "inserts nothing"),
        (call({"replace_lines": {"start_anchor": "5:aa", "end_anchor": "3:bb", "new_text": "x"}}), "ends before it starts"),
        (
            call({"set_line": {"anchor": "2:aa", "new_text": "x"}}, {"replace": {"old_text": "a", "new_text": "b"}}),
            "mixes text replacements",
        ),
        (json.dumps({"edits": [{"set_line": {"anchor": "2:aa", "new_text": "x"}}]}), "names no file"),
        (json.dumps({"path": "a.txt", "edits": '[{"set_line": {"anchor": "2:aa", "new_text": x}}]'}), "not a JSON list"),
        (call({"op": "replace", "pos": "2#AB", "lines": ["x"]}), "no LINE#ID anchor"),
        (call({"op": "insert", "after": "2#ZP", "before": "5#ZP", "lines": ["x"]}), "not next to each other"),
        (call({"frobnicate": {}}), "has no op"),
        (call({"replace": {"old_text": "", "new_text": "x"}}), "would match everywhere"),
    ],
)
def test_refusals_say_what_is_wrong(text: str, needle: str) -> None:
    with pytest.raises(ParseError, match=needle):
        hashline_json.parse(text)


def test_detection_takes_these_calls_and_leaves_str_replace_json_alone() -> None:
    name, scores = detect(call({"set_line": {"anchor": "2:aa", "new_text": "x"}}))
    assert name == "hashline-json" and scores["hashline-json"] == 95
    assert detect(call({"src": "2:aa", "dst": "x"}))[0] == "hashline-json"
    assert detect(call({"oldText": "a", "newText": "b"}))[0] == "json"
    assert detect('{"file_path": "a.txt", "old_string": "a", "new_string": "b"}')[0] == "json"
    assert hashline_json.detect("[a.txt#abcd]\nreplace 1\n+x\n") == 0
    # --format hashline reads them too.
    assert hashline.parse(call({"set_line": {"anchor": "2:aa", "new_text": "x"}})).format == "hashline-json"


# --------------------------------------------------------------------------- applied


@pytest.fixture
def ten(repo, cli):  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": FILE})
    return repo


def apply(cli, text: str, *args: str):  # type: ignore[no-untyped-def]
    return cli("apply", "--json", *args, input=text)


def test_anchors_that_hash_so_apply_to_the_file_as_it_is(ten, cli):  # type: ignore[no-untyped-def]
    r = apply(
        cli,
        call({"set_line": {"anchor": a(2), "new_text": "TWO"}}, {"insert_after": {"anchor": a(9), "text": "nine and a half"}}),
    )
    assert r.code == 0, r
    assert r.json()["format"] == "hashline-json"
    assert ten.read("a.txt").decode() == FILE.replace("line 2\n", "TWO\n").replace("line 9\n", "line 9\nnine and a half\n")


@pytest.mark.parametrize(
    "rule, form", [("hex32", "set_line"), ("line-id", "op"), ("stripped64", "src"), ("seeded64", "src"), ("base36", "src")]
)
def test_each_rule_of_its_shape(ten, cli, rule: str, form: str):  # type: ignore[no-untyped-def]
    item = (
        {"set_line": {"anchor": a(3, rule), "new_text": "x"}}
        if form == "set_line"
        else {"op": "replace", "pos": a(3, rule), "lines": ["x"]}
        if form == "op"
        else {"src": a(3, rule), "dst": "x"}
    )
    r = apply(cli, call(item))
    assert r.code == 0, r
    assert ten.read("a.txt").decode() == FILE.replace("line 3\n", "x\n")


def test_an_anchor_that_hashes_otherwise_is_refused_with_fresh_anchors(ten, cli):  # type: ignore[no-untyped-def]
    before = ten.snapshot()
    # The model's usual slip: line 4's number with line 3's hash.
    wrong = f"4:{linehash.digest('hex32', 3, 'line 3')}"
    assert wrong != a(4)
    r = apply(cli, call({"set_line": {"anchor": wrong, "new_text": "FOUR"}}))
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "not-found" and f["line"] == 4
    assert "never moved to another line" in f["message"]
    for n in (2, 3, 5, 6):
        assert f"    {a(n)}|line {n}" in f["hint"]
    assert f">>> {a(4)}|line 4" in f["hint"]
    assert ten.snapshot() == before


def test_the_base_is_the_agents_last_read_when_the_file_changed_since(ten, cli):  # type: ignore[no-untyped-def]
    assert cli("read", "a.txt").code == 0
    ten.write({"a.txt": "line 0\n" + FILE})  # changed since the read: one line above
    # Anchors of the file as read: the edit is made there and merged onto the file now.
    r = apply(cli, call({"set_line": {"anchor": a(5), "new_text": "FIVE"}}))
    assert r.code == 0, r
    assert ten.read("a.txt").decode() == "line 0\n" + FILE.replace("line 5\n", "FIVE\n")
    assert r.json()["files"][0]["repairs"] == ["offset"]


def test_anchors_of_a_newer_version_than_the_read_are_refused_with_a_read_hint(ten, cli):  # type: ignore[no-untyped-def]
    assert cli("read", "a.txt").code == 0
    ten.write({"a.txt": "line 0\n" + FILE})
    before = ten.snapshot()
    now = linehash.anchor("hex32", 6, "line 5")  # line 6 of the file now, never read
    r = apply(cli, call({"set_line": {"anchor": now, "new_text": "FIVE"}}))
    assert r.code == 1, r
    (f,) = r.json()["findings"]
    assert f["code"] == "not-found" and "last read it" in f["message"] and "agent-read a.txt" in f["hint"]
    assert ten.snapshot() == before


def test_after_its_own_write_the_agent_needs_no_new_read(ten, cli):  # type: ignore[no-untyped-def]
    assert cli("read", "a.txt").code == 0
    assert apply(cli, call({"set_line": {"anchor": a(1), "new_text": "ONE"}})).code == 0
    r = apply(cli, call({"set_line": {"anchor": linehash.anchor("hex32", 1, "ONE"), "new_text": "One"}}))
    assert r.code == 0, r
    assert ten.read("a.txt").decode().startswith("One\nline 2\n")


def test_read_before_edit_wants_a_read(ten, cli):  # type: ignore[no-untyped-def]
    r = apply(cli, call({"set_line": {"anchor": a(2), "new_text": "x"}}), "--policy", "strict")
    assert r.code == 1 and r.json()["findings"][0]["code"] == "stale", r
    assert cli("read", "a.txt").code == 0
    assert apply(cli, call({"set_line": {"anchor": a(2), "new_text": "x"}}), "--policy", "strict").code == 0


def test_text_replacements_locate_as_str_replace_does(ten, cli):  # type: ignore[no-untyped-def]
    r = apply(cli, call({"replace": {"old_text": "line 7\n", "new_text": "seven\n"}}))
    assert r.code == 0, r
    assert "seven\n" in ten.read("a.txt").decode()
