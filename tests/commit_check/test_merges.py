"""`check --from-ref/--to-ref` on merge commits: what a merge adds beyond git's automatic merge of its
parents is judged like any commit; a clean merge adds nothing (issue 23, section 2).

Every merge here is made by git itself (`git merge`, `--no-commit` then an edit for the
"evil" ones), in real repositories; git's own `git log --remerge-diff` is asked where it
can say what the merge added.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, git

BASE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
# Each side changes a different end of the file: git merges them cleanly.
TOP = "import math\n\n" + BASE
BOTTOM = BASE + "\n\ndef mean(items):\n    return total(items) / len(items)\n"
BOTH = "import math\n\n" + BASE + "\n\ndef mean(items):\n    return total(items) / len(items)\n"
ELIDED = (
    "import math\n\ndef total(items):\n    # ... existing code ...\n\n\ndef mean(items):\n    return total(items) / len(items)\n"
)


def codes(result: Any) -> list[tuple[str, str, str | None, int | None, str | None]]:
    return [(f["code"], f["severity"], f["path"], f["line"], f["commit"]) for f in result.json()["findings"]]


def _sides(repo: Repo, main: dict[str, str], topic: dict[str, str | None], base: dict[str, str] | None = None) -> str:
    """A base commit, then `topic` on branch topic (None: delete the file) and `main` on main; returns the base."""
    start = repo.commit(base or {"app.py": BASE}, message="base")
    repo.git("checkout", "-q", "-b", "topic")
    for path in [p for p, text in topic.items() if text is None]:
        repo.git("rm", "-q", path)
    repo.commit({p: text for p, text in topic.items() if text is not None}, message="topic work")
    repo.git("checkout", "-q", "main")
    repo.commit(main, message="main work")
    return start


def _merge_no_commit(repo: Repo, *heads: str) -> None:
    repo.git("merge", "-q", "--no-commit", "--no-ff", *heads, check=False)


def _commit_merge(repo: Repo, files: dict[str, str] | None = None, message: str = "Merge topic") -> str:
    if files:
        repo.write(files)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-edit", "-m", message)
    return repo.git("rev-parse", "HEAD").strip()


def _remerge_diff(repo: Repo, commit: str) -> str:
    return repo.git("log", "-1", "--remerge-diff", "--format=", "-p", commit)


def _objects(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


# --- clean merges add nothing ------------------------------------------------------------
def test_a_clean_merge_adds_nothing(repo: Repo, cli) -> None:
    base = _sides(repo, {"main.py": "m = 1\n"}, {"topic.py": "t = 1   \n"})  # a whitespace slip on the side
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    merge = repo.git("rev-parse", "HEAD").strip()
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 0, result
    # The side's commit is judged on its own, once; the merge that brings it in adds nothing.
    assert [(c, p, commit) for c, _s, p, _l, commit in codes(result)] == [
        ("whitespace", "topic.py", repo.git("rev-parse", "topic").strip())
    ]
    rows = {c["commit"]: c for c in result.json()["check"]["commits"]}
    assert rows[merge]["merge"] == {"parents": 2, "conflicted": 0} and rows[merge]["files"] == 0
    assert "skipped" not in rows[merge]
    human = cli("check", "--from-ref", base, "--to-ref", "HEAD").stdout
    assert "3 commits of" in human and "1 merge commit: each judged on what it holds beyond git's automatic merge" in human


def test_a_clean_merge_of_one_file_both_sides_changed(repo: Repo, cli) -> None:
    base = _sides(repo, {"app.py": TOP}, {"app.py": BOTTOM})
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    assert repo.read("app.py").decode() == BOTH
    assert _remerge_diff(repo, "HEAD") == ""  # git agrees: nothing of the merge's own
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 0 and codes(result) == [], result


# --- an evil merge ---------------------------------------------------------------------------
def test_an_evil_merge_with_a_placeholder_is_refused(repo: Repo, cli) -> None:
    base = _sides(repo, {"app.py": TOP}, {"app.py": BOTTOM})
    _merge_no_commit(repo, "topic")
    merge = _commit_merge(repo, {"app.py": ELIDED})
    assert "+    # ... existing code ..." in _remerge_diff(repo, merge)
    before = repo.snapshot()
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1, result
    assert codes(result) == [("placeholder", "error", "app.py", 4, merge)]
    human = cli("check", "--from-ref", base, "--to-ref", "HEAD").stdout
    assert "app.py:4: placeholder: the added line '# ... existing code ...'" in human
    assert f"(in commit {merge[:10]} 'Merge topic')" in human
    assert repo.snapshot() == before


def test_an_evil_merge_of_files_neither_side_touched(repo: Repo, cli) -> None:
    # A merge that changes a file, or adds one, that no side changed.
    base = _sides(
        repo,
        {"main.py": "m = 1\n"},
        {"topic.py": "t = 1\n"},
        base={"app.py": BASE, "util.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"},
    )
    _merge_no_commit(repo, "topic")
    merge = _commit_merge(
        repo,
        {
            "util.py": "def f():\n    # rest of the code unchanged\n",
            "new.py": "x = 1\n<<<<<<< HEAD\ny = 2\n=======\ny = 3\n>>>>>>> topic\n",
        },
    )
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1, result
    found = codes(result)
    assert ("placeholder", "error", "util.py", 2, merge) in found
    assert {(c, line) for c, _s, p, line, _m in found if p == "new.py"} == {
        ("conflict-marker", 2),
        ("conflict-marker", 4),
        ("conflict-marker", 6),
    }


# --- conflicts and their resolutions -----------------------------------------------------------
CONFLICT_BASE = "a = 1\nb = 2\nc = 3\n"
OURS = "a = 1\nb = 20\nc = 3\n"
THEIRS = "a = 1\nb = 200   \nc = 3\n"  # the side's line has a whitespace slip (judged in the side's commit)


def _conflicted(repo: Repo) -> str:
    base = _sides(repo, {"conf.py": OURS}, {"conf.py": THEIRS}, base={"conf.py": CONFLICT_BASE})
    _merge_no_commit(repo, "topic")
    assert "<<<<<<<" in repo.read("conf.py").decode()  # git stopped on the conflict
    return base


@pytest.mark.parametrize(
    "resolution, merged_again",
    [
        (OURS, False),
        (THEIRS, False),
        ("a = 1\nb = 20\nb = 200   \nc = 3\n", True),
        ("a = 1\nb = 200   \nb = 20\nc = 3\n", True),
        ("a = 1\nc = 3\n", True),
    ],
    ids=["ours", "theirs", "both", "both-reversed", "neither"],
)
def test_a_resolution_that_keeps_the_sides_adds_nothing(repo: Repo, cli, resolution: str, merged_again: bool) -> None:
    base = _conflicted(repo)
    merge = _commit_merge(repo, {"conf.py": resolution})
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 0, result
    # Only the side's own commit carries the whitespace slip, never the merge.
    assert all(commit != merge for *_rest, commit in codes(result)), result
    row = [c for c in result.json()["check"]["commits"] if c["commit"] == merge][0]
    # A file that is one side's version is that side's: git's merge is not even asked about it.
    assert row["merge"] == {"parents": 2, "conflicted": int(merged_again)}
    # (Reversed, the side's line moves: a line the merge adds, but one a side wrote.)
    assert row["added"] == (1 if resolution.startswith("a = 1\nb = 200") and "b = 20\n" in resolution else 0)


@pytest.mark.parametrize(
    "written, code, line",
    [
        ("a = 1\n# ... existing code ...\nc = 3\n", "placeholder", 2),
        ("a = 1\nb = 21  \nc = 3\n", "whitespace", 2),
        ("a = 1\n<<<<<<< HEAD\nb = 20\n=======\nb = 200   \n>>>>>>> topic\nc = 3\n", "conflict-marker", 2),
    ],
    ids=["placeholder", "whitespace", "markers-left-in"],
)
def test_a_resolution_that_writes_new_lines_is_judged(repo: Repo, cli, written: str, code: str, line: int) -> None:
    base = _conflicted(repo)
    merge = _commit_merge(repo, {"conf.py": written})
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--policy", "strict", "--json")
    assert result.code == 1, result
    assert (code, "error", "conf.py", line, merge) in codes(result)
    # The side's line `b = 200   ` kept inside the markers is not the merge's own.
    assert not [f for f in codes(result) if f[4] == merge and f[0] == "whitespace" and f[3] == 5]


def test_markers_with_the_automatic_merges_own_labels_are_still_added_lines(repo: Repo, cli) -> None:
    # Whatever labels the markers carry, no version merged there holds them.
    base = _conflicted(repo)
    text = "a = 1\n<<<<<<< ours\nb = 20\n=======\nb = 200   \n>>>>>>> theirs\nc = 3\n"
    merge = _commit_merge(repo, {"conf.py": text})
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1
    assert {line for c, _s, _p, line, m in codes(result) if c == "conflict-marker" and m == merge} == {2, 4, 6}


# --- octopus merges and several merge bases -----------------------------------------------------
def test_an_octopus_merge(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": BASE}, message="base")
    for name in ("one", "two", "three"):
        repo.git("checkout", "-q", "-b", name, base)
        repo.commit(
            {f"{name}.py": f"{name} = 1\n", "app.py": BASE + f"\n\ndef {name}():\n    return 1\n" if name == "one" else BASE},
            message=f"{name} work",
        )
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Octopus", "one", "two", "three")
    octopus = repo.git("rev-parse", "HEAD").strip()
    assert len(repo.git("rev-parse", "HEAD^@").split()) == 4  # main (the base), one, two, three
    clean = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert clean.code == 0 and codes(clean) == [], clean
    row = [c for c in clean.json()["check"]["commits"] if c["commit"] == octopus][0]
    assert row["merge"]["parents"] == 4
    # The same octopus with an edit of its own.
    repo.git("reset", "-q", "--hard", "HEAD^")
    _merge_no_commit(repo, "one", "two", "three")
    evil = _commit_merge(repo, {"two.py": "two = 1\n# ... rest of the code unchanged\n"}, message="Octopus")
    assert len(repo.git("rev-parse", "HEAD^@").split()) == 4
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and codes(result) == [("placeholder", "error", "two.py", 2, evil)], result


def _criss_cross(repo: Repo) -> str:
    """Two branches that merged each other: their next merge has two merge bases."""
    base = repo.commit({"app.py": BASE, "a.py": "a = 0\n", "b.py": "b = 0\n"}, message="base")
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit({"b.py": "b = 1\n"}, message="topic 1")
    repo.git("checkout", "-q", "main")
    repo.commit({"a.py": "a = 1\n"}, message="main 1")
    repo.git("merge", "-q", "--no-ff", "-m", "main takes topic", "topic~0")
    repo.git("checkout", "-q", "topic")
    repo.git("merge", "-q", "--no-ff", "-m", "topic takes main", "main~1")
    repo.commit({"app.py": BOTTOM}, message="topic 2")
    repo.git("checkout", "-q", "main")
    repo.commit({"app.py": TOP}, message="main 2")
    assert len(repo.git("merge-base", "--all", "main", "topic").split()) == 2
    return base


def test_a_merge_with_two_merge_bases(repo: Repo, cli) -> None:
    base = _criss_cross(repo)
    repo.git("merge", "-q", "--no-ff", "-m", "criss-cross", "topic")
    assert _remerge_diff(repo, "HEAD") == ""
    clean = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert clean.code == 0 and codes(clean) == [], clean
    repo.git("reset", "-q", "--hard", "HEAD^")
    _merge_no_commit(repo, "topic")
    evil = _commit_merge(repo, {"app.py": ELIDED}, message="criss-cross")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and codes(result) == [("placeholder", "error", "app.py", 4, evil)], result


def test_a_merge_of_unrelated_histories(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": BASE}, message="base")
    repo.git("checkout", "-q", "--orphan", "other")
    repo.git("rm", "-q", "-rf", ".")
    repo.commit({"other.py": "o = 1\n"}, message="other root")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "join", "other")
    clean = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert clean.code == 0 and codes(clean) == [], clean
    repo.git("reset", "-q", "--hard", "HEAD^")
    _merge_no_commit(repo, "--allow-unrelated-histories", "other")
    evil = _commit_merge(repo, {"other.py": "o = 1\n# ... existing code ...\n"}, message="join")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and ("placeholder", "error", "other.py", 2, evil) in codes(result), result


# --- budget, paths, the repository left alone ---------------------------------------------------
def test_a_merge_is_held_to_its_own_added_lines(repo: Repo, cli) -> None:
    policy = "budget:\n  per_edit: {files: 2, lines_added: 5, lines_removed: 2}\n"
    base = repo.commit({"app.py": BASE, ".agent-guard.yaml": policy}, message="base")
    repo.git("checkout", "-q", "-b", "topic")
    for n in range(3):  # the side brings 12 lines in 3 commits, each within the budget
        repo.commit({f"t{n}.py": "".join(f"v{i} = {i}\n" for i in range(4))}, message=f"topic {n}")
    repo.git("checkout", "-q", "main")
    repo.commit({"main.py": "m = 1\n"}, message="main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    assert cli("check", "--from-ref", base, "--to-ref", "HEAD").code == 0
    repo.git("reset", "-q", "--hard", "HEAD^")
    _merge_no_commit(repo, "topic")
    evil = _commit_merge(repo, {"extra.py": "".join(f"w{i} = {i}\n" for i in range(6))})
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1
    [finding] = [f for f in result.json()["findings"] if f["commit"] == evil]
    assert finding["code"] == "budget" and "6 added lines; one commit may have 5" in finding["message"]
    assert finding["message"].startswith(f"merge commit {evil[:10]} 'Merge topic' has 6 added lines")
    assert "git rebase -i" not in finding["hint"] and "commit the rest on its own" in finding["hint"]


def test_a_secret_written_in_a_merge_is_reported(repo: Repo, cli) -> None:
    base = _sides(repo, {"main.py": "m = 1\n"}, {"topic.py": "t = 1\n"})
    _merge_no_commit(repo, "topic")
    merge = _commit_merge(repo, {".env": "TOKEN=abc\n"})
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert ("path-protected", "warning", ".env", None, merge) in codes(result), result


def test_paths_limit_a_merges_own_change(repo: Repo, cli) -> None:
    base = _sides(repo, {"app.py": TOP}, {"app.py": BOTTOM}, base={"app.py": BASE, "main.py": "m = 1\n"})
    _merge_no_commit(repo, "topic")
    _commit_merge(repo, {"app.py": ELIDED})
    assert cli("check", "--from-ref", base, "--to-ref", "HEAD", "app.py").code == 1
    assert cli("check", "--from-ref", base, "--to-ref", "HEAD", "main.py").code == 0  # tracked, unchanged


def test_the_check_of_a_merge_writes_nothing_to_the_repository(repo: Repo, tmp_path: Path) -> None:
    from conftest import run_cli

    base = _conflicted(repo)
    _commit_merge(repo, {"conf.py": "a = 1\nb = 21\nc = 3\n"})  # a resolution of its own: a new blob
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", "--no-local", str(repo.root), str(server))
    before = _objects(server)
    result = run_cli(server, "check", "--from-ref", base, "--to-ref", "main", "--json")
    assert result.code == 0, result  # `b = 21` is clean code: nothing to report, but it was looked at
    assert result.json()["check"]["commits"][-1]["added"] == 1
    # No object written (libgit2, like git, may touch the time of an object it finds it already has).
    assert _objects(server) == before


def test_what_the_automatic_merge_gives_is_gits_remerge(repo: Repo) -> None:
    # The repository layer against git's own remerge-diff: the same paths changed.
    from guard.repo import GitRepo

    base = _sides(repo, {"app.py": TOP, "m.py": "m = 1\n"}, {"app.py": BOTTOM, "t.py": "t = 1\n"})
    assert base
    _merge_no_commit(repo, "topic")
    merge = _commit_merge(repo, {"app.py": ELIDED, "m.py": "m = 2\n", "new.py": "n = 1\n"})
    ours = GitRepo(repo.root)
    info = ours.commit_info(merge)
    own = {c.path: c.new for c in ours.files_differing(ours.commit_tree(info.parents[0]), info.tree)}
    own = {p: e for p, e in own.items() if ours.tree_entry(ours.commit_tree(info.parents[1]), p) != e}
    remerged = ours.remerge(info.parents, own)
    theirs = {line.split(" b/")[-1] for line in _remerge_diff(repo, merge).splitlines() if line.startswith("diff --git")}
    assert {c.path for c in remerged.changes} == theirs == {"app.py", "m.py", "new.py"}


def test_renames_merge_as_git_merges_them(repo: Repo, cli) -> None:
    # topic renames lib.py and changes its end; main changes its start: git follows the rename.
    lib = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(12))
    base = _sides(
        repo,
        {"lib.py": "import os\n" + lib},
        {"lib.py": None, "pkg/lib.py": lib + "X = 1\n"},
        base={"lib.py": lib, "app.py": BASE},
    )
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    assert not (repo.root / "lib.py").exists() and repo.read("pkg/lib.py").decode() == "import os\n" + lib + "X = 1\n"
    assert _remerge_diff(repo, "HEAD") == ""
    clean = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert clean.code == 0 and codes(clean) == [], clean
    repo.git("reset", "-q", "--hard", "HEAD^")
    _merge_no_commit(repo, "topic")
    evil = _commit_merge(repo, {"pkg/lib.py": "import os\n" + lib + "X = 1\n# ... existing code ...\n"})
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert codes(result) == [("placeholder", "error", "pkg/lib.py", 51, evil)], result
