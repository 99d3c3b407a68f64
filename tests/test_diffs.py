"""How agent-guard compares two sequences: the diff it reports (and counts budgets by), and
every alignment of lines or characters an agent's text reaches (``diffs.aligned``).

difflib runs only on small pairs: on an item repeated against an alternation of it, its
matcher is cubic (2,000 x 2,000 lines, or characters of one line, took over a minute).
Larger pairs go to git's own diff (libgit2's xdiff, ``guard/repo/linediff.py``), so a
whole-file write, or a three-way merge's result, that changes two lines 2,000 lines apart
reports those two lines, counted as `git diff --numstat` counts them.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path
from typing import Callable

from conftest import Repo
from conftest import guard as guard_process
from hypothesis import given, settings
from hypothesis import strategies as st

import guard
from guard.tree.diffs import _DIFFLIB_LIMIT, aligned, opcodes, similar, whole_region


def _replayed(a: list[str], b: list[str], ops: list[tuple[str, int, int, int, int]]) -> list[str]:
    out: list[str] = []
    at = 0
    for _tag, a0, a1, b0, b1 in sorted(ops, key=lambda o: o[1]):
        assert a0 >= at, "opcodes overlap"
        out += a[at:a0] + b[b0:b1]
        at = a1
    return out + a[at:]


def _file(rng: random.Random, n: int) -> list[str]:
    # Real-looking code: unique statements between common lines (blank, braces, returns).
    common = ["", "}", "    return x", "  end"]
    return [rng.choice(common) if rng.random() < 0.3 else f"line_{i} = {rng.randrange(10**6)}" for i in range(n)]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8))
def test_spread_changes_in_a_large_file_replay_and_stay_small(seed: int, edits: int) -> None:
    rng = random.Random(seed)
    a = _file(rng, 2600)
    b = list(a)
    changed = 0
    # One change near each end, the rest between: one region far too large for difflib.
    for at in sorted({100, 2400, *rng.sample(range(200, 2400, 100), edits - 2)}, reverse=True):
        kind = rng.choice(("change", "insert", "delete"))
        if kind == "change":
            b[at] = f"changed {at}"
        elif kind == "insert":
            b[at:at] = [f"new {at}", ""]
        else:
            del b[at : at + 2]
        changed += 2
    a0, a1, b0, b1 = whole_region(a, b)
    assert (a1 - a0) * (b1 - b0) > _DIFFLIB_LIMIT  # the case this is about
    ops = opcodes(a, b)
    assert _replayed(a, b, ops) == b
    added = sum(b1 - b0 for _t, _a0, _a1, b0, b1 in ops)
    removed = sum(a1 - a0 for _t, a0, a1, _b0, _b1 in ops)
    assert added <= changed and removed <= changed, (added, removed)


def test_nothing_in_common_is_one_replacement() -> None:
    a = [f"a{i}" for i in range(2500)]
    b = [f"b{i}" for i in range(2500)]
    assert opcodes(a, b) == [("replace", 0, 2500, 0, 2500)]


def test_repeated_lines_only_still_replay() -> None:
    a = ["x", "y"] * 1200
    b = ["y", "x"] * 1200 + ["x"]
    assert _replayed(a, b, opcodes(a, b)) == b


def test_whole_file_write_of_a_large_file_counts_what_changed(repo: Repo, tmp_path: Path) -> None:
    lines = [f"value_{i} = {i}" for i in range(3000)]
    repo.commit({"big.py": "\n".join(lines) + "\n"})
    new = list(lines)
    new[10] = "value_10 = 'ten'"
    new[2900] = "value_2900 = 'late'"
    text = "\n".join(new) + "\n"
    report = guard.apply(json.dumps({"path": "big.py", "content": text}), repo=repo.root, format="json")
    assert report.status == "applied", report.findings
    assert (repo.root / "big.py").read_text() == text
    mine = report.as_dict()["files"][0]
    assert (mine["added"], mine["removed"]) == (2, 2)
    # git counts the same.
    stat = subprocess.run(
        ["git", "diff", "--numstat", "HEAD"], cwd=repo.root, capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert stat[:2] == ["2", "2"]


# --------------------------------------------------------------------------- bounded, whatever the input


def _cpu_s(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):  # the best of three: other load on the machine does not count
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
        if best < LIMIT_S:
            break
    return best


LIMIT_S = 0.5  # difflib took 1.2 s at 500 x 500 and 77 s at 2,000 x 2,000 on these shapes

MOTIFS = ("x", "xy", "xxy", "yx", "xyz", "xxxxy")


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(MOTIFS), st.sampled_from(MOTIFS), st.integers(500, 5000), st.booleans())
def test_alignment_stays_bounded_and_replays(left: str, right: str, size: int, lines: bool) -> None:
    a: list[str] | str = (left * size)[:size]
    b: list[str] | str = (right * size)[: size + size // 7]
    if lines:
        a, b = list(a), list(b)
    ops: list[tuple[str, int, int, int, int]] = []
    assert _cpu_s(lambda: ops.extend(aligned(a, b))) < LIMIT_S
    replay = [(t, a0, a1, b0, b1) for t, a0, a1, b0, b1 in ops if t != "equal"]
    assert "".join(_replayed(list(a), list(b), replay)) == "".join(b)
    for t, a0, a1, b0, b1 in ops:  # `equal` runs are equal, and the opcodes tile both sides
        if t == "equal":
            assert a[a0:a1] == b[b0:b1]
    assert ops[0][1] == ops[0][3] == 0 and ops[-1][2] == len(a) and ops[-1][4] == len(b)
    assert _cpu_s(lambda: similar(a, b, 0.75)) < LIMIT_S


def test_small_pairs_keep_difflib_answers() -> None:
    import difflib

    a, b = "operator=(self, other)", "operator_v2=(self, other)"
    assert aligned(a, b) == difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    assert similar(a, b, 0.8) and not similar("abc", "xyz", 0.5)


def test_a_whole_file_write_of_alternations_is_counted_as_git_counts(repo: Repo) -> None:
    repo.commit({"f.txt": "x\n" * 2000})
    text = "x\ny\n" * 1000
    report = guard.apply(json.dumps({"path": "f.txt", "content": text}), repo=repo.root, format="json", check=True)
    mine = report.as_dict()["files"][0]
    (repo.root / "f.txt").write_text(text)
    stat = subprocess.run(
        ["git", "diff", "--numstat"], cwd=repo.root, capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert [str(mine["added"]), str(mine["removed"])] == stat[:2] == ["1000", "1000"]


def test_a_stale_message_over_long_lines_comes_at_once(repo: Repo, tmp_path: Path) -> None:
    # A 2,000-character context line the file has as `x`s and the edit as `xy`s: the stale
    # finding marks where they differ (a character alignment) and shows a part of each line.
    repo.commit({"f.txt": "a1\na2\n" + "x" * 2000 + "\nkeep\nz1\nz2\n"})
    patch = tmp_path / "p.diff"
    patch.write_text("--- a/f.txt\n+++ b/f.txt\n@@ -1,6 +1,6 @@\n a1\n a2\n " + "xy" * 1000 + "\n-keep\n+KEEP\n z1\n z2\n")
    r = guard_process(repo.root, "apply", "--check", str(patch), timeout=60)  # it took 77 s before
    err = r.stdout.decode()
    assert r.returncode == 1 and "stale" in err, err
    # The findings show a window of each line, not 4,000 characters.  The suggestion after them
    # quotes the lines briefly in its why, and its edit is one to send back as it is: the file's
    # lines, whole.
    findings, suggestion = err.split("\nsuggestion (")
    assert max(len(line) for line in findings.splitlines()) < 250
    why = [line for line in suggestion.splitlines() if line.startswith("  why: ")]
    assert why and max(map(len, why)) < 600
