"""A long-lived session reads the policy as a fresh one would (issue 38 §2).

The MCP server, `guard.session()` and any API user keep one ``Guard`` for many calls.  Each call
must be judged by the policy the files say now: the repository's file, and every file its
`extends:` chain (or `--policy`) names, inside the tree or outside it, whatever the edit's size
or the clock's tick.  Each test holds a long-lived session to what a fresh ``Guard`` answers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import Repo

OPEN = "paths:\n  protected_extra: [none.py]\n"
SHUT = "paths:\n  protected_extra: [keys.py]\n"  # the same size as OPEN: only the content tells them apart


@pytest.fixture(params=["racy window", "no racy window"], autouse=True)
def _window(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test twice: with git's racy window (a file just written is never kept, so every call
    reads it), and without one, so each answer is kept and only its files' stamps tell a change."""
    if request.param == "no racy window":
        monkeypatch.setattr("guard.fs.kept.RACY_NS", 0)


def _write(repo: Repo, n: int) -> str:
    return json.dumps({"file_path": "keys.py", "content": f"K = {n}\n"})


def _same(a: object, b: object) -> None:
    assert (a.status, [f.code for f in a.findings]) == (b.status, [f.code for f in b.findings])  # type: ignore[attr-defined]


@pytest.mark.parametrize("where", ["in the tree", "outside the tree", "--policy"])
def test_an_extends_file_edited_mid_session_is_read_again(repo: Repo, tmp_path: Path, where: str) -> None:
    from guard.pipeline.engine import Guard

    team = (repo.root / "team.yaml") if where == "in the tree" else (tmp_path / "team.yaml")
    team.write_text(OPEN)
    files = {"keys.py": "K = 0\n"}
    spec = None
    if where == "--policy":
        spec = str(team)
    else:
        files[".agent-guard.yaml"] = f"extends: {team if where == 'outside the tree' else './team.yaml'}\n"
    if where == "in the tree":
        files["team.yaml"] = OPEN
    repo.commit(files)
    session = Guard(repo.root, spec)
    assert session.apply(_write(repo, 1)).status == "applied"
    # The user protects keys.py in the extended file, keeping its size and its modification time.
    stat = team.stat()
    assert len(SHUT) == len(OPEN)
    team.write_text(SHUT)
    os.utime(team, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    later = session.apply(_write(repo, 2))
    _same(later, Guard(repo.root, spec).apply(_write(repo, 2), check=True))
    assert later.status == "refused" and later.findings[0].code == "path-protected", later
    # And back: the next call sees the file opened again.
    team.write_text(OPEN)
    assert session.apply(_write(repo, 3)).status == "applied"


def test_a_policy_file_that_appears_mid_session_is_read(repo: Repo) -> None:
    from guard.pipeline.engine import Guard

    repo.commit({"keys.py": "K = 0\n"})
    session = Guard(repo.root)
    assert session.apply(_write(repo, 1)).status == "applied"
    (repo.root / ".agent-guard.yaml").write_text(SHUT)
    assert session.apply(_write(repo, 2)).status == "refused"
    (repo.root / ".agent-guard.yaml").unlink()
    assert session.apply(_write(repo, 3)).status == "applied"


def test_a_link_pointed_at_another_file_mid_session_is_followed(repo: Repo, tmp_path: Path) -> None:
    """`extends:` through a symbolic link: the link pointed at another file, of the same size and
    modification time, is a change of policy."""
    from guard.pipeline.engine import Guard

    opened, shut = tmp_path / "open.yaml", tmp_path / "shut.yaml"
    opened.write_text(OPEN)
    shut.write_text(SHUT)
    stat = opened.stat()
    os.utime(shut, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    link = tmp_path / "team.yaml"
    link.symlink_to(opened)
    repo.commit({"keys.py": "K = 0\n", ".agent-guard.yaml": f"extends: {link}\n"})
    session = Guard(repo.root)
    assert session.apply(_write(repo, 1)).status == "applied"
    link.unlink()
    link.symlink_to(shut)
    assert session.apply(_write(repo, 2)).status == "refused"
