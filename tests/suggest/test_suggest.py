"""Refusals that carry the edit to resend (guard/pipeline/suggest/): per kind, the suggestion sent back
unchanged lands exactly the intended edit, through the CLI, MCP and the Claude Code hook; no
suggestion where there are two readings, or where it would show a protected file; and a
refusal, suggestion or not, leaves the tree as it was."""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest
from conftest import Repo, git

SRC = "".join(f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(8))
# What the agent meant: f1 returns x + 100 (line 7).
MEANT = SRC.replace("    y = x + 1\n", "    y = x + 100\n")


def Guard(root):  # type: ignore[no-untyped-def]  # noqa: N802
    from guard.pipeline.engine import Guard as G

    return G(root)


def refused_with(cli, repo: Repo, edit: str, *args: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The JSON report of a refused `edit`, after checking it left the tree as it was."""
    before = repo.snapshot()
    r = cli("apply", "--json", *args, input=edit)
    assert r.code == 1, r
    assert repo.snapshot() == before
    report: dict[str, Any] = r.json()
    assert report["status"] == "refused"
    return report


def resent(cli, repo: Repo, suggestion: dict[str, Any], *args: str) -> None:  # type: ignore[no-untyped-def]
    r = cli("apply", "--format", suggestion["format"], *args, input=suggestion["edit"])
    assert r.code == 0, r


# ---------------------------------------------------------------------- not-found

# The hunk's context reads otherwise (parameters renamed since): past what fuzz takes.
DRIFTED = (
    "--- a/m.py\n+++ b/m.py\n@@ -6,6 +6,6 @@\n def f1(z):\n-    y = x + 1\n+    y = x + 100\n     return y\n \n \n def f2(q):\n"
)


def test_not_found_with_one_closest_region_lands_when_resent(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    report = refused_with(cli, repo, DRIFTED)
    assert [f["code"] for f in report["findings"]] == ["not-found"]
    s = report["suggestion"]
    assert s["format"] == "unified" and s["files"] == ["m.py"]
    assert "-    y = x + 1\n+    y = x + 100\n" in s["edit"] and " def f1(x):\n" in s["edit"]
    assert "'def f1(x):' where the edit shows 'def f1(z):'" in s["why"][0]
    # The text report says it is not applied, and how to send it back.
    text = cli("apply", input=DRIFTED).stdout
    assert "suggestion (unified), not applied" in text and "-    y = x + 1" in text
    resent(cli, repo, s)
    assert repo.read("m.py").decode() == MEANT


@pytest.mark.parametrize(
    "dialect,edit",
    [
        (
            "search-replace",
            "m.py\n```\n<<<<<<< SEARCH\ndef f1(z):\n    y = x + 1\n    return y\n\n\ndef f2(q):\n"
            "=======\ndef f1(z):\n    y = x + 100\n    return y\n\n\ndef f2(q):\n>>>>>>> REPLACE\n```\n",
        ),
        (
            "codex",
            "*** Begin Patch\n*** Update File: m.py\n@@\n def f1(z):\n-    y = x + 1\n+    y = x + 100\n"
            "     return y\n \n \n def f2(q):\n*** End Patch\n",
        ),
        (
            "json",
            json.dumps(
                {
                    "file_path": "m.py",
                    "old_string": "def f1(z):\n    y = x + 1\n    return y\n\n\ndef f2(q):\n",
                    "new_string": "def f1(z):\n    y = x + 100\n    return y\n\n\ndef f2(q):\n",
                }
            ),
        ),
    ],
)
def test_a_suggestion_is_in_the_dialect_the_agent_sent(repo: Repo, cli, dialect: str, edit: str) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    s = refused_with(cli, repo, edit, "--format", dialect)["suggestion"]
    assert s["format"] == dialect
    resent(cli, repo, s)
    assert repo.read("m.py").decode() == MEANT


def test_two_closest_regions_give_no_suggestion(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    twice = SRC.replace("    y = x + 3\n", "    y = x + 1\n")  # f1 and f3 read alike but for their names
    # Without the fuzz tier (which calls this `ambiguous`), the locator finds neither place.
    repo.commit({"m.py": twice, ".agent-guard.yaml": "locate: {tiers: [offset, recount, trailing-whitespace, eol]}\n"})
    drifted = DRIFTED.replace("def f1(z)", "def fN(z)")
    report = refused_with(cli, repo, drifted)
    assert [f["code"] for f in report["findings"]] == ["not-found"]
    assert "suggestion" not in report
    assert "suggestion" not in cli("apply", input=drifted).stdout


def test_a_protected_file_gets_no_suggestion_and_shows_nothing(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    secret = "".join(f"KEY_{i}=s3cr3t-{i}\n" for i in range(12))
    repo.commit({".agent-guard.yaml": "extends: permissive\n", ".env": secret})
    edit = (
        "--- a/.env\n+++ b/.env\n@@ -3,5 +3,5 @@\n KEY_2=wrong\n-KEY_3=s3cr3t-3\n+KEY_3=rotated\n"
        " KEY_4=s3cr3t-4\n KEY_5=s3cr3t-5\n KEY_6=wrong\n"
    )
    report = refused_with(cli, repo, edit)
    assert [f["code"] for f in report["findings"]] == ["not-found"]
    assert "suggestion" not in report
    out = cli("apply", input=edit)
    for shown in (json.dumps(report), out.stdout, out.stderr):
        assert "s3cr3t-2" not in shown and "s3cr3t-6" not in shown
    # The same edit on a file that is not protected gets one: the rule, not the edit, withholds it.
    repo.commit({"env.txt": secret})
    s = refused_with(cli, repo, edit.replace(".env", "env.txt"))["suggestion"]
    resent(cli, repo, s)
    assert repo.read("env.txt").decode() == secret.replace("KEY_3=s3cr3t-3", "KEY_3=rotated")


# ---------------------------------------------------------------------- stale


def _index_diff(repo: Repo, name: str, old: str, new: str) -> str:
    """A diff of `name` from `old` to `new` with git's `index` line naming `old`'s blob."""
    a = git(repo.root, "hash-object", "-w", "--stdin", input=old.encode()).strip()
    b = git(repo.root, "hash-object", "--stdin", input=new.encode()).strip()
    body = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}", n=3))
    return f"diff --git a/{name} b/{name}\nindex {a[:12]}..{b[:12]} 100644\n{body}"


# The user renamed f1's parameter list (line 6) after the agent read the file; the agent's edit
# changes line 7, right next to it: git's merge rule calls that a conflict.
RENAMED = SRC.replace("def f1(x):", "def f1(x, k=0):")


def test_stale_next_to_the_files_change_lands_both_when_resent(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    repo.write({"m.py": RENAMED})
    report = refused_with(cli, repo, _index_diff(repo, "m.py", SRC, MEANT))
    assert [f["code"] for f in report["findings"]] == ["stale"]
    s = report["suggestion"]
    assert " def f1(x, k=0):\n-    y = x + 1\n+    y = x + 100\n" in s["edit"]
    assert "changed since the version the edit's index line names" in s["why"][0]
    assert "'def f1(x, k=0):' where the edit saw 'def f1(x):'" in s["why"][0]
    resent(cli, repo, s)
    assert repo.read("m.py").decode() == MEANT.replace("def f1(x):", "def f1(x, k=0):")


def test_stale_where_the_file_changed_the_edits_own_line_gets_none(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    repo.write({"m.py": SRC.replace("    y = x + 1\n", "    y = x + 1.5\n")})
    report = refused_with(cli, repo, _index_diff(repo, "m.py", SRC, MEANT))
    assert [f["code"] for f in report["findings"]] == ["stale"]
    assert "suggestion" not in report


# ---------------------------------------------------------------------- hashline tags

NOTED = SRC.replace("def f1(x):\n", "def f1(x):\n    # checked\n")  # a line added right above line 7


def test_an_out_of_date_hashline_tag_gets_the_same_ops_renumbered(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    tag = cli("read", "m.py").stdout.splitlines()[0]
    assert tag.startswith("[m.py#")
    repo.write({"m.py": NOTED})
    report = refused_with(cli, repo, f"{tag}\nreplace 7\n+    y = x + 100\n")
    assert [f["code"] for f in report["findings"]] == ["stale"]
    s = report["suggestion"]
    now = git(repo.root, "hash-object", "m.py").strip()[:8]
    assert s["format"] == "hashline" and s["edit"] == f"[m.py#{now}]\nreplace 8\n+    y = x + 100\n"
    assert "line 7 is line 8 now" in s["why"][0]
    resent(cli, repo, s)
    assert repo.read("m.py").decode() == NOTED.replace("    y = x + 1\n", "    y = x + 100\n")


def test_a_hashline_op_whose_line_changed_gets_none(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    tag = cli("read", "m.py").stdout.splitlines()[0]
    repo.write({"m.py": SRC.replace("    y = x + 1\n", "    y = x + 1.5\n")})
    report = refused_with(cli, repo, f"{tag}\nreplace 7\n+    y = x + 100\n")
    assert [f["code"] for f in report["findings"]] == ["stale"]
    assert "suggestion" not in report


# ---------------------------------------------------------------------- MCP and the Claude Code hook


@pytest.fixture
def session(repo: Repo):  # type: ignore[no-untyped-def]
    pytest.importorskip("mcp")
    from guard.adapters import mcp_server

    repo.commit({"m.py": SRC})
    return mcp_server.Session(Guard(repo.root), "model")


def mcp_refused(repo: Repo, session, tool: str, **args: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    before = repo.snapshot()
    r = session.call(tool, args)
    assert r.error and r.data is not None and r.data["status"] == "refused", r.text
    assert repo.snapshot() == before
    s: dict[str, Any] = r.data["suggestion"]
    assert "suggestion (" in r.text and "not applied" in r.text and "call apply_patch" in r.text
    assert s["edit"].rstrip("\n").splitlines()[-1] in r.text
    return s


def mcp_resent(session, s: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    r = session.call("apply_patch", {"patch": s["edit"], "format": s["format"]})
    assert not r.error, r.text


def test_mcp_not_found(repo: Repo, session) -> None:  # type: ignore[no-untyped-def]
    session.call("read_file", {"path": "m.py"})
    s = mcp_refused(repo, session, "apply_patch", patch=DRIFTED)
    mcp_resent(session, s)
    assert repo.read("m.py").decode() == MEANT


def test_mcp_stale_after_a_change_since_the_read(repo: Repo, session) -> None:  # type: ignore[no-untyped-def]
    session.call("read_file", {"path": "m.py"})
    repo.write({"m.py": RENAMED})
    s = mcp_refused(
        repo,
        session,
        "edit_file",
        path="m.py",
        edits=[{"old_string": "def f1(x):\n    y = x + 1\n", "new_string": "def f1(x):\n    y = x + 100\n"}],
    )
    assert "changed since model read it" in s["why"][0]
    mcp_resent(session, s)
    assert repo.read("m.py").decode() == MEANT.replace("def f1(x):", "def f1(x, k=0):")


def test_mcp_hashline_tag(repo: Repo, session) -> None:  # type: ignore[no-untyped-def]
    tag = session.call("read_file", {"path": "m.py"}).text.splitlines()[0]
    repo.write({"m.py": NOTED})
    s = mcp_refused(repo, session, "apply_patch", patch=f"{tag}\nreplace 7\n+    y = x + 100\n")
    assert s["format"] == "hashline"
    mcp_resent(session, s)
    assert repo.read("m.py").decode() == NOTED.replace("    y = x + 1\n", "    y = x + 100\n")


def _hook(cli, repo: Repo, tool_input: dict[str, Any]):  # type: ignore[no-untyped-def]
    data = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    return cli("hook", "claude-code", input=json.dumps(data))


def test_the_claude_code_hook_denies_with_the_edit_call_to_make(repo: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"m.py": SRC})
    path = str(repo.root / "m.py")
    before = repo.snapshot()
    old = "def f1(z):\n    y = x + 1\n    return y\n\n\ndef f2(q):\n"
    r = _hook(cli, repo, {"file_path": path, "old_string": old, "new_string": old.replace("+ 1\n", "+ 100\n")})
    assert r.code == 2 and repo.snapshot() == before
    reason = r.stderr
    assert ": not-found: " in reason and "call Edit" in reason and "not applied" in reason
    shown = reason.split("----- suggested edit -----\n")[1].split("\n----- end of suggested edit -----")[0]
    args = json.loads(shown)
    assert args["file_path"] == path
    # Sent back as the Edit tool's arguments, it passes; the tool then makes the intended change.
    r = _hook(cli, repo, args)
    assert r.code == 0 and "permissionDecision" not in r.stdout, r
    text = repo.read("m.py").decode()
    assert text.count(args["old_string"]) == 1
    assert text.replace(args["old_string"], args["new_string"]) == MEANT


def test_a_change_past_the_realign_bound_gets_none(repo: Repo) -> None:
    """Realigning takes time in the square of the change's size: past `MAX_LINES` it is not tried
    (a 1,500-line hunk took 5 s), and the refusal comes as quickly as before."""
    from guard.pipeline.suggest.realign import MAX_LINES

    lines = [f"value_{i} = compute({i}, {i * 7 % 13})" for i in range(3 * MAX_LINES)]
    repo.commit({"big.py": "\n".join(lines) + "\n"})

    def drifted(n: int) -> str:
        body = [" " + (t.replace("compute", "calc") if i % 3 else t) for i, t in enumerate(lines[:n])]
        body[n // 2] = f"-{lines[n // 2]}\n+{lines[n // 2]}  # changed"
        return f"--- a/big.py\n+++ b/big.py\n@@ -1,{n} +1,{n} @@\n" + "\n".join(body) + "\n"

    g = Guard(repo.root)
    small, big = g.apply(drifted(60), check=True), g.apply(drifted(MAX_LINES + 1), check=True)
    assert [f.code for f in small.findings] == [f.code for f in big.findings] == ["not-found"]
    assert small.suggestion is not None and big.suggestion is None
