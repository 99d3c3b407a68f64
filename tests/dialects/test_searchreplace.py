"""SEARCH/REPLACE blocks (guard/dialects/searchreplace.py), and aider's gold parse."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest

from guard.dialects import jsonedit, searchreplace, whole
from guard.model import ADDED, REMOVED, EditSet, FileEdit, Hunk, HunkLine, Op, ParseError

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"


def hunk(search: str, replace: str, line: int) -> Hunk:
    """A SEARCH/REPLACE hunk: lines split on "\\n" only, so a "\\r" stays in its line."""
    removed = tuple(HunkLine(REMOVED, s) for s in search.split("\n")[:-1])
    added = tuple(HunkLine(ADDED, s) for s in replace.split("\n")[:-1])
    if not removed:
        return Hunk(lines=added, at_eof=True, source_line=line)
    return Hunk(lines=removed + added, source_line=line)


def modify(path: str, *hunks: Hunk, create: bool = False) -> FileEdit:
    return FileEdit(path, Op.MODIFY, changes=hunks, create_missing=create, source_line=hunks[0].source_line)


def edits(*files: FileEdit) -> EditSet:
    return EditSet(files=files, format="search-replace")


BLOCK = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"

PARSE_CASES: list[tuple[str, str, EditSet]] = [
    (
        "path-line-before-fence",
        "Change it:\n\nsrc/a.py\n```python\n" + BLOCK + "```\n",
        edits(modify("src/a.py", hunk("old\n", "new\n", 5))),
    ),
    (
        "path-glued-after-language",
        "```python path/to/x.py\n" + BLOCK + "```\n",
        edits(modify("path/to/x.py", hunk("old\n", "new\n", 2))),
    ),
    (
        "path-glued-alone",
        "```path/to/x.py\n" + BLOCK + "```\n",
        edits(modify("path/to/x.py", hunk("old\n", "new\n", 2))),
    ),
    (
        "label-variants",
        "`a.py`:\n```\n" + BLOCK + "```\n"
        "## b.py\n```\n" + BLOCK + "```\n"
        "**c.py**\n```\n" + BLOCK + "```\n"
        "File: d/e.py\n\n```\n" + BLOCK + "```\n",
        edits(
            modify("a.py", hunk("old\n", "new\n", 3)),
            modify("b.py", hunk("old\n", "new\n", 11)),
            modify("c.py", hunk("old\n", "new\n", 19)),
            modify("d/e.py", hunk("old\n", "new\n", 28)),
        ),
    ),
    (
        "no-fence-path-right-before-search",
        "x.txt\n" + BLOCK,
        edits(modify("x.txt", hunk("old\n", "new\n", 2))),
    ),
    (
        "unlabelled-blocks-reuse-the-path-and-files-merge-in-order",
        "a.py\n```\n" + BLOCK + "\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
        "b.py\n```\n" + BLOCK + "```\na.py\n```\n<<<<<<< SEARCH\nz\n=======\n>>>>>>> REPLACE\n```\n",
        edits(
            modify("a.py", hunk("old\n", "new\n", 3), hunk("x\n", "y\n", 9), hunk("z\n", "", 25)),
            modify("b.py", hunk("old\n", "new\n", 17)),
        ),
    ),
    (
        "empty-search-creates-or-appends",
        "new.py\n```\n<<<<<<< SEARCH\n=======\nprint('hi')\n\n>>>>>>> REPLACE\n```\n",
        edits(modify("new.py", hunk("", "print('hi')\n\n", 3), create=True)),
    ),
    (
        "blank-search-reads-as-empty",
        "new.py\n<<<<<<< SEARCH\n\n=======\nx\n>>>>>>> REPLACE\n",
        edits(modify("new.py", Hunk(lines=(HunkLine(ADDED, "x"),), at_eof=True, source_line=2), create=True)),
    ),
    (
        "marker-lengths-and-trailing-blanks",
        "m.py\n<<<<< SEARCH  \na\n=====\nb\n>>>>> REPLACE\n\n<<<<<<<<< SEARCH>\nc\n=========\t\nd\n>>>>>>>>> REPLACE\n",
        edits(modify("m.py", hunk("a\n", "b\n", 2), hunk("c\n", "d\n", 8))),
    ),
    (
        "crlf-reply-keeps-cr",
        "w.py\r\n```\r\n<<<<<<< SEARCH\r\nold\r\n=======\r\nnew\r\n>>>>>>> REPLACE\r\n```\r\n",
        edits(modify("w.py", hunk("old\r\n", "new\r\n", 3))),
    ),
    (
        "second-divider-closes-replace",
        "a.py\n```\n<<<<<<< SEARCH\nold\n=======\nnew\n=======\n>>>>>>> REPLACE\n```\n"
        "```\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n```\n",
        edits(modify("a.py", hunk("old\n", "new\n", 3), hunk("x\n", "y\n", 11))),
    ),
    (
        "aider-tag-fence",
        "aider/io.py\n<source>python\n" + BLOCK + "</source>\n",
        edits(modify("aider/io.py", hunk("old\n", "new\n", 3))),
    ),
    (
        "absolute-and-windows-paths-pass-through",
        "/abs/a.py\n```\n" + BLOCK + "```\nsrc\\b.py\n```\n" + BLOCK + "```\n",
        edits(modify("/abs/a.py", hunk("old\n", "new\n", 3)), modify("src\\b.py", hunk("old\n", "new\n", 11))),
    ),
    (
        "indented-in-a-list-item",
        "1. Edit `a.py`:\n\n   a.py\n   ```python\n   <<<<<<< SEARCH\n       x = 1\n"
        "   =======\n       x = 2\n   >>>>>>> REPLACE\n   ```\n",
        edits(modify("a.py", hunk("       x = 1\n", "       x = 2\n", 5))),
    ),
    (
        "last-line-without-newline",
        "a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE",
        edits(modify("a.py", hunk("old\n", "new\n", 2))),
    ),
]


@pytest.mark.parametrize("text, expected", [(t, e) for _, t, e in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parse(text: str, expected: EditSet) -> None:
    assert searchreplace.parse(text) == expected


ERROR_CASES: list[tuple[str, str, int, str]] = [
    ("missing-divider-at-end", "a.py\n```\n<<<<<<< SEARCH\nold\n```\n", 3, "has no `=======` line"),
    (
        "replace-marker-before-divider",
        "a.py\n<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n",
        2,
        "has no `=======` before the `>>>>>>> REPLACE` at line 4",
    ),
    ("missing-replace-at-end", "a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n```\n", 2, "has no `>>>>>>> REPLACE` line"),
    (
        "missing-replace-before-next-block",
        "a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n" + BLOCK,
        2,
        "before the next SEARCH at line 6",
    ),
    ("replace-without-search", "a.py\n```\nnew\n>>>>>>> REPLACE\n```\n", 4, "has no `<<<<<<< SEARCH`"),
    ("no-path-anywhere", "Here is the change:\n```python\n" + BLOCK + "```\n", 3, "names no file"),
    ("no-path-no-fence", BLOCK, 1, "names no file"),
    (
        "divider-then-more-replace-text-is-refused",
        "a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n=======\nmore\n>>>>>>> REPLACE\n",
        8,
        "closes a block that has no `<<<<<<< SEARCH`",
    ),
    (
        "search-inside-search",
        "a.py\n<<<<<<< SEARCH\nold\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n",
        2,
        "before the `<<<<<<< SEARCH` at line 4",
    ),
]


@pytest.mark.parametrize("text, line, fragment", [(t, n, f) for _, t, n, f in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_parse_error(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        searchreplace.parse(text)
    assert info.value.line == line
    assert fragment in info.value.message
    assert "<<<<<<< SEARCH" in info.value.hint and ">>>>>>> REPLACE" in info.value.hint


def test_error_names_the_file() -> None:
    with pytest.raises(ParseError) as info:
        searchreplace.parse("src/a.py\n<<<<<<< SEARCH\nold\n")
    assert info.value.path == "src/a.py"
    assert "src/a.py" in info.value.message


DETECT_CASES: list[tuple[str, str, int]] = [
    ("fenced-block", "a.py\n```\n" + BLOCK + "```\n", 90),
    ("bare-block", "a.py\n" + BLOCK, 90),
    ("indented-block", "1. a.py\n   " + BLOCK.replace("\n", "\n   "), 80),
    ("replace-only", "a.py\n```\nnew\n>>>>>>> REPLACE\n```\n", 50),
    ("diff-quoting-a-block", "--- a/t.md\n+++ b/t.md\n@@ -1,3 +1,3 @@\n <<<<<<< SEARCH\n-a\n+b\n", 0),
    ("whole-file", "a.py\n```python\nprint(1)\n```\n", 0),
    ("json", '{"file_path": "a.py", "old_string": "a", "new_string": "b"}', 0),
    ("prose", "nothing to see\n", 0),
]


@pytest.mark.parametrize("text, score", [(t, s) for _, t, s in DETECT_CASES], ids=[c[0] for c in DETECT_CASES])
def test_detect(text: str, score: int) -> None:
    assert searchreplace.detect(text) == score


def test_other_dialects_do_not_claim_blocks() -> None:
    text = "a.py\n```python\n" + BLOCK + "```\n"
    assert (searchreplace.detect(text), whole.detect(text), jsonedit.detect(text)) == (90, 0, 0)


def test_linear_on_many_blocks() -> None:
    text = "a.py\n```\n" + BLOCK + "```\n" + ("```\n" + BLOCK + "```\n") * 5000
    (file_edit,) = searchreplace.parse(text).files
    assert len(file_edit.changes) == 5001


# -- aider's transcript and gold parse ------------------------------------------

AIDER = CORPORA / "aider-chat"
MARK = " " + "@" * 20
SECTION = re.compile(r"(?=####\s)")
SEARCH_LINE = re.compile(r"<{5,9} SEARCH>?\s*")
SHELL_FENCE = re.compile(r"```(?:bash|sh|shell|cmd|batch|powershell|ps1|zsh|fish|ksh|csh|tcsh)")

Block = tuple[str, str, str]  # path, SEARCH text, REPLACE text (lines with their "\n")


def _sections(text: str) -> Iterator[tuple[str, str]]:
    """Steps 1-3 of the corpus README: (header, body) of every section aider reads."""
    for piece in SECTION.split(text):
        if not piece.strip() or "editblock_coder.py" in piece or "test_editblock.py" in piece:
            continue
        header, _, body = piece.partition("\n")
        yield header.strip(), body


def _printed(body: str) -> bool:
    """Whether aider prints the section in the gold file (it has a block, an error or a shell block)."""
    return any(SEARCH_LINE.fullmatch(line.strip()) or SHELL_FENCE.match(line.strip()) for line in body.split("\n"))


def _gold(text: str) -> list[tuple[str, list[Block] | None]]:
    """The gold file as (header, blocks), blocks None for a section aider refused."""
    out: list[tuple[str, list[Block] | None]] = []
    blocks: list[Block] | None = None
    mode, name, search = "", "", ""
    buf: list[str] = []
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\n")
        if mode == "search":
            if bare == "@" * 20:
                search, buf, mode = "".join(buf), [], "replace"
            else:
                buf.append(line)
        elif mode == "replace":
            if bare == "@@@ REPLACE" + MARK:
                assert blocks is not None
                blocks.append((name, search, "".join(buf)))
                mode = ""
            else:
                buf.append(line)
        elif mode == "shell":
            mode = "" if bare == "@@@ ENDSHELL" + MARK else "shell"
        elif bare.startswith("@@@ #### ") and bare.endswith(MARK):
            blocks = []
            out.append((bare[4 : -len(MARK)], blocks))
            mode = ""
        elif mode == "" and bare.startswith("@@@ SEARCH: ") and bare.endswith(MARK):
            name, buf, mode = bare[len("@@@ SEARCH: ") : -len(MARK)], [], "search"
        elif mode == "" and bare == "@@@ SHELL" + MARK:
            mode = "shell"
        elif mode == "" and bare:
            out[-1] = (out[-1][0], None)  # an echoed body and "^^^ Expected ..."
            mode = "error"
    return out


def _ours(body: str) -> list[Block] | None:
    try:
        parsed = searchreplace.parse(body)
    except ParseError:
        return None
    found = []
    for file_edit in parsed.files:
        for change in file_edit.changes:
            assert isinstance(change, Hunk)
            old = "".join(line.text + "\n" for line in change.lines if line.tag == REMOVED)
            new = "".join(line.text + "\n" for line in change.lines if line.tag == ADDED)
            found.append((file_edit.path, old, new))
    return found


def _by_path(blocks: list[Block]) -> dict[str, list[Block]]:
    # We group a reply's blocks by file (one FileEdit each), so compare file by file.
    grouped: dict[str, list[Block]] = {}
    for block in blocks:
        grouped.setdefault(block[0], []).append(block)
    return grouped


def test_aider_chat_agreement() -> None:
    if not AIDER.is_dir():
        pytest.skip("shared/corpora/aider-chat is not here")
    gold = _gold((AIDER / "chat-history-search-replace-gold.txt").read_text(encoding="utf-8"))
    sections = _sections((AIDER / "chat-history.md").read_text(encoding="utf-8"))
    agree = total = refused_alike = 0
    disagreements: list[str] = []
    g = 0
    for header, body in sections:
        if not (_printed(body) and g < len(gold) and gold[g][0] == header):
            continue
        expected, g = gold[g][1], g + 1
        ours = _ours(body)
        if expected is None:
            refused_alike += ours is None
            continue
        total += len(expected)
        mine = _by_path(ours or [])
        for path, blocks in _by_path(expected).items():
            got = mine.get(path, [])
            for k, block in enumerate(blocks):
                if k < len(got) and got[k] == block:
                    agree += 1
                else:
                    disagreements.append(f"{header[:60]}: {path} block {k + 1}")
    rate = agree / total
    print(
        f"\naider-chat: {agree}/{total} gold blocks agree ({rate:.2%}); "
        f"{refused_alike}/33 malformed sections refused alike; disagreements: {disagreements}"
    )
    assert g == len(gold) == 401 and total == 577
    assert rate >= 0.95
    assert refused_alike == 33
