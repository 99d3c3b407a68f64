"""`binary` and `not-utf8`: the new content, and a target file before anything is located in it."""

from __future__ import annotations

import pytest

from guard import policy as policy_mod
from guard.checks import AttrLookup, CheckInput, content_finding, encoding, no_attr
from guard.model import FileChange, Op
from guard.tree.diffs import make_change

POLICY = policy_mod.load(None, "default")


def attrs(**values: str | bool) -> AttrLookup:
    def lookup(_path: str, name: str) -> str | bool | None:
        return values.get(name)

    return lookup


CONTENT = [
    ("utf8", b"caf\xc3\xa9\n", no_attr, None),
    ("utf8-bom", b"\xef\xbb\xbfx = 1\n", no_attr, None),
    ("empty", b"", no_attr, None),
    ("nul", b"ab\x00cd", no_attr, "binary"),
    ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", no_attr, "binary"),
    ("attr-binary", b"text\n", attrs(binary=True), "binary"),
    ("attr-minus-diff", b"text\n", attrs(diff=False), "binary"),
    ("attr-minus-text", b"text\n", attrs(text=False), "binary"),
    ("latin1", "déjà vu, garçon, naïve, résumé\n".encode("cp1252") * 4, no_attr, "not-utf8"),
    ("utf16-bom", "\ufeffhello\n".encode("utf-16-le"), no_attr, "not-utf8"),
    ("truncated-utf8", b"ok\n\xe2\x82", no_attr, "not-utf8"),
]


@pytest.mark.parametrize("data,attr,code", [c[1:] for c in CONTENT], ids=[c[0] for c in CONTENT])
def test_content_finding(data: bytes, attr: AttrLookup, code: str | None) -> None:
    finding = content_finding("f.txt", data, attr)
    assert (finding.code if finding else None) == code
    if finding is not None:
        assert finding.severity == "error" and "f.txt" in finding.message and finding.hint


def test_not_utf8_names_the_encoding_and_line() -> None:
    data = b"line one\n" + "déjà vu, garçon, naïve, résumé, à bientôt\n".encode("cp1252") * 3
    finding = content_finding("old.txt", data, no_attr)
    assert finding is not None
    assert "byte 0xe9 at line 2" in finding.message
    assert "it looks like cp1252" in finding.message or "it looks like" in finding.message
    assert "utf-16" in str(content_finding("w.txt", "\ufeffhi".encode("utf-16-le"), no_attr))


def inp(*changes: FileChange, attr: AttrLookup = no_attr) -> CheckInput:
    return CheckInput(changes, POLICY, lambda _p: True, attr, None)


def test_checks_judge_new_content() -> None:
    good = make_change("a.txt", Op.MODIFY, b"a\n", b"b\n")
    nul = make_change("b.txt", Op.MODIFY, b"a\n", b"b\x00\n")
    latin = make_change("c.txt", Op.MODIFY, b"a\n", b"caf\xe9\n")
    gone = make_change("d.txt", Op.DELETE, b"a\n", None)
    changes = (good, nul, latin, gone)
    assert [(f.code, f.path, f.line) for f in encoding.check_binary(inp(*changes), "error")] == [("binary", "b.txt", 1)]
    assert [(f.code, f.path) for f in encoding.check_utf8(inp(*changes), "warning")] == [("not-utf8", "c.txt")]
    assert encoding.check_utf8(inp(*changes), "warning")[0].severity == "warning"


def test_binary_attribute_on_new_content() -> None:
    change = make_change("logo.svg", Op.MODIFY, b"<svg/>\n", b"<svg></svg>\n")
    [finding] = encoding.check_binary(inp(change, attr=attrs(binary=True)), "error")
    assert "marks binary" in finding.message
    assert encoding.check_utf8(inp(change, attr=attrs(binary=True)), "error") == []
