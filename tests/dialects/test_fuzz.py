"""Fuzzing the parsers, detection and the engine: every input ends as an edit or a finding.

For each dialect (and for ``auto``), random text, random bytes, mutated valid inputs
(the case folders' inputs, truncated, spliced, with mixed line endings and odd
Unicode) and token soups of the dialect's own keywords must give a parsed
``EditSet`` or a ``ParseError`` / ``parse-error`` finding: never another exception,
never a hang (each example runs under an alarm), never a write (the engine runs
with ``check=True`` and the repository is compared byte for byte after each one).
A long run of the same properties lives in ``bench/fuzz_long.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
from conftest import Repo, alarm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard import dialects
from guard.model import EditSet, ParseError
from guard.pipeline.engine import Guard

CASES = Path(__file__).resolve().parents[1] / "cases"
EXAMPLE_SECONDS = 10  # far above the slowest honest example (~50 ms); a hang trips it
FAST = settings(max_examples=300, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))

# Inputs the case folders do not cover: hashline sections and lazy snippets.
EXTRA_SEEDS = [
    "[a.txt#0123abcd]\nreplace 2..3\n+two\n+three\ninsert after $\n+tail\ndelete 1\n",
    "[new.txt]\ncreate\n+hello\n",
    "[a.txt#abcd]\nPUT >$:\n+x\nCUT 1-2\nREM\n",
    "```python a.py\ndef f():\n    # ... existing code ...\n    return 2\n```\n",
    '{"target_file": "a.py", "code_edit": "// ... existing code ...\\nx = 1\\n"}',
    "*** Begin Patch\n*** Update File: a.txt\n@@ def f\n-one\n+ONE\n*** End of File\n*** End Patch\n",
]


def _seeds() -> list[str]:
    found = [p.read_bytes().decode("utf-8", "replace") for p in sorted(CASES.glob("*/input"))]
    return found + EXTRA_SEEDS


SEEDS = _seeds()

# The dialects' own vocabulary, for token soups that reach deeper parser states than noise.
TOKENS = [
    "diff --git a/a.txt b/a.txt",
    "--- a/a.txt",
    "+++ b/a.txt",
    "--- /dev/null",
    "+++ /dev/null",
    "@@ -1,3 +1,3 @@",
    "@@ -0,0 +1 @@",
    "@@ -5 +5,2 @@ def f():",
    "@@",
    "@@ @@",
    "@@ -1,999999999 +1 @@",
    " context",
    "-removed",
    "+added",
    "-",
    "+",
    " ",
    "\\ No newline at end of file",
    "new file mode 100644",
    "deleted file mode 100755",
    "old mode 100644",
    "new mode 100755",
    "rename from a.txt",
    "rename to b.txt",
    "similarity index 90%",
    "index 0123abc..4567def 100644",
    "GIT binary patch",
    "Binary files a/x and b/x differ",
    "*** Begin Patch",
    "*** End Patch",
    "*** Update File: a.txt",
    "*** Add File: n.txt",
    "*** Delete File: a.txt",
    "*** Move to: m.txt",
    "*** End of File",
    "a.txt",
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "<<<<<<< HEAD",
    ">>>>>>> branch",
    "```",
    "```python",
    "```diff",
    "```a.txt",
    "```json",
    "~~~",
    '{"file_path": "a.txt", "old_string": "one", "new_string": "two"}',
    '{"path": "a.txt", "edits": [',
    '{"command": "create", "path": "n.txt", "file_text": "x"}',
    '{"command": "insert", "insert_line": -5}',
    '{"content": [{"type": "tool_use", "input": {',
    "]}",
    "[",
    "{",
    "}",
    '"',
    "\\u0000",
    "[a.txt#0123abcd]",
    "[a.txt]",
    "replace 1..$",
    "insert before 0",
    "insert after 4294967296",
    "delete 3-1",
    "delete file",
    "create",
    "# ... existing code ...",
    "// ... rest unchanged",
    "...",
    "\ufeff",
    "\u200b",
    "\u202e",
    "e\u0301",
    "\uff0e\uff47\uff49\uff54",
    "\U0001f600",
    "\x0c",
    "\x1c",
    "\x85",
]
EOLS = ["\n", "\r\n", "\r", "", "\u2028", "\x85", "\n\n"]
ODD = [
    "\ufeff",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u0301",
    "\u00a0",
    "\u3000",
    "\uff0e",
    "\ud7ff",
    "\U0010ffff",
    "\x00",
    "\x7f",
    "\t",
    "\r",
    "\u2028",
    "\u2029",
    "\x85",
    "\U0001f600",
    "\\",
    '"',
    "\u0131",
    "\u212a",
]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str] | None = None) -> str:
    """A valid input of some dialect, damaged a few times over."""
    text = draw(st.sampled_from(seeds or SEEDS))
    for _ in range(draw(st.integers(0, 5))):
        op = draw(st.sampled_from(["truncate", "insert", "delete", "crlf", "cr", "odd", "duplicate", "swap-lines"]))
        at = draw(st.integers(0, max(0, len(text))))
        if op == "truncate":
            text = text[:at]
        elif op == "insert":
            text = text[:at] + draw(st.text(max_size=12)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif op == "crlf":
            text = text[:at] + text[at:].replace("\n", "\r\n")
        elif op == "cr":
            text = text[:at].replace("\n", "\r") + text[at:]
        elif op == "odd":
            text = text[:at] + draw(st.sampled_from(ODD)) + text[at:]
        elif op == "duplicate":
            text = text[:at] + text[at : at + draw(st.integers(1, 200))] * draw(st.integers(2, 4)) + text[at:]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


@st.composite
def token_soup(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=8)), max_size=30))
    return "".join(p + draw(st.sampled_from(EOLS)) for p in parts)


RANDOM_TEXT = st.text(max_size=400)
RANDOM_BYTES_AS_TEXT = st.binary(max_size=400).map(lambda b: b.decode("utf-8", "replace"))
ANY_INPUT = st.one_of(mutated(), token_soup(), RANDOM_TEXT, RANDOM_BYTES_AS_TEXT)


def deadline(seconds: int = EXAMPLE_SECONDS) -> contextlib.AbstractContextManager[None]:
    """Fail an example that runs this long: a hang, not a slow parse (a TimeoutError, an Exception,
    so that hypothesis shrinks it and prints the example)."""
    return alarm(seconds, f"one example ran for more than {seconds} s", TimeoutError)


def _check_parse(name: str, text: str, path: str | None = None) -> None:
    mod = dialects.module(name)
    with deadline():
        score = mod.detect(text)
        # `auto` skips a dialect whose highest score is below the best so far (never above
        # it), or whose string the input lacks (never above 0 without it).
        ceiling, marker = dialects.AUTO.get(name, (100, None))
        assert isinstance(score, int) and 0 <= score <= ceiling, (name, score)
        assert score == 0 or marker is None or marker in text, (name, score)
        try:
            edits = mod.parse(text, path=path)
        except ParseError as exc:
            assert exc.message, "a ParseError must say what is wrong"
            return
    assert isinstance(edits, EditSet)
    for fe in edits.files:
        assert isinstance(fe.path, str)


def _check_front_door(text: str, fmt: str) -> None:
    with deadline():
        edits, findings = dialects.parse(text, fmt)
    if edits is None:
        assert findings and all(f.code == "parse-error" and f.severity == "error" for f in findings), findings
    else:
        assert isinstance(edits, EditSet) and (edits.files or edits.rewrites) and not findings


@pytest.mark.parametrize("name", sorted(dialects.DIALECTS))
@FAST
@given(text=ANY_INPUT)
def test_dialect_parses_or_refuses(name: str, text: str) -> None:
    _check_parse(name, text)


@pytest.mark.parametrize("name", ["whole", "lazy", "json", "hashline"])
@settings(FAST, max_examples=100)
@given(text=ANY_INPUT, path=st.sampled_from(["a.txt", "src/app.py", "../x", "", "a\nb", "\ufeff"]))
def test_dialect_with_a_path_parses_or_refuses(name: str, text: str, path: str) -> None:
    _check_parse(name, text, path)


@pytest.mark.parametrize("fmt", ["auto", *sorted(dialects.DIALECTS)])
@settings(FAST, max_examples=150)
@given(text=ANY_INPUT)
def test_front_door_gives_an_edit_or_parse_errors(fmt: str, text: str) -> None:
    _check_front_door(text, fmt)


@FAST
@given(text=ANY_INPUT)
def test_detection_is_total(text: str) -> None:
    with deadline():
        name, scores = dialects.detect(text)
    assert name is None or name in dialects.AUTO
    assert all(0 <= s <= 100 for s in scores.values())


def _asks_every_dialect_that_could_win(text: str) -> None:
    """`detect` skips the dialects whose highest score is below the best so far: it must
    still find what asking every dialect finds."""
    name, scores = dialects.detect(text)
    every = {n: dialects.module(n).detect(text) for n in dialects.AUTO}
    assert {n: every[n] for n in scores} == scores
    best = max(every.values())
    tied = [n for n, s in every.items() if s == best]
    assert name == (tied[0] if best > 0 and len(tied) == 1 else None), (scores, every)
    assert set(tied) <= scores.keys() or best == 0, (scores, every)


@pytest.mark.parametrize("text", SEEDS, ids=range(len(SEEDS)))
def test_detection_asks_every_dialect_that_could_win_seeds(text: str) -> None:
    _asks_every_dialect_that_could_win(text)


@FAST
@given(text=ANY_INPUT)
def test_detection_asks_every_dialect_that_could_win(text: str) -> None:
    with deadline():
        _asks_every_dialect_that_could_win(text)


# ---------------------------------------------------------------------- the engine


@st.composite
def mutated_bytes(draw: st.DrawFn, seeds: list[str] | None = None) -> bytes:
    data = bytearray(draw(mutated(seeds)).encode("utf-8", "surrogatepass"))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["flip", "insert", "cut"]))
        if op == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=6))
        else:
            del data[at : at + draw(st.integers(1, 30))]
    return bytes(data)


FILES = {
    "a.txt": "one\ntwo\nthree\n",
    "hello.py": 'def greet():\n    return "hi"\n',
    "src/app.py": "import os\n\n\ndef main():\n    print(os.getcwd())\n",
    "crlf.txt": "x\r\ny\r\n",
    "README.md": "# Title\n\nText.\n",
}


# Valid edits of FILES in every dialect: mutated, many still apply, so all-or-nothing is exercised.
APPLY_SEEDS = [
    "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -4,2 +4,3 @@\n def main():\n     print(os.getcwd())\n+    return 0\n",
    '*** Begin Patch\n*** Update File: hello.py\n@@ def greet():\n-    return "hi"\n+    return "hello"\n'
    "*** Add File: notes/new.txt\n+fresh\n*** Delete File: README.md\n*** End Patch\n",
    "a.txt\n```\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n```\n"
    "crlf.txt\n```\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n```\n",
    '[{"file_path": "a.txt", "old_string": "three", "new_string": "3"},'
    ' {"file_path": "hello.py", "old_string": "hi", "new_string": "hey"}]',
    "src/app.py\n```python\nimport sys\n\n\ndef main():\n    print(sys.argv)\n```\n",
    "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n",
]


@pytest.fixture
def fuzz_repo(repo: Repo) -> Repo:
    repo.commit(FILES)
    return repo


@settings(FAST, max_examples=250)
@given(
    data=st.one_of(mutated_bytes(), st.binary(max_size=300), token_soup().map(str.encode)),
    fmt=st.sampled_from(["auto", "auto", "auto", *sorted(dialects.DIALECTS)]),
)
def test_engine_check_never_raises_or_writes(fuzz_repo: Repo, data: bytes, fmt: str) -> None:
    before = fuzz_repo.snapshot()
    g = Guard(fuzz_repo.root)
    with deadline():
        report = g.apply(data, format=fmt, check=True, path="a.txt" if fmt in ("whole", "lazy") else None)
    assert report.status in ("checked", "refused")
    if report.status == "refused":
        assert any(f.severity == "error" for f in report.findings)
    assert fuzz_repo.snapshot() == before


@settings(FAST, max_examples=120)
@given(data=st.one_of(mutated_bytes(APPLY_SEEDS), mutated_bytes(), token_soup().map(str.encode)))
def test_engine_apply_is_all_or_nothing(fuzz_repo: Repo, data: bytes) -> None:
    """For real: a refusal changes nothing; an apply changes exactly the files it reports."""
    before = fuzz_repo.snapshot()
    g = Guard(fuzz_repo.root)
    with deadline():
        report = g.apply(data)
    after = fuzz_repo.snapshot()
    if report.status == "refused":
        assert after == before
        return
    assert report.status == "applied" and report.turn is not None
    touched = {c.path for c in report.changes} | {c.old_path for c in report.changes if c.old_path}
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k) and not k.startswith("<")}
    assert changed <= touched, (changed, touched)
    for c in report.changes:
        assert (fuzz_repo.root / c.path).is_file() == (c.after is not None) or c.old_path == c.path
        if c.after is not None:
            assert (fuzz_repo.root / c.path).read_bytes() == c.after
    assert after["<index>"] == before["<index>"] and after["<HEAD>"] == before["<HEAD>"]
    # Back to the committed tree for the next example.
    fuzz_repo.git("checkout", "-q", "--", ".")
    fuzz_repo.git("clean", "-qfd")
    fuzz_repo.git("update-ref", "-d", report.turn.ref)


@pytest.mark.parametrize("snippet", [b"\x01", b"x"])
def test_lazy_snippet_anchored_nowhere_is_refused_not_crashed(fuzz_repo: Repo, snippet: bytes) -> None:
    """Found by this fuzzer: a snippet none of whose lines is in the file crashed (IndexError)
    while the placeholder finding was being worded."""
    before = fuzz_repo.snapshot()
    report = Guard(fuzz_repo.root).apply(snippet, format="lazy", path="a.txt")
    assert report.status == "refused" and [f.code for f in report.findings] == ["placeholder"]
    assert "none of its lines is in the file" in report.findings[0].message
    assert fuzz_repo.snapshot() == before


def test_every_dialect_has_seeds() -> None:
    """The mutation strategy starts from real inputs of every dialect."""
    if not CASES.is_dir():
        pytest.skip("no case folders")
    prefixes = {p.parent.name.split("-")[0] for p in CASES.glob("*/input")}
    assert {"unified", "codex", "sr", "json", "whole"} <= prefixes


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM")
def test_deadline_trips_on_a_hang() -> None:
    with pytest.raises(TimeoutError):
        with deadline(1):
            while True:
                os.getpid()
