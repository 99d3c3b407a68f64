"""A range is judged by a policy from outside it: no commit of the range relaxes the check of the
commits after it, and a commit that changes the policy is reported (issue 23, section 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, git, run_cli

CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
LAZY = "def total(items):\n    # ... rest of the code unchanged\n    return result\n"
RELAXATIONS = {
    "extends-permissive": {".agent-guard.yaml": "extends: permissive\n"},
    "placeholder-off": {".agent-guard.yaml": "checks: {placeholder: off}\n"},
    "placeholder-warning": {".agent-guard.yaml": "checks:\n  placeholder: warning\n"},
    "exempt-everything": {".agent-guard.yaml": "placeholder:\n  exempt: ['.*']\n"},
}


def findings(result: Any) -> list[tuple[str, str, str | None, str | None]]:
    return [(f["code"], f["severity"], f["path"], f["commit"]) for f in result.json()["findings"]]


def _relaxed_then_lazy(repo: Repo, relax: dict[str, str] | None, base_policy: str | None = None) -> tuple[str, str, str]:
    """base (with `base_policy`), a commit that relaxes the policy (`relax`; None: deletes it), a lazy commit."""
    base = repo.commit({"app.py": CODE, **({".agent-guard.yaml": base_policy} if base_policy else {})}, message="base")
    if relax is None:
        repo.git("rm", "-q", ".agent-guard.yaml")
        repo.git("commit", "-q", "-m", "relax")
        relaxing = repo.git("rev-parse", "HEAD").strip()
    else:
        relaxing = repo.commit(relax, message="relax")
    lazy = repo.commit({"app.py": LAZY}, message="lazy")
    return base, relaxing, lazy


@pytest.mark.parametrize("name", sorted(RELAXATIONS))
def test_a_commit_cannot_relax_the_check_of_later_commits(repo: Repo, cli, name: str) -> None:
    base, relaxing, lazy = _relaxed_then_lazy(repo, RELAXATIONS[name])
    before = repo.snapshot()
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1, result
    found = findings(result)
    assert ("placeholder", "error", "app.py", lazy) in found
    [change] = [f for f in result.json()["findings"] if f["commit"] == relaxing]
    assert (change["code"], change["severity"], change["path"]) == ("path-protected", "warning", ".agent-guard.yaml")
    assert "which relaxes the policy" in change["message"], change
    assert f"by the preset default ({base} holds no .agent-guard.yaml)" in change["message"]
    assert result.json()["check"]["policy"] == f"the preset default ({base} holds no .agent-guard.yaml)"
    assert repo.snapshot() == before


def test_deleting_the_policy_does_not_relax_the_range(repo: Repo, cli) -> None:
    base, relaxing, lazy = _relaxed_then_lazy(repo, None, base_policy="extends: strict\n")
    repo.commit({"app.py": CODE + "x = 1  \n"}, message="blank at end of line")  # an error under strict only
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1
    codes = {(c, s) for c, s, _p, _m in findings(result)}
    assert ("whitespace", "error") in codes and ("placeholder", "error") in codes
    [change] = [f for f in result.json()["findings"] if f["commit"] == relaxing]
    assert "deletes .agent-guard.yaml (the preset default applies without it), which relaxes the policy" in change["message"]
    assert f"by the policy committed at {base}" in change["message"]


def test_the_work_trees_policy_is_not_read_for_a_range(repo: Repo, cli) -> None:
    # CI checks out the tip: its .agent-guard.yaml is the range's own; an uncommitted one is nobody's.
    base, _relaxing, lazy = _relaxed_then_lazy(repo, RELAXATIONS["extends-permissive"], base_policy="extends: default\n")
    (repo.root / ".agent-guard.yaml").write_text("checks: {placeholder: off}\n")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and ("placeholder", "error", "app.py", lazy) in findings(result), result
    # The staged check still reads the work tree's policy: it is the user's own, not a commit's.
    repo.write({"app.py": LAZY.replace("return result", "return 0")})
    repo.git("add", "app.py")
    assert cli("check").code == 0


def test_a_pinned_policy_makes_the_change_informational(repo: Repo, cli) -> None:
    base, relaxing, lazy = _relaxed_then_lazy(repo, RELAXATIONS["placeholder-off"])
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--policy", "strict", "--json")
    assert result.code == 1 and ("placeholder", "error", "app.py", lazy) in findings(result)
    [change] = [f for f in result.json()["findings"] if f["commit"] == relaxing]
    assert change["severity"] == "warning" and "by --policy strict, which the change does not touch" in change["message"]


def test_a_policy_file_inside_the_work_tree_named_by_policy_is_flagged(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": CODE, "ci/policy.yaml": "extends: strict\n"}, message="base")
    relaxing = repo.commit({"ci/policy.yaml": "extends: permissive\n"}, message="relax")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--policy", "ci/policy.yaml", "--json")
    [change] = [f for f in result.json()["findings"] if f["commit"] == relaxing]
    assert change["path"] == "ci/policy.yaml" and "from the work tree (--policy ci/policy.yaml)" in change["message"]
    assert "name a preset or a file outside the repository" in change["message"]


def test_an_extended_file_is_read_from_the_base_commit(repo: Repo, cli, tmp_path: Path) -> None:
    base = repo.commit(
        {
            "app.py": CODE,
            ".agent-guard.yaml": "extends: ./team/policy.yaml\n",
            "team/policy.yaml": "extends: default\nchecks:\n  whitespace: error\n",
        },
        message="base",
    )
    relaxing = repo.commit({"team/policy.yaml": "extends: permissive\n"}, message="relax the team's")
    spaced = repo.commit({"app.py": CODE + "x = 1  \n"}, message="blank at end of line")
    for where in (repo.root, _bare(repo, tmp_path)):
        result = run_cli(where, "check", "--from-ref", base, "--to-ref", "main", "--json")
        assert result.code == 1, result
        assert ("whitespace", "error", "app.py", spaced) in findings(result)
        [change] = [f for f in result.json()["findings"] if f["commit"] == relaxing]
        assert change["path"] == "team/policy.yaml" and "which relaxes the policy" in change["message"]


@pytest.mark.parametrize(
    "extends, said",
    [
        ("../outside.yaml", "extends '../outside.yaml', which is outside the repository"),
        ("/etc/agent-guard.yaml", "extends '/etc/agent-guard.yaml', which is outside the repository"),
        ("./team/../../x.yaml", "which is outside the repository"),
        ("./missing.yaml", "extends './missing.yaml', but missing.yaml is not a file in"),
        ("./folder", "but folder is not a file in"),
        ("./link.yaml", "but link.yaml is not a file in"),
    ],
)
def test_what_a_commit_cannot_resolve_is_refused(repo: Repo, cli, tmp_path: Path, extends: str, said: str) -> None:
    (repo.root / "folder").mkdir()
    (repo.root / "folder" / "x").write_text("x\n")
    (repo.root / "link.yaml").symlink_to("/etc/passwd")
    (tmp_path / "outside.yaml").write_text("extends: permissive\n")
    base = repo.commit({".agent-guard.yaml": f"extends: {extends}\n"}, message="base")
    repo.commit({"app.py": CODE})
    before = repo.snapshot()
    for where in (repo.root, _bare(repo, tmp_path)):
        result = run_cli(where, "check", "--from-ref", base, "--to-ref", "main")
        assert result.code == 2, result
        assert f"policy: {base}:.agent-guard.yaml: " in result.stderr and said in result.stderr, result
        assert "--policy" in result.stderr or "commit it" in result.stderr
    assert repo.snapshot() == before


def test_a_bare_repository_reads_the_policy_of_the_base(repo: Repo, tmp_path: Path) -> None:
    base, relaxing, lazy = _relaxed_then_lazy(repo, RELAXATIONS["extends-permissive"], base_policy="extends: strict\n")
    server = _bare(repo, tmp_path)
    result = run_cli(server, "check", "--from-ref", base, "--to-ref", "main", "--json")
    assert result.code == 1 and ("placeholder", "error", "app.py", lazy) in findings(result), result
    assert ("path-protected", "warning", ".agent-guard.yaml", relaxing) in findings(result)


def test_a_range_with_no_base_uses_the_preset_default(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "extends: permissive\n"}, message="root")
    repo.commit({"app.py": LAZY}, message="lazy")
    result = cli("check", "--from-ref", "0" * 40, "--to-ref", "HEAD", "--json")
    assert result.code == 1 and ("placeholder", "error", "app.py") in [f[:3] for f in findings(result)], result
    assert result.json()["check"]["policy"].startswith("the preset default (the range has no base commit")


def test_a_change_that_leaves_the_settings_alone_is_still_reported(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": CODE, ".agent-guard.yaml": "extends: default\n"}, message="base")
    same = repo.commit({".agent-guard.yaml": "# the team's policy\nextends: default\n"}, message="comment")
    tighter = repo.commit({".agent-guard.yaml": "checks:\n  whitespace: error\n"}, message="tighten")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 0, result
    messages = {f["commit"]: f["message"] for f in result.json()["findings"]}
    assert "changes it, with no setting changed" in messages[same]
    assert "changes it: checks.whitespace fix -> error" in messages[tighter] and "relaxes" not in messages[tighter]


def _bare(repo: Repo, tmp_path: Path) -> Path:
    server = tmp_path / f"server{len(list(tmp_path.glob('server*')))}.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(server))
    return server
