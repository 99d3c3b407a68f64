"""git's merge rule for edits written against other text than the file holds now.

An agent writes an edit against the file as it saw it (base); the file changed
since (theirs); the edit's result is ours.  Whatever the dialect, agent-guard must
either refuse, or write exactly what ``git merge-file -p ours base theirs`` gives
when that merge is clean; it must never apply where git's merge conflicts.

Hypothesis draws the three texts: a base file of distinct-looking code lines with a
few repeats, one change made to it (a line changed, lines inserted, deleted, or a
block rewritten), rendered with its context in a dialect (a diff with or without
the base's ``index`` line, SEARCH/REPLACE, str_replace), and a change to the file
since, at a random distance from the edit's (inside it, next to it, one or two
lines away, far off) or an invented context line in the edit.  The expected
outcome is computed by git itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from conftest import GIT_ENV
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from guard.pipeline.engine import Guard

EXAMPLES = int(os.environ.get("AG_PROPERTY_EXAMPLES", "300"))
RANDOM = bool(os.environ.get("AG_PROPERTY_RANDOM"))  # fresh examples (hunting), not the fixed run
PATH = "m.c"
WORDS = ("total", "count", "item", "value", "index", "limit", "offset", "result", "buffer", "state")


def _line(rng: st.DrawFn, i: int) -> str:
    word = rng(st.sampled_from(WORDS))
    shape = rng(
        st.sampled_from(
            ("    {w}_{i} = {w}_{j} + 1;", "    if ({w}_{i} > {j}) {{", "    }}", "", "    return {w}_{i};", "    /* {w} {i} */")
        )
    )
    return shape.format(w=word, i=i, j=rng(st.integers(0, 9)))


@dataclass(frozen=True)
class Situation:
    base: list[str]
    ours: list[str]
    theirs: list[str]
    edit: str  # the edit as the agent sends it
    dialect: str


def _text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def _blob(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@st.composite
def situations(draw: st.DrawFn) -> Situation:
    n = draw(st.integers(12, 30))
    base = [_line(draw, i) for i in range(n)]
    # The edit: lines [s, s + k) become `new`.
    s = draw(st.integers(3, n - 4))
    k = draw(st.integers(0, 2))
    new = [f"    changed_{s}_{j} = {j};" for j in range(draw(st.integers(0 if k else 1, 2)))]
    ours = base[:s] + new + base[s + k :]
    ctx = 3
    lo, hi = max(0, s - ctx), min(n, s + k + ctx)
    view = list(base)  # the file as the edit saw it
    kind = draw(st.sampled_from(("none", "changed", "inserted", "deleted", "invented")))
    theirs = list(base)
    if kind == "invented":
        # The edit shows a context line the file never had, at a random place of its context.
        at = draw(st.integers(lo, hi))
        invented = "    /* as the model remembers it */"
        view = base[:at] + [invented] + base[at:]
        shift = 1 if at <= s else 0
        ours = view[: s + shift] + new + view[s + shift + k :]
        event(f"invented at {at - s:+d}")
        base_for_git = view
    else:
        base_for_git = base
        if kind != "none":
            # Where the file changed since: inside the edit, next to it, or further off.
            at = draw(st.integers(max(0, lo - 2), min(n - 1, hi + 1)))
            if kind == "changed":
                theirs[at] = theirs[at] + "  /* since */"
            elif kind == "inserted":
                theirs.insert(at, "    since();")
            else:
                del theirs[at]
            event(f"{kind} at {at - s:+d}")
    old_side = view[lo : hi + (1 if kind == "invented" else 0)]
    new_side = ours[lo : hi + (1 if kind == "invented" else 0) + len(new) - k]
    dialect = draw(st.sampled_from(("unified", "unified-index", "search-replace", "json")))
    edit = _render(dialect, base_for_git, old_side, new_side, lo)
    return Situation(base_for_git, ours, theirs, edit, "unified" if dialect.startswith("unified") else dialect)


def _render(dialect: str, base: list[str], old: list[str], new: list[str], lo: int) -> str:
    if dialect.startswith("unified"):
        import difflib

        body = "".join(difflib.unified_diff(_text(old).splitlines(True), _text(new).splitlines(True), n=len(old)))
        lines = body.splitlines(True)[2:]  # the file headers come next, the hunk header is rewritten
        hunk = [ln for ln in lines if not ln.startswith("@@")]
        head = f"diff --git a/{PATH} b/{PATH}\n"
        if dialect == "unified-index":
            head += f"index {_blob(_text(base))[:12]}..0000000 100644\n"
        new_n = sum(1 for ln in hunk if not ln.startswith("-"))
        old_n = sum(1 for ln in hunk if not ln.startswith("+"))
        return head + f"--- a/{PATH}\n+++ b/{PATH}\n@@ -{lo + 1},{old_n} +{lo + 1},{new_n} @@\n" + "".join(hunk)
    if dialect == "search-replace":
        return f"{PATH}\n```\n<<<<<<< SEARCH\n{_text(old)}=======\n{_text(new)}>>>>>>> REPLACE\n```\n"
    return json.dumps({"file_path": PATH, "old_string": _text(old), "new_string": _text(new)})


def _git(root: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", *args], cwd=root, input=input, capture_output=True, timeout=60, env={**os.environ, **GIT_ENV}, check=False
    )


def _merge_file(ours: str, base: str, theirs: str) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            Path(d, name).write_text(text)
        proc = subprocess.run(
            ["git", "merge-file", "-p", "ours", "base", "theirs"],
            cwd=d,
            capture_output=True,
            timeout=60,
            env={**os.environ, **GIT_ENV},
            check=False,
        )
        return proc.returncode == 0, proc.stdout.decode()


def test_refuse_or_exactly_git_merge_file(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / PATH).write_text("")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "empty")
    guard = Guard(root)
    outcomes: dict[str, int] = {}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not RANDOM,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(situations())
    def check(sit: Situation) -> None:
        base, ours, theirs = _text(sit.base), _text(sit.ours), _text(sit.theirs)
        # The base is in the object database (a diff's index line names it), the file is theirs.
        _git(root, "hash-object", "-w", "--stdin", input=base.encode())
        (root / PATH).write_text(theirs)
        report = guard.apply(sit.edit, format=sit.dialect, check=True)
        clean, merged = _merge_file(ours, base, theirs)
        if report.status == "refused":
            outcome = "refused"
        else:
            (change,) = report.changes
            got = (change.after or b"").decode()
            assert clean, f"applied where git's merge conflicts:\n{sit.edit}\n--- file:\n{theirs}\n--- wrote:\n{got}"
            assert got == merged, (
                f"not git merge-file's result:\n{sit.edit}\n--- file:\n{theirs}\n--- want:\n{merged}\n--- wrote:\n{got}"
            )
            outcome = "merged as git"
        key = f"{outcome} ({'clean' if clean else 'conflict'})"
        outcomes[key] = outcomes.get(key, 0) + 1

    check()
    print(outcomes)
    # Not a vacuous pass: most clean situations are carried out, and conflicts are met too.
    assert outcomes.get("merged as git (clean)", 0) > EXAMPLES // 3, outcomes
    assert outcomes.get("refused (conflict)", 0) > 0, outcomes
