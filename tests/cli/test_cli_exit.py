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


# ---------------------------------------------------------------------- `check` read without click

ARGVS = [
    [],
    ["a.py"],
    ["a.py", "b/c.py", "-"],
    ["--staged"],
    ["--all-files", "x"],
    ["--json"],
    ["--format", "sarif"],
    ["--format=github", "p"],
    ["--policy", "strict", "a"],
    ["--policy=./p.yaml"],
    ["--from-ref", "A", "--to-ref", "B"],
    ["--from-ref=A", "--to-ref=B", "--json"],
    ["a", "--json", "b"],
    ["--", "--json", "-x"],
    ["--policy", ""],
    ["--json", "--format", "json"],
    ["--output-format", "sarif"],
    ["--output-format=github", "p"],
    ["--json", "--output-format", "json"],
    # Left to click (help, mistakes, repeats, values that look like options):
    ["-h"],
    ["--help"],
    ["--format", "nope"],
    ["--json", "--format", "human"],
    ["--staged", "--from-ref", "A"],
    ["--policy"],
    ["--policy", "--json"],
    ["--policy", "a", "--policy", "b"],
    ["--staged", "--all-files"],
    ["--json=1"],
    ["--unknown"],
    ["-x"],
    ["--form", "json"],
    ["--staged=1"],
    ["--json", "--output-format", "human"],
    ["--format", "json", "--output-format", "sarif"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) or "(none)" for a in ARGVS])
def test_check_arguments_read_as_click_reads_them(argv: list[str]) -> None:
    import click

    from guard.cli import check as check_cli
    from guard.cli import fast as entry

    fast = entry.parse_check(argv)
    try:
        ctx = check_cli.check_cmd.make_context("check", list(argv))
    except (click.exceptions.Exit, click.UsageError):
        assert fast is None, argv  # help or a usage error: click's to say
        return
    p = ctx.params
    problem = entry.check_conflict(p["mode"], p["from_ref"], p["to_ref"], p["renderer"], p["as_json"])
    if problem is not None:
        assert fast is None, argv
        return
    if fast is None:
        # Only a repeat (click: the last one wins) or a dash-led value may be left to click here.
        names = [a.split("=")[0] for a in argv]
        twice = any(names.count(o) > 1 for o in set(names)) or {"--format", "--output-format"} <= set(names)
        assert twice or "--policy" in argv or "--staged" in argv, argv
        return
    assert tuple(fast["paths"]) == p["paths"]
    assert {k: v for k, v in fast.items() if k != "paths"} == {k: v for k, v in p.items() if k != "paths"}


def test_check_without_click_imports_no_click(repo: Repo) -> None:
    repo.commit({"a.py": "x = 1\n"})
    repo.write({"b.py": "y = 2 \n"})
    repo.git("add", "b.py")
    code = (
        "import sys, os\nfrom guard.cli import program as entry\n"
        "real_exit = os._exit\n"
        "def leave(status):\n    print('click' in sys.modules, status)\n    sys.stdout.flush()\n    real_exit(status)\n"
        "os._exit = leave\nentry.run(sys.argv[1:])\n"
    )
    for args, click_loaded in ((["check"], "False"), (["check", "--json"], "False"), (["check", "--help"], "True")):
        r = python(repo.root, "-c", code, *args)
        assert r.stdout.strip().splitlines()[-1].split()[0] == click_loaded, (args, r.stdout, r.stderr)
    # Same report, same status, with or without click.
    fast = _run(repo.root, "check")
    slow = python(repo.root, "-c", "from guard.cli.commands import main; main()", "check")
    assert (fast.returncode, fast.stdout) == (slow.returncode, slow.stdout)
    assert "whitespace" in fast.stdout


def test_check_usage_errors_the_fast_reader_meets(repo: Repo, tmp_path: Path) -> None:
    repo.commit({"a.py": "x = 1\n"})
    r = _run(repo.root, "check", str(tmp_path / "outside.py"))
    assert r.returncode == 2 and "outside the repository" in r.stderr
    elsewhere = tmp_path / "not-a-repository"
    elsewhere.mkdir()
    fast = _run(elsewhere, "check")
    slow = python(elsewhere, "-c", "from guard.cli.commands import main; main()", "check")
    assert (fast.returncode, fast.stderr) == (slow.returncode, slow.stderr) == (2, slow.stderr)
    assert "not a git repository" in fast.stderr
