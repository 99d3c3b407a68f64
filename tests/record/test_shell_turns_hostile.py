"""A shell turn is judged by the policy from before the command, and `revert` reverts (issue 37 §2).

`agent-guard run -- sh -c ...` runs the command for real; the command is the hostile agent's:
it rewrites the policy (every place a policy is read from), touches control files and protected
secrets along with an elision, or continues a turn an earlier clean call made.  After a revert
the work tree, the index and HEAD are byte for byte as before the command; no output shows a
protected file's contents.
"""

from __future__ import annotations

import json

import pytest
from conftest import Repo, command, run_cli

CODE = "def f(x):\n    a = 1\n    b = 2\n    return a + b + x\n"
ELIDE = "printf 'def f(x):\\n    # ... rest of the code unchanged ...\\n' > m.py"
SECRET = "TOKEN=hunter2-user-secret\n"
REVERT = "shell:\n  on_violation: revert\n"
RELAXED = "extends: permissive\nchecks: {placeholder: off, path-protected: off}\nshell: {on_violation: warn}\n"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"m.py": CODE, "notes.txt": "one\ntwo\nthree\n", ".gitattributes": "*.py text\n"})
    return repo


def run(repo: Repo, script: str, *args: str):  # type: ignore[no-untyped-def]
    """`agent-guard run [ARGS] -- sh -c SCRIPT` through the installed command; (result, JSON report)."""
    report = repo.root.parent / "report.json"
    report.unlink(missing_ok=True)
    result = command(repo.root, "agent-guard", "run", "--report", str(report), *args, "--", "sh", "-c", script)
    return result, (json.loads(report.read_text()) if report.exists() else None)


def tree(repo: Repo) -> dict[str, object]:
    """The work tree, the index and HEAD (the refs hold the turn and its rollback)."""
    return {k: v for k, v in repo.snapshot().items() if k != "<refs>"}


def write(path: str, text: str) -> str:
    """A shell command that writes `text` to `path` (printf's %b reads the escapes)."""
    return f"printf %b {json.dumps(text)} > {path}"


# ---------------------------------------------------------------------- 1. the policy from before


POLICY_SOURCES = {
    # (the user's files, what the command writes over them)
    "agent-guard.yaml": ({".agent-guard.yaml": REVERT}, write(".agent-guard.yaml", RELAXED)),
    "pyproject table": (
        {"pyproject.toml": '[project]\nname = "x"\n\n[tool.agent-guard.shell]\non_violation = "revert"\n'},
        write("pyproject.toml", '[project]\nname = "x"\n\n[tool.agent-guard]\nextends = "permissive"\n'),
    ),
    "a new agent-guard.yaml over the pyproject table": (
        {"pyproject.toml": '[tool.agent-guard.shell]\non_violation = "revert"\n'},
        write(".agent-guard.yaml", RELAXED),
    ),
    "a policy that does not parse": ({".agent-guard.yaml": REVERT}, "printf 'shell: [' > .agent-guard.yaml"),
    "the file it extends": (
        {".agent-guard.yaml": "extends: ./team.yaml\n", "team.yaml": REVERT},
        write("team.yaml", RELAXED),
    ),
}


@pytest.mark.parametrize("source", sorted(POLICY_SOURCES))
def test_a_command_that_rewrites_the_policy_is_judged_by_the_one_before(project: Repo, source: str) -> None:
    """Before: on_violation (and every other setting) came from the policy the command had just written."""
    files, relax = POLICY_SOURCES[source]
    project.commit(files)
    before = tree(project)
    result, report = run(project, f"{relax}; {ELIDE}")
    assert result.returncode == 1 and report is not None and report["status"] == "refused", result
    codes = {f["code"] for f in report["findings"] if f["severity"] == "error"}
    assert "placeholder" in codes, report
    assert b"reverted" in result.stderr and b"stay" not in result.stderr, result
    assert tree(project) == before


def test_every_setting_comes_from_before_levels_verify_and_the_ledger(project: Repo) -> None:
    project.commit(
        {
            ".agent-guard.yaml": REVERT + 'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.txt"]}\n',
            "check.sh": 'for f in "$@"; do if grep -q BAD "$f"; then echo "$f: BAD" >&2; exit 3; fi; done\n',
        }
    )
    before = tree(project)
    relax = write(".agent-guard.yaml", "ledger: {ref_prefix: refs/elsewhere/}\nshell: {on_violation: warn}\n")
    result, report = run(project, f"{relax}; echo BAD >> notes.txt", "--agent", "aider")
    assert result.returncode == 1 and report is not None, result
    errors = {f["code"] for f in report["findings"] if f["severity"] == "error"}
    assert {"verify", "path-protected"} <= errors, report
    assert tree(project) == before
    refs = project.git("for-each-ref", "--format=%(refname)")
    assert "refs/agent-guard/aider" in refs and "refs/elsewhere" not in refs, refs


# ---------------------------------------------------------------------- 2. a revert puts back what was there


TOUCHES = {
    ".gitattributes": write(".gitattributes", "* -text\n"),
    ".env (the user's)": "printf 'TOKEN=agent\\n' > .env",
    ".env (made)": "printf 'TOKEN=agent\\n' > .env.local",
    "policy": write(".agent-guard.yaml", "shell: {on_violation: revert}\nchecks: {syntax: off}\n"),
}


@pytest.mark.parametrize("what", sorted(TOUCHES))
def test_a_turn_that_also_touches_a_control_or_protected_file_is_reverted(project: Repo, what: str) -> None:
    """Before: the rollback obeyed path protection, so nothing was reverted, the elision included."""
    project.commit({".agent-guard.yaml": REVERT})
    project.write({".env": SECRET})  # the user's secret, never committed
    before = tree(project)
    result, report = run(project, f"{TOUCHES[what]}; {ELIDE}")
    assert result.returncode == 1 and b"reverted" in result.stderr, result
    assert tree(project) == before
    shown = result.stdout + result.stderr + json.dumps(report).encode()
    assert b"hunter2" not in shown, shown
    kinds = [t["kind"] for t in run_cli(project.root, "log", "--json").json()["turns"]]  # type: ignore[index]
    assert kinds == ["rollback", "turn"], kinds


def test_a_later_rollback_puts_the_users_secret_back_and_shows_none_of_it(project: Repo) -> None:
    project.write({".env": SECRET})
    result, _ = run(project, f"printf 'TOKEN=agent\\n' > .env; {ELIDE}")
    assert result.returncode == 1, result  # kept (warn), recorded
    before_rollback = tree(project)
    said = [run_cli(project.root, "rollback", "--check", "--diff"), run_cli(project.root, "rollback", "--json")]
    assert said[1].code == 0 and said[1].json()["status"] == "applied", said[1]
    assert project.read(".env") == SECRET.encode() and project.read("m.py") == CODE.encode()
    for r in said:
        assert "hunter2" not in r.stdout + r.stderr and "TOKEN=agent" not in r.stdout + r.stderr, r
    # Redoing it (rolling the rollback back) writes the agent's change again: path protection holds.
    after_rollback = tree(project)
    redo = run_cli(project.root, "rollback", "--json")
    assert redo.code == 1 and redo.json()["status"] == "refused", redo
    found = {(f["code"], f["path"]) for f in redo.json()["findings"]}  # type: ignore[union-attr]
    assert ("path-protected", ".env") in found, found
    assert "hunter2" not in redo.stdout and tree(project) == after_rollback
    assert before_rollback != after_rollback


def test_putting_back_what_another_agent_wrote_obeys_protection(project: Repo) -> None:
    """A turn's 'before' written by another agent's turn is that agent's version, not the user's."""
    project.commit({".agent-guard.yaml": "extends: permissive\n"})  # both agents may write .env
    assert run(project, "printf 'TOKEN=codex\\n' > .env", "--agent", "codex")[0].returncode == 0
    assert run(project, "printf 'TOKEN=aider\\n' > .env", "--agent", "aider")[0].returncode == 0
    project.commit({".agent-guard.yaml": "paths: {}\n"})  # the default policy: .env is protected again
    before = tree(project)
    r = run_cli(project.root, "rollback", "--agent", "aider", "--json")
    assert r.code == 1 and ("path-protected", ".env") in {(f["code"], f["path"]) for f in r.json()["findings"]}, r  # type: ignore[union-attr]
    assert tree(project) == before


# ---------------------------------------------------------------------- 3. the call, not the turn


def test_revert_undoes_the_call_and_not_the_earlier_calls_of_its_turn(project: Repo) -> None:
    project.commit({".agent-guard.yaml": REVERT})
    clean = "sed -i 's/^two$/two, edited/' notes.txt"
    first, _ = run(project, clean, "--agent", "aider", "--turn", "t1")
    assert first.returncode == 0, first
    kept = tree(project)
    second, report = run(project, ELIDE, "--agent", "aider", "--turn", "t1")
    assert second.returncode == 1 and report is not None and b"reverted" in second.stderr, second
    assert tree(project) == kept  # the first call's edit stays, the second's is gone
    assert project.read("notes.txt") == b"one\ntwo, edited\nthree\n"
    turns = run_cli(project.root, "log", "--agent", "aider", "--json").json()["turns"]  # type: ignore[index]
    live = [t for t in turns if t["kind"] == "turn" and not t["rolled_back"]]
    assert [t["id"] for t in live] == ["t1"] and [f["path"] for f in live[0]["files"]] == ["notes.txt"], turns
    said = " ".join(report.get("notes", []))
    assert "m.py" in said and "t1" in said, said  # what was reverted, and what stays


@pytest.mark.parametrize("elide", [True, False])
def test_a_repository_made_by_a_reverted_command_is_moved_out_of_the_tree(project: Repo, elide: bool) -> None:
    """A repository made inside the tree is not in the turn (git takes it for a repository of its
    own): the revert undoes the rest and moves the repository out of the tree, kept, not deleted."""
    project.commit({".agent-guard.yaml": REVERT})
    before = tree(project)
    result, report = run(project, "git init -q inner && printf x > inner/kept.txt" + (f"; {ELIDE}" if elide else ""))
    assert result.returncode == 1, result
    assert report is not None and ("path-protected", "inner") in {(f["code"], f["path"]) for f in report["findings"]}
    assert tree(project) == before
    [moved] = list((project.root / ".git" / "agent-guard" / "put-aside").glob("*/inner"))
    assert (moved / "kept.txt").read_text() == "x" and (moved / ".git" / "HEAD").exists()
    assert "moved out of the tree" in json.dumps(report["notes"])


def test_a_repository_built_by_hand_is_refused_and_put_back(project: Repo) -> None:
    """HEAD, objects/ and an executable `refs` file: git's own rule, though no `.git` is in sight."""
    project.commit({".agent-guard.yaml": REVERT})
    before = tree(project)
    script = (
        "mkdir -p inner/objects && printf 'ref: refs/heads/main\\n' > inner/HEAD && : > inner/refs && "
        "chmod +x inner/refs && printf '[core]\\n\\tpager = touch pwned\\n' > inner/config"
    )
    result, report = run(project, script)
    assert result.returncode == 1 and report is not None, result
    assert "path-protected" in {f["code"] for f in report["findings"]}, report
    assert tree(project) == before


@pytest.mark.parametrize("target", [".agent-guard.yaml", ".gitattributes"])
def test_a_policy_or_control_file_swapped_for_a_link_is_refused_and_put_back(project: Repo, target: str) -> None:
    project.commit({".agent-guard.yaml": REVERT})
    before = tree(project)
    result, report = run(project, f"{write('relaxed.yaml', RELAXED)} && ln -sf relaxed.yaml {target}; {ELIDE}")
    assert result.returncode == 1 and report is not None, result
    assert ("path-protected", target) in {(f["code"], f["path"]) for f in report["findings"]}, report
    assert tree(project) == before
    # The next command is judged by the user's policy, not the link's.
    result, report = run(project, ELIDE)
    assert result.returncode == 1 and project.read("m.py") == CODE.encode(), result


@pytest.mark.parametrize("touch", ["printf 'NODE_OPTIONS=--require ./x.js\\\\n' >> .env", "rm .env", "printf x > .env.local"])
def test_an_ignored_protected_file_the_command_changes_is_refused_and_put_back(project: Repo, touch: str) -> None:
    """`.env` is ignored, so no turn can hold it: the snapshot keeps it aside, and a revert puts it back."""
    project.commit({".agent-guard.yaml": REVERT, ".gitignore": ".env*\n"})
    project.write({".env": SECRET})
    before = tree(project)
    result, report = run(project, f"{touch}; {ELIDE}")
    assert result.returncode == 1 and report is not None, result
    name = ".env.local" if ".env.local" in touch else ".env"
    assert ("path-protected", name) in {(f["code"], f["path"]) for f in report["findings"]}, report
    assert "hunter2" not in json.dumps(report) + result.stdout.decode() + result.stderr.decode()
    assert tree(project) == before
    # A command that leaves it alone is not blamed for it.
    result, report = run(project, "printf 'four\\\\n' >> notes.txt")
    assert result.returncode == 0 and report is not None and not report["findings"], (result, report)
