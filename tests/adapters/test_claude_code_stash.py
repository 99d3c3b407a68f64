"""The Claude Code hook's stash: the record a file tool's pre hook leaves for its post hook.

A stash comes back from its file as the record that was written; a file of another format
version, or one that is not what the hook writes, is no stash (the post hook then goes by
what Claude Code reports, as without the pre hook).  Each of the post hook's three cases
(denied, stashed, none) is driven here from a stash written through the record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, run_cli

from guard.adapters.hook import stash
from guard.pipeline.engine import Guard
from guard.report import events

OLD = "def f():\n    return 1\n"
NEW = "def f():\n    return 2\n"
TOOL_USE = "toolu_stash1"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": OLD, "n.txt": "one\n", ".env": "TOKEN=1\n"})
    return repo


def passed(path: str = "app.py", **changed: Any) -> stash.Passed:
    fields: dict[str, Any] = {
        "path": path,
        "before": OLD.encode(),
        "mode": 0o100644,
        "intended": NEW.encode(),
        "agent": "claude",
        "turn": "p1234abcd",
        "missing_dirs": ("pkg",),
        "warnings": ("whitespace",),
        "duration": 0.25,
    }
    fields.update(changed)
    return stash.Passed(**fields)


def denied(path: str = "app.py", **changed: Any) -> stash.Denied:
    fields: dict[str, Any] = {
        "path": path,
        "before": OLD.encode(),
        "mode": 0o100644,
        "intended": NEW.encode(),
        "agent": "claude",
        "turn": None,
        "reasons": ("app.py:2: error: placeholder: ...",),
    }
    fields.update(changed)
    return stash.Denied(**fields)


def stash_file(repo: Repo) -> Path:
    folder = repo.root / ".git" / "agent-guard" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{TOOL_USE}.json"


def post(repo: Repo, response: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    data: dict[str, Any] = {
        "session_id": "s1",
        "cwd": str(repo.root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo.root / "app.py"), "old_string": "return 1", "new_string": "return 2"},
        "tool_use_id": TOOL_USE,
    }
    if response is not None:
        data["tool_response"] = response
    return run_cli(repo.root, "hook", "claude-code", input=json.dumps(data))


def logged(repo: Repo) -> list[dict[str, Any]]:
    return events.read(repo.root / ".git")


# ---------------------------------------------------------------------- the record and its file


@pytest.mark.parametrize(
    "record",
    [
        passed(),
        passed(before=None, mode=None, intended=None, turn=None, missing_dirs=(), warnings=(), duration=0.0),
        denied(),
        denied(before=None, intended=None, reasons=()),
    ],
    ids=["passed", "passed-create", "denied", "denied-create"],
)
def test_a_stash_comes_back_as_the_record_written(project: Repo, record: stash.Stash) -> None:
    g = Guard(project.root)
    stash.write(g, f"{TOOL_USE}.json", record)
    doc = json.loads(stash_file(project).read_text())
    assert doc["version"] == stash.VERSION and ("denied" in doc) == isinstance(record, stash.Denied)
    if record.before is not None:
        assert project.git("cat-file", "-p", doc["before"]) == OLD  # kept as a blob
    assert stash.take(g, f"{TOOL_USE}.json", "app.py") == record
    assert not stash_file(project).exists()  # taken away
    assert stash.take(g, f"{TOOL_USE}.json", "app.py") is None


def test_a_protected_files_content_is_kept_in_the_stash_itself(project: Repo) -> None:
    g = Guard(project.root)
    record = passed(".env", before=b"TOKEN=1\n", intended=b"TOKEN=2\n")
    stash.write(g, f"{TOOL_USE}.json", record)
    doc = json.loads(stash_file(project).read_text())
    assert doc["before"].startswith("b64:") and doc["intended"].startswith("b64:")
    assert "TOKEN=2" not in project.git("cat-file", "--batch-all-objects", "--batch")
    assert stash.take(g, f"{TOOL_USE}.json", ".env") == record


def test_a_stash_for_another_file_is_none(project: Repo) -> None:
    g = Guard(project.root)
    stash.write(g, f"{TOOL_USE}.json", passed())
    assert stash.take(g, f"{TOOL_USE}.json", "n.txt") is None
    assert not stash_file(project).exists()


def _unwritten(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """Files the hook does not write, each made from a good one (`doc`)."""
    out: list[tuple[str, Any]] = [
        ("not an object", [doc]),
        ("no version (the format before versions)", {k: v for k, v in doc.items() if k != "version"}),
        ("an older version", {**doc, "version": 0}),
        ("a newer version", {**doc, "version": stash.VERSION + 1}),
        ("version true", {**doc, "version": True}),
        ("a field missing", {k: v for k, v in doc.items() if k != "warnings"}),
        ("a field more", {**doc, "time": 1.0}),
        ("both cases", {**doc, "denied": ["refused"]}),
        (
            "denied not a list",
            {**{k: v for k, v in doc.items() if k not in ("missing_dirs", "warnings", "duration")}, "denied": "no"},
        ),
        ("a path not a string", {**doc, "path": ["app.py"]}),
        ("an empty agent", {**doc, "agent": ""}),
        ("a mode as text", {**doc, "mode": "100644"}),
        ("a boolean mode", {**doc, "mode": True}),
        ("a revision, not a blob id", {**doc, "before": "HEAD:app.py"}),
        ("a blob id of no blob", {**doc, "before": "0" * 40}),
        ("bad base64", {**doc, "before": "b64:not base64!"}),
        ("warnings not strings", {**doc, "warnings": [1]}),
        ("a negative duration", {**doc, "duration": -1}),
        ("a duration as text", {**doc, "duration": "0.5"}),
    ]
    return out


def test_a_file_the_hook_does_not_write_is_no_stash(project: Repo) -> None:
    g = Guard(project.root)
    good = stash.as_json(g, passed(), inline=False)
    assert stash.from_json(g, json.loads(json.dumps(good))) == passed()
    for why, doc in _unwritten(good):
        stash_file(project).write_text(json.dumps(doc))
        assert stash.take(g, f"{TOOL_USE}.json", "app.py") is None, why
        assert not stash_file(project).exists(), why
    stash_file(project).write_text("{not json")
    assert stash.take(g, f"{TOOL_USE}.json", "app.py") is None


# ---------------------------------------------------------------------- post, by case


def test_post_stashed_records_the_tools_change_with_the_stashed_warnings(project: Repo) -> None:
    stash.write(Guard(project.root), f"{TOOL_USE}.json", passed())
    (project.root / "app.py").write_text(NEW)
    r = post(project, response={})
    assert (r.code, r.stdout, r.stderr) == (0, "", ""), r
    diff = project.git("diff", "refs/agent-guard/claude^", "refs/agent-guard/claude")
    assert "-    return 1\n+    return 2\n" in diff
    assert "p1234abcd" in project.git("log", "-1", "--format=%B", "refs/agent-guard/claude")
    [event] = logged(project)
    assert event["warnings"] == ["whitespace"] and event["tool"] == "Edit"


def test_post_denied_puts_the_file_back(project: Repo) -> None:
    stash.write(Guard(project.root), f"{TOOL_USE}.json", denied())
    (project.root / "app.py").write_text(NEW)  # written though denied
    r = post(project, response={})
    assert r.code == 2 and "written anyway" in r.stderr and "placeholder" in r.stderr, r
    assert project.read("app.py").decode() == OLD
    assert project.git("for-each-ref", "refs/agent-guard") == ""


def test_post_denied_that_held_says_nothing(project: Repo) -> None:
    stash.write(Guard(project.root), f"{TOOL_USE}.json", denied())
    r = post(project, response={})
    assert (r.code, r.stdout, r.stderr) == (0, "", ""), r
    assert project.read("app.py").decode() == OLD


def test_post_none_goes_by_the_original_file_claude_code_reports(project: Repo) -> None:
    (project.root / "app.py").write_text(NEW)
    r = post(project, response={"originalFile": OLD})
    assert (r.code, r.stderr) == (0, ""), r
    assert "+    return 2\n" in project.git("diff", "refs/agent-guard/claude^", "refs/agent-guard/claude")


def test_post_none_without_the_original_file_reports_and_records_nothing(project: Repo) -> None:
    (project.root / "app.py").write_text(NEW)
    r = post(project, response={})
    assert r.code == 1 and "has no stash" in r.stderr, r
    assert project.git("for-each-ref", "refs/agent-guard") == ""


@pytest.mark.parametrize("version", [None, 0, stash.VERSION + 1])
def test_a_stash_of_another_version_is_none_to_post(project: Repo, version: int | None) -> None:
    """An old denial's stash does not put the file back: the post hook has none, and goes by what
    Claude Code reports (here: the original file, so the write is the agent's turn, which
    `git agent-rollback` undoes), as it does for any file it cannot read as a stash."""
    doc = stash.as_json(Guard(project.root), denied(), inline=False)
    if version is None:
        del doc["version"]
    else:
        doc["version"] = version
    stash_file(project).write_text(json.dumps(doc))
    (project.root / "app.py").write_text(NEW)
    r = post(project, response={"originalFile": OLD})
    assert (r.code, r.stderr) == (0, ""), r
    assert project.read("app.py").decode() == NEW
    assert "+    return 2\n" in project.git("diff", "refs/agent-guard/claude^", "refs/agent-guard/claude")
    assert not stash_file(project).exists()
    r = post(project, response={})  # and without a report of the file before: not recorded, said
    assert r.code == 1 and "has no stash" in r.stderr, r
