"""The programs end quickly (`program.run`: flush, then os._exit) without losing output or status.

And a large check asks git for all attributes at once (`GitRepo.attributes`), with the
answers libgit2 gives one by one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, python

from guard.repo import GitRepo


def _run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return python(cwd, "-m", "guard", *args, env=env)


def test_large_output_arrives_whole_with_the_status(repo: Repo) -> None:
    repo.commit({"a.txt": "a\n"})
    # 3,000 lines with trailing blanks: far more JSON than a pipe holds at once.
    repo.write({f"d/f{i}.txt": "".join(f"line {j} \n" for j in range(300)) for i in range(40)})
    repo.git("add", "-A")
    r = _run(repo.root, "check", "--json")
    assert r.returncode == 1, r.stderr
    assert len(r.stdout) > 65536
    doc = json.loads(r.stdout)
    assert doc["status"] == "refused"
    assert any(f["code"] == "whitespace" for f in doc["findings"])


@pytest.mark.parametrize(
    ("args", "code"), [(("check",), 0), (("check", "--format", "nope"), 2), (("no-such-command",), 2), (("--help",), 0)]
)
def test_statuses_survive_the_quick_exit(repo: Repo, args: tuple[str, ...], code: int) -> None:
    repo.commit({"a.txt": "a\n"})
    r = _run(repo.root, *args)
    assert r.returncode == code, r.stdout + r.stderr
    assert r.stdout or r.stderr


def test_a_reader_that_goes_away_is_not_an_error_trace(repo: Repo) -> None:
    repo.commit({"a.txt": "a\n"})
    repo.write({f"f{i}.txt": "x \n" * 200 for i in range(20)})
    repo.git("add", "-A")
    proc = subprocess.Popen(
        [sys.executable, "-m", "guard", "check"],
        cwd=repo.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=checkout_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()  # like `| head -c 10`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (1, 3)
    assert "Traceback" not in err


# ---------------------------------------------------------------------- attributes in one go

ATTRIBUTES = """\
*.py whitespace=trailing-space,tab-in-indent
*.md -whitespace
[attr]noisy conflict-marker-size=12 whitespace
*.noisy noisy
docs/** conflict-marker-size=9
"""
NESTED = "*.py -whitespace\nkeep.py whitespace=blank-at-eof\n"
NAMES = ("whitespace", "conflict-marker-size", "text", "binary")


def _paths() -> list[str]:
    out = []
    for i in range(30):
        out += [f"src/m{i}.py", f"docs/d{i}.md", f"x/{i}.noisy", f"sub/s{i}.py", f"plain{i}.txt"]
    return out + ["sub/keep.py", "docs/deep/keep.py", "sp ace/é.py"]


def test_prefetched_attributes_equal_libgit2s(repo: Repo) -> None:
    repo.commit({".gitattributes": ATTRIBUTES, "sub/.gitattributes": NESTED, "a.txt": "a\n"})
    paths = _paths()
    one_by_one = GitRepo(repo.root)
    expected = {(p, n): one_by_one.attr(p, n) for p in paths for n in NAMES}
    assert expected[("src/m0.py", "whitespace")] == "trailing-space,tab-in-indent"
    assert expected[("docs/d0.md", "whitespace")] is False
    assert expected[("x/0.noisy", "conflict-marker-size")] == "12"
    assert expected[("sub/keep.py", "whitespace")] == "blank-at-eof"
    batch = GitRepo(repo.root)
    lookup = batch.attributes(paths, NAMES)
    (repo.root / ".gitattributes").write_text("* -whitespace\n")
    # Answered by git at once, and held by the caller for its call; the handle itself keeps nothing.
    assert {(p, n): lookup(p, n) for p in paths for n in NAMES} == expected
    assert {(p, n): batch.attr(p, n) for p in paths for n in NAMES} != expected


def test_without_git_on_path_attributes_still_come_from_libgit2(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({".gitattributes": ATTRIBUTES, "a.txt": "a\n"})
    paths = _paths()
    expected = {(p, n): GitRepo(repo.root).attr(p, n) for p in paths for n in NAMES}
    monkeypatch.setenv("PATH", str(repo.root / "no-such-folder"))
    batch = GitRepo(repo.root)
    lookup = batch.attributes(paths, NAMES)
    assert {(p, n): lookup(p, n) for p in paths for n in NAMES} == expected


def test_a_large_check_finds_what_attributes_say(repo: Repo) -> None:
    # Over the prefetch threshold: whitespace rules and marker sizes come from git's answers.
    repo.commit({".gitattributes": "*.md -whitespace\n*.txt conflict-marker-size=9\n", "a": "a\n"})
    files = {f"n{i}.md": "trailing \n" for i in range(40)}
    files.update({f"t{i}.txt": "<<<<<<< ours\n" for i in range(40)})
    files["bad.py"] = "x = 1 \n"
    files["conflict.py"] = "<<<<<<< HEAD\n"
    repo.write(files)
    repo.git("add", "-A")
    r = _run(repo.root, "check", "--json")
    doc = json.loads(r.stdout)
    where = {(f["code"], f["path"]) for f in doc["findings"]}
    assert ("whitespace", "bad.py") in where
    assert ("conflict-marker", "conflict.py") in where
    assert not [p for c, p in where if p and (p.endswith(".md") or p.endswith(".txt"))], where


# ---------------------------------------------------------------------- `check`'s usage errors


def test_check_usage_errors(repo: Repo, tmp_path: Path) -> None:
    repo.commit({"a.py": "x = 1\n"})
    r = _run(repo.root, "check", str(tmp_path / "outside.py"))
    assert r.returncode == 2 and "outside the repository" in r.stderr
    elsewhere = tmp_path / "not-a-repository"
    elsewhere.mkdir()
    r = _run(elsewhere, "check")
    assert r.returncode == 2 and "not a git repository" in r.stderr and r.stdout == ""
    r = _run(elsewhere, "check", "--json")
    assert r.returncode == 2 and json.loads(r.stdout)["findings"][0]["code"] == "usage"
    r = _run(repo.root, "check", "--json", "--output-format", "sarif")
    assert r.returncode == 2 and "disagree" in r.stderr and json.loads(r.stdout)["status"] == "error"
