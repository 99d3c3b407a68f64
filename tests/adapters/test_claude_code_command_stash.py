"""The Claude Code hook's command stash: the record a command's (Bash) pre hook leaves for its post hook.

A stash comes back from its file as the record that was written, and so does the note of the
repositories it was kept in.  A stash file the post hook cannot read as one (corrupt, of another
format version, a field missing, extra or of the wrong type) is no stash: the post hook answers
as when there is none, and records nothing there; a command's change under a policy that reverts
violations stays, as without the pre hook.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import Repo, run_cli

from guard.adapters.hook import command_stash
from guard.adapters.hook.command_stash import CommandStash
from guard.pipeline.engine import Guard
from guard.turns import shell

LINES = "".join(f"line {i}\n" for i in range(1, 11))
APP = "def f():\n    return 1\n"
ELIDE = "printf 'def f():\\n    # ... rest of the code unchanged ...\\n' > app.py"
ELIDED = "def f():\n    # ... rest of the code unchanged ...\n"
TOOL_USE = "toolu_c1"
NAME = f"cmd-{TOOL_USE}.json"
PROMPT = "3f1c9a20-7d41-4c55-9a0e-1b2c3d4e5f60"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"n.txt": LINES, "app.py": APP, ".agent-guard.yaml": "shell:\n  on_violation: revert\n"})
    return repo


def hook(cwd: Path, event: str, command: str, response: Any = None):  # type: ignore[no-untyped-def]
    data: dict[str, Any] = {
        "session_id": "s1",
        "prompt_id": PROMPT,
        "cwd": str(cwd),
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "a command"},
        "tool_use_id": TOOL_USE,
    }
    if response is not None:
        data["tool_response"] = response
    return run_cli(cwd, "hook", "claude-code", input=json.dumps(data))


def pre_then_run(cwd: Path, command: str) -> None:
    pre = hook(cwd, "PreToolUse", command)
    assert (pre.code, pre.stdout, pre.stderr) == (0, "", ""), pre
    subprocess.run(["bash", "-c", command], cwd=cwd, check=True, timeout=60)


def post(cwd: Path, command: str):  # type: ignore[no-untyped-def]
    return hook(cwd, "PostToolUse", command, response={"stdout": "", "stderr": ""})


def stash_file(repo: Repo) -> Path:
    folder = repo.root / ".git" / "agent-guard" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / NAME


def ledger(repo: Repo) -> str:
    return repo.git("for-each-ref", "refs/agent-guard")


def a_record(repo: Repo, turn: str | None = "p3f1c9a20", roots: tuple[str, ...] = ()) -> CommandStash:
    before = shell.begin(Guard(repo.root), "claude")
    return CommandStash(before, "claude", turn, "sed -i s/a/b/ n.txt", roots or (str(repo.root),))


# ---------------------------------------------------------------------- the record and its files


def test_a_command_stash_comes_back_as_the_record_written(project: Repo, tmp_path: Path) -> None:
    (project.root / "n.txt").write_text("dirty\n")  # a dirty file: the snapshot keeps it
    (project.root / ".env").write_text("TOKEN=1\n")
    g = Guard(project.root)
    for record in (a_record(project), a_record(project, None, (str(project.root), str(tmp_path / "other")))):
        command_stash.write(g, NAME, record)
        doc = json.loads(stash_file(project).read_text())
        assert doc["version"] == command_stash.VERSION
        assert set(doc) == {"version", "before", "agent", "turn", "command", "repositories"}
        assert command_stash.take(g, NAME) == record
        assert not stash_file(project).exists()  # taken away
        assert command_stash.take(g, NAME) is None


def test_the_pre_hook_keeps_a_record_and_a_note(project: Repo) -> None:
    text = "sed -i 's/^line 5$/line 5 by sed/' n.txt"
    assert hook(project.root, "PreToolUse", text).code == 0
    kept = command_stash.take(Guard(project.root), NAME)
    assert kept is not None
    assert (kept.agent, kept.turn, kept.command, kept.repositories) == ("claude", "p3f1c9a20", text, (str(project.root),))
    assert kept.before.policy.get("shell.on_violation") == "revert"
    assert command_stash.take_note(NAME) == (str(project.root),)
    assert command_stash.take_note(NAME) == ()  # taken away


def _unwritten(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """Stashes the hook does not write, each made from a good one (`doc`)."""
    before = doc["before"]
    return [
        ("not an object", [doc]),
        ("no version", {k: v for k, v in doc.items() if k != "version"}),
        ("an older version", {**doc, "version": 0}),
        ("a newer version", {**doc, "version": command_stash.VERSION + 1}),
        ("version true", {**doc, "version": True}),
        ("version as text", {**doc, "version": "1"}),
        *[(f"no {field}", {k: v for k, v in doc.items() if k != field}) for field in sorted(set(doc) - {"version"})],
        ("a field more", {**doc, "started": 1.0}),
        ("the layout before versions", {**{k: v for k, v in doc.items() if k not in ("version", "before")}, **before}),
        ("an empty agent", {**doc, "agent": ""}),
        ("an agent not a string", {**doc, "agent": ["claude"]}),
        ("a turn not a string", {**doc, "turn": 7}),
        ("a command not a string", {**doc, "command": None}),
        ("repositories not a list", {**doc, "repositories": "/repo"}),
        ("repositories not strings", {**doc, "repositories": [1]}),
        ("before not an object", {**doc, "before": [before]}),
        ("before with no snapshot", {**doc, "before": {k: v for k, v in before.items() if k != "snapshot"}}),
        ("before with no policy", {**doc, "before": {k: v for k, v in before.items() if k != "policy"}}),
        ("a snapshot of another version", {**doc, "before": {**before, "snapshot": {**before["snapshot"], "version": -1}}}),
        ("a snapshot's dirty files a list", {**doc, "before": {**before, "snapshot": {**before["snapshot"], "dirty": []}}}),
        ("a policy with a field more", {**doc, "before": {**before, "policy": {**before["policy"], "extra": 1}}}),
    ]


def test_a_file_the_hook_does_not_write_is_no_command_stash(project: Repo) -> None:
    g = Guard(project.root)
    record = a_record(project)
    good = command_stash.as_json(record)
    assert command_stash.from_json(json.loads(json.dumps(good))) == record
    for why, doc in _unwritten(json.loads(json.dumps(good))):
        stash_file(project).write_text(json.dumps(doc))
        assert command_stash.take(g, NAME) is None, why
        assert not stash_file(project).exists(), why  # taken away all the same
    for why, text in (("not JSON", "{not json"), ("empty", ""), ("cut short", json.dumps(good)[:40])):
        stash_file(project).write_text(text)
        assert command_stash.take(g, NAME) is None, why


def test_a_note_the_hook_does_not_write_is_no_note(project: Repo, tmp_path: Path) -> None:
    roots = (str(project.root), str(tmp_path / "other"))
    command_stash.note(NAME, roots)
    assert json.loads(_note_path().read_text()) == {"version": command_stash.VERSION, "repositories": list(roots)}
    assert command_stash.take_note(NAME) == roots
    good = {"version": command_stash.VERSION, "repositories": list(roots)}
    for doc in (
        list(roots),  # the note before versions
        {**good, "version": command_stash.VERSION + 1},
        {"version": command_stash.VERSION},
        {**good, "more": 1},
        {**good, "repositories": [str(project.root), 2]},
    ):
        command_stash.note(NAME, roots)
        path = _note_path()
        path.write_text(json.dumps(doc))
        assert command_stash.take_note(NAME) == (), doc
        assert not path.exists()


def _note_path() -> Path:
    """The note, in the user's runtime folder (the test's own: conftest)."""
    [found] = Path(os.environ["XDG_RUNTIME_DIR"]).rglob(NAME)
    return found


# ---------------------------------------------------------------------- post, with a stash it cannot read

# No stash from before the command: its change is neither recorded nor reverted, and the user hears why.
UNSTASHED = (
    1,
    "",
    f"agent-guard: cannot record what Bash changed: no snapshot from before it ran (tool_use_id {TOOL_USE!r}); "
    "the PreToolUse hook did not run for this call: is Bash in its matcher?\n",
)


def _spoil_field(field: str) -> Callable[[str], str]:
    def spoil(text: str) -> str:
        doc = json.loads(text)
        del doc[field]
        return json.dumps(doc)

    return spoil


def _another_version(text: str) -> str:
    doc = json.loads(text)
    return json.dumps({**doc, "version": doc["version"] + 1})


def _before_versions(text: str) -> str:
    """The stash as agent-guard wrote it before its format had a version."""
    doc = json.loads(text)
    flat = {k: v for k, v in doc.items() if k not in ("version", "before")}
    return json.dumps({**flat, **doc["before"], "started": 1.0})


SPOILED: dict[str, Callable[[str], str] | None] = {
    "missing": None,
    "corrupt": lambda text: text[: len(text) // 2],
    "not JSON": lambda text: "\x00\xff garbage",
    "another version": _another_version,
    "the format before versions": _before_versions,
    "no before": _spoil_field("before"),
    "no repositories": _spoil_field("repositories"),
    "no agent": _spoil_field("agent"),
}


@pytest.mark.parametrize("how", sorted(SPOILED))
def test_a_stash_the_post_hook_cannot_read_is_a_missing_one(project: Repo, how: str) -> None:
    pre_then_run(project.root, ELIDE)
    spoil = SPOILED[how]
    if spoil is None:
        stash_file(project).unlink()
    else:
        stash_file(project).write_text(spoil(stash_file(project).read_text()))
    r = post(project.root, ELIDE)
    assert (r.code, r.stdout, r.stderr) == UNSTASHED, r
    assert project.read("app.py").decode() == ELIDED  # not reverted: nothing says what it was before
    assert project.read("n.txt").decode() == LINES
    assert ledger(project) == ""  # and not recorded


@pytest.mark.parametrize("how", ["missing", "corrupt", "another version", "no before"])
def test_a_second_repositorys_unreadable_stash_is_a_missing_one(project: Repo, how: str) -> None:
    """A command that changes two repositories: the one whose stash is gone or unreadable is said to be
    not recorded, the other is finished (its violation reverted)."""
    (project.root.parent / "other").mkdir()
    other = Repo(project.root.parent / "other")
    other.commit({"o.txt": "one\n"})
    text = f"{ELIDE} && cd ../other && printf 'two\\n' >> o.txt"
    pre_then_run(project.root, text)
    theirs = other.root / ".git" / "agent-guard" / "hooks" / NAME
    spoil = SPOILED[how]
    if spoil is None:
        theirs.unlink()
    else:
        theirs.write_text(spoil(theirs.read_text()))
    r = post(other.root, text)  # the post hook in the other repository: the note leads back
    assert r.code == 2 and "reverted" in r.stderr and "placeholder" in r.stderr, r
    assert f"no snapshot from before this Bash command in {other.root}: what it changed there is not recorded" in r.stderr
    assert project.read("app.py").decode() == APP  # reverted
    assert other.read("o.txt").decode() == "one\ntwo\n"  # stays, not recorded
    assert ledger(other) == ""


def test_a_stash_it_cannot_keep_everywhere_blocks_and_leaves_none(project: Repo) -> None:
    """The pre hook keeps a stash in every repository the command can change, or in none."""
    (project.root.parent / "other").mkdir()
    other = Repo(project.root.parent / "other")
    other.commit({"o.txt": "one\n"})
    (other.root / ".git" / "agent-guard").mkdir(exist_ok=True)
    (other.root / ".git" / "agent-guard" / "hooks").write_text("not a folder\n")
    r = hook(project.root, "PreToolUse", f"{ELIDE} && cd ../other && printf 'two\\n' >> o.txt")
    assert r.code == 2 and "blocked" in r.stderr, r
    assert not stash_file(project).exists()
    assert list((project.root / ".git" / "agent-guard" / "shell").glob("index.*")) == []
    assert command_stash.take_note(NAME) == ()
