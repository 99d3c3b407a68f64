"""A structural rewrite is no oracle on a protected file's contents (issue 37, section 4).

A rewrite's paths name files by glob, and a pattern is a guess at what they hold: if a
protected file among them were read, "path-protected" (the pattern matched there) against
"not-found" or "applied" (it did not) would tell an agent that may not read the file
whether its guess was right.  So a file an edit may not change and the agent may not read,
among the files a rewrite would look in, refuses the rewrite before any file is read: the
answer is the same whatever the file holds.
"""

from __future__ import annotations

import json

import pytest
from conftest import Repo

from guard.pipeline.engine import Guard

pytest.importorskip("ast_grep_py", reason="structural rewrites need the `structural` extra")

WORKFLOW = "name: release\non: push\njobs:\n  publish:\n    runs-on: ubuntu-20.04\n"
APP = "name: app\njobs:\n  build:\n    runs-on: macos-14\n"


def _rewrite(pattern: str, paths: list[str], language: str = "yaml") -> str:
    return json.dumps({"rewrite": [{"pattern": pattern, "to": "runs-on: ubuntu-24.04"}], "paths": paths, "language": language})


def _answer(repo: Repo, edit: str, check: bool = False) -> tuple[str, list[tuple[str, str, str | None, str, str]]]:
    report = Guard(repo.root).apply(edit, check=check)
    return report.status, [(f.code, f.severity, f.path, f.message, f.hint) for f in report.findings]


@pytest.mark.parametrize("check", [False, True])
def test_a_right_and_a_wrong_guess_get_the_same_answer(repo: Repo, check: bool) -> None:
    repo.commit({".github/workflows/release.yml": WORKFLOW, "deploy/app.yml": "name: app\n"})
    before = repo.snapshot()
    right = _answer(repo, _rewrite("runs-on: ubuntu-20.04", ["**/*.yml"]), check)
    wrong = _answer(repo, _rewrite("runs-on: windows-2019", ["**/*.yml"]), check)
    assert right == wrong, (right, wrong)
    status, findings = right
    assert status == "refused" and [(c, p) for c, _s, p, _m, _h in findings] == [
        ("path-protected", ".github/workflows/release.yml")
    ]
    assert "narrow `paths`" in findings[0][4]
    assert repo.snapshot() == before


def test_a_match_elsewhere_does_not_tell_either(repo: Repo) -> None:
    # A pattern that matches the readable file: applied or refused must not depend on the other.
    repo.commit({".github/workflows/release.yml": WORKFLOW, "deploy/app.yml": APP})
    before = repo.snapshot()
    both = _answer(repo, _rewrite("runs-on: $OS", ["**/*.yml"]))
    one = _answer(repo, _rewrite("runs-on: macos-14", ["**/*.yml"]))
    assert both == one and both[0] == "refused", (both, one)
    assert repo.snapshot() == before


def test_a_secret_of_no_language_is_not_looked_at(repo: Repo) -> None:
    # The rule is about the files a rewrite would read: one its language leaves out is not.
    repo.commit({".github/workflows/release.yml": WORKFLOW, "deploy/app.yml": APP, "ci.py": "run('macos-14')\n"})
    report = Guard(repo.root).apply(
        json.dumps({"rewrite": [{"pattern": "run($X)", "to": "start($X)"}], "paths": ["**/*"], "language": "python"})
    )
    assert report.status == "applied", report
    assert repo.read("ci.py") == b"start('macos-14')\n"


def test_readable_or_editable_protection_keeps_the_old_answers(repo: Repo) -> None:
    # `read_protected: true`: the agent may read the file, so a match there is what refuses.
    repo.commit({".agent-guard.yaml": "read_protected: true\n", ".github/workflows/release.yml": WORKFLOW, "deploy/app.yml": APP})
    readable = _answer(repo, _rewrite("runs-on: macos-14", ["**/*.yml"]))
    assert readable[0] == "applied", readable
    assert repo.read("deploy/app.yml") == APP.replace("macos-14", "ubuntu-24.04").encode()
