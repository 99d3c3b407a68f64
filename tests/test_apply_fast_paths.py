"""The apply path's shortcuts give what the plain way gives, on the same inputs.

A text whose lines all end alike is encoded with one join.
"""

from __future__ import annotations

import difflib
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from guard.text.textfile import BOM, Text, split
from guard.tree.diffs import opcodes, whole_region


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab \t\r\n\u00e9", max_size=40), st.booleans())
def test_encode_gives_back_the_bytes_split_from(text: str, bom: bool) -> None:
    t = split(text, bom)
    assert t.encode() == (BOM if bom else b"") + text.encode("utf-8")
    # The per-line way the shortcut replaced.
    assert t.encode() == (BOM if bom else b"") + "".join(map(operator.add, t.lines, t.eols)).encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["x", "", "y z"]), max_size=6), st.sampled_from(["\n", "\r\n", ""]))
def test_encode_of_built_texts(lines: list[str], last: str) -> None:
    eols = tuple(["\n"] * max(0, len(lines) - 1) + ([last] if lines else []))
    t = Text(tuple(lines), eols, False)
    assert t.encode() == "".join(a + b for a, b in zip(lines, eols)).encode()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "", "c c"]), max_size=5),
    st.lists(st.sampled_from(["a", "b", ""]), max_size=5),
    st.sampled_from(["x", "a", ""]),
    st.sampled_from(["y", "b", "a"]),
)
def test_one_line_for_one_is_difflibs_opcode(before: list[str], after: list[str], old: str, new: str) -> None:
    # diffs.opcodes answers a region of one line for one without difflib: as difflib does.
    a, b = before + [old] + after, before + [new] + after
    region = whole_region(a, b)
    a0, a1, b0, b1 = region
    expected = [
        (tag, a0 + i0, a0 + i1, b0 + j0, b0 + j1)
        for tag, i0, i1, j0, j1 in difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    assert opcodes(a, b, [region]) == expected
