"""The staged check is judged by the policy committed before the change: never the work tree's,
never one the change itself brings.

An unstaged `placeholder: off` (in `.agent-guard.yaml`, in pyproject.toml's table, in a file
`extends:` names) is not what the commit records, so it must not let a staged elision through;
nor may a staged one: a commit cannot relax its own check (an agent's `git add` of a relaxed
policy, or `git commit -a` over both).  What the staged change does to the policy is read from
the index and reported; a staged policy that cannot be loaded is a usage error.  Checked
in-process, through the plain git hook (which judges the index git prepared, `git commit PATH`
a temporary one), and under the real pre-commit framework, which stashes unstaged changes
itself but leaves untracked files where they are.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, command, git

CODE = (
    "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n\n\n"
    "def other():\n    return 1\n"
)
ELIDED = "def total(items):\n    # ... rest of the code unchanged\n\n\ndef other():\n    return 1\n"
OFF = "checks:\n  placeholder: off\n"
ERROR = "checks:\n  placeholder: error\n"


@pytest.fixture(autouse=True)
def no_pre_commit_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "PRE_COMMIT"):
        monkeypatch.delenv(key, raising=False)


def _stage_elision(repo: Repo) -> None:
    repo.write({"app.py": ELIDED})
    repo.git("add", "app.py")


def _placeholders(result) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    return [(f["code"], f["path"], f["line"]) for f in result.json()["findings"] if f["code"] == "placeholder"]


# --- in-process ---------------------------------------------------------------------------
def test_an_unstaged_policy_file_does_not_relax_the_staged_check(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    _stage_elision(repo)
    repo.write({".agent-guard.yaml": OFF})  # in the work tree only
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]


def test_an_untracked_policy_file_is_not_the_commits(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    _stage_elision(repo)
    repo.write({".agent-guard.yaml": OFF})  # never added: the commit holds no policy
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]


def test_an_unstaged_pyproject_table_does_not_relax_the_staged_check(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, "pyproject.toml": '[project]\nname = "app"\n'})
    _stage_elision(repo)
    repo.write({"pyproject.toml": '[project]\nname = "app"\n\n[tool.agent-guard]\nchecks = {placeholder = "off"}\n'})
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]


def test_a_staged_pyproject_table_does_not_judge_its_own_commit(repo: Repo, cli) -> None:
    # The table the index holds is reported, and judges the commits after this one.
    repo.commit({"app.py": CODE, "pyproject.toml": '[project]\nname = "app"\n'})
    repo.write({"pyproject.toml": '[project]\nname = "app"\n\n[tool.agent-guard]\nchecks = {placeholder = "warning"}\n'})
    repo.git("add", "pyproject.toml")
    _stage_elision(repo)
    repo.write({"pyproject.toml": '[project]\nname = "app"\n'})  # the work tree's has none
    result = cli("check", "--json")
    assert result.code == 1, result
    found = [(f["code"], f["severity"], f["path"]) for f in result.json()["findings"]]
    assert ("placeholder", "error", "app.py") in found and ("path-protected", "warning", "pyproject.toml") in found
    assert "relaxes the policy: checks.placeholder error -> warning" in result.stdout


def test_a_pyproject_change_that_is_no_policy_is_not_reported(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, "pyproject.toml": '[project]\nname = "app"\n'})
    repo.write({"pyproject.toml": '[project]\nname = "app"\nversion = "2"\n'})
    repo.git("add", "pyproject.toml")
    result = cli("check", "--json")
    assert result.code == 0 and result.json()["findings"] == [], result


def test_an_unstaged_extends_target_does_not_relax_the_staged_check(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "extends: ./team.yaml\n", "team.yaml": ERROR})
    _stage_elision(repo)
    repo.write({"team.yaml": OFF})
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]


def test_an_extends_target_the_index_lacks_is_a_usage_error(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({".agent-guard.yaml": "extends: ./local.yaml\n", "local.yaml": OFF})
    repo.git("add", ".agent-guard.yaml")  # local.yaml stays untracked
    _stage_elision(repo)
    result = cli("check")
    assert result.code == 2, result
    assert "local.yaml is not a file in the index" in result.stderr, result


def test_a_policy_staged_as_deleted_is_reported_and_judges_its_commit(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    repo.git("rm", "-q", "--cached", ".agent-guard.yaml")  # still in the work tree
    _stage_elision(repo)
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]
    assert "deletes .agent-guard.yaml" in result.stdout


@pytest.mark.parametrize("how", ["git add", "update-index"])
def test_a_staged_policy_change_cannot_relax_its_own_commit(repo: Repo, cli, how: str) -> None:
    """The agent stages `placeholder: off` beside an elision, with the work tree's policy as it was."""
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    if how == "git add":
        repo.write({".agent-guard.yaml": OFF + "  path-protected: off\n"})
        repo.git("add", ".agent-guard.yaml")
        repo.write({".agent-guard.yaml": ERROR})  # unstaged: the work tree looks as before
    else:
        blob = git(repo.root, "hash-object", "-w", "--stdin", input=OFF.encode()).strip()
        repo.git("update-index", "--cacheinfo", f"100644,{blob},.agent-guard.yaml")
    _stage_elision(repo)
    result = cli("check", "--json")
    assert result.code == 1, result
    found = [(f["code"], f["severity"], f["path"]) for f in result.json()["findings"]]
    assert ("placeholder", "error", "app.py") in found
    assert ("path-protected", "warning", ".agent-guard.yaml") in found
    assert "relaxes the policy: checks." in result.stdout and "a commit cannot relax its own check" in result.stdout


def test_a_committed_policy_change_judges_the_next_commit(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    repo.commit({".agent-guard.yaml": "checks:\n  placeholder: warning\n"}, message="relax, reviewed")
    _stage_elision(repo)
    result = cli("check", "--json")
    assert result.code == 0, result
    assert [(f["code"], f["severity"]) for f in result.json()["findings"]] == [("placeholder", "warning")]


def test_a_linked_policy_is_the_file_the_commit_links_to(repo: Repo, cli, tmp_path: Path) -> None:
    repo.write({"config/guard.yaml": "checks:\n  placeholder: warning\n"})
    os.symlink("config/guard.yaml", repo.root / ".agent-guard.yaml")
    repo.commit({"app.py": CODE})
    _stage_elision(repo)
    repo.write({"config/guard.yaml": OFF})  # unstaged: the link leads to the committed text
    result = cli("check", "--json")
    assert result.code == 0, result
    assert [(f["code"], f["severity"]) for f in result.json()["findings"]] == [("placeholder", "warning")]
    # A staged link out of the repository leads to nothing a commit holds: say so, never guess.
    outside = tmp_path / "relaxed.yaml"
    outside.write_text(OFF)
    (repo.root / ".agent-guard.yaml").unlink()
    os.symlink(outside, repo.root / ".agent-guard.yaml")
    repo.git("add", ".agent-guard.yaml")
    refused = cli("check")
    assert refused.code == 2 and "is a symbolic link to" in refused.stderr and "outside the repository" in refused.stderr


def test_an_unstaged_baseline_does_not_pass_a_staged_finding(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "baseline: known.json\n"})
    _stage_elision(repo)
    written = cli("check", "--all-files", "--write-baseline", "known.json")
    assert written.code == 0, written  # lists the staged elision; never added
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]


def test_policy_option_still_overrides(repo: Repo, cli, tmp_path: Path) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    _stage_elision(repo)
    outside = tmp_path / "relaxed.yaml"
    outside.write_text(OFF)
    assert cli("check", "--policy", str(outside)).code == 0


# --- the plain git hook -------------------------------------------------------------------
def _commit(repo: Repo, *args: str) -> subprocess.CompletedProcess[bytes]:
    return command(repo.root, "git", "commit", "-q", *args, timeout=300)


def test_the_git_hook_judges_by_the_committed_policy(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    assert cli("install-hook").code == 0
    start = repo.head()
    _stage_elision(repo)
    repo.write({".agent-guard.yaml": OFF})
    blocked = _commit(repo, "-m", "lazy")
    assert blocked.returncode != 0 and b"app.py:2: placeholder:" in blocked.stdout + blocked.stderr, blocked
    assert repo.head() == start
    # `git commit app.py` judges a temporary index that holds HEAD's policy and the named file.
    repo.git("reset", "-q")
    only = _commit(repo, "-m", "lazy", "app.py")
    assert only.returncode != 0 and b"app.py:2: placeholder:" in only.stdout + only.stderr, only
    assert repo.head() == start
    # `git commit -a` over the relaxed policy and the elision: a commit cannot relax its own check.
    relaxed = _commit(repo, "-a", "-m", "relax and elide")
    assert relaxed.returncode != 0 and b"app.py:2: placeholder:" in relaxed.stdout + relaxed.stderr, relaxed
    assert repo.head() == start
    # Committed on its own (and reviewed), the relaxed policy judges the next commit.
    assert _commit(repo, "-m", "relax", ".agent-guard.yaml").returncode == 0
    assert _commit(repo, "-a", "-m", "elide").returncode == 0


# --- the pre-commit framework -------------------------------------------------------------
def _pre_commit_config() -> str:
    # A local hook: the framework runs this checkout's command, with no environment to build.
    entry = f"{sys.executable} -m guard check"
    return (
        "repos:\n  - repo: local\n    hooks:\n      - id: agent-guard\n        name: agent-guard\n"
        f"        entry: {entry}\n        language: system\n        require_serial: true\n"
    )


def test_under_the_pre_commit_framework(repo: Repo, tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    env = checkout_env({"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"})
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT", "GIT_INDEX_FILE", "AGENT_GUARD_POLICY"):
        env.pop(key, None)
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR, ".pre-commit-config.yaml": _pre_commit_config()})
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo.root, env=env, capture_output=True, timeout=120
    )
    assert installed.returncode == 0, installed
    start = repo.head()

    def commit(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", "commit", "-q", *args], cwd=repo.root, env=env, capture_output=True, timeout=300)

    # The framework stashes the unstaged policy itself: refused, and the work tree is put back.
    _stage_elision(repo)
    repo.write({".agent-guard.yaml": OFF})
    blocked = commit("-m", "lazy")
    assert blocked.returncode != 0 and b"app.py:2: placeholder:" in blocked.stdout + blocked.stderr, blocked
    assert repo.head() == start and repo.read(".agent-guard.yaml") == OFF.encode()
    # An untracked file a staged policy extends is left in the work tree: the index lacks it.
    repo.write({".agent-guard.yaml": "extends: ./local.yaml\n", "local.yaml": OFF})
    repo.git("add", ".agent-guard.yaml")
    unreadable = commit("-m", "lazy, extended")
    out = unreadable.stdout + unreadable.stderr
    assert unreadable.returncode != 0 and b"local.yaml is not a file in the index" in out, unreadable
    assert repo.head() == start
    assert os.path.exists(repo.root / "local.yaml")
