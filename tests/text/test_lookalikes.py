"""Folding text to how it reads: look-alike letters and invisible characters (guard/text/lookalikes.py)."""

from __future__ import annotations

import pytest

from guard.text.lookalikes import disguised, fold

# (written, how it reads): each disguise of `rest of the code`, and the characters that fold.
FOLDED = [
    ("rest of the c\u043ede", "rest of the code"),  # Cyrillic о
    ("r\u0435st \u043ef th\u0435 \u0441\u043ed\u0435", "rest of the code"),  # Cyrillic е, о, с
    ("rest \u03bff the c\u03bfde", "rest of the code"),  # Greek ο
    ("rest of the c\u0585de", "rest of the code"),  # Armenian օ
    ("rest of the co\u200bde", "rest of the code"),  # zero-width space
    ("rest of the co\u200c\u200dde", "rest of the code"),  # zero-width non-joiner and joiner
    ("rest of the co\u00adde", "rest of the code"),  # soft hyphen
    ("\u202erest of the code\u202c", "rest of the code"),  # right-to-left override, pop
    ("\u2066rest of the code\u2069", "rest of the code"),  # isolate
    ("rest of the co\ufeffde", "rest of the code"),  # byte-order mark inside a word
    ("rest of the co\u2060de", "rest of the code"),  # word joiner
    ("rest of the co\u0301de", "rest of the code"),  # a combining accent
    ("ｒｅｓｔ ｏｆ ｔｈｅ ｃｏｄｅ", "rest of the code"),  # fullwidth
    ("𝐫𝐞𝐬𝐭 𝐨𝐟 𝐭𝐡𝐞 𝐜𝐨𝐝𝐞", "rest of the code"),  # mathematical bold
    ("𝚛𝚎𝚜𝚝 𝚘𝚏 𝚝𝚑𝚎 𝚌𝚘𝚍𝚎", "rest of the code"),  # mathematical monospace
    ("REST OF THE ᴄᴏᴅᴇ", "rest of the code"),  # capitals, small capitals
    ("rest\u00a0of\u2003the\u3000code", "rest of the code"),  # other spaces
    ("⋯ existing code ⋯", "... existing code ..."),
    ("⋮ existing code ⋮", "... existing code ..."),
    ("··· existing code ···", "... existing code ..."),
    ("．．．existing code．．．", "...existing code..."),
    ("… existing code …", "... existing code ..."),
    ("【existing code】", "[existing code]"),
    ("«rest of the code»", "<rest of the code>"),
    ("lines 12–40 — unchanged", "lines 12-40 - unchanged"),
]


@pytest.mark.parametrize("written, reads", FOLDED)
def test_a_disguise_folds_to_what_it_reads(written: str, reads: str) -> None:
    assert fold(written) == reads


def test_ascii_is_only_lowercased() -> None:
    text = "Rest Of The Code ... [x] (y) <!-- z -->"
    assert fold(text) == text.lower()


def test_words_of_other_languages_fold_the_same_everywhere() -> None:
    # A vocabulary is folded with the same function, so its words still match.
    for word in ("остальной код", "其余代码不变", "残りのコードは変更なし", "나머지 코드는 동일", "código", "unverändert"):
        assert fold(word) == fold(fold(word)) == fold(word.upper())


@pytest.mark.parametrize("text", ["rest of the c\u043ede", "co\u200bde", "ｃｏｄｅ", "𝐜𝐨𝐝𝐞", "\u202ecode"])
def test_disguised(text: str) -> None:
    assert disguised(text)


@pytest.mark.parametrize(
    "text",
    ["rest of the code", "остальной код", "código sin cambios", "其余代码不变", "… existing code …", "naïve café", "Ωmega"],
)
def test_not_disguised(text: str) -> None:
    assert not disguised(text)
