"""One edit, every dialect, one result.

For random edits to real-looking files (code-like lines, many of them repeated),
the same change is written as a unified diff, a Codex patch, a SEARCH/REPLACE
block, a str_replace JSON call, a whole-file reply and a hashline edit (after
``git agent-read``), each in a markdown-free form an agent would send, and applied
with ``--format auto`` to the same repository state.  Every dialect must be
detected as itself, leave the file byte for byte as intended, and record the same
turn (``git diff <turn>^ <turn>``).  So must contaminated renderings of the edit
(guard/dialects/contamination.py): read-tool line numbers pasted into the text to
find, a diff wrapped in JSON, a Codex patch in a markdown reply after a reasoning
block holding a draft; each reports its repair.

Dialects that find text by content (Codex, SEARCH/REPLACE, str_replace) get the
smallest window around the change whose text occurs once in the file, as an agent
must send; the diff gets its usual three lines of context and correct numbers;
the hashline edit names the lines as the read numbered them.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from conftest import git
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from guard.pipeline.engine import Guard
from guard.pipeline.hashline_read import read as agent_read

PATH = "src/module.txt"  # no syntax checker judges it: random lines need not parse

# Lines real files repeat: an edit near one of them needs context to be found.
COMMON = [
    "",
    "",
    "    return None",
    "    return x",
    "    pass",
    "}",
    "    }",
    "        x += 1",
    "    if x:",
    "    else:",
    "import os",
    "# helpers",
    "def helper(x):",
    "  - item",
    "value = 1",
    "    self.count = 0",
    "</div>",
    "end",
]
UNIQUE = st.builds(
    "{}_{}({})".format,
    st.sampled_from(["name", "load", "parse", "    emit", "        check", "total"]),
    st.integers(0, 400),
    st.sampled_from(["a", "a, b", "", "'x'", "[1, 2]"]),
)
LINE = st.one_of(st.sampled_from(COMMON), UNIQUE)


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[str], int, int, list[str]]:
    """(file lines, first replaced line, end of the replaced lines, new lines), 0-based, end exclusive."""
    lines = draw(st.lists(LINE, min_size=1, max_size=40))
    assume(lines[-1].strip())  # a blank last line is a whitespace error the policy would fix
    a = draw(st.integers(0, len(lines) - 1))
    b = draw(st.integers(a + 1, min(len(lines), a + 6)))
    new = draw(st.lists(LINE, max_size=6))
    after = lines[:a] + new + lines[b:]
    assume(new != lines[a:b] and after and after[-1].strip())
    return lines, a, b, new


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _count(lines: list[str], block: list[str]) -> int:
    n = len(block)
    return sum(1 for i in range(len(lines) - n + 1) if lines[i : i + n] == block)


def _window(lines: list[str], a: int, b: int) -> tuple[int, int]:
    """The smallest widening of lines[a:b] that occurs once, as lines and as text, and is not all blank."""
    s, e = a, b
    text = _text(lines)
    while True:
        block = lines[s:e]
        if _count(lines, block) == 1 and text.count(_text(block)) == 1 and any(x.strip() for x in block):
            return s, e
        if s > 0 and (e == len(lines) or (a - s) <= (e - b)):
            s -= 1
        elif e < len(lines):
            e += 1
        else:
            return s, e  # the whole file: unique by definition


def unified(lines: list[str], a: int, b: int, new: list[str]) -> str:
    s, e = max(0, a - 3), min(len(lines), b + 3)
    body = [" " + x for x in lines[s:a]] + ["-" + x for x in lines[a:b]] + ["+" + x for x in new]
    body += [" " + x for x in lines[b:e]]
    old_n, new_n = e - s, e - s - (b - a) + len(new)
    head = f"@@ -{s + 1},{old_n} +{s + 1 if new_n else s},{new_n} @@"
    return f"diff --git a/{PATH} b/{PATH}\n--- a/{PATH}\n+++ b/{PATH}\n{head}\n" + "".join(x + "\n" for x in body)


def codex(lines: list[str], a: int, b: int, new: list[str]) -> str:
    s, e = _window(lines, a, b)
    body = [" " + x for x in lines[s:a]] + ["-" + x for x in lines[a:b]] + ["+" + x for x in new]
    body += [" " + x for x in lines[b:e]]
    return f"*** Begin Patch\n*** Update File: {PATH}\n@@\n" + "".join(x + "\n" for x in body) + "*** End Patch\n"


def search_replace(lines: list[str], a: int, b: int, new: list[str]) -> str:
    s, e = _window(lines, a, b)
    search, replace = lines[s:e], lines[s:a] + new + lines[b:e]
    return f"{PATH}\n<<<<<<< SEARCH\n{_text(search)}=======\n{_text(replace)}>>>>>>> REPLACE\n"


def str_replace(lines: list[str], a: int, b: int, new: list[str]) -> str:
    s, e = _window(lines, a, b)
    old, replacement = _text(lines[s:e]), _text(lines[s:a] + new + lines[b:e])
    return json.dumps({"file_path": PATH, "old_string": old, "new_string": replacement}) + "\n"


def whole(lines: list[str], a: int, b: int, new: list[str]) -> str:
    return f"{PATH}\n```text\n{_text(lines[:a] + new + lines[b:])}```\n"


def hashline(header: str, a: int, b: int, new: list[str]) -> str:
    op = f"replace {a + 1}..{b}\n" + "".join("+" + x + "\n" for x in new) if new else f"delete {a + 1}..{b}\n"
    return header + "\n" + op


RENDER = {
    "unified": unified,
    "codex": codex,
    "search-replace": search_replace,
    "json": str_replace,
    "whole": whole,
}


def _numbered(text: str, first: int, arrow: bool) -> str:
    """`text` as a read tool shows it: cat -n (`     7\tx`) or Claude Code's Read (`     7→x`)."""
    sep = "\u2192" if arrow else "\t"
    return "".join(f"{n:6d}{sep}{line}\n" for n, line in enumerate(text.splitlines(), first))


def numbered_search(lines: list[str], a: int, b: int, new: list[str]) -> str:
    s, e = _window(lines, a, b)
    search, replace = _numbered(_text(lines[s:e]), s + 1, False), _text(lines[s:a] + new + lines[b:e])
    return f"{PATH}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def numbered_old_string(lines: list[str], a: int, b: int, new: list[str]) -> str:
    s, e = _window(lines, a, b)
    old, replacement = _numbered(_text(lines[s:e]), s + 1, True), _text(lines[s:a] + new + lines[b:e])
    return json.dumps({"file_path": PATH, "old_string": old, "new_string": replacement}) + "\n"


def diff_in_json(lines: list[str], a: int, b: int, new: list[str]) -> str:
    return json.dumps({"patch": unified(lines, a, b, new)}) + "\n"


def codex_in_markdown(lines: list[str], a: int, b: int, new: list[str]) -> str:
    draft = codex(lines, a, b, ["draft"])
    return f"<think>\nA first try:\n{draft}</think>\n\nThe patch:\n\n```\n{codex(lines, a, b, new)}```\n\nDone.\n"


# Contaminated renderings of the same edit: (dialect it must be read as, repair it must report).
CONTAMINATED = {
    "numbered-search": (numbered_search, "search-replace", "line-numbers"),
    "numbered-old-string": (numbered_old_string, "json", "line-numbers"),
    "diff-in-json": (diff_in_json, "unified", "escape"),
    "codex-in-markdown": (codex_in_markdown, "codex", None),
}


def _recorded(root: Path, commit: str) -> str:
    proc = subprocess.run(["git", "diff", f"{commit}^", commit], cwd=root, capture_output=True, timeout=60, check=True)
    return proc.stdout.decode("utf-8")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits())
def test_every_dialect_writes_the_same_bytes_and_records_the_same_turn(edit: tuple[list[str], int, int, list[str]]) -> None:
    lines, a, b, new = edit
    before = _text(lines).encode()
    intended = _text(lines[:a] + new + lines[b:]).encode()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "-b", "main")
        (root / "src").mkdir()
        (root / PATH).write_bytes(before)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "before")
        g = Guard(root)
        inputs = {name: render(lines, a, b, new) for name, render in RENDER.items()}
        # Each dialect is its own agent (its own shadow ref); the file is put back between them.
        header = agent_read(g, PATH, None, "hashline").splitlines()[0]
        inputs["hashline"] = hashline(header, a, b, new)
        expected: dict[str, tuple[str, str | None]] = {name: (name, None) for name in inputs}
        for name, (render, dialect, repair) in CONTAMINATED.items():
            inputs[name] = render(lines, a, b, new)
            expected[name] = (dialect, repair)
        recorded: dict[str, str] = {}
        for name, edit_text in inputs.items():
            report = g.apply(edit_text, agent=name)
            if name == "whole" and len(new) - (b - a) < -5 and 2 * (len(lines) - (b - a) + len(new)) < len(lines):
                # Guessed as a whole-file write yet far shorter than the file: doubtful, refused
                # until the dialect is named.
                assert report.status == "refused" and report.findings[0].code == "parse-error", report
                report = g.apply(edit_text, agent=name, format="whole")
            assert report.status == "applied", (name, edit_text, [f.as_dict() for f in report.findings])
            dialect, repair = expected[name]
            assert report.format == dialect, (name, report.format, edit_text)
            repairs = {r for c in report.changes for r in c.repairs}
            assert repair is None or repair in repairs, (name, repairs, edit_text)
            got = (root / PATH).read_bytes()
            assert got == intended, (name, edit_text, got)
            assert report.turn is not None
            recorded[name] = _recorded(root, report.turn.commit)
            (root / PATH).write_bytes(before)
        first = recorded["unified"]
        assert first, "the recorded turn holds no diff"
        for name, diff in recorded.items():
            assert diff == first, (name, diff, first)
