"""Reading a note for what it says (guard/checks/notes.py): code left out, or an explanation.

The phrases here are not the held-out ones of bench/elision_wordings.txt and
bench/elision_comments.txt, which measure the rule on wordings it was not written from.
"""

from __future__ import annotations

import time

import pytest

from guard.checks import notes
from guard.checks.notes import BARE, FIRM, elides
from guard.text.lookalikes import fold

# Each says code is kept, elsewhere or left out, about something named.
SAYS_FIRM = [
    "everything else stays as it was",
    "loop body not repeated here",
    "rest of parse_args unchanged",
    "remainder of class Foo unchanged",
    "other handlers: same as before",
    "(remaining tests)",
    "lines 30-55 unchanged",
    "L7-L9 as before",
    "no modifications to the rest",
    "keep all previous code",
    "the rest is the same",
    "other methods omitted for brevity",
    "snipped",
    "... the remaining implementation ...",
    "[previous logic]",
    "module contents as they were",
    "setters and getters left out",
    "the rest, verbatim",
    "body: no change",
    "остальные методы без изменений",
    "剩余代码保持原样",
    "resto de la función igual",
    "restliche Methoden unverändert",
    "le reste du fichier est inchangé",
    "既存の処理はそのまま",
    "기존 로직 그대로",
]
# Each says less: it may stand for code, or head the new code below it.
SAYS_BARE = [
    "the remaining implementation",
    "untouched",
    "ditto",
    "the previous logic",
    "as above",
    "the others",
    "other retries stay the same",
    "lines 30-55 identical",
    "ditto for parse()",
    "etc.",
    "same as original",
    "node_start_pos is unchanged",
    "leave the import as is",
    "leave the sys module alone",
]
# Each explains what the new code does.
EXPLAINS = [
    "compute the checksum over the rest of the buffer",
    "keep trying until the lock frees",
    "use the same seed every run",
    "existing sessions are invalidated",
    "previous token, if any",
    "the rest of the world uses UTC",
    "remaining retries",
    "other platforms",
    "unchanged files are skipped by the walker",
    "same type as above",
    "same case as above",
    "keep going",
    "return the rest unchanged",
    "rest api client",
    "see above",
    "the code",
    "old code",
    "drop lines that are unchanged",
    "we keep the remaining lines",
    "copied as it is",
    "bytes written before the header",
    "changes below",
    "the loop terminates early",
    "считаем остальные строки",
    "复制其余字节",
    "los demás campos se copian",
    # from real code (the precision bench): pieces of sentences, comparisons, headings, instructions
    "of an existing _M_string.",
    "the same as the above, but is a function",
    "for each of the rounding functions below:",
    "This is a generated file!  Do not edit.",
    "two truncated versions of SHA512",
    "Already reserved.",
    "<other stuff, too>",
    "same test with dry_run",
    "before the first empty block.",
    "There must not be any python code between the previous line",
    "All the member functions below here have a precondition !empty()",
    "from the class above?",
]


@pytest.mark.parametrize("note", SAYS_FIRM)
def test_firm(note: str) -> None:
    assert elides(note) == FIRM, notes.tokens(note)


@pytest.mark.parametrize("note", SAYS_BARE)
def test_bare(note: str) -> None:
    assert elides(note) == BARE, notes.tokens(note)


@pytest.mark.parametrize("note", EXPLAINS)
def test_explains(note: str) -> None:
    assert elides(note) is None, notes.tokens(note)


def test_a_disguised_note_reads_as_its_letters() -> None:
    for note in ("r\u0435st of the c\u043ede unchanged", "rest of the co\u200bde unchanged", "ｒｅｓｔ ｕｎｃｈａｎｇｅｄ"):
        assert elides(note) == FIRM


def test_lone_words_need_a_second_word_outside_comments() -> None:
    assert elides("unchanged") == BARE
    assert elides("unchanged", 2) is None
    assert elides("...rest", 2) is None  # a spread
    assert elides("(lines unchanged)", 2) == FIRM


def test_every_word_that_makes_a_note_is_a_trigger() -> None:
    # The check looks at a line only when it holds a trigger (phrases.VOCAB, and for the
    # words of other scripts the triggers themselves); a note the vocabulary reads as an
    # elision must hold one.
    from guard.checks import phrases

    for trigger in notes.triggers():
        if trigger.isascii():
            assert any(n in trigger for n in phrases.NOTE_NEEDLES), trigger
        else:
            assert trigger in phrases._other_vocab(), trigger


def test_vocabulary_entries_are_folded_like_text() -> None:
    voc = notes.vocabulary()
    for word in list(voc.words) + [s for s, _c in voc.stems] + list(voc.cjk):
        assert fold(word) == word
    # An ASCII note is read with the entries written in ASCII; a word of another script that
    # folds onto one of them (Russian `то`, English `to`) must mean the same.
    ascii_voc = notes.vocabulary(True)
    for groups in notes.WORDS.values():
        for entry in " ".join(groups).split():
            folded = fold(entry.rstrip("*"))
            if not entry.isascii() and "_" not in entry and folded in ascii_voc.words:
                assert ascii_voc.words[folded] == voc.words[folded], entry


def test_a_long_note_is_not_judged_and_costs_little() -> None:
    note = "rest of the code unchanged " * 20
    assert elides(note) is None
    for piece in ("1" * 300, "a." * 150, ". " * 150, "([" * 150, "l1-" * 100, "其" * 300):
        t0 = time.process_time()
        elides(piece[: notes.MAX_NOTE])
        assert time.process_time() - t0 < 0.05
