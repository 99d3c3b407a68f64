"""`agent-guard run -- CMD`: what a command changed is one turn, checked, undone alone (issue 24 §3).

The command runs for real (a child process, bounded in time); the turn must hold its change
and nothing else: not the user's uncommitted work from before, not another agent's turn made
while it ran; a rollback undoes it alone, deletes only files it created, touches no other
file, and never moves a branch.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import Repo, command, run_cli

CODE = "def f(x):\n    a = 1\n    b = 2\n    return a + b + x\n"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"m.py": CODE, "notes.txt": "one\ntwo\nthree\n"})
    return repo


def run(repo: Repo, script: str, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """`agent-guard run [ARGS] -- python -c SCRIPT`, through the installed command."""
    report = repo.root.parent / "report.json"
    report.unlink(missing_ok=True)
    result = command(repo.root, "agent-guard", "run", "--report", str(report), *args, "--", sys.executable, "-c", script, env=env)
    shown = json.loads(report.read_text()) if report.exists() else None
    return result, shown


def edit(path: str, old: str, new: str) -> str:
    return (
        f"import pathlib; p = pathlib.Path({path!r}); t = p.read_text(); assert t.count({old!r}) == 1; "
        f"p.write_text(t.replace({old!r}, {new!r}))"
    )


def test_a_command_is_one_turn(project: Repo) -> None:
    result, report = run(project, edit("m.py", "a = 1", "a = 10") + "; open('made.txt', 'w').write('new\\n')", "--agent", "aider")
    assert result.returncode == 0, result
    assert report is not None and report["status"] == "applied" and report["turn"]["agent"] == "aider"
    files = {f["path"]: f["op"] for f in report["files"]}
    assert files == {"m.py": "modify", "made.txt": "create"}
    log = run_cli(project.root, "log", "--agent", "aider", "--json").json()["turns"]  # type: ignore[index]
    assert log[0]["format"] == "shell"


def test_the_commands_exit_status_is_kept(project: Repo) -> None:
    result, report = run(project, "import sys; sys.exit(7)")
    assert result.returncode == 7 and report is not None and report["files"] == []
    missing = command(project.root, "agent-guard", "run", "--", "no-such-command-x")
    assert missing.returncode == 127 and b"not found" in missing.stderr


def test_a_command_that_changed_nothing_or_was_not_found_says_so(project: Repo) -> None:
    before = project.snapshot()
    result, report = run(project, "pass")
    assert result.returncode == 0 and b"nothing changed (shell): no turn recorded" in result.stderr, result
    assert b"0 files" not in result.stderr
    assert report is not None and (report["status"], report["files"], report["turn"]) == ("applied", [], None)
    logged = (project.root / ".git" / "agent-guard" / "events.jsonl").read_bytes()
    shown = project.root.parent / "missing.json"
    missing = command(project.root, "agent-guard", "run", "--report", str(shown), "--", "no-such-command-x")
    assert missing.returncode == 127, missing
    assert missing.stderr.decode() == (
        "agent-guard run: no-such-command-x: command not found; nothing ran and no turn was recorded\n"
    )
    assert json.loads(shown.read_text())["turn"] is None
    assert project.snapshot() == before
    assert run_cli(project.root, "log", "--json").json()["turns"] == []  # type: ignore[index]
    assert (project.root / ".git" / "agent-guard" / "events.jsonl").read_bytes() == logged  # nothing was decided
    project.commit({".gitignore": ".env\n"})
    result, report = run(project, "open('.env', 'w').write('T=1\\n')")  # protected, ignored: no turn can hold it
    assert result.returncode == 1 and b"refused by the policy (shell): no turn recorded" in result.stderr, result
    assert b"0 files" not in result.stderr and b"nothing was changed" not in result.stderr
    # No turn holds the change: no rollback command is offered for it (one would find nothing to undo).
    assert b"agent-rollback" not in result.stderr and b"nothing for a rollback to undo" in result.stderr, result


def test_a_turn_is_rolled_back_alone_while_later_edits_survive(project: Repo) -> None:
    assert run(project, edit("m.py", "a = 1", "a = 10"), "--agent", "aider")[0].returncode == 0
    later = {"file_path": "m.py", "old_string": "return a + b + x", "new_string": "return a + b - x"}
    assert run_cli(project.root, "apply", "--agent", "codex", input=json.dumps(later)).code == 0
    assert run_cli(project.root, "rollback", "--agent", "aider").code == 0
    assert (project.root / "m.py").read_text() == CODE.replace("a + b + x", "a + b - x")


def test_the_users_uncommitted_work_is_not_the_commands(project: Repo) -> None:
    project.write({"m.py": CODE.replace("b = 2", "b = 20"), "scratch.txt": "mine\n"})  # the user's, unstaged
    assert (
        run(project, edit("m.py", "a = 1", "a = 10") + "; " + edit("scratch.txt", "mine", "mine, edited"), "--agent", "aider")[
            0
        ].returncode
        == 0
    )
    assert run_cli(project.root, "rollback", "--agent", "aider").code == 0
    assert (project.root / "m.py").read_text() == CODE.replace("b = 2", "b = 20")
    assert (project.root / "scratch.txt").read_text() == "mine\n"


def test_a_discarding_git_command_is_a_turn_that_rollback_undoes(project: Repo) -> None:
    project.write({"m.py": CODE.replace("b = 2", "b = 20")})  # the user's unstaged edit
    import subprocess

    result = command(project.root, "agent-guard", "run", "--agent", "aider", "--", "git", "checkout", "--", "m.py")
    assert result.returncode == 0, result
    assert (project.root / "m.py").read_text() == CODE
    assert run_cli(project.root, "rollback", "--agent", "aider").code == 0
    assert (project.root / "m.py").read_text() == CODE.replace("b = 2", "b = 20")
    del subprocess


def test_another_agents_turn_during_the_command_is_not_the_commands(project: Repo) -> None:
    codex = json.dumps({"file_path": "notes.txt", "old_string": "two\n", "new_string": "two by codex\n"})
    script = (
        f"import subprocess; subprocess.run(['git', 'agent-apply', '--agent', 'codex'], input={codex!r}.encode(), "
        "check=True, timeout=60); " + edit("notes.txt", "three", "three by the command")
    )
    result, report = run(project, script, "--agent", "aider")
    assert result.returncode == 0, result
    diff = project.git("diff", "refs/agent-guard/aider^", "refs/agent-guard/aider")
    assert "+three by the command" in diff and "+two by codex" not in diff, diff
    assert run_cli(project.root, "rollback", "--agent", "aider").code == 0
    assert (project.root / "notes.txt").read_text() == "one\ntwo by codex\nthree\n"


def test_a_placeholder_is_reported_and_kept_by_default(project: Repo) -> None:
    result, report = run(project, edit("m.py", "    a = 1\n    b = 2\n", "    # ... rest of the code unchanged ...\n"))
    assert result.returncode == 1 and report is not None and report["status"] == "refused"
    assert "placeholder" in {f["code"] for f in report["findings"]}
    assert "rest of the code" in (project.root / "m.py").read_text()
    assert b"stay" in result.stderr


def test_on_violation_revert_undoes_a_placeholder(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "shell:\n  on_violation: revert\n"})
    before = project.snapshot()
    result, report = run(project, edit("m.py", "    a = 1\n    b = 2\n", "    # ... rest of the code unchanged ...\n"))
    assert result.returncode == 1 and b"reverted" in result.stderr, result
    after = project.snapshot()
    # The work tree, index and HEAD as before; the ledger holds the turn and its rollback.
    assert {k: v for k, v in after.items() if k != "<refs>"} == {k: v for k, v in before.items() if k != "<refs>"}
    kinds = [t["kind"] for t in run_cli(project.root, "log", "--json").json()["turns"]]  # type: ignore[index]
    assert kinds == ["rollback", "turn"]


def test_a_command_cannot_relax_its_own_checks(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "checks: {whitespace: error}\n"})
    script = "open('.gitattributes', 'w').write('* -whitespace\\n'); " + edit("notes.txt", "one\n", "one   \n")
    result, report = run(project, script)
    assert result.returncode == 1 and report is not None
    found = {(f["code"], f["path"]) for f in report["findings"]}
    assert ("whitespace", "notes.txt") in found and ("path-protected", ".gitattributes") in found, found


def test_a_repository_made_inside_the_tree_is_refused(project: Repo) -> None:
    result, report = run(project, "import subprocess; subprocess.run(['git', 'init', '-q', 'sub'], check=True, timeout=60)")
    assert result.returncode == 1 and report is not None
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("path-protected", "sub")]


def test_a_rollback_touches_only_what_the_turn_changed(project: Repo) -> None:
    project.write({"untouched.txt": "u\n"})  # untracked, not the command's
    mtimes = {p: os.stat(project.root / p).st_mtime_ns for p in ("notes.txt", "untouched.txt")}
    branch = project.git("rev-parse", "HEAD").strip()
    assert run(project, edit("m.py", "a = 1", "a = 10") + "; open('made.txt', 'w').write('x\\n')")[0].returncode == 0
    assert run_cli(project.root, "rollback").code == 0
    assert not (project.root / "made.txt").exists()  # it made it: it goes
    assert (project.root / "untouched.txt").read_text() == "u\n"  # it did not: it stays
    assert {p: os.stat(project.root / p).st_mtime_ns for p in mtimes} == mtimes
    assert project.git("rev-parse", "HEAD").strip() == branch and project.git("status", "--short", "m.py") == ""


def test_a_file_over_the_size_limit_is_reported_not_recorded(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "budget:\n  max_file_bytes: 100\n"})
    result, report = run(project, "open('big.bin', 'w').write('x' * 500)")
    assert report is not None and report["files"] == []
    assert any("big.bin" in n for n in report.get("notes", [])) or any(f["path"] == "big.bin" for f in report["findings"])


def test_cost_follows_the_changed_files(project: Repo, tmp_path: Path) -> None:
    """A snapshot reads a dirty file once: the next one takes its blob from what it kept."""
    from guard.record import snapshot
    from guard.repo import GitRepo

    project.write({"big.txt": "y\n" * 1000})
    repo = GitRepo(project.root)
    first = snapshot.take(repo, "refs/agent-guard/", None)
    past = first.taken - 10 * snapshot.RACY_NS
    os.utime(project.root / "big.txt", ns=(past, past))
    again = snapshot.take(repo, "refs/agent-guard/", None)
    kept = json.loads((project.root / ".git" / "agent-guard" / "shell" / "kept.json").read_text())
    assert again.dirty["big.txt"].blob == kept["paths"]["big.txt"][1] == first.dirty["big.txt"].blob
    snapshot.discard(first)
    snapshot.discard(again)


def test_a_command_that_leaves_the_index_alone_does_not_read_it_whole(project: Repo) -> None:
    """The snapshot's own link to the index must not look like a change of the index."""
    from guard.record import snapshot
    from guard.repo import GitRepo

    repo = GitRepo(project.root)
    snap = snapshot.take(repo, "refs/agent-guard/", None)
    index_now = snapshot._key(os.stat(project.root / ".git" / "index"))
    assert index_now == snap.index_key
    snapshot.discard(snap)
