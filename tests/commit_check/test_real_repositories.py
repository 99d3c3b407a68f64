"""Commit checks that fit real repositories: per-check excludes, lock files and generated files out
of budgets, and a baseline for adopting the check on a repository that does not pass it yet.

Before: staging a 454-line package-lock.json failed `check` on the 400-line budget with advice to
split the commit, a fixture folder full of elision text or conflict markers failed every check,
and `check --all-files` on agent-guard's own repository reported 248 errors, with no way to adopt
the check but switching whole checks off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env

CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
ELIDED = "def total(items):\n    # ... rest of the code unchanged\n"
MARKERS = "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n"


@pytest.fixture(autouse=True)
def no_pre_commit_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "PRE_COMMIT"):
        monkeypatch.delenv(key, raising=False)


def _codes(r: Any) -> list[tuple[str, str | None]]:
    return [(f["code"], f["path"]) for f in r.json()["findings"]]


def _lock(lines: int) -> str:
    body = ",\n".join(f'    "node_modules/pkg{i}": {{"version": "1.0.{i}"}}' for i in range(lines - 2))
    return "{\n" + body + "\n}\n"


# --- lock files and generated files: not counted in budgets ----------------------------------
def test_a_lock_file_is_not_counted_in_the_budget(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"package.json": "{}\n"})
    repo.write({"package-lock.json": _lock(454), "web/yarn.lock": "# yarn\n" * 500})
    repo.git("add", "-A")
    r = cli("check", "--json")
    assert r.code == 0 and _codes(r) == [], r
    # Counted in when the policy says so (as committed before the change): the budget then holds them too.
    repo.write({".agent-guard.yaml": "budget: {skip_generated: false}\n"})
    repo.git("add", ".agent-guard.yaml")
    repo.git("commit", "-qm", "the policy", "--", ".agent-guard.yaml")
    r = cli("check", "--json")
    assert r.code == 1 and ("budget", None) in _codes(r), r
    # A lock file does not hide what else the commit does: the other files still count.
    repo.git("rm", "-q", ".agent-guard.yaml")
    repo.git("commit", "-qm", "no policy", "--", ".agent-guard.yaml")
    repo.write({"src/big.py": "x = 1\n" * 401})
    repo.git("add", "-A")
    r = cli("check", "--json")
    assert r.code == 1 and [f["message"] for f in r.json()["findings"]][0].startswith("the staged change has 401 added lines"), r


@pytest.mark.parametrize("attributes", ["dist/** linguist-generated", "dist/** linguist-generated=true", "dist/** -diff"])
def test_files_the_attributes_mark_generated_are_not_counted(repo: Repo, cli, attributes: str) -> None:  # type: ignore[no-untyped-def]
    repo.commit({".gitattributes": attributes + "\n", "src/a.py": "a = 1\n"})
    repo.write({"dist/bundle.js": "var x = 1;\n" * 900})
    repo.git("add", "-A")
    r = cli("check", "--json")
    assert r.code == 0 and _codes(r) == [], r


def test_an_agents_edit_of_a_lock_file_is_not_held_to_the_edit_budget(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"Cargo.lock": "# lock\n"})
    before = repo.snapshot()
    edit = json.dumps({"file_path": "Cargo.lock", "content": "# lock\n" + "[[package]]\n" * 450})
    r = cli("apply", "--check", "--json", input=edit)
    assert r.code == 0, r
    big = json.dumps({"file_path": "src/big.rs", "content": "fn f() {}\n" * 450})
    r = cli("apply", "--check", "--json", input=big)
    assert r.code == 1 and _codes(r) == [("budget", None)], r
    assert repo.snapshot() == before


# --- excludes per check ---------------------------------------------------------------------
def test_a_check_excluded_for_some_paths_still_runs_everywhere_else(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(
        {
            ".agent-guard.yaml": "exclude:\n  placeholder: ['tests/fixtures/**']\n"
            "  conflict-marker: ['tests/fixtures/**', '*.orig']\n",
            "app.py": CODE,
        }
    )
    repo.write(
        {
            "tests/fixtures/lazy.py": ELIDED,
            "tests/fixtures/merge.txt": MARKERS,
            "old.orig": MARKERS,
            "app.py": ELIDED,
            "notes.txt": MARKERS,
        }
    )
    repo.git("add", "-A")
    r = cli("check", "--json")
    assert r.code == 1 and sorted(_codes(r)) == [("conflict-marker", "notes.txt")] * 3 + [("placeholder", "app.py")], r
    # --all-files: the same excludes.
    r = cli("check", "--all-files", "--json")
    assert sorted(set(_codes(r))) == [("conflict-marker", "notes.txt"), ("placeholder", "app.py")], r


def test_an_agents_edit_honours_the_excludes_too(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit(
        {
            ".agent-guard.yaml": "exclude: {placeholder: ['fixtures/**'], whitespace: ['*.md']}\n",
            "fixtures/lazy.py": CODE,
            "app.py": CODE,
            "README.md": "x\n",
        }
    )
    lazy = {
        "old_string": "    result = 0\n    for item in items:\n        result += item\n",
        "new_string": "    # ... rest of the code unchanged\n",
    }
    assert cli("apply", "--json", input=json.dumps({"file_path": "fixtures/lazy.py", **lazy})).code == 0
    refused = cli("apply", "--json", input=json.dumps({"file_path": "app.py", **lazy}))
    assert refused.code == 1 and _codes(refused) == [("placeholder", "app.py")], refused
    # `whitespace: fix` leaves an excluded file's lines as they are (a Markdown table's padding).
    r = cli("apply", "--json", input=json.dumps({"file_path": "README.md", "old_string": "x\n", "new_string": "x   \n"}))
    assert r.code == 0 and repo.read("README.md") == b"x   \n", r


def test_policy_show_shows_the_excludes(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({".agent-guard.yaml": "exclude: {budget: ['vendor/**']}\nbaseline: .agent-guard-baseline.json\n"})
    shown = cli("policy", "show").stdout
    assert "exclude:\n  budget: [vendor/**]  # from: " in shown and "baseline: .agent-guard-baseline.json  # from:" in shown
    assert "skip_generated: true  # from: preset default" in shown
    doc = cli("policy", "show", "--json").json()
    assert doc["settings"]["exclude"] == {"budget": ["vendor/**"]} and ".agent-guard-baseline.json" in doc["own_files"]


# --- the baseline ---------------------------------------------------------------------------
def _adopt(repo: Repo, cli) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A repository that fails today: fixtures with markers, an old file with trailing blanks."""
    repo.commit({"fixtures/merge.txt": MARKERS, "old.py": "x = 1   \ny = 2   \n", "app.py": CODE})
    before = repo.snapshot()
    r = cli("check", "--all-files", "--policy", "strict", "--json")
    assert r.code == 1 and len(r.json()["findings"]) == 5, r
    wrote = cli("check", "--all-files", "--policy", "strict", "--write-baseline", ".agent-guard-baseline.json")
    assert wrote.code == 0 and wrote.stdout.startswith(
        "agent-guard check: wrote the baseline .agent-guard-baseline.json: 5 findings in 2 files; name it in "
        ".agent-guard.yaml (baseline: .agent-guard-baseline.json)"
    ), wrote
    assert repo.snapshot() != before  # the baseline file, and nothing else
    (repo.root / ".agent-guard.yaml").write_text("extends: strict\nbaseline: .agent-guard-baseline.json\n")
    repo.commit(message="adopt agent-guard")
    return json.loads(repo.read(".agent-guard-baseline.json"))


def test_the_baseline_lists_findings_by_path_code_and_text(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    doc = _adopt(repo, cli)
    assert doc["version"] == 1
    assert {"path": "old.py", "code": "whitespace", "text": "x = 1   ", "count": 1} in doc["findings"]
    assert all(set(e) == {"path", "code", "text", "count"} for e in doc["findings"])
    # Written again over the same findings: byte for byte the same file.
    first = repo.read(".agent-guard-baseline.json")
    cli("check", "--all-files", "--policy", "strict", "--write-baseline", ".agent-guard-baseline.json")
    assert repo.read(".agent-guard-baseline.json") == first


def test_with_a_baseline_only_new_findings_fail(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    _adopt(repo, cli)
    r = cli("check", "--all-files", "--json")
    assert r.code == 0 and _codes(r) == [], r
    assert r.json()["check"]["baseline"] == {"file": ".agent-guard-baseline.json", "passed": 5}
    assert "5 findings listed in the baseline .agent-guard-baseline.json not reported" in cli("check", "--all-files").stdout
    # A line moved (its number changes) is still the same finding; a new one is reported.
    repo.write({"old.py": "# a comment above\nx = 1   \ny = 2   \nz = 3   \n"})
    repo.git("add", "old.py")
    r = cli("check", "--json")
    assert r.code == 1 and [(f["code"], f["path"], f["line"]) for f in r.json()["findings"]] == [("whitespace", "old.py", 4)], r
    # The same text once more than the baseline lists it: the extra one is new.
    repo.write({"old.py": "x = 1   \ny = 2   \nx = 1   \n"})
    repo.git("add", "old.py")
    r = cli("check", "--all-files", "--json")
    assert [(f["path"], f["line"]) for f in r.json()["findings"]] == [("old.py", 3)], r


def test_a_range_reads_the_baseline_committed_at_its_base(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """A commit of the range cannot list its own findings: the baseline comes from the range's base."""
    _adopt(repo, cli)
    base = repo.git("rev-parse", "HEAD").strip()
    repo.write({"new.py": "bad = 1   \n"})
    repo.git("add", "new.py")
    cli("check", "--all-files", "--policy", "strict", "--write-baseline", ".agent-guard-baseline.json")
    repo.commit(message="adds a finding, and lists it in the baseline")
    r = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    assert r.code == 1 and ("whitespace", "new.py") in _codes(r), r
    assert ("path-protected", ".agent-guard-baseline.json") in _codes(r)  # the baseline's change, reported


def test_agents_cannot_change_the_baseline(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    _adopt(repo, cli)
    before = repo.snapshot()
    for edit in (
        {"file_path": ".agent-guard-baseline.json", "content": '{"version": 1, "findings": []}\n'},
        {"file_path": ".agent-guard-baseline.json", "old_string": '"version": 1', "new_string": '"version": 1 '},
    ):
        r = cli("apply", "--json", input=json.dumps(edit))
        assert r.code == 1 and _codes(r) == [("path-protected", ".agent-guard-baseline.json")], r
        assert "agents may never change the policy" in r.json()["findings"][0]["message"]
    assert repo.snapshot() == before


def test_write_baseline_needs_all_files(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "a = 1\n"})
    r = cli("check", "--write-baseline", "b.json")
    assert r.code == 2 and "give --all-files" in r.stderr and not (repo.root / "b.json").exists(), r


def test_a_broken_baseline_is_a_usage_error(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({".agent-guard.yaml": "baseline: b.json\n", "b.json": "{not json\n", "a.py": "a = 1\n"})
    r = cli("check", "--all-files")
    assert r.code == 2 and "baseline b.json is not a baseline file" in r.stderr, r
    (repo.root / "b.json").unlink()
    r = cli("check", "--all-files")
    assert r.code == 0 and "names the baseline b.json, which does not exist" in r.stdout, r


# --- agent-guard's own repository -------------------------------------------------------------
@pytest.mark.slow
def test_agent_guard_adopts_its_own_check() -> None:
    """`check --all-files` on this checkout passes with its own .agent-guard.yaml (fixtures excluded)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "guard", "check", "--all-files", "--json"],
        cwd=root,
        capture_output=True,
        env=checkout_env(),
        timeout=600,
        check=False,
    )
    doc = json.loads(r.stdout)
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert r.returncode == 0 and errors == [], errors[:5]
