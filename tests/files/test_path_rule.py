"""One rule for relative paths (docs/usage.md, "Paths follow git's rule"): from the current folder, as for `git add`.

Paths an agent names itself start from the current folder in every dialect and command;
`diff --git` patches name files from the top of the repository, and other diffs from the
current folder unless they already start with its path, exactly as `git apply` reads them.
The MCP server has no current folder: there every path starts from the top.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from conftest import Repo, git

TOP, SUB = "top = 1\n", "sub = 1\n"


@pytest.fixture
def twin(repo: Repo) -> Repo:
    """app.py at the top and in src/, with different content: a wrong folder shows at once."""
    repo.commit({"app.py": TOP, "src/app.py": SUB, "src/util.py": "u = 1\n"})
    return repo


def changed(repo: Repo | Path) -> dict[str, bytes]:
    """The files of the work tree that differ from HEAD, with their content."""
    root = repo.root if isinstance(repo, Repo) else repo
    names = git(root, "diff", "--name-only").split() + git(root, "ls-files", "--others", "--exclude-standard").split()
    return {n: (root / n).read_bytes() for n in sorted(names)}


EDITS = {
    "json": json.dumps({"file_path": "app.py", "old_string": "sub = 1", "new_string": "sub = 2"}),
    "json, several": json.dumps([{"file_path": "app.py", "old_string": "sub = 1", "new_string": "sub = 2"}]),
    "codex": "*** Begin Patch\n*** Update File: app.py\n@@\n-sub = 1\n+sub = 2\n*** End Patch\n",
    "search-replace": "app.py\n<<<<<<< SEARCH\nsub = 1\n=======\nsub = 2\n>>>>>>> REPLACE\n",
    "whole": "app.py\n```python\nsub = 2\n```\n",
    "plain diff, a/ b/": "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-sub = 1\n+sub = 2\n",
    "plain diff, no prefix": "--- app.py\n+++ app.py\n@@ -1 +1 @@\n-sub = 1\n+sub = 2\n",
    "plain diff naming the folder": "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-sub = 1\n+sub = 2\n",
    "git diff of src/app.py": "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
    "@@ -1 +1 @@\n-sub = 1\n+sub = 2\n",
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_from_a_subfolder_every_dialect_names_the_same_file(twin: Repo, cli, name: str) -> None:  # type: ignore[no-untyped-def]
    r = cli("apply", "--json", input=EDITS[name], cwd=twin.root / "src")
    assert r.code == 0, r
    assert changed(twin) == {"src/app.py": b"sub = 2\n"}, name
    assert [f["path"] for f in r.json()["files"]] == ["src/app.py"]  # reports name files from the top


def test_a_git_diff_names_files_from_the_top(twin: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    diff = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-top = 1\n+top = 2\n"
    assert cli("apply", input=diff, cwd=twin.root / "src").code == 0
    assert changed(twin) == {"app.py": b"top = 2\n"}


@pytest.mark.parametrize(
    "name", ["plain diff, a/ b/", "plain diff, no prefix", "plain diff naming the folder", "git diff of src/app.py"]
)
def test_diffs_land_where_git_apply_puts_them(twin: Repo, cli, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "copy"
    shutil.copytree(twin.root, copy, symlinks=True)
    patch = tmp_path / "p.diff"
    patch.write_text(EDITS[name])
    git(copy / "src", "apply", str(patch))
    assert cli("apply", str(patch), cwd=twin.root / "src").code == 0
    assert changed(twin) == changed(copy) == {"src/app.py": b"sub = 2\n"}


def test_whole_file_path_option_and_dot_dot(twin: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("apply", "--format", "whole", "--path", "app.py", input="sub = 3\n", cwd=twin.root / "src").code == 0
    up = json.dumps({"file_path": "../app.py", "old_string": "top = 1", "new_string": "top = 3"})
    assert cli("apply", input=up, cwd=twin.root / "src").code == 0
    absolute = json.dumps({"file_path": str(twin.root / "src" / "util.py"), "old_string": "u = 1", "new_string": "u = 3"})
    assert cli("apply", input=absolute, cwd=twin.root / "src").code == 0
    assert changed(twin) == {"app.py": b"top = 3\n", "src/app.py": b"sub = 3\n", "src/util.py": b"u = 3\n"}


def test_read_then_hashline_edit_from_a_subfolder(twin: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("read", "app.py", cwd=twin.root / "src")
    header = r.stdout.splitlines()[0]
    assert header.startswith("[app.py#") and r.stdout.splitlines()[1] == "1:sub = 1", r
    r = cli("apply", input=f"{header}\nreplace 1..1\n+sub = 4\n", cwd=twin.root / "src")
    assert r.code == 0, r
    assert changed(twin) == {"src/app.py": b"sub = 4\n"}
    r = cli("read", "../app.py", cwd=twin.root / "src")
    assert r.stdout.startswith("[../app.py#") and "1:top = 1" in r.stdout, r


def test_missing_file_hint_says_where_paths_start(twin: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    before = twin.snapshot()
    r = cli(
        "apply", "--json", input=json.dumps({"file_path": "nope.py", "old_string": "a", "new_string": "b"}), cwd=twin.root / "src"
    )
    [f] = r.json()["findings"]
    assert (f["code"], f["path"]) == ("missing", "src/nope.py")
    assert "relative paths start from the current folder, src/, as for git" in f["hint"], f
    diff = "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"
    [f] = cli("apply", "--json", input=diff, cwd=twin.root / "src").json()["findings"]
    assert f["path"] == "nope.py" and "a git diff names files from the top of the repository" in f["hint"], f
    assert twin.snapshot() == before


@pytest.fixture
def inside(twin: Repo) -> Iterator[Path]:
    old = os.getcwd()
    os.chdir(twin.root / "src")
    try:
        yield twin.root / "src"
    finally:
        os.chdir(old)


def test_python_api_starts_from_the_current_folder_inside_the_repository(twin: Repo, inside: Path, tmp_path: Path) -> None:
    import guard

    edit = json.dumps({"file_path": "app.py", "old_string": "sub = 1", "new_string": "sub = 5"})
    assert guard.apply(edit, repo=twin.root).status == "applied"
    assert guard.read("app.py", repo=twin.root).startswith("[app.py#")
    assert changed(twin) == {"src/app.py": b"sub = 5\n"}
    # From a folder outside the repository, paths start from its top.
    os.chdir(tmp_path)
    edit = json.dumps({"file_path": "app.py", "old_string": "top = 1", "new_string": "top = 5"})
    assert guard.apply(edit, repo=twin.root / "src").status == "applied"
    assert guard.read("src/app.py", repo=twin.root).startswith("[src/app.py#")
    assert changed(twin) == {"app.py": b"top = 5\n", "src/app.py": b"sub = 5\n"}


def test_mcp_paths_start_from_the_top_wherever_the_server_runs(twin: Repo, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from adapters.test_mcp_server import over_stdio, tool

    seen: dict[str, object] = {}

    async def scenario(s):  # type: ignore[no-untyped-def]
        seen["read"] = await tool(s, "read_file", path="app.py")
        seen["edit"] = await tool(s, "edit_file", path="app.py", edits=[{"old_string": "top = 1", "new_string": "top = 6"}])
        await tool(s, "read_file", path="src/app.py")
        seen["patch"] = await tool(s, "apply_patch", patch=EDITS["codex"].replace("app.py", "src/app.py"))

    over_stdio(twin.root / "src", tmp_path / "server.log", scenario)  # started in src/
    assert str(seen["read"][1]).startswith("[app.py#") and "1:top = 1" in str(seen["read"][1])  # type: ignore[index]
    assert not seen["edit"][0] and not seen["patch"][0], seen  # type: ignore[index]
    assert changed(twin) == {"app.py": b"top = 6\n", "src/app.py": b"sub = 2\n"}


def test_run_inside_the_git_folder_starts_from_the_top(twin: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    edit = json.dumps({"file_path": "app.py", "old_string": "top = 1", "new_string": "top = 7"})
    assert cli("apply", input=edit, cwd=twin.root / ".git" / "refs").code == 0
    assert changed(twin) == {"app.py": b"top = 7\n"}


def test_git_agent_read_through_git_from_a_subfolder(twin: Repo) -> None:
    exe = Path(sys.executable).with_name("git-agent-read")
    if not exe.exists():
        pytest.fail(f"{exe} is missing: pip install -e '.[test]' in this checkout")
    from conftest import checkout_env

    env = checkout_env({"PATH": f"{exe.parent}{os.pathsep}{os.environ.get('PATH', '')}"})
    r = subprocess.run(
        ["git", "agent-read", "app.py"], cwd=twin.root / "src", env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and r.stdout.startswith("[app.py#") and "1:sub = 1" in r.stdout, r


def test_cli_hints_name_paths_from_the_current_folder(twin: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    twin.commit({"src/long.py": "".join(f"x{i} = {i}\n" for i in range(1, 11))})
    src = twin.root / "src"
    header = cli("read", "long.py", "--lines", "1:2", "--agent", "bot", cwd=src).stdout.splitlines()[0]
    r = cli("apply", "--json", "--agent", "bot", input=f"{header}\nreplace 6..6\n+x6 = 60\n", cwd=src)
    [f] = r.json()["findings"]
    assert f["path"] == "src/long.py" and "git agent-read --agent bot long.py --lines 6:6" in f["hint"], f
    r = cli("read", "long.py", "--lines", "20:30", cwd=src)
    assert r.code == 1 and "git agent-read long.py --lines 1:10" in r.stdout, r
