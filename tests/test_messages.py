"""Messages as the tool that reads them meets them: one location per finding, one JSON object
on every exit of a command asked for --json, and the small wordings (plurals, line spans)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, command, python, run_cli

CODE = "def total(items):\n    n = 0\n    for i in items:\n        n += i\n    return n\n"
# One edit with a placeholder, a conflict marker and trailing blanks (the strict policy
# refuses each), and a syntax error after it (`syntax` is a warning).
OLD = "    for i in items:\n        n += i\n"
NEW = "    # ... rest of the loop unchanged ...\n<<<<<<< HEAD\n    n += 1  \n"


def _edit(path: str = "app.py") -> str:
    return json.dumps({"file_path": path, "old_string": OLD, "new_string": NEW})


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "extends: strict\nread_before_edit: false\n"})
    return repo


def _located_once(text: str, findings: list[dict[str, Any]]) -> None:
    """Each finding's `path:line:` is printed once in `text`, and no message repeats it."""
    assert findings
    for f in findings:
        where = f"{f['path']}:{f['line']}:"
        assert not f["message"].startswith(f["path"]), f
        assert text.count(f"{where} {f['code']}:") >= 1, (where, text)
        for line in text.splitlines():
            assert line.count(where) <= 1, line


def test_apply_prints_each_location_once(project: Repo) -> None:
    report = run_cli(project.root, "apply", "--json", input=_edit()).json()
    codes = sorted({f["code"] for f in report["findings"]})  # type: ignore[union-attr]
    assert codes == ["conflict-marker", "placeholder", "syntax", "whitespace"], report
    human = run_cli(project.root, "apply", input=_edit())
    assert human.code == 1
    _located_once(human.stdout, report["findings"])  # type: ignore[arg-type]
    assert "app.py:5: whitespace: trailing whitespace (blank-at-eol) in the added line '    n += 1··' (· a space)" in human.stdout


def test_check_prints_each_location_once(project: Repo) -> None:
    project.write({"app.py": CODE.replace(OLD, NEW)})
    project.git("add", "app.py")
    report = run_cli(project.root, "check", "--json").json()
    findings = report["findings"]
    assert {f["code"] for f in findings} >= {"placeholder", "conflict-marker", "whitespace"}  # type: ignore[union-attr]
    _located_once(run_cli(project.root, "check").stdout, findings)  # type: ignore[arg-type]
    github = run_cli(project.root, "check", "--format", "github").stdout
    for f in findings:  # type: ignore[union-attr]
        assert f"file={f['path']},line={f['line']}," in github and f"::{f['path']}:{f['line']}" not in github
    sarif = json.loads(run_cli(project.root, "check", "--format", "sarif").stdout)
    for result in sarif["runs"][0]["results"]:
        assert not result["message"]["text"].startswith("app.py")


def test_api_mcp_and_hook_print_each_location_once(project: Repo) -> None:
    import guard
    from guard.adapters import mcp_server
    from guard.pipeline.engine import Guard

    report = guard.apply(_edit(), repo=str(project.root), check=True)
    assert report.findings and all(not f.message.startswith("app.py") for f in report.findings)
    findings = [f.as_dict() for f in report.findings]

    session = mcp_server.Session(Guard(project.root), "model")
    assert not session.call("read_file", {"path": "app.py"}).error
    result = session.call("edit_file", {"path": "app.py", "edits": [{"old_string": OLD, "new_string": NEW}]})
    assert result.error
    _located_once(result.text, findings)

    hook = json.dumps(
        {
            "session_id": "s1",
            "cwd": str(project.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_use_id": "t1",
            "tool_input": {"file_path": str(project.root / "app.py"), "old_string": OLD, "new_string": NEW},
        }
    )
    answer = run_cli(project.root, "hook", "claude-code", input=hook)
    reason = json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecisionReason"] if answer.stdout else answer.stderr
    _located_once(reason, findings)


def test_every_refused_case_names_its_location_once(project: Repo) -> None:
    # A placeholder through every path that words one (the lazy dialect, a whole file).
    whole = "app.py\n```python\ndef total(items):\n    # ... existing code ...\n    return n\n```\n"
    for args, data in (
        (["--format", "whole"], whole),
        (["--format", "lazy", "--path", "app.py"], "def total(items):\n    # ... existing code ...\n"),
    ):
        report = run_cli(project.root, "apply", "--json", *args, input=data).json()
        assert report["status"] == "refused"
        for f in report["findings"]:  # type: ignore[union-attr]
            assert not re.match(rf"{re.escape(str(f['path']))}:\d+", f["message"]), f


# ---------------------------------------------------------------------- --json on every exit


def _broken_ledger(repo: Repo) -> None:
    """The agent's shadow ref points at a blob: reading the ledger fails inside (exit 3)."""
    blob = repo.git("hash-object", "-w", "app.py").strip()
    repo.git("update-ref", "refs/agent-guard/agent", blob)


def _corrupt_head(repo: Repo) -> None:
    """HEAD's commit object is garbage: the staged change cannot be read (exit 3)."""
    head = repo.git("rev-parse", "HEAD").strip()
    loose = repo.root / ".git" / "objects" / head[:2] / head[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"garbage")


PATCH = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def total(items):\n-    n = 0\n+    n = 0.0\n"

# (arguments, what to do to the repository first, standard input, exit status, finding code)
FAILURES: list[tuple[list[str], Any, str, int, str]] = [
    (["apply", "--json", "--bogus"], None, PATCH, 2, "usage"),
    (["apply", "--json", "--format", "diff3"], None, PATCH, 2, "usage"),
    (["apply", "--json", "--agent"], None, PATCH, 2, "usage"),
    (["apply", "--json", "missing.diff"], None, "", 2, "usage"),
    (["apply", "--json", "--agent", "x.lock"], None, PATCH, 2, "usage"),
    (["apply", "--json", "--policy", "nope"], None, PATCH, 2, "usage"),
    (["apply", "--json"], _broken_ledger, PATCH, 3, "internal"),
    (["check", "--json", "--bogus"], None, "", 2, "usage"),
    (["check", "--json", "--from-ref", "nope", "--to-ref", "HEAD"], None, "", 2, "usage"),
    (["check", "--format", "json", "--from-ref", "HEAD"], None, "", 2, "usage"),
    (["check", "--json", "--all-files", "--from-ref", "HEAD", "--to-ref", "HEAD"], None, "", 2, "usage"),
    (["check", "--json"], _corrupt_head, "", 3, "internal"),
    (["log", "--json", "--max-count", "many"], None, "", 2, "usage"),
    (["log", "--json", "--agent", "a b"], None, "", 2, "usage"),
    (["log", "--json"], _broken_ledger, "", 3, "internal"),
    (["rollback", "--json"], None, "", 2, "usage"),
    (["rollback", "--json", "--turn", "1", "--to", "1"], None, "", 2, "usage"),
    (["rollback", "--json"], _broken_ledger, "", 3, "internal"),
    (["stats", "--json", "--since", "someday"], None, "", 2, "usage"),
]


@pytest.mark.parametrize(
    "args,prepare,stdin,status,code", FAILURES, ids=[" ".join(f[0]) + (" (broken)" if f[1] else "") for f in FAILURES]
)
def test_json_is_one_object_on_every_exit(repo: Repo, args: list[str], prepare: Any, stdin: str, status: int, code: str) -> None:
    repo.commit({"app.py": CODE})
    if prepare is not None:
        prepare(repo)
    # As installed: `python -m guard` is the console script's entry (a plain `check` skips click).
    proc = python(repo.root, "-m", "guard", *args) if not stdin else _with_input(repo.root, args, stdin)
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    report = json.loads(lines[0])
    assert report["version"] == 1 and report["status"] == "error" and report["files"] == []
    [finding] = report["findings"]
    assert finding["code"] == code and finding["severity"] == "error" and finding["message"], finding
    assert proc.stderr.strip(), "the message is on stderr too, for a person watching"


def _with_input(cwd: Path, args: list[str], stdin: str):  # type: ignore[no-untyped-def]
    import subprocess

    from conftest import checkout_env

    return subprocess.run(
        [sys.executable, "-m", "guard", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=checkout_env(),
        timeout=120,
        check=False,
    )


def test_json_error_outside_a_repository_and_through_git(tmp_path: Path, repo: Repo) -> None:
    outside = python(tmp_path, "-m", "guard", "apply", "--json")
    assert outside.returncode == 2 and json.loads(outside.stdout)["findings"][0]["code"] == "usage"
    assert "not a git repository" in json.loads(outside.stdout)["findings"][0]["message"]
    via_git = command(repo.root, "git", "agent-log", "--json", "--bogus")
    assert via_git.returncode == 2 and json.loads(via_git.stdout)["status"] == "error"
    assert json.loads(via_git.stdout)["findings"][0]["hint"] == "see `git agent-log --help`"
    # Without --json, stdout stays empty: the message is for a person, on stderr.
    plain = command(repo.root, "git", "agent-log", "--bogus")
    assert plain.returncode == 2 and plain.stdout == b"" and b"No such option" in plain.stderr


# ---------------------------------------------------------------------- small wordings


def test_counts_and_line_spans_read_as_english(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    applied = cli("apply", input=PATCH)
    assert applied.code == 0 and applied.stdout.startswith("agent-guard: applied (unified): 1 file\n"), applied
    # A rollback whose one line was changed again: "line 2", not "lines 2-2".
    repo.write({"app.py": CODE.replace("n = 0", "n = 1.5")})
    refused = cli("rollback", "--json").json()
    [finding] = refused["findings"]  # type: ignore[misc]
    assert finding["code"] == "rollback-conflict" and finding["message"].startswith("line 2 of app.py changed after"), finding
    read = cli("read", "app.py", "--lines", "3")
    assert read.stdout.splitlines()[-1] == "(line 3 of 5)"


def test_an_invalid_agent_name_says_what_is_wrong(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    before = repo.snapshot()
    for name, what in (
        ("x.lock", "it ends in '.lock', which git keeps for its lock files"),
        ("a b", "it holds ' '"),
        ("-x", "it starts with '-'"),
        ("a..b", "it holds '..'"),
        ("x.", "it ends in '.'"),
        ("é", "it holds 'é'"),
    ):
        result = cli("apply", "--agent", name, input=PATCH)
        assert result.code == 2 and f"invalid agent name {name!r}: {what}; an agent name is part of a git ref" in result.stderr
    assert repo.snapshot() == before


def test_policy_errors_name_the_file_once_and_end_cleanly(tmp_path: Path, repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("budget:\n  per_edit: {files: -1}\n")
    result = cli("policy", "check", str(bad))
    assert result.code == 2
    assert result.stderr == (
        f"{bad}: budget.per_edit.files: expected a whole number from 0 to 9,223,372,036,854,775,807 "
        "(or null for no limit), got -1\n"
    )
    bad.write_text("extends: strcit\n")
    assert cli("policy", "check", str(bad)).stderr.startswith(f"{bad}: extends: no policy preset named 'strcit'")
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "checks: {placeholder: 3}\n"})
    applied = cli("apply", input=PATCH)
    assert applied.code == 2 and applied.stderr.rstrip().endswith("got 3") and "..." not in applied.stderr


def test_a_hashline_edit_of_unseen_lines_is_labelled_with_that_line(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "".join(f"line {i}\n" for i in range(1, 31))})
    header = cli("read", "a.txt", "--lines", "10:20").stdout.splitlines()[0]
    before = repo.snapshot()
    result = cli("apply", "--json", input=f"{header}\nreplace 25\n+new\n")
    [finding] = result.json()["findings"]  # type: ignore[misc]
    assert (finding["code"], finding["line"]) == ("stale", 25), finding
    assert "changes line 25 of a.txt, which the read" in finding["message"] and "(it showed lines 10-20)" in finding["message"]
    assert repo.snapshot() == before


# ---------------------------------------------------------------------- whose turns


def test_rollback_and_log_name_the_agents_that_have_turns(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    assert cli("apply", "--agent", "claude", input=PATCH).code == 0
    before = repo.snapshot()
    rollback = cli("rollback")
    assert rollback.code == 2
    assert (
        "agent has no recorded turns (refs/agent-guard/agent does not exist); turns are recorded for "
        "claude (1 turn): undo claude's last turn with git agent-rollback --agent claude"
    ) in rollback.stderr
    assert repo.snapshot() == before
    log = cli("log", "--agent", "codex")
    assert log.code == 0 and "turns are recorded for claude (1 turn): list them with git agent-log --agent claude" in log.stdout
    assert (
        cli("apply", "--agent", "codex", input=PATCH.replace("n = 0.0", "n = 0").replace("-    n = 0\n", "-    n = 0.0\n")).code
        == 0
    )
    both = cli("rollback", "--agent", "gemini")
    assert (
        "turns are recorded for claude (1 turn), codex (1 turn): name the agent whose last turn to undo, "
        "e.g. git agent-rollback --agent claude" in both.stderr
    )
    assert "list every agent's turns with git agent-log" in cli("log", "--agent", "gemini").stdout
    # The named agent's turns undo as asked.
    assert command(repo.root, "git", "agent-rollback", "--agent", "claude").returncode == 0


def test_no_turns_anywhere_says_so(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    assert "no agent has any in this repository yet" in cli("rollback").stderr
    assert cli("log").stdout.startswith("no recorded turns: no agent has any in this repository yet")


def test_stats_counts_one_edit_as_one_edit(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"app.py": CODE})
    assert cli("apply", input=PATCH).code == 0
    text = cli("stats", "--min-events", "1").stdout
    assert text.startswith("agent-guard stats: 1 event, ") and "\nagent: 1 edit, 1 landed" in text, text
    assert "of 1 edit lands (the only dialect with 1 edit)" in text, text


def test_a_stale_hashline_finding_points_at_the_line_where_it_is_now(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.txt": "".join(f"line {i}\n" for i in range(1, 31))})
    header = cli("read", "a.txt", "--lines", "10:20").stdout.splitlines()[0]
    # Two lines added at the top, and line 15 changed: it is line 17 of the file now.
    repo.write({"a.txt": "new A\nnew B\n" + "".join(f"line {i}\n" if i != 15 else "line FIFTEEN\n" for i in range(1, 31))})
    before = repo.snapshot()
    result = cli("apply", input=f"{header}\nreplace 15\n+x\n")
    assert result.code == 1 and repo.snapshot() == before
    assert result.stdout.splitlines()[1].startswith("a.txt:17: stale: a.txt changed since it was read (#"), result.stdout
    assert "line 15 no longer holds what the read showed (line 15 was 'line 15'; it is line 17 now)" in result.stdout
    assert "    17| line FIFTEEN" in result.stdout


# --------------------------------------------------------------------------- terminal safety

OSC = "\x1b]0;owned\x07"  # sets a terminal's title; others move the cursor, erase lines, set the clipboard


def test_a_control_character_in_a_path_is_printed_escaped(project: Repo) -> None:
    patch = f"--- /dev/null\n+++ b/x{OSC}.py\n@@ -0,0 +1 @@\n+a = 1\n"
    r = run_cli(project.root, "apply", input=patch)
    assert r.code == 1
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "x\\x1b]0;owned\\x07.py" in r.stdout  # the path as it is, made visible


def test_check_prints_committed_names_and_subjects_escaped(project: Repo) -> None:
    base = project.git("rev-parse", "HEAD").strip()
    project.write({f"ev{OSC}il.py": "x = 1\n# ... rest of the file unchanged ...\n"})
    project.git("add", "-A")
    project.git("commit", "-q", "-m", f"subject {OSC} here")
    r = run_cli(project.root, "check", "--from-ref", base, "--to-ref", "HEAD")
    assert r.code == 1, r
    out = r.stdout + r.stderr
    assert "\x1b" not in out and "\x07" not in out
    assert "ev\\x1b]0;owned\\x07il.py" in out
