"""`agent-guard uninstall`: what agent-guard keeps for a repository, listed, then taken away."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import Repo, git

EDIT = json.dumps({"file_path": "a.txt", "old_string": "one", "new_string": "ONE"})


def _used(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """A repository agent-guard was used in: turns of two agents, a read, the hook, a linked worktree."""
    repo.commit({"a.txt": "one\n", ".agent-guard.yaml": "extends: default\n"})
    cli("apply", "--agent", "claude", input=EDIT)
    cli("read", "a.txt", "--agent", "codex")
    cli("install-hook")
    git(repo.root, "worktree", "add", "-q", str(repo.root.parent / "linked"))
    cli("log", cwd=repo.root.parent / "linked")


def _traces(repo: Repo) -> list[str]:
    gitdir = repo.root / ".git"
    out = [line for line in git(repo.root, "for-each-ref", "--format=%(refname)").splitlines() if "agent-guard" in line]
    out += [str(p.relative_to(gitdir)) for p in gitdir.rglob("*") if "agent-guard" in p.name]
    return sorted(out)


def test_uninstall_lists_then_removes_everything_it_keeps(repo: Repo, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _used(repo, cli)
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "agent-guard"
    (cache / "policies").mkdir(parents=True)  # what an earlier version kept there (parsed policies)
    assert _traces(repo)
    listed = cli("uninstall", "--cache")
    assert listed.code == 0, listed
    said = listed.stdout
    assert "would remove the shadow ref refs/agent-guard/claude" in said
    assert f"would remove the folder {repo.root / '.git' / 'agent-guard'}" in said
    assert "would remove agent-guard's pre-commit hook" in said and f"would remove the user's cache {cache}" in said
    assert "left as they are (yours to edit): .agent-guard.yaml" in said
    assert said.rstrip().endswith("nothing was removed: run again with --yes to remove them")
    before = _traces(repo)
    assert before and cache.is_dir()  # listing removed nothing
    head, index = repo.git("rev-parse", "HEAD"), (repo.root / ".git" / "index").read_bytes()
    done = cli("uninstall", "--yes", "--cache")
    assert done.code == 0 and "removed the shadow ref refs/agent-guard/claude" in done.stdout, done
    assert _traces(repo) == [] and not cache.exists(), _traces(repo)
    assert not (repo.root / ".git" / "hooks" / "pre-commit").exists()
    # Nothing of the user's: HEAD, the index, the work tree, the policy file.
    assert repo.git("rev-parse", "HEAD") == head and (repo.root / ".git" / "index").read_bytes() == index
    assert repo.read("a.txt") == b"ONE\n" and (repo.root / ".agent-guard.yaml").exists()
    again = cli("uninstall")
    assert again.code == 0 and "agent-guard keeps nothing for this repository" in again.stdout, again


def test_uninstall_puts_back_the_hook_it_kept(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "one\n"})
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho theirs\n")
    hook.chmod(0o755)
    cli("install-hook")
    assert "agent-guard" in hook.read_text()
    assert cli("uninstall", "--yes").code == 0
    assert hook.read_text() == "#!/bin/sh\necho theirs\n"
