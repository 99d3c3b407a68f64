"""`agent-guard mcp`: the tools in-process, and the server as a subprocess behind an MCP client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

import pytest
from conftest import GIT_ENV, Repo

pytest.importorskip("mcp")

from guard.adapters import mcp_server  # noqa: E402

# guard.pipeline.engine (and so pygit2) is imported inside the tests, never at collection: libgit2 fixes
# its global-config search path on first use, which must come after conftest isolated HOME.


def Guard(root: Path):  # type: ignore[no-untyped-def]  # noqa: N802
    from guard.pipeline.engine import Guard as G

    return G(root)


SRC = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.commit({"shapes.py": SRC, "docs/notes.md": "one\ntwo\nthree\n"})
    return repo


@pytest.fixture
def session(project: Repo) -> mcp_server.Session:
    return mcp_server.Session(Guard(project.root), "model")


def call(s: mcp_server.Session, name: str, **args: Any) -> mcp_server.Result:
    return s.call(name, args)


# ---------------------------------------------------------------------- the tool table


def test_tools_are_described_for_models() -> None:
    assert list(mcp_server.TOOLS) == ["read_file", "edit_file", "write_file", "apply_patch", "list_turns", "rollback"]
    for t in mcp_server.TOOLS.values():
        assert t.schema["type"] == "object" and t.schema["additionalProperties"] is False
        assert 80 <= len(t.description) <= 1800, t.name
        for prop in t.schema["properties"].values():
            assert prop.get("description"), t.name
    edit = mcp_server.TOOLS["edit_file"].description
    for rule in ("exactly once", "replace_all", "read_file", "not-found", "ambiguous", "stale", "placeholder"):
        assert rule in edit


def test_arguments_are_checked(session: mcp_server.Session) -> None:
    assert "missing required argument 'edits'" in call(session, "edit_file", path="shapes.py").text
    r = call(session, "read_file", path="shapes.py", start_line="3")
    assert r.error and "argument 'start_line' must be an integer, not a string" in r.text
    r = call(session, "read_file", path="shapes.py", lines="1:3")
    assert r.error and "unknown argument 'lines'" in r.text
    r = call(session, "apply_patch", patch="x", format="diff3")
    assert r.error and "must be one of" in r.text
    r = session.call("delete_file", {"path": "shapes.py"})
    assert r.error and "unknown tool" in r.text


# ---------------------------------------------------------------------- read, and the read rule


def test_read_file_whole_and_range(session: mcp_server.Session) -> None:
    r = call(session, "read_file", path="shapes.py")
    assert not r.error
    first, *rest = r.text.splitlines()
    assert first.startswith("[shapes.py#") and rest[:2] == ["1:def area(w, h):", "2:    return w * h"]
    r = call(session, "read_file", path="shapes.py", start_line=5, end_line=6)
    assert r.text.splitlines()[1:] == ["5:def perimeter(w, h):", "6:    return 2 * (w + h)", "(lines 5-6 of 6)"]
    r = call(session, "read_file", path="shapes.py", start_line=4, end_line=2)
    assert r.error and "end_line" in r.text


@pytest.mark.parametrize(
    "path,code",
    [
        ("../outside.py", "path-outside"),
        ("/etc/passwd", "path-outside"),
        (".git/config", "path-protected"),
        ("nope.py", "missing"),
    ],
)
def test_read_file_stays_in_the_repository(session: mcp_server.Session, path: str, code: str) -> None:
    r = call(session, "read_file", path=path)
    assert r.error and f": {code}: " in r.text, r.text


def test_a_missing_file_is_created_with_the_servers_own_tool(project: Repo, session: mcp_server.Session) -> None:
    """The hint names write_file, which the model has, not a hashline 'create' section of the command line."""
    r = call(session, "read_file", path="docs/new.md")
    assert r.error and ": missing: docs/new.md does not exist" in r.text, r.text
    assert "the write_file tool (path 'docs/new.md')" in r.text and "hashline" not in r.text, r.text
    hint = r.data["findings"][0]["hint"]
    assert "write_file" in hint and "git agent-" not in hint, hint


def test_edit_needs_a_read_of_the_current_content(project: Repo, session: mcp_server.Session) -> None:
    before = project.snapshot()
    edit = [{"old_string": "w * h", "new_string": "w * h  # area"}]
    r = call(session, "edit_file", path="shapes.py", edits=edit)
    assert r.error and "stale" in r.text and "read_file" in r.text
    assert project.snapshot() == before
    call(session, "read_file", path="shapes.py")
    r = call(session, "edit_file", path="shapes.py", edits=edit)
    assert not r.error, r.text
    # Its own edit does not make the file unread: a second edit follows without a re-read.
    r = call(session, "edit_file", path="shapes.py", edits=[{"old_string": "2 * (w + h)", "new_string": "2 * w + 2 * h"}])
    assert not r.error, r.text
    # Someone else's change does.
    (project.root / "shapes.py").write_text(project.read("shapes.py").decode() + "# user\n")
    before = project.snapshot()
    r = call(session, "edit_file", path="shapes.py", edits=[{"old_string": "# user", "new_string": "# user!"}])
    assert r.error and "changed since you last read it" in r.text
    assert project.snapshot() == before


def test_read_rule_can_be_turned_off(project: Repo) -> None:
    s = mcp_server.Session(Guard(project.root), "model", require_read=False)
    r = call(s, "edit_file", path="shapes.py", edits=[{"old_string": "w * h", "new_string": "h * w"}])
    assert not r.error, r.text


# ---------------------------------------------------------------------- edits


def test_edit_result_carries_findings_diff_and_report(project: Repo, session: mcp_server.Session) -> None:
    call(session, "read_file", path="shapes.py")
    before = project.snapshot()
    r = call(session, "edit_file", path="shapes.py", edits=[{"old_string": "return", "new_string": "yield"}])
    assert r.error and ": ambiguous: " in r.text and "add surrounding lines" in r.text
    assert r.data is not None and r.data["status"] == "refused" and r.data["findings"][0]["code"] == "ambiguous"
    assert project.snapshot() == before
    r = call(
        session,
        "edit_file",
        path="shapes.py",
        edits=[
            {"old_string": "    return w * h\n", "new_string": "    return w * h\n"},
            {"old_string": "2 * (w + h)", "new_string": "(w + h) * 2"},
        ],
        dry_run=True,
    )
    assert "Diff of what would be written" in r.text and project.snapshot() == before
    r = call(session, "edit_file", path="shapes.py", edits=[{"old_string": "2 * (w + h)", "new_string": "(w + h) * 2"}])
    assert not r.error
    assert "Diff of what was written:\ndiff --git a/shapes.py b/shapes.py" in r.text
    assert "-    return 2 * (w + h)\n+    return (w + h) * 2" in r.text
    assert r.data is not None and r.data["turn"]["agent"] == "model" and f"rollback turn='{r.data['turn']['id']}'" in r.text


def test_write_file_creates_and_replaces(project: Repo, session: mcp_server.Session) -> None:
    r = call(session, "write_file", path="pkg/util.py", content="X = 1\n")
    assert not r.error, r.text
    assert project.read("pkg/util.py") == b"X = 1\n"
    r = call(session, "write_file", path="docs/notes.md", content="new\n")
    assert r.error and "stale" in r.text
    r = call(session, "write_file", path="pkg/util.py", content="def f():\n    # ... rest of the code ...\n")
    assert r.error and "placeholder" in r.text


def test_apply_patch_any_dialect(project: Repo, session: mcp_server.Session) -> None:
    call(session, "read_file", path="docs/notes.md")
    diff = "--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    r = call(session, "apply_patch", patch=diff)
    assert not r.error, r.text
    assert project.read("docs/notes.md") == b"one\nTWO\nthree\n"
    codex = "*** Begin Patch\n*** Update File: docs/notes.md\n@@\n one\n-TWO\n+2\n*** End Patch\n"
    r = call(session, "apply_patch", patch=codex, format="codex")
    assert not r.error, r.text
    assert project.read("docs/notes.md") == b"one\n2\nthree\n"
    read = call(session, "read_file", path="docs/notes.md").text.splitlines()[0]
    r = call(session, "apply_patch", patch=f"{read}\nreplace 3..3\n+3\n")
    assert not r.error, r.text
    assert project.read("docs/notes.md") == b"one\n2\n3\n"
    r = call(session, "apply_patch", patch="--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n")
    assert r.error and "path-outside" in r.text
    r = call(session, "apply_patch", patch="docs/notes.md\n```\none\n2\n3\nfour\n```\n", format="whole")
    assert not r.error, r.text
    assert project.read("docs/notes.md") == b"one\n2\n3\nfour\n"


def test_apply_patch_offers_every_dialect() -> None:
    from guard.dialects import DIALECTS

    schema = mcp_server.TOOLS["apply_patch"].schema["properties"]["format"]  # type: ignore[index]
    assert schema["enum"] == ["auto", *DIALECTS]


# ---------------------------------------------------------------------- turns


def test_list_turns_and_rollback(project: Repo, session: mcp_server.Session) -> None:
    r = call(session, "rollback")
    assert r.error and "no recorded turns" in r.text
    call(session, "read_file", path="shapes.py")
    call(session, "edit_file", path="shapes.py", edits=[{"old_string": "w * h", "new_string": "h * w"}])
    call(session, "edit_file", path="shapes.py", edits=[{"old_string": "2 * (w + h)", "new_string": "2*(w+h)"}])
    r = call(session, "list_turns")
    assert [t["id"] for t in r.data["turns"]] == ["2", "1"]  # type: ignore[index]
    assert r.text.startswith("model turn 2")
    r = call(session, "rollback", turn="1")
    assert not r.error, r.text
    assert project.read("shapes.py").decode() == SRC.replace("2 * (w + h)", "2*(w+h)")
    r = call(session, "list_turns", limit=5, diff=True)
    assert r.data["turns"][0]["kind"] == "rollback" and "diff --git" in r.text  # type: ignore[index]
    # A rollback changes what the model last saw: the next edit needs a fresh read.
    r = call(session, "edit_file", path="shapes.py", edits=[{"old_string": "w * h", "new_string": "w*h"}])
    assert r.error and "stale" in r.text


def test_rollback_session_undoes_that_sessions_last_turn_and_leaves_the_other_sessions(project: Repo) -> None:
    """Two sessions of one agent (two MCP servers, one per agent session): before, the tool could only
    undo the agent's newest turn, whichever session made it."""
    one, two = mcp_server.Session(Guard(project.root), "model"), mcp_server.Session(Guard(project.root), "model")
    one.g.budget_session, two.g.budget_session = "S1", "S2"
    call(one, "read_file", path="shapes.py")
    assert not call(one, "edit_file", path="shapes.py", edits=[{"old_string": "w * h", "new_string": "h * w"}]).error
    call(two, "read_file", path="docs/notes.md")
    assert not call(two, "edit_file", path="docs/notes.md", edits=[{"old_string": "two", "new_string": "2"}]).error
    turns = call(one, "list_turns").data["turns"]  # type: ignore[index]
    mine = next(t["session"] for t in turns if t["id"] == "1")
    assert mine and mine != next(t["session"] for t in turns if t["id"] == "2")
    r = call(one, "rollback", session=mine)
    assert not r.error, r.text
    assert project.read("shapes.py").decode() == SRC  # the session's turn undone
    assert project.read("docs/notes.md").decode() == "one\n2\nthree\n"  # the other session's newer turn kept
    both = call(one, "rollback", turn="2", session=mine)
    assert both.error and "not turn and session" in both.text


# ---------------------------------------------------------------------- the real server


def _server_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in GIT_ENV}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    env["AGENT_GUARD_AGENT"] = "model"
    return env


def test_mcp_server_over_stdio(project: Repo, tmp_path: Path) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "guard", "mcp"], cwd=str(project.root), env=_server_env())
    log = open(tmp_path / "server.log", "w")
    seen: dict[str, Any] = {}

    async def text(s: ClientSession, name: str, **args: Any) -> tuple[bool, str, Any]:
        r = await s.call_tool(name, args, read_timeout_seconds=60)
        return bool(r.is_error), "".join(c.text for c in r.content if c.type == "text"), r.structured_content

    async def scenario() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params, errlog=log) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=60) as s:
                    init = await s.initialize()
                    seen["server"] = init.server_info.name
                    seen["tools"] = sorted(t.name for t in (await s.list_tools()).tools)
                    seen["read"] = await text(s, "read_file", path="shapes.py")
                    seen["snapshot_before"] = project.snapshot()
                    seen["refused"] = await text(
                        s,
                        "edit_file",
                        path="shapes.py",
                        edits=[
                            {"old_string": "def area(w, h):\n    return w*h\n", "new_string": "def area(w, h):\n    return h*w\n"}
                        ],
                    )
                    seen["snapshot_after_refusal"] = project.snapshot()
                    seen["applied"] = await text(
                        s, "edit_file", path="shapes.py", edits=[{"old_string": "return w * h", "new_string": "return h * w"}]
                    )
                    seen["content_after_edit"] = project.read("shapes.py")
                    seen["turns"] = await text(s, "list_turns")
                    seen["rollback"] = await text(s, "rollback")

    try:
        anyio.run(scenario)
    finally:
        log.close()
    server_log = (tmp_path / "server.log").read_text()
    assert seen["server"] == "agent-guard", server_log
    assert seen["tools"] == sorted(mcp_server.TOOLS)
    err, out, _ = seen["read"]
    assert not err and out.splitlines()[1:3] == ["1:def area(w, h):", "2:    return w * h"]
    err, out, data = seen["refused"]
    assert err and ": not-found: " in out and "closest region" in out and "2|     return w * h" in out, out
    assert data["status"] == "refused" and data["findings"][0]["hint"]
    assert seen["snapshot_after_refusal"] == seen["snapshot_before"]
    err, out, data = seen["applied"]
    assert not err and data["status"] == "applied" and "+    return h * w" in out
    assert seen["content_after_edit"] == SRC.replace("return w * h", "return h * w").encode()
    err, out, data = seen["turns"]
    assert not err and [t["id"] for t in data["turns"]] == ["1"] and data["turns"][0]["agent"] == "model"
    err, out, data = seen["rollback"]
    assert not err and data["status"] == "applied" and data["rolls_back"] == ["1"]
    assert project.read("shapes.py") == SRC.encode()
    assert project.git("for-each-ref", "--format=%(refname)", "refs/agent-guard/").split() == ["refs/agent-guard/model"]


def test_mcp_command_without_repository(tmp_path: Path) -> None:
    import subprocess

    r = subprocess.run(
        [sys.executable, "-m", "guard", "mcp"],
        cwd=tmp_path,
        env={**os.environ, **_server_env()},
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 2 and b"not a git repository" in r.stderr


# ---------------------------------------------------------------------- over stdio, as a client sees it

T = TypeVar("T")


def over_stdio(root: Path, log: Path, scenario: Callable[[Any], Awaitable[T]], *args: str) -> T:
    """Run `scenario(session)` against `agent-guard mcp ARGS` started in `root`, through the official SDK."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "guard", "mcp", *args], cwd=str(root), env=_server_env())
    out: list[T] = []

    async def main() -> None:
        with anyio.fail_after(120), open(log, "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=60) as s:
                    await s.initialize()
                    out.append(await scenario(s))

    anyio.run(main)
    return out[0]


async def tool(s: Any, name: str, **args: Any) -> tuple[bool, str, Any]:
    """(is_error, text, structured content) of one tools/call."""
    r = await s.call_tool(name, args, read_timeout_seconds=60)
    return bool(r.is_error), "".join(c.text for c in r.content if c.type == "text"), r.structured_content


def test_apply_patch_needs_a_read_like_edit_file(project: Repo, tmp_path: Path) -> None:
    diff = "--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    codex_move = (
        "*** Begin Patch\n*** Update File: shapes.py\n*** Move to: geometry.py\n"
        "@@\n-def area(w, h):\n+def area(width, h):\n*** End Patch\n"
    )
    create = "*** Begin Patch\n*** Add File: new.py\n+X = 1\n*** End Patch\n"
    seen: dict[str, Any] = {}

    async def scenario(s: Any) -> None:
        seen["unread"] = await tool(s, "apply_patch", patch=diff)
        seen["dry run"] = await tool(s, "apply_patch", patch=diff, dry_run=True)
        seen["snapshot"] = project.snapshot()
        seen["moved"] = await tool(s, "apply_patch", patch=codex_move)
        seen["created"] = await tool(s, "apply_patch", patch=create)  # a new file needs no read
        await tool(s, "read_file", path="docs/notes.md")
        seen["read"] = await tool(s, "apply_patch", patch=diff)
        # Its own write counts as read: a second patch follows without a new read.
        seen["again"] = await tool(s, "apply_patch", patch=diff.replace("-two\n+TWO", "-TWO\n+2"))
        (project.root / "docs/notes.md").write_text("one\n2\nthree\nuser\n")  # someone else's change
        seen["changed"] = await tool(s, "apply_patch", patch=diff.replace("-two\n+TWO", "-2\n+3"))

    before = project.snapshot()
    over_stdio(project.root, tmp_path / "server.log", scenario)
    for key in ("unread", "dry run", "moved"):
        err, text, data = seen[key]
        assert err and ": stale: " in text and "you have not read it" in text and "read_file" in text, (key, text)
        assert data["status"] == "refused" and data["findings"][0]["code"] == "stale"
    assert "shapes.py" in seen["moved"][1]
    assert seen["snapshot"] == before
    for key in ("created", "read", "again"):
        assert not seen[key][0], (key, seen[key][1])
    err, text, _ = seen["changed"]
    assert err and "changed since you last read it" in text, text
    assert project.read("docs/notes.md") == b"one\n2\nthree\nuser\n"
    assert project.read("new.py") == b"X = 1\n"


def test_read_file_of_a_folder_says_it_is_a_folder(project: Repo, tmp_path: Path) -> None:
    async def scenario(s: Any) -> tuple[bool, str, Any]:
        return await tool(s, "read_file", path="docs")

    err, text, data = over_stdio(project.root, tmp_path / "server.log", scenario)
    assert err and "docs: missing: docs is a folder, not a file" in text and "docs/notes.md" in text, text
    assert "symlink" not in text and data["findings"][0]["code"] == "missing"


def test_hints_name_the_mcp_tools_never_the_command_line(project: Repo, tmp_path: Path) -> None:
    seen: dict[str, tuple[bool, str, Any]] = {}

    async def scenario(s: Any) -> None:
        header = (await tool(s, "read_file", path="docs/notes.md", start_line=1, end_line=1))[1].splitlines()[0]
        seen["unshown"] = await tool(s, "apply_patch", patch=f"{header}\nreplace 3..3\n+THREE\n")
        seen["past the end"] = await tool(s, "read_file", path="docs/notes.md", start_line=9)
        seen["other tag"] = await tool(s, "apply_patch", patch="[docs/notes.md#deadbeef]\nreplace 1..1\n+ONE\n")
        seen["no tag"] = await tool(s, "apply_patch", patch="[docs/notes.md]\nreplace 1..1\n+ONE\n", format="hashline")
        seen["view"] = await tool(s, "apply_patch", patch='{"command": "view", "path": "docs/notes.md"}')
        seen["mixed"] = await tool(
            s,
            "apply_patch",
            patch=(
                "--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -1 +1 @@\n-one\n+1\n"
                "*** Begin Patch\n*** Update File: docs/notes.md\n@@\n-one\n+1\n*** End Patch\n"
            ),
        )

    before = project.snapshot()
    over_stdio(project.root, tmp_path / "server.log", scenario)
    wants = {
        "unshown": "read those lines first with the read_file tool (path 'docs/notes.md', start_line 3, end_line 3)",
        "past the end": "e.g. with the read_file tool (path 'docs/notes.md', start_line 1, end_line 3)",
        "other tag": "read it (again) with the read_file tool (path 'docs/notes.md')",
        "no tag": "read the file with the read_file tool (path 'docs/notes.md')",
        "view": "read the file with the read_file tool (path 'docs/notes.md')",
        "mixed": "name the one to read with the format argument",
    }
    for key, want in wants.items():
        err, text, _ = seen[key]
        assert err and want in text, (key, text)
        for cli_only in ("git agent-read", "--lines", "--format", "git agent-"):
            assert cli_only not in text, (key, text)
    assert project.snapshot() == before


BAD_ARGUMENTS = [
    ("list_turns", {"limit": -5}, "argument 'limit' must be a whole number from 1 to 1,000,000,000, not -5"),
    ("list_turns", {"limit": 2.5}, "argument 'limit' must be a whole number from 1 to 1,000,000,000, not the number 2.5"),
    ("list_turns", {"diff": "yes"}, "argument 'diff' must be true or false, not a string"),
    ("read_file", {"path": "shapes.py", "start_line": "3"}, "argument 'start_line' must be an integer, not a string"),
    ("read_file", {"path": "shapes.py", "start_line": True}, "argument 'start_line' must be an integer, not a boolean"),
    (
        "read_file",
        {"path": "shapes.py", "end_line": 0},
        "argument 'end_line' must be a whole number from 1 to 2,147,483,647, not 0",
    ),
    ("read_file", {"path": ["shapes.py"]}, "argument 'path' must be a string, not an array"),
    ("read_file", {"path": "shapes.py", "lines": "1:3"}, "unknown argument 'lines'; arguments: path, start_line, end_line"),
    ("read_file", {}, "missing required argument 'path'"),
    ("edit_file", {"path": "shapes.py"}, "missing required argument 'edits'"),
    ("edit_file", {"path": "shapes.py", "edits": []}, "argument 'edits' must hold at least 1 item, not 0"),
    ("edit_file", {"path": "shapes.py", "edits": [{"old_string": "w * h"}]}, "argument 'edits[0]' is missing 'new_string'"),
    (
        "edit_file",
        {"path": "shapes.py", "edits": [{"old_string": "w", "new_string": "h", "old": "x"}]},
        "argument 'edits[0]' has an unknown key 'old'",
    ),
    (
        "edit_file",
        {"path": "shapes.py", "edits": [{"old_string": "w", "new_string": "h", "replace_all": "yes"}]},
        "argument 'edits[0].replace_all' must be true or false, not a string",
    ),
    ("edit_file", {"path": "shapes.py", "edits": ["w * h"]}, "argument 'edits[0]' must be an object, not a string"),
    ("write_file", {"path": "new.py", "content": None}, "argument 'content' must be a string, not null"),
    ("apply_patch", {"patch": "x", "format": "diff3"}, "argument 'format' must be one of auto, unified"),
    ("apply_patch", {"patch": 7}, "argument 'patch' must be a string, not an integer"),
    ("rollback", {"force": "true"}, "argument 'force' must be true or false, not a string"),
    ("rollback", {"dry_run": 1}, "argument 'dry_run' must be true or false, not an integer"),
]


def test_arguments_out_of_the_schema_are_errors_over_stdio(project: Repo, tmp_path: Path) -> None:
    async def scenario(s: Any) -> list[tuple[bool, str, Any]]:
        await tool(s, "read_file", path="shapes.py")  # so that a good edit_file would not fail for want of a read
        got = [await tool(s, name, **args) for name, args, _ in BAD_ARGUMENTS]
        got.append(await tool(s, "list_turns", limit=None))  # null: left out (strict function calling sends it)
        return got

    before = project.snapshot()
    results = over_stdio(project.root, tmp_path / "server.log", scenario)
    for (name, args, want), (err, text, _) in zip(BAD_ARGUMENTS, results):
        assert err and text.startswith(f"{name}: ") and want in text, (name, args, text)
    assert results[-1][0] is False, results[-1]
    assert project.snapshot() == before
