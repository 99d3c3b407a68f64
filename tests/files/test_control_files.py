"""Control files: nothing an agent writes may run later or change what the checks see.

Each class of issue 23 §1, spelled several ways as a hostile agent would, through the
dialects that can spell it: a git directory made inside the tree (judged by git's own
discovery, checked against `git rev-parse --git-dir`), files the git configuration names
(every scope, includes resolved as git resolves them, commands' scripts), and the fixed
names (`.gitattributes` at any depth, `.gitmodules`, pre-commit's and other hook managers'
configuration).  Every refusal is `path-protected`, names the policy entry that would allow
it, and leaves the work tree, index, HEAD and refs byte for byte as they were.
"""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, git, run_cli

from guard.pipeline.engine import Guard

BASE = {"a.txt": "one\ntwo\nthree\n", "src/app.py": "x = 1\n", "docs/readme.md": "# docs\n"}


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit(BASE)
    return repo


def apply(repo: Repo, edit: object, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    text = edit if isinstance(edit, str) else json.dumps(edit)
    return run_cli(repo.root, "apply", "--json", *args, input=text, env=env)


def refused_unchanged(repo: Repo, edit: object, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    """Apply `edit`; assert it is refused as path-protected with the tree untouched; the report."""
    before = repo.snapshot()
    result = apply(repo, edit, *args, env=env)
    assert result.code == 1, result
    report = result.json()
    codes = {f["code"] for f in report["findings"]}  # type: ignore[index]
    assert "path-protected" in codes, report
    assert repo.snapshot() == before
    return report


def whole(path: str, content: str = "x\n") -> dict[str, str]:
    return {"file_path": path, "content": content}


# ---------------------------------------------------------------- git directories in the tree
GIT_DIR_FILES = {
    "HEAD": "ref: refs/heads/main\n",
    "config": '[core]\n\tworktree = ..\n\tfsmonitor = "touch pwned"\n',
    "objects/info/packs": "",
    "refs/heads/main": "",
}


@pytest.mark.parametrize("folder", ["src", "x.git", "deep/a/b", "Src", "tests/fixtures/bare"])
def test_an_edit_that_makes_a_folder_a_repository_is_refused(project: Repo, folder: str) -> None:
    edit = [whole(f"{folder}/{name}", text) for name, text in GIT_DIR_FILES.items()]
    report = refused_unchanged(project, edit)
    messages = [f["message"] for f in report["findings"]]  # type: ignore[index]
    assert all(f"inside {folder + '/'!r}, a git directory" in m for m in messages), messages
    assert f"control_editable: ['{folder}/**']" in report["findings"][0]["hint"]  # type: ignore[index]


def test_the_pieces_of_a_git_directory_sent_over_several_turns(project: Repo) -> None:
    """HEAD alone is a file; HEAD and objects/ still no repository; refs/ makes it one."""
    assert apply(project, [whole("src/HEAD", "ref: refs/heads/main\n")]).code == 0
    assert apply(project, [whole("src/objects/ab/cdef", "")]).code == 0
    refused_unchanged(project, [whole("src/refs/heads/main", "")])
    # What git itself would have found, had the last piece been written:
    assert _git_dir_from(project.root / "src") == str((project.root / ".git").resolve())


def test_writing_into_a_repository_that_is_already_in_the_tree(project: Repo) -> None:
    bare = project.root / "vendor" / "mirror.git"
    git(project.root, "init", "-q", "--bare", str(bare))
    for name in ("config", "hooks/post-update", "description", "notes.txt"):
        refused_unchanged(project, [whole(f"vendor/mirror.git/{name}", "[core]\n\tfsmonitor = evil\n")])


def test_a_commondir_file_stands_for_objects_and_refs(project: Repo) -> None:
    refused_unchanged(project, [whole("w/HEAD", "ref: refs/heads/x\n"), whole("w/commondir", "../.git\n")])


def test_a_git_directory_by_every_dialect(project: Repo) -> None:
    diff = "".join(f"--- /dev/null\n+++ b/src/{n}\n@@ -0,0 +1 @@\n+x\n" for n in ("HEAD", "objects/a", "refs/b"))
    refused_unchanged(project, diff)
    codex = (
        "*** Begin Patch\n" + "".join(f"*** Add File: src/{n}\n+x\n" for n in ("HEAD", "objects/a", "refs/b")) + "*** End Patch\n"
    )
    refused_unchanged(project, codex)
    project.write({"src/objects/a": "x\n", "src/refs/b": "x\n"})  # the user's files: only HEAD is missing
    refused_unchanged(project, "src/HEAD\n```\nref: refs/heads/main\n```\n", "--format", "whole")


def test_a_git_directory_the_user_allows(project: Repo) -> None:
    project.commit({".agent-guard.yaml": "paths:\n  control_editable: ['fixtures/**']\n"})
    edit = [whole(f"fixtures/repo/{name}", text) for name, text in GIT_DIR_FILES.items() if name != "config"]
    assert apply(project, edit).code == 0
    assert (project.root / "fixtures" / "repo" / "HEAD").exists()


def _git_dir_from(folder: Path) -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir"], cwd=folder, capture_output=True, text=True, timeout=60, check=False
    )
    return out.stdout.strip()


# Every combination of the names git's discovery looks at, each refused exactly when git
# (asked afterwards, with the files written by hand) finds a repository other than ours.
PIECES = {"HEAD": "ref: refs/heads/main\n", "objects/x": "", "refs/x": "", "commondir": "../../.git\n", "config": ""}


@pytest.mark.parametrize("names", [c for n in range(1, 6) for c in itertools.combinations(PIECES, n)], ids=lambda c: "+".join(c))
def test_the_rule_agrees_with_git(project: Repo, names: tuple[str, ...]) -> None:
    edit = [whole(f"p/q/{name}", PIECES[name]) for name in names]
    result = apply(project, edit)
    project.write({f"p/q/{name}": PIECES[name] for name in names})  # what the edit would have left
    ours = str((project.root / ".git").resolve())
    git_found_another = _git_dir_from(project.root / "p" / "q") != ours
    assert (result.code == 1) == git_found_another, (names, result)


# ---------------------------------------------------------------- files git's configuration names
CONFIGS = [
    # (git config key, value, the path it makes a control file)
    ("include.path", "../tools/gitconfig", "tools/gitconfig"),
    ("includeIf.gitdir:/.path", "../tools/more.cfg", "tools/more.cfg"),
    ("core.attributesFile", "meta/attributes", "meta/attributes"),
    ("core.excludesFile", "meta/excludes", "meta/excludes"),
    ("filter.clean.clean", "python tools/clean.py %f", "tools/clean.py"),
    ("filter.clean.smudge", "python3 smudge.py", "smudge.py"),
    ("diff.conv.textconv", "sh -c 'scripts/conv.sh \"$1\"' --", "scripts/conv.sh"),
    ("merge.ours.driver", "./bin/merge-driver %O %A %B", "bin/merge-driver"),
    ("core.fsmonitor", "tools/fsmonitor.sh", "tools/fsmonitor.sh"),
    ("core.sshCommand", "ssh -F tools/ssh_config", "tools/ssh_config"),
    ("core.editor", "./bin/ed", "bin/ed"),
    ("alias.lint", "!sh scripts/lint.sh", "scripts/lint.sh"),
    ("credential.helper", "!tools/cred-helper", "tools/cred-helper"),
    ("gpg.program", "tools/gpg", "tools/gpg"),
    ("core.pager", "less; tools/pager", "tools/pager"),
]


@pytest.mark.parametrize("key,value,path", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_a_file_the_git_configuration_names(project: Repo, key: str, value: str, path: str) -> None:
    project.git("config", key, value)
    report = refused_unchanged(project, [whole(path, "echo pwned\n")])
    finding = report["findings"][0]  # type: ignore[index]
    assert key.lower().split(".")[0] in finding["message"].lower() and "control_editable" in finding["hint"]


def test_an_unrelated_command_names_nothing(project: Repo) -> None:
    project.git("config", "filter.lfs.clean", "git-lfs clean -- %f")
    project.git("config", "core.fsmonitor", "true")
    project.git("config", "alias.st", "status --short")
    for name in ("clean", "git-lfs", "true", "status"):
        assert apply(project, [whole(name, "fine\n")]).code == 0, name


def test_a_folder_the_configuration_names_covers_its_files(project: Repo) -> None:
    project.git("config", "init.templateDir", "templates")
    refused_unchanged(project, [whole("templates/hooks/pre-commit", "#!/bin/sh\n")])


def test_configuration_from_every_scope(project: Repo, tmp_path: Path) -> None:
    glob = tmp_path / "global.cfg"
    glob.write_text(f'[diff "x"]\n\ttextconv = {project.root}/tools/global-conv\n')
    refused_unchanged(project, [whole("tools/global-conv", "x\n")], env={"GIT_CONFIG_GLOBAL": str(glob)})
    # `git -c` reaches agent-guard as GIT_CONFIG_PARAMETERS.
    refused_unchanged(
        project, [whole("tools/cli-conv", "x\n")], env={"GIT_CONFIG_PARAMETERS": "'diff.y.textconv'='tools/cli-conv'"}
    )
    # An included file's own settings count, and a relative include resolves from the including file.
    (project.root / ".git" / "extra").mkdir()
    (project.root / ".git" / "extra" / "more.cfg").write_text('[filter "f"]\n\tclean = ../../tools/deep-clean\n')
    project.git("config", "include.path", "extra/more.cfg")
    # git runs the filter at the top of the work tree: `../../tools/deep-clean` is outside it.
    assert apply(project, [whole("tools/deep-clean", "x\n")]).code == 0
    (project.root / ".git" / "extra" / "more.cfg").write_text('[filter "f"]\n\tclean = tools/deep-clean\n')
    refused_unchanged(project, [whole("tools/deep-clean", "y\n")])


def test_an_included_files_settings_count(project: Repo) -> None:
    extra = project.root / ".git" / "extra.cfg"
    extra.write_text('[filter "f"]\n\tclean = tools/included-clean\n[include]\n\tpath = ../tools/nested.cfg\n')
    project.git("config", "include.path", "extra.cfg")
    refused_unchanged(project, [whole("tools/included-clean", "x\n")])
    refused_unchanged(project, [whole("tools/nested.cfg", "[core]\n\tfsmonitor = evil\n")])


def test_the_configuration_is_read_again_when_it_changes(project: Repo) -> None:
    assert apply(project, [whole("tools/late.sh", "echo one\n")]).code == 0
    project.git("config", "diff.late.textconv", "tools/late.sh")
    refused_unchanged(project, [whole("tools/late.sh", "echo two\n")])


# ---------------------------------------------------------------- fixed names
FIXED = [
    ".gitattributes",
    "src/.gitattributes",
    "deep/er/.gitattributes",
    ".GitAttributes",
    ".git\u200battributes",
    ".gitmodules",
    ".pre-commit-config.yaml",
    ".pre-commit-config.yml",
    "sub/.pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
    "lefthook.yml",
    ".lefthook.yaml",
    "lefthook-local.json",
    ".config/lefthook.toml",
    ".husky/pre-commit",
    ".husky/_/h",
    ".overcommit.yml",
]


@pytest.mark.parametrize("path", FIXED)
def test_a_fixed_control_file_is_refused_to_create(project: Repo, path: str) -> None:
    report = refused_unchanged(project, [whole(path, "* -whitespace conflict-marker-size=32\n")])
    assert "control file" in report["findings"][0]["message"]  # type: ignore[index]


EXISTING = {
    ".gitattributes": "*.txt text\n",
    "src/.gitattributes": "*.py diff=python\n",
    ".gitmodules": "",
    ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks:\n  - id: agent-guard\n    entry: agent-guard check\n"
    "    name: agent-guard\n    language: system\n",
}


@pytest.fixture
def controlled(project: Repo) -> Repo:
    project.commit(EXISTING)
    return project


def _operations(path: str, text: str) -> list[object]:
    """Every way to change `path`: write it whole, replace a line, delete it, move it away, move onto it."""
    lines = text.splitlines()
    ops: list[object] = [[whole(path, text + "* -whitespace\n")]]
    if lines:
        ops.append({"file_path": path, "old_string": lines[0], "new_string": lines[0] + " -whitespace"})
        removed = "".join(f"-{ln}\n" for ln in lines)
        ops.append(
            f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
            f"@@ -1,{len(lines)} +0,0 @@\n{removed}"
        )
    ops.append(f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n")
    ops.append(f"diff --git a/{path} b/moved-away\nsimilarity index 100%\nrename from {path}\nrename to moved-away\n")
    ops.append("diff --git a/a.txt b/{0}\nsimilarity index 100%\nrename from a.txt\nrename to {0}\n".format(path))
    return ops


@pytest.mark.parametrize("path", sorted(EXISTING))
def test_a_fixed_control_file_is_refused_in_every_operation(controlled: Repo, path: str) -> None:
    for edit in _operations(path, EXISTING[path]):
        refused_unchanged(controlled, edit)


def test_policy_control_editable_lets_agents_edit_it(controlled: Repo) -> None:
    controlled.commit({".agent-guard.yaml": "paths:\n  control_editable: ['/.gitattributes', '**/lefthook.yml']\n"})
    assert apply(controlled, [whole(".gitattributes", "*.txt text\n*.md text\n")]).code == 0
    assert apply(controlled, [whole("lefthook.yml", "pre-commit: {}\n")]).code == 0
    refused_unchanged(controlled, [whole("src/.gitattributes", "* -whitespace\n")])  # not listed


def test_control_files_are_read_freely(controlled: Repo) -> None:
    result = run_cli(controlled.root, "read", ".pre-commit-config.yaml")
    assert result.code == 0 and "entry: agent-guard check" in result.stdout, result


@pytest.mark.parametrize(
    "tool,tool_input",
    [
        ("Write", {"file_path": ".pre-commit-config.yaml", "content": "repos: []\n"}),
        ("Edit", {"file_path": ".gitattributes", "old_string": "*.txt text", "new_string": "* -whitespace"}),
        ("Write", {"file_path": "x/HEAD", "content": "ref: refs/heads/main\n"}),
    ],
)
def test_the_claude_code_pre_hook_denies_a_control_file(controlled: Repo, tool: str, tool_input: dict[str, str]) -> None:
    from conftest import command

    controlled.write({"x/objects/a": "", "x/refs/b": ""})
    tool_input = {**tool_input, "file_path": str(controlled.root / tool_input["file_path"])}
    data = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(controlled.root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    before = controlled.snapshot()
    result = command(controlled.root, "agent-guard", "hook", "claude-code", input=json.dumps(data).encode())
    assert result.returncode == 2 and b"path-protected" in result.stderr and b"control_editable" in result.stderr, result
    assert controlled.snapshot() == before


# ---------------------------------------------------------------- attributes before the turn
STRICT_LINES = "checks: {whitespace: error, conflict-marker: error}\npaths:\n  control_editable: ['/.gitattributes']\n"


def test_a_turn_is_judged_by_the_attributes_from_before_it(controlled: Repo) -> None:
    """A turn that may write .gitattributes (the user allows it) still cannot relax its own checks."""
    controlled.commit({".agent-guard.yaml": STRICT_LINES})
    relax = [whole(".gitattributes", "*.txt text\n* -whitespace conflict-marker-size=32\n")]
    assert apply(controlled, relax, "--turn", "t1").code == 0
    trailing = {"file_path": "a.txt", "old_string": "two\n", "new_string": "two   \n"}
    before = controlled.snapshot()
    result = apply(controlled, trailing, "--turn", "t1")
    assert result.code == 1 and {f["code"] for f in result.json()["findings"]} == {"whitespace"}, result  # type: ignore[union-attr]
    assert controlled.snapshot() == before
    markers = {"file_path": "a.txt", "old_string": "two\n", "new_string": "<<<<<<< ours\ntwo\n=======\n2\n>>>>>>> theirs\n"}
    result = apply(controlled, markers, "--turn", "t1")
    assert result.code == 1 and "conflict-marker" in {f["code"] for f in result.json()["findings"]}, result  # type: ignore[union-attr]
    # The next turn starts from the tree the user now has: the attributes the last turn left.
    assert apply(controlled, trailing).code == 0


def test_within_one_edit_the_attributes_are_the_trees_before_it(controlled: Repo) -> None:
    controlled.commit({".agent-guard.yaml": STRICT_LINES})
    edit = [whole(".gitattributes", "* -whitespace\n"), whole("b.txt", "trailing   \n")]
    before = controlled.snapshot()
    result = apply(controlled, edit)
    assert result.code == 1 and "whitespace" in {f["code"] for f in result.json()["findings"]}, result  # type: ignore[union-attr]
    assert controlled.snapshot() == before


# ---------------------------------------------------------------- at commit time
def test_a_commit_that_changes_a_control_file_is_reported(controlled: Repo) -> None:
    controlled.write({".pre-commit-config.yaml": "repos: []\n", "lefthook.yml": "pre-commit: {}\n"})
    controlled.git("add", "-A")
    result = run_cli(controlled.root, "check", "--json")
    assert result.code == 0, result  # a warning: people change these on purpose
    found = {(f["path"], f["severity"]) for f in result.json()["findings"] if f["code"] == "path-protected"}  # type: ignore[union-attr]
    assert found == {(".pre-commit-config.yaml", "warning"), ("lefthook.yml", "warning")}


def test_guard_api_and_policy_show(controlled: Repo) -> None:
    g = Guard(controlled.root)
    report = g.apply(json.dumps(whole(".gitmodules", '[submodule "x"]\n\tupdate = !sh evil\n')))
    assert report.status == "refused" and report.findings[0].code == "path-protected"
    shown = run_cli(controlled.root, "policy", "show")
    assert "control files" in shown.stdout, shown


def test_the_configuration_is_read_again_by_the_next_command(project: Repo) -> None:
    """git's configuration is asked per command, and nothing of it is kept for the next one."""
    assert apply(project, [whole("tools/conv", "one\n")]).code == 0
    assert not (project.root / ".git" / "agent-guard" / "config.json").exists()
    project.git("config", "diff.conv.textconv", "tools/conv")
    refused_unchanged(project, [whole("tools/conv", "two\n")])


def test_a_rollback_puts_back_a_control_file_and_redoing_it_obeys_control_files(controlled: Repo) -> None:
    """A turn that changed .gitattributes while the user allowed it is undone once they no longer do
    (putting back the user's own version is no agent write); undoing that rollback writes the agent's
    change again, as an edit would, and is refused."""
    controlled.commit({".agent-guard.yaml": "paths:\n  control_editable: ['/.gitattributes']\n"})
    assert apply(controlled, [whole(".gitattributes", "*.txt text\n*.md text\n")]).code == 0
    controlled.write({".agent-guard.yaml": "paths: {}\n"})
    result = run_cli(controlled.root, "rollback", "--json")
    assert result.code == 0 and result.json()["status"] == "applied", result
    assert controlled.read(".gitattributes") == EXISTING[".gitattributes"].encode()
    before = controlled.snapshot()
    result = run_cli(controlled.root, "rollback", "--json")
    assert result.code == 1 and result.json()["findings"][0]["code"] == "path-protected", result  # type: ignore[index]
    assert "control_editable" in result.json()["findings"][0]["message"] + result.json()["findings"][0]["hint"]  # type: ignore[index]
    assert controlled.snapshot() == before


STRICT_CHECKS = ".agent-guard.yaml"


@pytest.mark.parametrize(
    "relax",
    [
        "* -whitespace conflict-marker-size=32\n",
        "*.txt -whitespace\n",
        "a.txt whitespace=-blank-at-eol,-trailing-space\n",
        "*.txt binary\n",
    ],
)
def test_a_commit_cannot_relax_its_own_check(project: Repo, relax: str) -> None:
    """Staged, or any commit of a range: the attributes come from the tree before (HEAD, the range's base)."""
    project.commit({STRICT_CHECKS: "checks: {whitespace: error, conflict-marker: error}\n"})
    base = project.git("rev-parse", "HEAD").strip()
    project.write({".gitattributes": relax, "a.txt": "one   \ntwo\nthree\n"})
    project.git("add", "-A")
    staged = run_cli(project.root, "check", "--json")
    assert staged.code == 1 and ("whitespace", "a.txt") in {(f["code"], f["path"]) for f in staged.json()["findings"]}, staged  # type: ignore[union-attr]
    project.git("commit", "-qm", "relax the attributes")
    project.commit({"a.txt": "one   \ntwo\n<<<<<<< HEAD\nthree\n"}, message="use them")
    ranged = run_cli(project.root, "check", "--json", "--from-ref", base, "--to-ref", "HEAD")
    found = {(f["code"], f["path"]) for f in ranged.json()["findings"]}  # type: ignore[union-attr]
    assert ranged.code == 1 and ("whitespace", "a.txt") in found and ("path-protected", ".gitattributes") in found, ranged
    # A bare clone (a server's pre-receive hook) judges the same way.
    bare = project.root.parent / "server.git"
    git(project.root.parent, "clone", "-q", "--bare", str(project.root), str(bare))
    served = run_cli(bare, "check", "--json", "--from-ref", base, "--to-ref", "HEAD")
    assert served.code == 1 and ("whitespace", "a.txt") in {(f["code"], f["path"]) for f in served.json()["findings"]}, served  # type: ignore[union-attr]


def test_attributes_committed_before_the_change_count(project: Repo) -> None:
    project.commit({STRICT_CHECKS: "checks: {whitespace: error}\n", ".gitattributes": "*.txt -whitespace\n"})
    project.write({"a.txt": "one   \ntwo\nthree\n"})
    project.git("add", "-A")
    assert run_cli(project.root, "check").code == 0
