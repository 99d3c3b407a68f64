"""A policy in pyproject.toml's [tool.agent-guard] table, as Python tools keep their settings.

Read when there is no .agent-guard.yaml; the table is the policy, so agents may not add, change
or remove it, but they may edit the rest of pyproject.toml (dependencies, versions), which a
Python project's agents do all the time.
"""

from __future__ import annotations

import json

import pytest
from conftest import Repo

PYPROJECT = '[project]\nname = "demo"\nversion = "1.0"\ndependencies = ["requests"]\n'
TABLE = '\n[tool.agent-guard]\nextends = "strict"\n\n[tool.agent-guard.checks]\nsyntax = "off"\n'


def _write(path: str, content: str) -> str:
    return json.dumps({"file_path": path, "content": content})


def test_the_table_is_the_policy_when_there_is_no_yaml(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"pyproject.toml": PYPROJECT + TABLE, "a.py": "x = 1\n"})
    shown = cli("policy", "show", "--json").json()
    assert shown["name"].startswith("pyproject.toml [tool.agent-guard](extends strict"), shown["name"]
    assert shown["settings"]["checks"]["syntax"] == "off" and shown["settings"]["read_before_edit"] is True
    assert shown["sources"]["checks.syntax"].endswith("pyproject.toml [tool.agent-guard]")
    # .agent-guard.yaml comes first.
    repo.write({".agent-guard.yaml": "extends: permissive\n"})
    assert cli("policy", "show", "--json").json()["name"].startswith(".agent-guard.yaml(extends permissive")


def test_agents_edit_pyproject_but_not_its_table(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"pyproject.toml": PYPROJECT + TABLE})
    assert cli("read", "pyproject.toml").code == 0  # strict: an edit needs a read first
    before = repo.snapshot()
    for content in (
        PYPROJECT,  # removes the table
        PYPROJECT + TABLE.replace('"strict"', '"permissive"'),  # relaxes it
        PYPROJECT + TABLE + '[tool.agent-guard.files.paths]\nallow = ["**"]\n',  # adds to it
        PYPROJECT + TABLE + "[broken\n",
    ):  # leaves a file no one can read the policy from
        r = cli("apply", "--json", input=_write("pyproject.toml", content))
        assert r.code == 1 and [f["code"] for f in r.json()["findings"] if f["severity"] == "error"] == ["path-protected"], (
            content,
            r,
        )
        assert "[tool.agent-guard]" in r.json()["findings"][0]["message"]
    assert repo.snapshot() == before
    # The rest of the file is the agents' to change.
    edit = json.dumps({"file_path": "pyproject.toml", "old_string": '["requests"]', "new_string": '["requests", "rich"]'})
    r = cli("apply", "--json", input=edit)
    assert r.code == 0, r
    assert b'"rich"' in repo.read("pyproject.toml")


def test_an_agent_cannot_add_the_table(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Without a table (and without .agent-guard.yaml) the default policy holds; adding a table that
    relaxes it is changing the policy."""
    repo.commit({"pyproject.toml": PYPROJECT})
    before = repo.snapshot()
    for content in (
        PYPROJECT + '[tool.agent-guard]\nextends = "permissive"\n',
        PYPROJECT + '[tool]\nagent-guard = {extends = "permissive"}\n',
        PYPROJECT + '[tool.agent-guard\nextends = "permissive"\n',
    ):  # not TOML, but names it
        r = cli("apply", "--json", input=_write("pyproject.toml", content))
        assert r.code == 1 and [f["code"] for f in r.json()["findings"] if f["severity"] == "error"] == ["path-protected"], (
            content,
            r,
        )
    assert repo.snapshot() == before
    r = cli("apply", "--json", input=_write("pyproject.toml", PYPROJECT + "[tool.ruff]\nline-length = 100\n"))
    assert r.code == 0, r


def test_a_table_that_does_not_read_is_a_usage_error(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"pyproject.toml": '[tool.agent-guard]\nchecks = {placeholdr = "off"}\n'})
    r = cli("policy", "show")
    assert r.code == 2 and "[tool.agent-guard]: checks.placeholdr: unknown key; did you mean 'checks.placeholder'" in r.stderr, r
    repo.write({"pyproject.toml": '[tool.agent-guard\nextends = "strict"\n'})
    r = cli("policy", "show")
    assert r.code == 2 and "not valid TOML" in r.stderr and "put the policy in .agent-guard.yaml" in r.stderr, r
    # A pyproject.toml that does not read but names no agent-guard is no policy: the default holds.
    repo.write({"pyproject.toml": "[project\n"})
    assert cli("policy", "show", "--json").json()["name"] == "default"


@pytest.mark.parametrize("mode", ["staged", "range"])
def test_at_commit_time_a_change_to_the_table_is_reported(repo: Repo, cli, mode: str) -> None:  # type: ignore[no-untyped-def]
    base = repo.commit({"pyproject.toml": PYPROJECT + TABLE})
    repo.write({"pyproject.toml": PYPROJECT})
    repo.git("add", "-A")
    if mode == "range":
        repo.commit(message="drops the table")
        r = cli("check", "--from-ref", base, "--to-ref", "HEAD", "--json")
    else:
        r = cli("check", "--json")
    found = [(f["code"], f["severity"], f["path"]) for f in r.json()["findings"]]
    assert ("path-protected", "warning", "pyproject.toml") in found, r
