"""`agent-guard check` on staged changes, commit ranges and whole files; its output
formats; and the plain git hook (`install-hook` / `uninstall-hook`), in real repositories."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, command, conflicted, git

ROOT = Path(__file__).resolve().parents[2]

CODE = (
    "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n\n\n"
    "def other():\n    return 1\n"
)
# The classic elision: the function body replaced by a comment standing in for it.
ELIDED = "def total(items):\n    # ... rest of the code unchanged\n\n\ndef other():\n    return 1\n"


@pytest.fixture(autouse=True)
def no_pre_commit_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "PRE_COMMIT"):
        monkeypatch.delenv(key, raising=False)


def codes(result: Any) -> list[tuple[str, str, str | None, int | None]]:
    return [(f["code"], f["severity"], f["path"], f["line"]) for f in result.json()["findings"]]


# --- the staged change -------------------------------------------------------------------------
def test_staged_placeholder_is_an_error_and_nothing_changes(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({"app.py": ELIDED})
    repo.git("add", "app.py")
    before = repo.snapshot()
    result = cli("check")
    assert result.code == 1, result
    assert re.search(r"^app\.py:2: placeholder: the added line '# \.\.\. rest of the code unchanged'", result.stdout, re.M)
    assert "fix the lines above, `git add` them, and commit again" in result.stdout
    assert repo.snapshot() == before
    data = cli("check", "--json").json()
    assert data["status"] == "refused"
    assert [(f["code"], f["path"], f["line"], f["commit"]) for f in data["findings"]] == [("placeholder", "app.py", 2, None)]
    assert data["files"] == [{"path": "app.py", "op": "modify", "old_path": None, "added": 1, "removed": 4, "repairs": []}]
    assert data["check"] == {
        "mode": "staged",
        "files": 1,
        "added": 1,
        "removed": 4,
        "whole_files": 0,
        "policy": "the preset default (HEAD holds no policy)",
    }


def test_clean_staged_change_passes(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({"app.py": CODE.replace("return 1", "return 2")})
    repo.git("add", "app.py")
    result = cli("check")
    assert result.code == 0, result
    assert "agent-guard check: the staged change (1 file, +1 -1): 0 errors, 0 warnings" in result.stdout


def test_unstaged_changes_are_not_judged(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({"app.py": ELIDED})  # in the work tree only
    assert cli("check").code == 0


def test_only_added_lines_are_judged(repo: Repo, cli) -> None:
    # Old lines with trailing blanks, a placeholder and a conflict marker stay as they are.
    old = "x = 1   \n# ... rest of the code unchanged\n<<<<<<< HEAD\ny = 2\n"
    repo.commit({"legacy.py": old})
    repo.write({"legacy.py": old.replace("y = 2", "y = 3")})
    repo.git("add", "legacy.py")
    result = cli("check", "--json")
    assert result.code == 0, result
    assert result.json()["findings"] == []


def test_first_commit_of_a_repository(repo: Repo, cli) -> None:
    repo.write({"app.py": ELIDED, "ok.py": "x = 1\n"})
    repo.git("add", "-A")
    result = cli("check", "--json")
    assert result.code == 1
    # A new file removes nothing, so only strong evidence counts; this comment is strong.
    assert codes(result) == [("placeholder", "error", "app.py", 2)]


def test_whitespace_fix_level_reports_a_warning_and_strict_refuses(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({"app.py": CODE.replace("return 1", "return 1   ")})
    repo.git("add", "app.py")
    result = cli("check")
    assert result.code == 0
    assert (
        "app.py:9: whitespace: trailing whitespace (blank-at-eol) in the added line '    return 1···' (· a space) (warning)"
    ) in result.stdout
    strict = cli("check", "--policy", "strict", "--json")
    assert strict.code == 1
    assert ("whitespace", "error", "app.py", 9) in codes(strict)


def test_conflict_markers(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({"app.py": "<<<<<<< HEAD\n" + CODE + "=======\nx = 1\n>>>>>>> topic\n"})
    repo.git("add", "app.py")
    result = cli("check", "--json")
    assert result.code == 1
    assert {(c, line) for c, _s, _p, line in codes(result)} == {
        ("conflict-marker", 1),
        ("conflict-marker", 11),
        ("conflict-marker", 13),
    }


def test_budget_is_per_commit(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "budget:\n  per_edit: {lines_added: 5}\n"})
    repo.write({"big.py": "".join(f"v{i} = {i}\n" for i in range(6))})
    repo.git("add", "big.py")
    result = cli("check", "--json")
    assert result.code == 1
    [finding] = result.json()["findings"]
    assert finding["code"] == "budget" and finding["path"] is None
    assert finding["message"].startswith(
        "the staged change has 6 added lines; one commit may have 5 (budget.per_edit.lines_added, from "
    )
    assert "commit it in parts" in finding["hint"]
    human = cli("check").stdout
    assert "(staged change): budget: the staged change has 6 added lines" in human


def test_max_file_bytes_only_when_the_change_crosses_it(repo: Repo, cli) -> None:
    repo.commit({".agent-guard.yaml": "budget:\n  max_file_bytes: 100\n", "old.txt": "x" * 150 + "\n"})
    repo.write({"old.txt": "y" * 150 + "\n", "new.txt": "z" * 150 + "\n"})
    repo.git("add", "-A")
    result = cli("check", "--json")
    assert codes(result) == [("budget", "error", "new.txt", None)]
    assert "new.txt becomes 151 bytes in the staged change; the limit is 100" in result.json()["findings"][0]["message"]


def test_text_becoming_binary_and_encodings(repo: Repo, cli) -> None:
    # The attributes come from the tree before the change (HEAD), never from the change itself.
    repo.commit({"notes.txt": "hello\n", "latin.txt": "caf\xe9\n".encode("latin-1"), ".gitattributes": "data.bin binary\n"})
    repo.write(
        {
            "notes.txt": b"hello\n\x00world\n",  # was text: the NUL is a mistake
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",  # a binary file arriving is fine
            "utf16.py": "x = 1\n".encode("utf-16"),  # text, but not UTF-8
            "new-latin.txt": "na\xefve\n".encode("latin-1"),
            "latin.txt": "caf\xe9s\n".encode("latin-1"),  # was not UTF-8 before either
            "data.bin": b"\xff\xfe\x00",  # marked binary above
            ".gitattributes": "data.bin binary\n*.txt text\n",
        }
    )
    repo.git("add", "-A")
    result = cli("check", "--json")
    found = {(c, p) for c, _s, p, _l in codes(result)}
    # The new .gitattributes is a control file: reported, as a warning, as every protected path is at commit time.
    assert found == {
        ("binary", "notes.txt"),
        ("not-utf8", "utf16.py"),
        ("not-utf8", "new-latin.txt"),
        ("path-protected", ".gitattributes"),
    }
    messages = {f["path"]: f["message"] for f in result.json()["findings"]}
    assert messages["notes.txt"] == "notes.txt was text and now holds a NUL byte at line 2: this change makes it binary"
    assert "UTF-16 or UTF-32" in messages["utf16.py"]
    assert messages["new-latin.txt"].startswith("new-latin.txt is not UTF-8 text: byte 0xef at line 1 is not UTF-8")


def test_protected_path_is_a_warning_at_commit_time(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({".github/workflows/ci.yml": "on: push\n"})
    repo.git("add", "-A")
    result = cli("check", "--json")
    assert result.code == 0
    assert codes(result) == [("path-protected", "warning", ".github/workflows/ci.yml", None)]


def test_untracked_and_no_op_do_not_apply(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.git("mv", "app.py", "moved.py")  # a pure rename: no lines, nothing new
    result = cli("check", "--json")
    assert result.code == 0 and result.json()["findings"] == []
    assert result.json()["files"][0]["op"] == "rename"


def test_paths_limit_the_check(repo: Repo, cli) -> None:
    repo.commit({"src/app.py": CODE, "src/ok.py": "x = 1\n"})
    repo.write({"src/app.py": ELIDED, "src/ok.py": "x = 2\n"})
    repo.git("add", "-A")
    assert cli("check", "src/ok.py").code == 0
    assert cli("check", "src/app.py").code == 1
    assert cli("check", "src").code == 1
    # Relative to the current folder, as a shell user types them.
    assert cli("check", "ok.py", cwd=repo.root / "src").code == 0
    assert cli("check", "app.py", cwd=repo.root / "src").code == 1
    outside = cli("check", "../elsewhere.py")
    assert outside.code == 2 and "is outside the repository" in outside.stderr


def test_a_named_file_without_staged_change_is_checked_whole(repo: Repo, cli) -> None:
    # `pre-commit run --all-files` / `--files F` pass files that have nothing staged.
    repo.commit({"old.py": ELIDED, "fine.py": "x = 1\n"})
    assert cli("check").code == 0  # nothing staged
    result = cli("check", "old.py", "fine.py", "--json")
    assert result.code == 1
    assert codes(result) == [("placeholder", "error", "old.py", 2)]
    assert result.json()["check"]["whole_files"] == 2
    human = cli("check", "old.py", "fine.py").stdout
    assert "the staged change (0 files, +0 -0) and 2 unchanged files checked whole: 1 error, 0 warnings" in human
    untracked = repo.root / "loose.py"
    untracked.write_text("x = 1\n")
    kept = cli("check", "loose.py")
    assert kept.code == 0 and "note: not in the index, so not checked: loose.py" in kept.stdout


def test_a_path_that_names_nothing_is_a_usage_error(repo: Repo, cli) -> None:
    # As `git add no/such` ("pathspec 'no/such' did not match any files"): a path in neither the
    # work tree, the index, HEAD nor the change checked is a typo, not a clean check.
    repo.commit({"src/app.py": CODE, ".gitignore": "*.log\n"})
    repo.write({"src/new.py": "x = 1\n", "debug.log": "noise\n"})
    repo.git("add", "src/new.py")
    before = repo.snapshot()
    for args in (("no/such/file.py",), ("src/app.py", "no/such/file.py"), ("--all-files", "no/such/file.py")):
        result = cli("check", *args)
        assert result.code == 2, (args, result)
        assert "agent-guard: pathspec 'no/such/file.py' did not match any files" in result.stderr
    as_json = cli("check", "--json", "no/such/file.py")
    assert as_json.code == 2 and as_json.json()["status"] == "error"
    assert cli("check", "nope.py", cwd=repo.root / "src").stderr.count("src/nope.py") == 1
    head = repo.head()
    ranged = cli("check", "--from-ref", head, "--to-ref", head, "gone.py")
    assert ranged.code == 2 and "pathspec 'gone.py' did not match any files" in ranged.stderr
    assert repo.snapshot() == before
    # What exists, is tracked, or is in the change is checked (or noted) as before.
    assert cli("check", "src/new.py").code == 0
    assert cli("check", "src").code == 0
    assert cli("check", "--from-ref", head, "--to-ref", head, "src/app.py").code == 0
    ignored = cli("check", "debug.log")
    assert ignored.code == 0 and "not in the index, so not checked: debug.log" in ignored.stdout
    (repo.root / "src" / "app.py").unlink()  # deleted, not staged: git still tracks it
    assert cli("check", "src/app.py").code == 0
    repo.git("rm", "-q", "--cached", "src/app.py")  # a staged deletion is in the change
    assert cli("check", "src/app.py").code == 0


def test_git_index_file_is_honoured(repo: Repo, cli, tmp_path: Path) -> None:
    # `git commit -a` runs the hook with GIT_INDEX_FILE naming a temporary index.
    repo.commit({"app.py": CODE})
    repo.write({"app.py": ELIDED})
    index = tmp_path / "other-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(index))
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo.root, env=env, check=True, timeout=60)
    subprocess.run(["git", "add", "app.py"], cwd=repo.root, env=env, check=True, timeout=60)
    assert cli("check").code == 0  # the real index has nothing staged
    assert cli("check", env={"GIT_INDEX_FILE": str(index)}).code == 1


def test_unmerged_index_and_bad_index_file_are_usage_errors(repo: Repo, cli, tmp_path: Path) -> None:
    conflicted(repo)
    result = cli("check")
    assert result.code == 2
    assert "cannot create a tree from a not fully merged index; resolve the merge conflict first" in result.stderr
    missing = cli("check", env={"GIT_INDEX_FILE": str(tmp_path / "nope")})
    assert missing.code == 2 and "GIT_INDEX_FILE names" in missing.stderr


def test_a_staged_merge_is_not_held_to_the_per_commit_budget(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "budget:\n  per_edit: {lines_added: 5}\n"})
    repo.git("checkout", "-q", "-b", "side")
    repo.git("commit", "-q", "--allow-empty", "-m", "side start")
    repo.write({"big.py": "".join(f"v{i} = {i}\n" for i in range(4))})
    repo.git("add", "big.py")
    repo.git("commit", "-q", "-m", "part 1")
    repo.write({"big2.py": "".join(f"w{i} = {i}\n" for i in range(4))})
    repo.git("add", "big2.py")
    repo.git("commit", "-q", "-m", "part 2")
    repo.git("checkout", "-q", "main")
    repo.commit({"main.py": "m = 1\n"})
    repo.git("merge", "-q", "--no-commit", "--no-ff", "side")
    result = cli("check", "--json")
    assert result.code == 0, result
    assert result.json()["findings"] == []
    assert "a merge is being committed: the per-commit budget is not applied to it" in cli("check").stdout


# --- --all-files ---------------------------------------------------------------------------
def test_all_files_judges_tracked_files_whole(repo: Repo, cli) -> None:
    big = "".join(f"v{i} = {i}\n" for i in range(1000))
    weak = "def f():\n    x = 1\n    # ...\n    return x\n"  # a bare `...` removes nothing in a whole file
    repo.commit(
        {
            "strong.py": ELIDED,
            "weak.py": weak,
            "big.py": big,
            "ws.py": "x = 1  \n",
            ".github/workflows/ci.yml": "on: push\n",
            "img.bin": b"\x00\x01\x02",
        }
    )
    repo.write({"untracked.py": ELIDED})
    result = cli("check", "--all-files", "--json")
    assert result.code == 1
    # No budget (it limits changes, not files) and no protected-path noise for files as they are.
    assert sorted(codes(result)) == [("placeholder", "error", "strong.py", 2), ("whitespace", "warning", "ws.py", 1)]
    assert result.json()["check"]["mode"] == "all-files"
    assert "6 tracked files, checked whole: 1 error, 1 warning" in cli("check", "--all-files").stdout
    assert cli("check", "--all-files", "weak.py", "big.py").code == 0


# --- commit ranges ---------------------------------------------------------------------------
def test_range_checks_every_commit_on_its_own(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": CODE, ".agent-guard.yaml": "budget:\n  per_edit: {lines_added: 5}\n"})
    bad = repo.commit({"app.py": ELIDED}, message="Refactor total\n\nbody")
    repo.commit({"app.py": CODE}, message="Restore total")  # the final state is fine
    big = repo.commit({"big.py": "".join(f"v{i} = {i}\n" for i in range(6))}, message="Add constants")
    repo.commit({"small.py": "a = 1\n"}, message="Add small")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 1, result
    found = [(f["code"], f["path"], f["commit"]) for f in result.json()["findings"]]
    assert found == [("placeholder", "app.py", bad), ("budget", None, big)]
    check = result.json()["check"]
    assert check["mode"] == "range" and [c["subject"] for c in check["commits"]] == [
        "Refactor total",
        "Restore total",
        "Add constants",
        "Add small",
    ]
    budget = result.json()["findings"][1]
    assert budget["message"].startswith(f"commit {big[:10]} 'Add constants' has 6 added lines; one commit may have 5")
    assert f"git rebase -i {big[:10]}^" in budget["hint"]
    human = cli("check", "--from-ref", base, "--to-ref", "HEAD").stdout
    assert "app.py:2: placeholder: the added line '# ... rest of the code unchanged'" in human
    assert f"(in commit {bad[:10]} 'Refactor total')" in human
    assert f"commit {big[:10]}: budget: commit {big[:10]} 'Add constants' has 6 added lines" in human
    assert f"agent-guard check: 4 commits of {base[:10]}..HEAD: 2 errors, 0 warnings" in human
    # Only the later, clean commits.
    assert cli("check", "--from-ref", bad, "--to-ref", big + "^").code == 0


def test_range_from_pre_commit_environment(repo: Repo, cli) -> None:
    base = repo.commit({"app.py": CODE, "other.py": "x = 1\n"})
    repo.commit({"app.py": ELIDED})
    env = {"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"}
    assert cli("check", env=env).code == 1
    assert cli("check", "--staged", env=env).code == 0  # an explicit mode wins over the environment
    assert cli("check", "app.py", env=env).code == 1
    assert cli("check", "other.py", env=env).code == 0


def test_range_checks_a_merge_by_its_own_change(repo: Repo, cli) -> None:
    # (More in test_merges.py.)  A clean merge is checked, and adds nothing.
    base = repo.commit({"app.py": CODE})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit({"topic.py": "t = 1\n"}, message="topic work")
    repo.git("checkout", "-q", "main")
    repo.commit({"main.py": "m = 1\n"}, message="main work")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert result.code == 0 and result.json()["findings"] == []
    commits = result.json()["check"]["commits"]
    assert [c.get("merge") for c in commits].count({"parents": 2, "conflicted": 0}) == 1 and len(commits) == 3
    assert "skipped" not in cli("check", "--from-ref", base, "--to-ref", "HEAD").stdout


def test_range_usage_errors(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    bad_ref = cli("check", "--from-ref", "origin/main", "--to-ref", "HEAD")
    assert bad_ref.code == 2
    assert "--from-ref 'origin/main' is not a commit in this repository; fetch it first" in bad_ref.stderr
    assert "fetch-depth: 0" in bad_ref.stderr
    one_side = cli("check", "--from-ref", "HEAD")
    assert one_side.code == 2 and "give both --from-ref and --to-ref" in one_side.stderr
    assert cli("check", "--all-files", "--from-ref", "HEAD", "--to-ref", "HEAD").code == 2
    assert cli("check", "--json", "--format", "sarif").code == 2
    empty = cli("check", "--from-ref", "HEAD", "--to-ref", "HEAD")
    assert empty.code == 0 and "note: no commits in HEAD..HEAD" in empty.stdout


def test_range_across_a_shallow_boundary(repo: Repo, cli, tmp_path: Path) -> None:
    base = repo.commit({"app.py": CODE})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit({"side.py": "s = 1\n"})
    repo.git("checkout", "-q", "main")
    repo.commit({"app.py": CODE + "x = 1\n"})
    repo.commit({"app.py": CODE + "x = 2\n"})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{repo.root}", str(clone))
    from conftest import run_cli

    result = run_cli(clone, "check", "--from-ref", "origin/side", "--to-ref", "origin/main")
    assert result.code == 2
    assert "the history is cut off (shallow)" in result.stderr and "fetch-depth: 0" in result.stderr
    missing = run_cli(clone, "check", "--from-ref", base, "--to-ref", "HEAD")
    assert missing.code == 2 and f"--from-ref '{base}' is not a commit in this repository" in missing.stderr


def test_not_a_repository(tmp_path: Path) -> None:
    from conftest import run_cli

    result = run_cli(tmp_path, "check")
    assert result.code == 2 and "not a git repository" in result.stderr


def test_git_agent_check_and_the_python_api(repo: Repo) -> None:
    import guard

    repo.commit({"app.py": CODE, "other.py": "x = 1\n"})
    repo.write({"app.py": ELIDED})
    repo.git("add", "app.py")
    proc = command(repo.root, "git", "agent-check", "--json")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["findings"][0]["code"] == "placeholder"
    report = guard.check(str(repo.root))
    assert report.exit_code == 1 and report.findings[0].code == "placeholder"
    assert guard.check(str(repo.root), paths=("other.py",)).exit_code == 0
    from guard.errors import UsageError

    with pytest.raises(UsageError, match="pathspec 'nope.py' did not match any files"):
        guard.check(str(repo.root), paths=("nope.py",))


# --- output formats ---------------------------------------------------------------------------
def _mixed(repo: Repo) -> str:
    """A range whose findings include an error, a warning, a pathless budget finding, and a
    path with a space, a comma and a colon in it."""
    base = repo.commit(
        {"src/app.py": CODE, "odd, name: x.py": "a = 1\n", ".agent-guard.yaml": "budget:\n  per_edit: {files: 1}\n"}
    )
    repo.commit({"src/app.py": ELIDED, "odd, name: x.py": "a = 2   \n"}, message="Two files, 100% lazy")
    return base


GH_LINE = re.compile(r"^::(error|warning) (?P<props>[^:]*)::(?P<data>.*)$")


def _gh_unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_github_annotations_are_well_formed(repo: Repo, cli) -> None:
    base = _mixed(repo)
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--format", "github")
    assert result.code == 1
    lines = result.stdout.splitlines()
    annotations = [ln for ln in lines if ln.startswith("::")]
    assert len(annotations) == 3
    parsed = []
    for line in annotations:
        m = GH_LINE.match(line)
        assert m, line
        assert "\n" not in m.group("data") and "\r" not in m.group("data")
        props = dict(p.split("=", 1) for p in m.group("props").split(","))
        assert set(props) <= {"file", "line", "title"} and int(props.get("line", "1")) >= 1
        parsed.append((m.group(1), {k: _gh_unescape(v) for k, v in props.items()}, _gh_unescape(m.group("data"))))
    by_title = {p[1]["title"]: p for p in parsed}
    kind, props, data = by_title["agent-guard placeholder"]
    assert kind == "error" and props["file"] == "src/app.py" and props["line"] == "2"
    assert data.startswith("the added line '# ... rest of the code unchanged' stands in for code")
    assert "(in commit " in data and "'Two files, 100% lazy'" in data
    assert data.splitlines()[1].startswith("write the code in full, or take those lines out of the commit; ")
    kind, props, data = by_title["agent-guard whitespace"]
    assert kind == "warning" and props["file"] == "odd, name: x.py" and props["line"] == "1"
    kind, props, data = by_title["agent-guard budget"]
    assert kind == "error" and props["line"] == "1" and props["file"] in ("src/app.py", "odd, name: x.py")
    assert lines[-2].startswith("agent-guard check: 1 commit of ")


# The required properties of each SARIF 2.1.0 object we emit (sarif-schema-2.1.0.json),
# plus what GitHub code scanning requires of an upload (ruleId, a location with a line).
SARIF_REQUIRED = {
    "log": ("version", "runs"),
    "run": ("tool",),
    "tool": ("driver",),
    "toolComponent": ("name",),
    "reportingDescriptor": ("id",),
    "multiformatMessageString": ("text",),
    "result": ("message",),
    "invocation": ("executionSuccessful",),
}


def _require(obj: dict[str, Any], kind: str) -> None:
    missing = [k for k in SARIF_REQUIRED[kind] if k not in obj]
    assert not missing, f"{kind} lacks {missing}: {obj}"


def validate_sarif(log: dict[str, Any]) -> None:
    _require(log, "log")
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        _require(run, "run")
        _require(run["tool"], "tool")
        driver = run["tool"]["driver"]
        _require(driver, "toolComponent")
        rules = driver.get("rules", [])
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids))
        for rule in rules:
            _require(rule, "reportingDescriptor")
            for key in ("shortDescription", "fullDescription", "help"):
                _require(rule[key], "multiformatMessageString")
            assert rule["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
        for inv in run.get("invocations", []):
            _require(inv, "invocation")
        for res in run["results"]:
            _require(res, "result")
            assert isinstance(res["message"]["text"], str) and res["message"]["text"]
            assert res["level"] in ("none", "note", "warning", "error")
            assert res["ruleId"] == ids[res["ruleIndex"]]
            assert 1 <= len(res["locations"]) <= 10
            for loc in res["locations"]:
                phys = loc["physicalLocation"]
                uri = phys["artifactLocation"]["uri"]
                assert uri and not uri.startswith("/") and " " not in uri and ":" not in uri.split("/")[0] or "%" in uri
                assert isinstance(phys["region"]["startLine"], int) and phys["region"]["startLine"] >= 1
            for value in res.get("partialFingerprints", {}).values():
                assert isinstance(value, str)


def test_sarif_meets_the_schema_and_github_requirements(repo: Repo, cli) -> None:
    base = _mixed(repo)
    result = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--format", "sarif")
    assert result.code == 1
    log = json.loads(result.stdout)
    validate_sarif(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "agent-guard"
    assert run["invocations"][0]["exitCode"] == 1
    results = {r["ruleId"]: r for r in run["results"]}
    assert set(results) == {"placeholder", "whitespace", "budget"}
    ph = results["placeholder"]
    assert ph["level"] == "error"
    assert ph["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "src/app.py", "uriBaseId": "%SRCROOT%"}
    assert ph["locations"][0]["physicalLocation"]["region"] == {"startLine": 2}
    assert ph["properties"]["commit"] == repo.git("rev-parse", "HEAD").strip()
    ws = results["whitespace"]
    assert ws["level"] == "warning"
    assert ws["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "odd%2C%20name%3A%20x.py"
    assert results["budget"]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}


def test_sarif_of_a_clean_check_has_no_results(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    result = cli("check", "--format", "sarif")
    assert result.code == 0
    log = json.loads(result.stdout)
    validate_sarif(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["invocations"][0]["exitCode"] == 0


def test_human_output_groups_findings_by_file(repo: Repo, cli) -> None:
    repo.commit({"b.py": CODE, "a.py": CODE})
    repo.write({"b.py": ELIDED + "z = 1  \n", "a.py": CODE + "<<<<<<< HEAD\n>>>>>>> x\n"})
    repo.git("add", "-A")
    out = cli("check").stdout
    located = [ln.split(":")[0] for ln in out.splitlines() if re.match(r"^\w+\.py:\d+: ", ln)]
    assert located == ["a.py", "a.py", "b.py", "b.py"]
    blocks = out.split("\n\n")
    assert blocks[0].startswith("a.py:10: conflict-marker: ") and blocks[1].startswith("b.py:2: placeholder: ")


# --- the plain git hook ---------------------------------------------------------------------
def commit(repo: Repo, *args: str) -> subprocess.CompletedProcess[bytes]:
    return command(repo.root, "git", "commit", "-q", *args, timeout=300)


def head(repo: Repo) -> str:
    return repo.git("rev-parse", "HEAD").strip()


def test_shipped_hook_is_the_installed_script() -> None:
    from guard.commit_check.githook import hook_script

    shipped = ROOT / "hooks" / "pre-commit"
    assert shipped.read_text() == hook_script("")
    assert shipped.stat().st_mode & stat.S_IXUSR


def test_install_hook_blocks_a_bad_commit(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    result = cli("install-hook")
    assert result.code == 0, result
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    assert f"installed the pre-commit hook at {hook}" in result.stdout
    assert hook.stat().st_mode & stat.S_IXUSR and sys.executable in hook.read_text()
    start = head(repo)
    repo.write({"app.py": ELIDED})
    repo.git("add", "app.py")
    proc = commit(repo, "-m", "lazy")
    assert proc.returncode != 0
    assert b"app.py:2: placeholder:" in proc.stdout + proc.stderr
    assert head(repo) == start
    # `git commit -a` judges the temporary index git builds for it.
    repo.git("reset", "-q")
    assert commit(repo, "-a", "-m", "lazy").returncode != 0 and head(repo) == start
    repo.write({"app.py": CODE.replace("return 1", "return 2")})
    repo.git("add", "app.py")
    assert commit(repo, "-m", "fine").returncode == 0 and head(repo) != start
    again = cli("install-hook")
    assert again.code == 0 and "updated the pre-commit hook" in again.stdout


def test_install_hook_keeps_an_existing_hook_and_uninstall_restores_it(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    hooks = repo.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    original = '#!/bin/sh\necho ran >> "$(git rev-parse --git-dir)/previous-ran"\nexit ${PREVIOUS_EXIT:-0}\n'
    (hooks / "pre-commit").write_text(original)
    (hooks / "pre-commit").chmod(0o755)
    result = cli("install-hook")
    assert result.code == 0
    assert f"the hook that was there is now {hooks / 'pre-commit.agent-guard-previous'}; it runs first" in result.stdout
    assert (hooks / "pre-commit.agent-guard-previous").read_text() == original
    marker = repo.root / ".git" / "previous-ran"
    # Both run: the old hook, then the check.
    repo.write({"app.py": ELIDED})
    repo.git("add", "app.py")
    assert commit(repo, "-m", "lazy").returncode != 0
    assert marker.read_text() == "ran\n"
    # A failing old hook still stops a clean commit.
    repo.write({"app.py": CODE.replace("return 1", "return 2")})
    repo.git("add", "app.py")
    proc = command(repo.root, "git", "commit", "-q", "-m", "x", env={"PREVIOUS_EXIT": "3"}, timeout=300)
    assert proc.returncode != 0 and marker.read_text() == "ran\nran\n"
    assert commit(repo, "-m", "fine").returncode == 0
    # Uninstall puts the old hook back, byte for byte and executable.
    out = cli("uninstall-hook")
    assert out.code == 0 and "put back the hook it had kept" in out.stdout
    assert (hooks / "pre-commit").read_text() == original and (hooks / "pre-commit").stat().st_mode & stat.S_IXUSR
    assert not (hooks / "pre-commit.agent-guard-previous").exists()
    again = cli("uninstall-hook")
    assert again.code == 0 and "is not agent-guard's; left it alone" in again.stdout
    assert (hooks / "pre-commit").read_text() == original


def test_install_hook_refuses_to_overwrite_a_kept_hook(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    hooks = repo.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit.agent-guard-previous").write_text("#!/bin/sh\nexit 0\n")
    before = repo.snapshot(), sorted(p.name for p in hooks.iterdir())
    result = cli("install-hook")
    assert result.code == 2 and "move one of them away" in result.stderr
    assert (repo.snapshot(), sorted(p.name for p in hooks.iterdir())) == before
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"


@pytest.mark.parametrize("relative", [True, False])
def test_install_hook_respects_core_hookspath(repo: Repo, cli, tmp_path: Path, relative: bool) -> None:
    repo.commit({"app.py": CODE})
    folder = repo.root / "githooks" if relative else tmp_path / "shared-hooks"
    repo.git("config", "core.hooksPath", "githooks" if relative else str(folder))
    result = cli("install-hook", cwd=repo.root)
    assert result.code == 0, result
    assert f"installed the pre-commit hook at {folder / 'pre-commit'} (core.hooksPath)" in result.stdout
    assert ("is outside this repository" in result.stdout) is (not relative)
    assert (folder / "pre-commit").is_file()
    assert not (repo.root / ".git" / "hooks" / "pre-commit").exists()
    repo.write({"app.py": ELIDED})
    repo.git("add", "app.py")
    start = head(repo)
    assert commit(repo, "-m", "lazy").returncode != 0 and head(repo) == start
    assert cli("uninstall-hook").code == 0 and not (folder / "pre-commit").exists()
    assert commit(repo, "-m", "lazy").returncode == 0


def test_hook_without_agent_guard_says_how_to_fix(repo: Repo, tmp_path: Path) -> None:
    from guard.commit_check.githook import hook_script

    repo.commit({"app.py": CODE})
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(hook_script(str(tmp_path / "gone" / "python")))
    hook.chmod(0o755)
    env = dict(os.environ, PATH="/usr/bin:/bin")
    proc = subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=repo.root, env=env, capture_output=True, timeout=120
    )
    if b"agent-guard is not installed here" not in proc.stderr:
        pytest.skip("agent-guard is installed in /usr/bin here")
    assert proc.returncode == 1
    assert b"remove this hook: agent-guard uninstall-hook" in proc.stderr


# --- building changes ------------------------------------------------------------------------
@pytest.mark.parametrize("data", [b"", b"a\nb\n", b"a\r\nb", "\ufeffx = 1\n".encode(), b"\x00bin\n", b"caf\xe9\n", b"\n\n"])
def test_created_is_make_change_without_the_diff(data: bytes) -> None:
    from guard.commit_check.changes import created
    from guard.model import Op
    from guard.tree.diffs import make_change

    expected = make_change("f.txt", Op.CREATE, None, data, new_mode=0o100644)._replace(diff="")
    assert created("f.txt", data, 0o100644) == expected


def test_the_issues_example_is_a_placeholder(repo: Repo, cli) -> None:
    repo.commit({"app.py": CODE})
    repo.write({"app.py": "def total(items):\n    # ... rest unchanged\n\n\ndef other():\n    return 1\n"})
    repo.git("add", "app.py")
    assert codes(cli("check", "--json")) == [("placeholder", "error", "app.py", 2)]


# --- a bare repository (a server's receive hook) --------------------------------------------
def _bare(repo: Repo, tmp_path: Path) -> Path:
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(server))
    return server


def test_check_a_range_in_a_bare_repository(repo: Repo, tmp_path: Path) -> None:
    from conftest import run_cli

    base = repo.commit({"app.py": CODE})
    repo.commit({"app.py": ELIDED}, message="lazy")
    server = _bare(repo, tmp_path)
    refs = git(server, "for-each-ref")
    result = run_cli(server, "check", "--from-ref", base, "--to-ref", "main", "--json")
    assert result.code == 1, result
    assert codes(result) == [("placeholder", "error", "app.py", 2)]
    # The same through git, as a hook runs it (a plain check is read without click).
    proc = command(server, "git", "agent-check", "--from-ref", base, "--to-ref", "main")
    assert proc.returncode == 1 and b"app.py:2: placeholder:" in proc.stdout, proc
    # What needs an index or a work tree says why it cannot run here, and changes nothing.
    staged = run_cli(server, "check")
    assert staged.code == 2 and "is a bare repository: it has no index or work tree to check" in staged.stderr
    assert "agent-guard check --from-ref A --to-ref B" in staged.stderr
    for args in (["apply"], ["rollback"], ["log"]):
        refused = run_cli(server, *args, input="")
        assert refused.code == 2 and "is a bare repository: agent-guard needs a working tree" in refused.stderr
    assert git(server, "for-each-ref") == refs


def test_a_bare_repositorys_policy_is_the_ranges_base(repo: Repo, tmp_path: Path) -> None:
    from conftest import run_cli

    base = repo.commit({"app.py": CODE, ".agent-guard.yaml": "checks:\n  placeholder: warning\n"})
    repo.commit({"app.py": ELIDED, ".agent-guard.yaml": "checks:\n  placeholder: error\n"}, message="lazy")
    server = _bare(repo, tmp_path)
    relaxed = run_cli(server, "check", "--from-ref", base, "--to-ref", "main", "--json")
    assert relaxed.code == 0 and ("placeholder", "warning", "app.py", 2) in codes(relaxed), relaxed
    # --policy pins it (a server should not let a push choose its own policy).
    pinned = run_cli(server, "check", "--from-ref", base, "--to-ref", "main", "--policy", "default", "--json")
    assert pinned.code == 1 and ("placeholder", "error", "app.py", 2) in codes(pinned)
    # A committed policy that extends a file of its commit reads it from that commit.
    team = repo.commit(
        {".agent-guard.yaml": "extends: ./base.yaml\n", "base.yaml": "checks: {placeholder: off}\n"}, message="extends"
    )
    repo.commit({"app.py": CODE}, message="restore")
    repo.commit({"app.py": ELIDED}, message="lazy again")
    server2 = tmp_path / "server2.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.root), str(server2))
    off = run_cli(server2, "check", "--from-ref", team, "--to-ref", "main", "--json")
    assert off.code == 0 and codes(off) == [], off
