"""A `GitRepo` kept open across changes answers as git does afresh.

These tests hold one handle, as a session holds it, over a series of changes to the
attribute files and git's configuration, and hold every answer after each change to a
fresh one: git's own (`git check-attr`, `git config --list`) or a new handle's.  The
attributes are not kept between calls; the configuration is (``config.KEPT``, for every handle
of the process, while its files are unchanged), and is held here to a fresh read at every step.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import Repo, alarm, git

from guard.repo import GitRepo, config

PATHS = ("a.txt", "b.py", "sub/c.txt", "sub/d.md")
NAMES = ("text", "binary", "eol", "whitespace", "diff")
PAST = 1_600_000_000 * 10**9


def _git_says(root: Path) -> dict[tuple[str, str], str | bool | None]:
    out = git(root, "check-attr", *NAMES, "--", *PATHS)
    said: dict[tuple[str, str], str | bool | None] = {}
    for line in out.splitlines():
        path, name, value = line.split(": ", 2)
        said[(path, name)] = {"set": True, "unset": False, "unspecified": None}.get(value, value)
    return said


def test_attribute_answers_follow_the_files_between_calls(tmp_path: Path) -> None:
    r = Repo(tmp_path)
    r.commit({p: "x\n" for p in PATHS})
    repo = GitRepo(tmp_path)  # one handle, kept across the changes, as a session keeps it
    info = tmp_path / ".git" / "info" / "attributes"
    configured = tmp_path.parent / f"{tmp_path.name}-attributes"
    states: list[dict[str, str | None]] = [
        {".gitattributes": "*.txt text eol=lf\n"},
        {".gitattributes": "*.txt -text\n", "sub/.gitattributes": "*.md binary\n"},
        {".gitattributes": "*.txt -TEXT\n"},  # the same size: told apart by its time and inode
        {"sub/.gitattributes": "* whitespace=-trailing-space diff=python\n"},
        {str(info): "b.py binary\n"},
        {".gitattributes": None, "sub/.gitattributes": None, str(info): None},
        {str(configured): "*.md -diff eol=lf\n", "core.attributesFile": str(configured)},
        {str(configured): "*.md -diff eol=crlf\n"},  # the same size
        {"core.attributesFile": None},
        {"sub/.gitattributes": "*.md binary\n"},  # a file only below the top: the top's paths have none
        {"sub/.gitattributes": None},  # no file anywhere: nothing is asked, everything is unspecified
    ]
    assert {(p, n): repo.attr(p, n) for p in PATHS for n in NAMES} == _git_says(tmp_path)
    for state in states:
        for name, text in state.items():
            if name == "core.attributesFile":
                r.git("config", *([name, text] if text is not None else ["--unset", name]))
                continue
            where = Path(name) if os.path.isabs(name) else tmp_path / name
            if text is None:
                where.unlink(missing_ok=True)
            else:
                where.parent.mkdir(parents=True, exist_ok=True)
                where.write_text(text)
        said = _git_says(tmp_path)
        assert {(p, n): repo.attr(p, n) for p in PATHS for n in NAMES} == said, state
        assert {(p, n): repo.attr(p, n) for p in PATHS for n in NAMES} == said, state  # and again


def test_attribute_files_deleted_from_the_work_tree_are_read_from_the_index(tmp_path: Path) -> None:
    """git reads a .gitattributes the work tree lacks from the index (a tracked file deleted and not
    staged); agent-guard's index-free look-ups answered as if there were none."""
    r = Repo(tmp_path)
    files = {".gitattributes": "*.txt -whitespace binary\n", "sub/.gitattributes": "*.md eol=crlf diff=python\n"}
    r.commit({**{p: "x\n" for p in PATHS}, **files})
    repo = GitRepo(tmp_path)  # kept across the changes, as a session keeps it
    steps: list[tuple[str, ...]] = [
        ("rm", ".gitattributes"),  # deleted, not staged: the index still has it
        ("rm", "sub/.gitattributes"),
        ("git", "rm", "-q", "--cached", ".gitattributes"),  # the deletion staged: no longer read
        ("write", ".gitattributes"),  # back, untracked now: read from the work tree
        ("git", "checkout", "--", "sub/.gitattributes"),
    ]
    for step in steps:
        if step[0] == "rm":
            (tmp_path / step[1]).unlink()
        elif step[0] == "write":
            (tmp_path / step[1]).write_text(files[step[1]])
        else:
            r.git(*step[1:])
        want = _git_says(tmp_path)
        assert {(p, n): repo.attr(p, n) for p in PATHS for n in NAMES} == want, step
        assert {(p, n): GitRepo(tmp_path).attr(p, n) for p in PATHS for n in NAMES} == want, step


def test_attribute_files_a_sparse_checkout_leaves_out_are_read_from_the_index(tmp_path: Path) -> None:
    """A sparse checkout can leave a folder's .gitattributes out of the work tree while files beside
    it are checked out; git reads it from the index (its entry is marked skip-worktree)."""
    r = Repo(tmp_path)
    r.commit({**{p: "x\n" for p in PATHS}, "sub/.gitattributes": "*.txt -whitespace binary\n*.md eol=crlf\n"})
    r.git("sparse-checkout", "set", "--no-cone", "/a.txt", "/b.py", "/sub/c.txt", "/sub/d.md")
    assert not (tmp_path / "sub" / ".gitattributes").exists() and (tmp_path / "sub" / "c.txt").exists()
    want = _git_says(tmp_path)
    assert want[("sub/c.txt", "whitespace")] is False  # what the test is about: git read the index's copy
    assert {(p, n): GitRepo(tmp_path).attr(p, n) for p in PATHS for n in NAMES} == want


def test_configuration_answers_follow_the_files_between_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = Repo(tmp_path)
    r.commit({"a.txt": "a\n"})
    included = tmp_path / "extra.cfg"
    r.git("config", "include.path", str(included))
    steps = [
        lambda: None,
        lambda: included.write_text('[diff "conv"]\n\ttextconv = a\n'),  # an include target that appears
        lambda: included.write_text('[diff "conv"]\n\ttextconv = b\n'),  # the same size, another value
        lambda: r.git("config", "core.autocrlf", "input"),
        lambda: monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.eol'='crlf'"),  # `git -c core.eol=crlf`
        lambda: monkeypatch.delenv("GIT_CONFIG_PARAMETERS"),
        lambda: included.unlink(),
    ]
    textconv = {"diff.conv.textconv": "b"}
    expected = [
        {},
        {"diff.conv.textconv": "a"},
        textconv,
        {**textconv, "core.autocrlf": "input"},
        {**textconv, "core.autocrlf": "input", "core.eol": "crlf"},
        {**textconv, "core.autocrlf": "input"},
        {"core.autocrlf": "input"},
    ]

    def age() -> None:  # old enough to be kept (git's racy rule keeps nothing that changed this instant)
        for f in (tmp_path / ".git" / "config", tmp_path / ".git" / "HEAD", included):
            if f.exists():
                os.utime(f, ns=(PAST, PAST))

    session = GitRepo(tmp_path)  # one handle over every step, as a session keeps it
    watched = ("diff.conv.textconv", "core.autocrlf", "core.eol")
    for i, step in enumerate(steps):
        step()
        for aged in (False, True):
            if aged:
                age()
            got = session.config_entries()
            fresh = config._from_git(tmp_path.resolve())
            assert got == session.config_entries() == GitRepo(tmp_path).config_entries() == fresh, (i, aged)  # kept = fresh
            assert {e.key: e.value for e in got if e.key in watched} == expected[i], (i, aged)
        assert session.config("core.autocrlf") == expected[i].get("core.autocrlf"), i  # libgit2's reading too
    assert not (tmp_path / ".git" / "agent-guard" / "config.json").exists()  # nothing kept for the next command


def test_a_configuration_file_an_older_version_kept_is_left_alone(tmp_path: Path) -> None:
    """`.git/agent-guard/config.json` (where an older agent-guard kept git's answer) is neither
    read nor written: not even a named pipe there is opened."""
    r = Repo(tmp_path)
    r.commit({"a.txt": "a\n"})
    r.git("config", "core.autocrlf", "input")
    kept = tmp_path / ".git" / "agent-guard" / "config.json"
    kept.parent.mkdir(parents=True, exist_ok=True)
    stale = b'{"signature": {}, "depends": [], "entries": [["core.autocrlf", "false", null, "local"]]}'
    kept.write_bytes(stale)
    os.utime(kept, ns=(PAST, PAST))
    got = GitRepo(tmp_path).config_entries()
    assert ("core.autocrlf", "input") in {(e.key, e.value) for e in got}
    assert kept.read_bytes() == stale and kept.stat().st_mtime_ns == PAST
    kept.unlink()
    os.mkfifo(kept)
    with alarm(20, "reading the configuration waited on a named pipe"):
        assert GitRepo(tmp_path).config_entries() == got


def test_attribute_answers_as_of_a_commit_are_gits_there(tmp_path: Path) -> None:
    """``attr_at`` and ``attributes_at`` answer as `git check-attr` does in a checkout of that commit,
    whatever the work tree and the index hold now."""
    (tmp_path / "repo").mkdir()
    r = Repo(tmp_path / "repo")
    commits = []
    for attrs in ("*.txt text eol=crlf\n", "*.txt -text\n*.md binary\n", "sub/* whitespace=-trailing-space\n"):
        commits.append(r.commit({**{p: "x\n" for p in PATHS}, ".gitattributes": attrs}))
    r.write({".gitattributes": "* binary\n"})  # what the work tree says now must not count
    r.git("add", ".gitattributes")
    repo = GitRepo(r.root)
    for i, commit in enumerate(commits):
        there = tmp_path / f"at{i}"
        r.git("worktree", "add", "-q", "--detach", str(there), commit)
        want = _git_says(there)
        for _ in range(2):  # and a second time, from the same handle
            assert {(p, n): repo.attr_at(commit, p, n) for p in PATHS for n in NAMES} == want, i
        held = repo.attributes_at(commit)  # as a commit check holds them for one call
        assert {(p, n): held(p, n) for p in PATHS for n in NAMES} == want, i
