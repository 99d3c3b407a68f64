"""The diff agent-guard reports (and counts budgets by) for changes spread over a large file.

A region too large for difflib's LCS is split at lines that occur once on each side
(patience), so a whole-file write, or a three-way merge's result, that changes two lines
2,000 lines apart reports those two lines, as `git diff --patience` does, and not the
whole stretch between them as removed and added.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import guard
from conftest import Repo
from guard.diffs import _MATCH_LIMIT, opcodes, whole_region


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
    assert (a1 - a0) * (b1 - b0) > _MATCH_LIMIT  # the case this is about
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
    # No line occurs once on either side: nothing to split at, and the answer is still a patch.
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
    stat = subprocess.run(["git", "diff", "--numstat", "HEAD"], cwd=repo.root, capture_output=True, text=True,
                          timeout=60, check=True).stdout.split()
    assert stat[:2] == ["2", "2"]
