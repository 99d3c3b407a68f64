"""The line hashes of oh-my-pi's hashline tools (guard/text/linehash.py), held to what oh-my-pi printed."""

from __future__ import annotations

import random

import pytest

from guard.text import linehash

# xxHash's own sanity values (github.com/Cyan4973/xxHash: the empty input and "abc", seed 0),
# and the 14-byte and 101-byte sequences of its reference test, seed 0 and PRIME32.
XXH32 = [
    (b"", 0, 0x02CC5D05),
    (b"abc", 0, 0x32D153FF),
    (b"a", 0, 0x550D7456),
    (b"Nobody inspects the spammish repetition", 0, 0xE2293B2F),
]
XXH64 = [
    (b"", 0, 0xEF46DB3751D8E999),
    (b"abc", 0, 0x44BC2CF5AD770999),
    (b"a", 0, 0xD24EC4F1A98C6E5B),
    (b"Nobody inspects the spammish repetition", 0, 0xFBCEA83C8A378BF1),
]


@pytest.mark.parametrize("data, seed, want", XXH32)
def test_xxh32_reference_values(data: bytes, seed: int, want: int) -> None:
    assert linehash.xxh32(data, seed) == want


@pytest.mark.parametrize("data, seed, want", XXH64)
def test_xxh64_reference_values(data: bytes, seed: int, want: int) -> None:
    assert linehash.xxh64(data, seed) == want


def test_both_agree_with_the_c_library_when_it_is_installed() -> None:
    xxhash = pytest.importorskip("xxhash")
    rng = random.Random(7)
    for _ in range(500):
        data = bytes(rng.randrange(256) for _ in range(rng.choice((0, 3, 4, 15, 16, 31, 32, 33, 70))))
        seed = rng.choice((0, 1, 439, 2**31 + 5))
        assert linehash.xxh32(data, seed) == xxhash.xxh32_intdigest(data, seed)
        assert linehash.xxh64(data, seed) == xxhash.xxh64_intdigest(data, seed)


# Anchors oh-my-pi's tool printed next to the lines they name, in its published benchmark
# reports (gtrak/oh-my-pi, packages/react-edit-benchmark/runs, MIT): refusals of stale
# anchors list the lines around them as `LINE:HH|text`.
PRINTED = [
    # qwen-turbo, 2026-02-11T06:42Z (every run from then on): hex32
    ("hex32", 92, "      return store.profilerStore.profilingData.timelineData || null;", "24"),
    ("hex32", 94, "  );", "2c"),
    ("hex32", 93, "  dispatchConfig: DispatchConfig,", "4c"),
    ("hex32", 242, "", "05"),
    # glm-4.5-air, 2026-02-11T04:54Z: base36
    ("base36", 428, "          // and for each, we do the following:", "fg"),
    ("base36", 432, "            if (declaredVariableName != null) {", "u2"),
    # gemini-2.5-flash-lite, 2026-02-10T16:34Z: seeded64 (the same text on another line hashes otherwise)
    ("seeded64", 439, "            let variableDeclaratorPath = referencePath;", "2f"),
    ("seeded64", 442, "              variableDeclaratorPath.node.type !==", "7d"),
    ("seeded64", 131, "        childID,", "4f"),
]


@pytest.mark.parametrize("rule, number, line, printed", PRINTED)
def test_the_rules_give_the_anchors_oh_my_pi_printed(rule: str, number: int, line: str, printed: str) -> None:
    assert linehash.digest(rule, number, line) == printed
    others = [r for r in ("hex32", "base36", "seeded64") if r != rule]
    assert all(linehash.digest(r, number, line) != printed for r in others)


def test_whitespace_and_a_final_cr_do_not_count_where_the_rule_strips_them() -> None:
    for rule in ("stripped64", "base36", "base36x3", "hex32", "line-id"):
        assert linehash.digest(rule, 5, "  a = b ;") == linehash.digest(rule, 5, "a=b;\r")
        # JavaScript's \s: no-break space and U+FEFF go, U+001F stays.
        assert linehash.digest(rule, 5, "a\u00a0=\ufeffb") == linehash.digest(rule, 5, "a=b")
        assert linehash.digest(rule, 5, "a\x1f=b") != linehash.digest(rule, 5, "a=b")
    assert linehash.digest("seeded64", 5, " x") != linehash.digest("seeded64", 5, "x")
    assert linehash.digest("seeded64", 5, "x") != linehash.digest("seeded64", 6, "x")


def test_line_id_letters_and_the_line_number_for_lines_without_letters() -> None:
    for line in ("def f():", "}", "", "  ) ;"):
        got = linehash.digest("line-id", 3, line)
        assert len(got) == 2 and set(got) <= set("ZPMQVRWSNKTXJBYH")
        # The same byte as hex32 when the line holds a letter or digit (seed 0 both).
        byte = int(linehash.digest("hex32", 3, line), 16)
        if any(c.isalnum() for c in line):
            assert got == "ZPMQVRWSNKTXJBYH"[byte >> 4] + "ZPMQVRWSNKTXJBYH"[byte & 15]
    # Punctuation alone is seeded by the line number, so two `}` lines differ (mostly).
    assert len({linehash.digest("line-id", n, "}") for n in range(1, 40)}) > 10
    assert len({linehash.digest("line-id", n, "return x") for n in range(1, 40)}) == 1


def test_matches_and_anchor() -> None:
    line = "  dispatchConfig: DispatchConfig,"
    assert linehash.matches(("hex32",), 93, line, "4C")
    assert not linehash.matches(("hex32",), 93, line, "4d")
    assert linehash.matches(("stripped64", "base36", "hex32"), 93, line, "4c")
    assert linehash.anchor("hex32", 93, line) == "93:4c"
    assert linehash.anchor("line-id", 93, line).startswith("93#")
