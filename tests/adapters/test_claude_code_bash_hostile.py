"""Claude Code's Bash calls as turns, against a hostile agent (issue 37 §2).

Each test drives both hooks as Claude Code does: the PreToolUse payload (its `cwd` the
session's folder before the command), the command run for real from that folder, then the
PostToolUse payload (its `cwd` where the command left the session: a top-level `cd` moves
it).  A revert leaves the work tree, the index and HEAD byte for byte as before the call.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, run_cli

LINES = "".join(f"line {i}\n" for i in range(1, 11))
APP = "def f():\n    return 1\n"
ELIDE = "printf 'def f():\\n    # ... rest of the code unchanged ...\\n' > app.py"
PROMPT = "3f1c9a20-7d41-4c55-9a0e-1b2c3d4e5f60"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"n.txt": LINES, "app.py": APP, "docs/readme.md": "# docs\n"})
    return repo


def hook(cwd: Path, event: str, tool: str, tool_input: dict[str, Any], tool_use_id: str, response: Any = None):  # type: ignore[no-untyped-def]
    data: dict[str, Any] = {
        "session_id": "s1",
        "prompt_id": PROMPT,
        "cwd": str(cwd),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
    }
    if response is not None:
        data["tool_response"] = response
    return run_cli(cwd, "hook", "claude-code", input=json.dumps(data))


def bash(cwd: Path, command: str, after: Path | None = None, tool_use_id: str = "toolu_b1"):  # type: ignore[no-untyped-def]
    """A Bash call through both hooks: the command run from `cwd` between them; `after`: the post
    hook's cwd (default `cwd`)."""
    ti = {"command": command, "description": "a command"}
    pre = hook(cwd, "PreToolUse", "Bash", ti, tool_use_id)
    assert pre.code == 0 and pre.stdout == "", pre
    subprocess.run(["bash", "-c", command], cwd=cwd, check=True, timeout=60)
    return hook(after or cwd, "PostToolUse", "Bash", ti, tool_use_id, response={"stdout": "", "stderr": ""})


def tree(repo: Repo) -> dict[str, object]:
    return {k: v for k, v in repo.snapshot().items() if k != "<refs>"}


def turns(repo: Repo, agent: str = "claude") -> list[dict[str, Any]]:
    result = run_cli(repo.root, "log", "--agent", agent, "--json")
    return result.json()["turns"] if result.code == 0 else []  # type: ignore[return-value]


# ---------------------------------------------------------------------- 1. the policy from before


def test_a_bash_call_that_rewrites_the_policy_is_judged_by_the_one_before(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "shell:\n  on_violation: revert\n"})
    before = tree(project)
    relax = "printf 'extends: permissive\\nshell: {on_violation: warn}\\n' > .agent-guard.yaml"
    post = bash(project.root, f"{relax}; {ELIDE}")
    assert post.code == 2 and "reverted" in post.stderr and "placeholder" in post.stderr, post
    assert tree(project) == before


# ---------------------------------------------------------------------- 3. revert the call


def test_a_violating_call_is_reverted_and_the_prompts_earlier_edit_stays(project: Repo) -> None:
    """Before: one turn per prompt, so the revert undid Claude's clean Edit of the same prompt too."""
    project.commit({".agent-guard.yaml": "shell:\n  on_violation: revert\n"})
    ti = {"file_path": str(project.root / "n.txt"), "old_string": "line 2\n", "new_string": "line 2 by claude\n"}
    assert hook(project.root, "PreToolUse", "Edit", ti, "toolu_e1").code == 0
    (project.root / "n.txt").write_text(LINES.replace("line 2\n", "line 2 by claude\n"))
    assert hook(project.root, "PostToolUse", "Edit", ti, "toolu_e1", response={"filePath": ti["file_path"]}).code == 0
    edited = tree(project)
    post = bash(project.root, ELIDE)
    assert post.code == 2 and "reverted" in post.stderr, post
    assert tree(project) == edited  # the Edit stays; the command's change is gone
    assert "app.py" in post.stderr and "stays" in post.stderr, post  # it says what was reverted, and what was not
    live = [t for t in turns(project) if t["kind"] == "turn" and not t["rolled_back"]]
    assert [[f["path"] for f in t["files"]] for t in live] == [["n.txt"]], live
    # The prompt's next Edit is not refused for its turn id (a rollback came after the prompt's turn).
    ti = {"file_path": str(project.root / "app.py"), "old_string": "return 1", "new_string": "return 2"}
    pre = hook(project.root, "PreToolUse", "Edit", ti, "toolu_e2")
    assert pre.code == 0, pre
    (project.root / "app.py").write_text(APP.replace("return 1", "return 2"))
    post = hook(project.root, "PostToolUse", "Edit", ti, "toolu_e2", response={"filePath": ti["file_path"]})
    assert post.code == 0, post
    live = [t for t in turns(project) if t["kind"] == "turn" and not t["rolled_back"]]
    assert sorted(f["path"] for t in live for f in t["files"]) == ["app.py", "n.txt"], live


# ---------------------------------------------------------------------- 4. a command that enters the repository

SED = "sed -i 's/^line 5$/line 5 by sed/' n.txt"

# (the command, run from the repository's parent folder; the post hook's cwd: "repo" or "parent")
ENTERS = {
    "cd": (f"cd repo && {SED}", "repo"),
    "cd with a slash": (f"cd ./repo/ && {SED}", "repo"),
    "cd quoted": (f'cd "repo" && {SED}', "repo"),
    "cd absolute": (f"cd {{root}} && {SED}", "repo"),
    "cd deeper": ("cd repo/docs && sed -i 's/^line 5$/line 5 by sed/' ../n.txt", "repo"),
    "cd then a newline": (f"cd repo\n{SED}", "repo"),
    "cd; and back": (f"cd repo; {SED}; cd ..", "parent"),
    "subshell": (f"(cd repo && {SED})", "parent"),
    "after ||": (f"false || cd repo && {SED}", "repo"),
    "in a pipeline": (f"echo go | (cd repo && {SED})", "parent"),
    "pushd": (f"pushd repo >/dev/null && {SED} && popd >/dev/null", "parent"),
    "bash -c": (f"bash -c 'cd repo && {SED.replace(chr(39), chr(34))}'", "parent"),
    "sh -c in a subshell": (f'(sh -c "cd repo; {SED}")', "parent"),
    "if": (f"if true; then cd repo; fi; {SED}", "repo"),
    "git -C": ("git -C repo rm -q app.py", "parent"),
}


@pytest.mark.parametrize("spelling", sorted(ENTERS))
def test_a_command_that_enters_the_repository_from_its_parent_is_recorded(project: Repo, spelling: str) -> None:
    """Before: the pre hook's cwd is in no repository, so nothing was snapshot and nothing recorded."""
    parent = project.root.parent
    command, where = ENTERS[spelling]
    post = bash(parent, command.replace("{root}", str(project.root)), project.root if where == "repo" else parent)
    assert post.code == 0, post
    recorded = turns(project)
    assert len(recorded) == 1 and recorded[0]["format"] == "shell", recorded
    changed = {f["path"] for f in recorded[0]["files"]}
    assert changed == ({"app.py"} if spelling == "git -C" else {"n.txt"}), recorded


def test_a_command_that_changes_two_repositories_records_both(project: Repo) -> None:
    other_root = project.root.parent / "other"
    other_root.mkdir()
    other = Repo(other_root)
    other.commit({"o.txt": "one\n"})
    command = f"{SED} && cd ../other && printf 'two\\n' >> o.txt"
    post = bash(project.root, command, other.root)  # the post hook runs in the other repository
    assert post.code == 0, post
    assert [f["path"] for f in turns(project)[0]["files"]] == ["n.txt"]
    assert [f["path"] for f in turns(other)[0]["files"]] == ["o.txt"]
    # And back, with the post hook in the first one.
    post = bash(project.root, "(cd ../other && printf 'three\\n' >> o.txt)", tool_use_id="toolu_b2")
    assert post.code == 0, post
    assert len(turns(other)) == 1 and turns(other)[0]["added"] == 2, turns(other)


def test_a_cd_it_cannot_work_out_before_the_command_is_said_truthfully(project: Repo) -> None:
    """Before: the post hook told the user to add Bash to the matcher, which it already was."""
    parent = project.root.parent
    post = bash(parent, f'cd "$(echo repo)" && {SED}', project.root)
    said = post.stdout + post.stderr
    assert "matcher" not in said, post
    assert "not recorded" in said and "could not tell" in said and "own Bash call" in said, post


@pytest.mark.parametrize("leave", ["cd ..", "cd / && cd /tmp", "cd $HOME"])
def test_a_command_that_leaves_the_repository_at_its_end_is_recorded(project: Repo, leave: str) -> None:
    """The pre hook runs in the repository, the post hook in a folder outside it: the pre hook's note
    of where it took stashes (the user's runtime folder) leads the post hook back."""
    post = bash(project.root, f"{SED} && {leave}", project.root.parent)
    assert post.code == 0, post
    recorded = turns(project)
    assert len(recorded) == 1 and [f["path"] for f in recorded[0]["files"]] == ["n.txt"], recorded
