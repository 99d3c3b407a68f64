"""At commit time the findings speak to the person committing, not to an agent.

`agent-guard check` (the pre-commit hook, CI) runs the checks an agent's edit goes through,
and once reported them in the agent's words: "agents may not change this path; leave it out of
the edit, or ask the user to change it", to the user committing.  A person is told what the
finding means for their commit and which policy key changes it; an agent's edit of the same
files is still told what it may do.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Repo

CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
ELIDED = "def total(items):\n    # ... rest of the code unchanged\n"
AGENT_WORDS = ("agents may not", "agents may never", "ask the user", "of the edit", "the user's to change", "send the")


@pytest.fixture(autouse=True)
def no_pre_commit_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "PRE_COMMIT"):
        monkeypatch.delenv(key, raising=False)


def _staged(repo: Repo, cli, files: dict[str, str]) -> dict[tuple[str, str], dict[str, Any]]:  # type: ignore[no-untyped-def]
    repo.write(files)
    repo.git("add", "-A")
    before = repo.snapshot()
    data = cli("check", "--json").json()
    assert repo.snapshot() == before
    return {(f["code"], f["path"]): f for f in data["findings"]}


def _spoken_to_a_person(found: dict[str, Any]) -> None:
    said = f"{found['message']}\n{found['hint']}"
    assert not [w for w in AGENT_WORDS if w in said], said


def test_protected_paths_and_control_files_at_commit_time(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE, "pyproject.toml": '[project]\nname = "app"\n'})
    found = _staged(
        repo,
        cli,
        {
            ".github/workflows/ci.yml": "on: push\n",
            ".gitattributes": "*.py whitespace\n",
            "pyproject.toml": '[project]\nname = "app"\n\n[tool.agent-guard]\nextends = "default"\n',
        },
    )
    workflow = found[("path-protected", ".github/workflows/ci.yml")]
    attributes = found[("path-protected", ".gitattributes")]
    table = found[("path-protected", "pyproject.toml")]
    for f in (workflow, attributes, table):
        assert f["severity"] == "warning"
        _spoken_to_a_person(f)
    assert "paths.protected" in workflow["hint"], workflow
    assert "paths: {control_editable: ['.gitattributes']}" in attributes["hint"], attributes
    assert "does not stop the commit" in workflow["hint"] and "does not stop the commit" in attributes["hint"]


def test_the_allow_list_at_commit_time(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "paths:\n  allow: ['src/**']\n"})
    f = _staged(repo, cli, {"app.py": CODE.replace("result = 0", "result = 0.0")})[("path-protected", "app.py")]
    _spoken_to_a_person(f)
    assert "paths.allow" in f["hint"], f


def test_a_placeholder_at_commit_time_names_the_key_that_keeps_the_check_off(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    f = _staged(repo, cli, {"app.py": ELIDED})[("placeholder", "app.py")]
    _spoken_to_a_person(f)
    assert "exclude: {placeholder: ['app.py']}" in f["hint"], f


def test_an_agents_edit_of_the_same_is_still_told_in_its_words(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    edit = json.dumps({"file_path": "app.py", "old_string": CODE, "new_string": ELIDED})
    refused = cli("apply", "--json", input=edit).json()
    [f] = [f for f in refused["findings"] if f["code"] == "placeholder"]
    assert "out of the edit" in f["hint"], f
