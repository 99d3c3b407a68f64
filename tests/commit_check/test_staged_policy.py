"""The staged check reads the policy as the commit will hold it: from the index, never the work tree.

An unstaged `placeholder: off` (in `.agent-guard.yaml`, in pyproject.toml's table, in a
file `extends:` names) is not what the commit records, so it must not let a staged
elision through; a policy staged as deleted is gone for the commit; an `extends:` target
the index does not hold is a policy the commit cannot be read by.  Checked in-process,
through the plain git hook (which judges the index git prepared, `git commit PATH` a
temporary one), and under the real pre-commit framework, which stashes unstaged changes
itself but leaves untracked files where they are.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Repo, checkout_env, command

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


def test_a_staged_pyproject_table_is_the_policy(repo: Repo, cli) -> None:
    # The table the index holds counts, as the commit will record it (with a warning on the change).
    repo.commit({"app.py": CODE, "pyproject.toml": '[project]\nname = "app"\n'})
    repo.write({"pyproject.toml": '[project]\nname = "app"\n\n[tool.agent-guard]\nchecks = {placeholder = "warning"}\n'})
    repo.git("add", "pyproject.toml")
    _stage_elision(repo)
    repo.write({"pyproject.toml": '[project]\nname = "app"\n'})  # the work tree's has none
    result = cli("check", "--json")
    assert result.code == 0, result
    assert [(f["code"], f["severity"]) for f in result.json()["findings"]] == [
        ("placeholder", "warning"),
        ("path-protected", "warning"),
    ]


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


def test_a_policy_staged_as_deleted_is_gone_for_the_commit(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": OFF})
    repo.git("rm", "-q", "--cached", ".agent-guard.yaml")  # still in the work tree
    _stage_elision(repo)
    result = cli("check", "--json")
    assert result.code == 1, result
    assert _placeholders(result) == [("placeholder", "app.py", 2)]


def test_a_staged_policy_change_is_what_the_commit_holds(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": ERROR})
    repo.write({".agent-guard.yaml": "checks:\n  placeholder: warning\n"})
    repo.git("add", ".agent-guard.yaml")
    _stage_elision(repo)
    repo.write({".agent-guard.yaml": ERROR})  # unstaged: not what is committed
    result = cli("check", "--json")
    assert result.code == 0, result
    found = [(f["code"], f["severity"], f["path"]) for f in result.json()["findings"]]
    assert ("placeholder", "warning", "app.py") in found
    assert ("path-protected", "warning", ".agent-guard.yaml") in found


def test_a_linked_policy_is_the_file_the_index_links_to(repo: Repo, cli, tmp_path: Path) -> None:
    repo.write({"config/guard.yaml": "checks:\n  placeholder: warning\n"})
    os.symlink("config/guard.yaml", repo.root / ".agent-guard.yaml")
    repo.commit({"app.py": CODE})
    _stage_elision(repo)
    repo.write({"config/guard.yaml": OFF})  # unstaged: the link leads to the staged text
    result = cli("check", "--json")
    assert result.code == 0, result
    assert [(f["code"], f["severity"]) for f in result.json()["findings"]] == [("placeholder", "warning")]
    # A link out of the repository leads to nothing the commit holds: say so, never guess.
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


def test_the_git_hook_judges_by_the_index_policy(repo: Repo, cli) -> None:
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
    # `git commit -a` records the relaxed policy with the elision: the commit holds `off`.
    relaxed = _commit(repo, "-a", "-m", "relax and elide")
    assert relaxed.returncode == 0, relaxed
    assert repo.git("show", "HEAD:.agent-guard.yaml") == OFF


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
