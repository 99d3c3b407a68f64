"""Side doors (issue 23, section 3): every gate sees the path the engine writes, protected contents
are never shown, rollbacks obey protection, only a blob the agent was shown is its base, the
allow-list follows git's case rule, a rename creates a path, the ledger does not keep a file the
user took away tracked, and the policy cache trusts nothing an agent can write.

Each class is swept as a hostile agent would try it: several spellings, every way in (the command
line, the Python API, the MCP server, the Claude Code hook), and after every refusal the work tree,
the index, HEAD and the refs are byte for byte as before.  The counts each sweep asserts are the
README's Reliability figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, command, git
from conftest import guard as guard_child

# ---------------------------------------------------------------------- helpers


def Guard(root: Path, policy: str | None = None):  # type: ignore[no-untyped-def]  # noqa: N802
    from guard.pipeline.engine import Guard as G

    return G(root, policy)


def mcp(root: Path, agent: str = "model", require_read: bool = True):  # type: ignore[no-untyped-def]
    pytest.importorskip("mcp")
    from guard.adapters import mcp_server

    return mcp_server.Session(Guard(root), agent, require_read=require_read)


def hook(root: Path, tool: str, tool_input: dict[str, Any], event: str = "PreToolUse") -> tuple[int, str]:
    """Claude Code's hook, in-process: (exit status, everything it said)."""
    from guard.adapters.claude_code import claude_code

    data = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    a = claude_code(json.dumps(data).encode(), None, None, None, "defer")
    return a.code, a.stdout + a.stderr


# ====================================================================== 1. the read gate


TEXT = "one\ntwo\nthree\n"


@pytest.fixture
def plain(repo: Repo) -> Repo:
    repo.commit({"a.txt": TEXT, "src/app.py": "X = 1\n"})
    return repo


def _spellings_of_a() -> list[str]:
    # The prefixes a diff's names carry, `.` components, and case variants (another file on a
    # case-sensitive file system, the same one elsewhere: either way, not an unread file's edit).
    return ["a/a.txt", "b/a.txt", "./a.txt", "a/./a.txt", "b/./a.txt", ".//a.txt", "A.txt", "a/A.TXT"]


def _patches(path: str) -> list[tuple[str, str]]:
    """Every dialect's way to change, move or delete `path` (as written) without reading it."""
    return [
        ("codex update", f"*** Begin Patch\n*** Update File: {path}\n@@\n one\n-two\n+TWO\n*** End Patch\n"),
        ("codex delete", f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n"),
        ("codex move", f"*** Begin Patch\n*** Update File: {path}\n*** Move to: moved.txt\n@@\n-two\n+2\n*** End Patch\n"),
        ("unified", f"--- {path}\n+++ {path}\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"),
        ("search-replace", f"{path}\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n"),
        ("json", json.dumps({"file_path": path, "old_string": "two", "new_string": "TWO"})),
        ("json whole", json.dumps({"file_path": path, "content": "replaced\n"})),
    ]


def test_mcp_read_gate_sees_the_path_the_engine_writes(plain: Repo) -> None:
    """Before: `*** Update File: a/a.txt` passed the gate (it looked up `a/a.txt`, a new file) and the
    engine then wrote a.txt, which the agent had never read."""
    s = mcp(plain.root)
    before = plain.snapshot()
    tried = 0
    for spelling in _spellings_of_a():
        for label, patch in _patches(spelling):
            if label == "json whole" and not spelling.lstrip("./") == "a.txt":
                continue  # a whole-file write to a path that is not there creates it: no edit of a.txt
            for dry in (False, True):
                r = s.call("apply_patch", {"patch": patch, "dry_run": dry})
                tried += 1
                codes = {f["code"] for f in (r.data or {}).get("findings", [])}
                assert r.error and codes & {"stale", "missing"}, (spelling, label, r.text)
                if spelling not in ("A.txt", "a/A.TXT"):
                    assert codes == {"stale"} and "read_file" in r.text and "a.txt" in r.text, (spelling, label, r.text)
                assert plain.snapshot() == before, (spelling, label)
    # edit_file names one path: the same spellings.
    for spelling in _spellings_of_a():
        r = s.call("edit_file", {"path": spelling, "edits": [{"old_string": "two", "new_string": "TWO"}]})
        tried += 1
        assert r.error, (spelling, r.text)
        assert plain.snapshot() == before, spelling
    assert tried == 2 * (8 * 6 + 2) + 8
    # Once read, every spelling that names a.txt edits it.
    s.call("read_file", {"path": "a.txt"})
    r = s.call("apply_patch", {"patch": _patches("a/a.txt")[0][1]})
    assert not r.error and "path-prefix" in r.text, r.text
    assert plain.read("a.txt") == b"one\nTWO\nthree\n"


def test_read_gate_applies_to_the_source_of_a_move_after_the_prefix_repair(plain: Repo) -> None:
    s = mcp(plain.root)
    s.call("read_file", {"path": "src/app.py"})  # a read of another file counts for nothing here
    before = plain.snapshot()
    r = s.call(
        "apply_patch", {"patch": "*** Begin Patch\n*** Update File: b/a.txt\n*** Move to: c.txt\n@@\n-two\n+2\n*** End Patch\n"}
    )
    assert r.error and "a.txt" in r.text and "stale" in r.text, r.text
    assert plain.snapshot() == before


# ====================================================================== 2. protected contents


SECRETS = {
    ".env": "TOKEN=hunter2\nAPI_KEY=sk-live-0123456789\n",
    ".env.local": "DB_PASSWORD=correct-horse\n",
    "secrets/x.key": "-----BEGIN KEY-----\nMIIEpAIBAAKCAQEA7secret\n-----END KEY-----\n",
}
NEW = "REPLACED=1\n"


def _leaks(text: str, content: str) -> list[str]:
    return [ln for ln in content.splitlines() if ln.strip() and ln in text]


@pytest.fixture
def vault(repo: Repo) -> Repo:
    """Secrets committed (a policy that only warns lets an agent change them), under `permissive`."""
    repo.commit({**SECRETS, "a.txt": TEXT, ".agent-guard.yaml": "extends: permissive\n"})
    return repo


def test_no_output_route_shows_protected_contents(vault: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: `--check --diff`, the JSON report's diff, `log -p`, `git agent-log -p`, `rollback --diff`
    and MCP `list_turns diff` printed every line of `.env` that `read_file` refuses."""
    import guard

    routes = 0
    for path, content in SECRETS.items():
        edit = json.dumps({"file_path": path, "content": NEW})
        outputs: dict[str, str] = {}
        r = cli("apply", "--check", "--diff", input=edit)
        assert r.code == 0, r
        outputs["apply --check --diff"] = r.stdout + r.stderr
        r = cli("apply", "--check", "--json", input=edit)
        outputs["apply --check --json"] = r.stdout
        outputs["api check"] = guard.apply(edit, repo=vault.root, check=True).to_json()
        s = mcp(vault.root, require_read=False)
        outputs["mcp dry run"] = (lambda m: m.text + json.dumps(m.data))(
            s.call("write_file", {"path": path, "content": NEW, "dry_run": True})
        )
        r = cli("apply", "--diff", input=edit)  # applied: path-protected is a warning here
        assert r.code == 0 and vault.read(path) == NEW.encode(), r
        outputs["apply --diff"] = r.stdout + r.stderr
        commit = git(vault.root, "rev-parse", "refs/agent-guard/agent").strip()
        assert git(vault.root, "show", f"{commit}:{path}") == NEW  # the ledger keeps it: git shows it
        outputs["log -p"] = cli("log", "-p").stdout
        outputs["log -p --json"] = cli("log", "-p", "--json").stdout
        outputs["git agent-log -p"] = command(vault.root, "git", "agent-log", "-p").stdout.decode()
        outputs["api log"] = json.dumps(guard.log(vault.root, patch=True))
        m = mcp(vault.root).call("list_turns", {"diff": True, "all_agents": True})
        outputs["mcp list_turns"] = m.text + json.dumps(m.data)
        r = cli("rollback", "--check", "--diff")
        outputs["rollback --check --diff"] = r.stdout + r.stderr
        outputs["rollback --check --json"] = cli("rollback", "--check", "--json").stdout
        m = mcp(vault.root, agent="agent").call("rollback", {"dry_run": True})
        outputs["mcp rollback dry run"] = m.text + json.dumps(m.data)
        r = cli("rollback", "--diff")
        assert r.code == 0 and vault.read(path) == content.encode(), r
        outputs["rollback --diff"] = r.stdout + r.stderr
        outputs["log -p after rollback"] = cli("log", "-p").stdout
        for route, text in outputs.items():
            routes += 1
            assert not _leaks(text, content), (path, route, text)
            assert REDACTED in text, (path, route, text)
        # What was written is still said: the file, its counts, and where the user sees it.
        said = outputs["apply --diff"]
        assert f"{path}: +1 -{len(content.splitlines())}" in said and f"git show {commit[:12]} -- {path}" in said, said
    assert routes == 3 * 15


REDACTED = "contents are protected"


def test_a_protected_file_s_contents_are_shown_when_the_policy_says_read_protected(vault: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    vault.commit({".agent-guard.yaml": "extends: permissive\nread_protected: true\n"})
    r = cli("apply", "--check", "--diff", input=json.dumps({"file_path": ".env", "content": NEW}))
    assert "-TOKEN=hunter2" in r.stdout and REDACTED not in r.stdout, r


def test_findings_on_a_protected_file_quote_none_of_its_lines(vault: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: a `not-found` on .env showed its closest region, and `ambiguous` its candidates."""
    cases = 0
    for path, content in SECRETS.items():
        first = content.splitlines()[0]
        near = first[:-1] + ("X" if first[-1] != "X" else "Y")  # one character off: the closest region is there
        twice = next(c for c in content if c != "\n" and content.count(c) >= 2)
        edits: list[tuple[str, str, dict[str, str] | None]] = [
            (
                "not-found",
                json.dumps({"file_path": path, "old_string": near, "new_string": "x"}),
                {"old_string": near, "new_string": "x"},
            ),
            (
                "ambiguous",
                json.dumps({"file_path": path, "old_string": twice, "new_string": "x"}),
                {"old_string": twice, "new_string": "x"},
            ),
            ("a diff off by one character", f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{near}\n+x\n", None),
        ]
        for label, edit, tool_input in edits:
            before = vault.snapshot()
            said = [cli("apply", "--json", input=edit).stdout]
            r = cli("apply", input=edit)
            said.append(r.stdout + r.stderr)
            said.append(mcp(vault.root, require_read=False).call("apply_patch", {"patch": edit}).text)
            if tool_input is not None:
                code, text = hook(vault.root, "Edit", {"file_path": str(vault.root / path), **tool_input})
                assert code == 2, (path, label, text)
                said.append(text)
            for text in said:
                cases += 1
                assert label.split()[0] in text or "not-found" in text, (path, label, text)
                assert not _leaks(text, content), (path, label, text)
            assert vault.snapshot() == before
    assert cases == 3 * (4 + 4 + 3)


def test_a_rollback_conflict_on_a_protected_file_quotes_none_of_its_lines(vault: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("apply", input=json.dumps({"file_path": ".env", "old_string": "TOKEN=hunter2", "new_string": "TOKEN=x"}))
    assert r.code == 0, r
    (vault.root / ".env").write_text("TOKEN=y\nAPI_KEY=sk-live-0123456789\n")  # the user's later change there
    before = vault.snapshot()
    for args in (("rollback",), ("rollback", "--json"), ("rollback", "--check", "--diff")):
        r = cli(*args)
        assert r.code == 1 and "rollback-conflict" in r.stdout + r.stderr, r
        assert "TOKEN=y" not in r.stdout + r.stderr and "sk-live" not in r.stdout + r.stderr, r
    assert vault.snapshot() == before


# ====================================================================== 3. rollbacks obey protection


@pytest.fixture
def deployed(repo: Repo, cli) -> Repo:  # type: ignore[no-untyped-def]
    """An agent changed deploy/prod.yml; the user has protected deploy/** since."""
    repo.commit({"deploy/prod.yml": "replicas: 2\n", "a.txt": TEXT})
    r = cli("apply", input=json.dumps({"file_path": "deploy/prod.yml", "old_string": "2", "new_string": "20"}))
    assert r.code == 0, r
    r = cli(
        "apply", "--agent", "model", input=json.dumps({"file_path": "deploy/prod.yml", "old_string": "20", "new_string": "200"})
    )
    assert r.code == 0, r
    repo.commit({".agent-guard.yaml": "paths:\n  protected_extra: ['deploy/**']\n"})
    return repo


def test_a_rollback_that_would_change_a_protected_path_is_refused_every_way_in(deployed: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: `rollback --force` (an MCP tool argument) rewrote deploy/prod.yml."""
    import guard

    before = deployed.snapshot()
    tried = 0
    for force in (False, True):
        for check in (False, True):
            flags = (["--force"] if force else []) + (["--check"] if check else [])
            results = [
                cli("rollback", "--agent", "model", "--json", *flags).json(),
                json.loads(command(deployed.root, "git", "agent-rollback", "--agent", "model", "--json", *flags).stdout.decode()),
                guard.rollback(deployed.root, agent="model", force=force, check=check).as_dict(),
                mcp(deployed.root).call("rollback", {"force": force, "dry_run": check}).data,
                cli("rollback", "--agent", "agent", "--json", *flags).json(),
            ]
            for got in results:
                tried += 1
                assert got is not None and got["status"] == "refused", got
                assert any(
                    f["code"] == "path-protected" and f["path"] == "deploy/prod.yml" and f["severity"] == "error"
                    for f in got["findings"]
                ), got
                assert deployed.snapshot() == before
    assert tried == 20


def test_a_rollback_follows_the_policy_s_level_as_an_edit_does(deployed: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    deployed.commit({".agent-guard.yaml": "extends: permissive\npaths:\n  protected_extra: ['deploy/**']\n"})
    r = cli("rollback", "--agent", "model", "--json")
    got = r.json()
    assert r.code == 0 and got["status"] == "applied", r
    assert [f["code"] for f in got["findings"]] == ["path-protected"] and got["findings"][0]["severity"] == "warning"
    assert deployed.read("deploy/prod.yml") == b"replicas: 20\n"


# ====================================================================== 4. only a blob the agent was shown is its base


def _index_diffs(repo: Repo) -> list[tuple[str, str]]:
    head_blob = git(repo.root, "rev-parse", "HEAD:a.txt").strip()
    other = git(repo.root, "rev-parse", "HEAD:src/app.py").strip()
    body = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    return [
        (label, f"diff --git a/a.txt b/a.txt\nindex {old}..{new} 100644\n{body}")
        for label, old, new in (
            ("7 hex, made up", "1234567", "89abcde"),
            ("40 hex, made up", "1234567" + "0" * 33, "89abcde" + "f" * 33),
            ("the file's blob now, never read", head_blob, "89abcde"),
            ("its short id", head_blob[:7], "89abcde"),
            ("another file's blob", other, "89abcde"),
            ("upper case", head_blob.upper(), "89ABCDE"),
        )
    ]


def test_an_index_line_the_agent_was_never_shown_does_not_satisfy_read_before_edit(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: any `index` line (even a made-up one) skipped read_before_edit under `strict`."""
    plain.commit({".agent-guard.yaml": "extends: strict\n"})
    before = plain.snapshot()
    tried = 0
    for label, diff in _index_diffs(plain):
        for args in (("apply", "--json"), ("apply", "--check", "--json")):
            r = cli(*args, input=diff)
            tried += 1
            got = r.json()
            assert r.code == 1 and got["findings"][0]["code"] == "stale", (label, r)
            assert "has not read a.txt" in got["findings"][0]["message"], (label, got)
            assert plain.snapshot() == before, label
        s = mcp(plain.root, require_read=False)
        r2 = s.call("apply_patch", {"patch": diff})
        tried += 1
        assert r2.error and "stale" in r2.text, (label, r2.text)
        assert plain.snapshot() == before, label
    assert tried == 6 * 3
    # Once the agent has read the file, the same index lines are its edit's (and a real one is its base).
    assert cli("read", "a.txt").code == 0
    r = cli("apply", "--check", input=_index_diffs(plain)[2][1])
    assert r.code == 0, r
    r = cli("apply", "--check", input=_index_diffs(plain)[0][1])
    assert r.code == 0, r  # the base it names counts for nothing, the read does


def test_a_base_the_agent_wrote_itself_counts(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    plain.commit({".agent-guard.yaml": "extends: strict\n"})
    assert cli("read", "a.txt").code == 0
    r = cli("apply", "--json", input="--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
    assert r.code == 0, r
    written = git(plain.root, "hash-object", "a.txt").strip()
    (plain.root / "a.txt").write_text("zero\none\nTWO\nthree\n")  # the user's change since
    diff = (
        f"diff --git a/a.txt b/a.txt\nindex {written[:9]}..1234567 100644\n--- a/a.txt\n+++ b/a.txt\n"
        "@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n"
    )
    r = cli("apply", "--json", input=diff)
    assert r.code == 0, r
    assert plain.read("a.txt") == b"zero\none\n2\nthree\n"


# ====================================================================== 5. allow-list case, renames, untracked


def test_the_allow_list_follows_git_s_case_rule(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: `paths.allow: ["src/**"]` let `SRC/evil.py` through on a case-sensitive file system."""
    plain.commit({".agent-guard.yaml": "paths:\n  allow: ['src/**']\n"})
    plain.git("config", "core.ignorecase", "false")
    before = plain.snapshot()
    tried = 0
    for spelling in ("SRC/evil.py", "Src/evil.py", "sRc/evil.py", "SRC/app.py", "src/../SRC/evil.py", "./Src/x.py"):
        for edit in (
            json.dumps({"file_path": spelling, "content": "evil = 1\n"}),
            f"*** Begin Patch\n*** Add File: {spelling}\n+evil = 1\n*** End Patch\n",
            f"--- /dev/null\n+++ b/{spelling}\n@@ -0,0 +1 @@\n+evil = 1\n",
        ):
            r = cli("apply", "--json", input=edit)
            tried += 1
            assert r.code == 1 and r.json()["findings"][0]["code"] == "path-protected", (spelling, r)
            assert "outside the allow-list" in r.json()["findings"][0]["message"]
            assert plain.snapshot() == before, spelling
    assert tried == 18
    assert cli("apply", input=json.dumps({"file_path": "src/ok.py", "content": "ok = 1\n"})).code == 0
    # Protected globs keep ignoring case: a protected name must not be reachable by another spelling.
    for spelling in (".ENV", ".Env.local", "src/X.KEY"):
        r = cli("apply", "--json", input=json.dumps({"file_path": spelling, "content": "x\n"}))
        assert r.code == 1 and r.json()["findings"][0]["code"] == "path-protected", (spelling, r)
    # Where git says the file system ignores case, so does the allow-list.
    plain.git("config", "core.ignorecase", "true")
    r = cli("apply", input=json.dumps({"file_path": "SRC/fine.py", "content": "x = 1\n"}))
    assert r.code == 0, r


def test_a_rename_creates_a_path_under_create_false(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: `paths.create: false` let a Codex `*** Move to:` (or a diff's rename) make a new path."""
    plain.commit({".agent-guard.yaml": "paths:\n  create: false\n"})
    assert cli("read", "a.txt").code == 0
    before = plain.snapshot()
    moves = [
        ("codex move", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n one\n*** End Patch\n"),
        (
            "codex move with change",
            "*** Begin Patch\n*** Update File: a.txt\n*** Move to: new/b.txt\n@@\n-two\n+2\n*** End Patch\n",
        ),
        (
            "codex move, prefixed",
            "*** Begin Patch\n*** Update File: a/a.txt\n*** Move to: b/b.txt\n@@\n-two\n+2\n*** End Patch\n",
        ),
        ("git rename", "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n"),
        (
            "git rename with change",
            "diff --git a/a.txt b/c.txt\nsimilarity index 80%\nrename from a.txt\nrename to c.txt\n"
            "--- a/a.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
        ),
    ]
    for label, patch in moves:
        for args in (("apply", "--json"), ("apply", "--check", "--json")):
            r = cli(*args, input=patch)
            got = r.json()
            assert r.code == 1 and any(
                f["code"] == "untracked" and "paths.create is false" in f["message"] for f in got["findings"]
            ), (label, r)
            assert plain.snapshot() == before, label
        r2 = mcp(plain.root, agent="agent").call("apply_patch", {"patch": patch})  # it read a.txt above
        assert r2.error and "paths.create is false" in r2.text, (label, r2.text)
        assert plain.snapshot() == before, label
    # Changing a file in place is still fine.
    assert cli("apply", input="*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+2\n*** End Patch\n").code == 0


def test_a_file_the_user_untracked_and_ignored_is_out_of_the_agent_s_reach(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: a file on the agent's shadow ref counted as tracked, whatever git said since."""
    assert cli("apply", input=json.dumps({"file_path": "a.txt", "old_string": "two", "new_string": "2"})).code == 0
    assert cli("apply", input=json.dumps({"file_path": "gen.txt", "content": "made\n"})).code == 0
    # The agent's own new file stays its to edit (git does not track it, the ledger has it).
    assert cli("apply", input=json.dumps({"file_path": "gen.txt", "old_string": "made", "new_string": "made!"})).code == 0
    # The user takes a.txt away from git and ignores it; and ignores the agent's gen.txt.
    plain.git("rm", "-q", "--cached", "a.txt")
    plain.commit({".gitignore": "a.txt\ngen.txt\n"})
    before = plain.snapshot()
    for path, old in (("a.txt", "one"), ("gen.txt", "made!")):
        for edit in (
            json.dumps({"file_path": path, "old_string": old, "new_string": "x"}),
            json.dumps({"file_path": path, "content": "x\n"}),
            f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n",
        ):
            r = cli("apply", "--json", input=edit)
            assert r.code == 1 and any(f["code"] == "untracked" for f in r.json()["findings"]), (path, r)
            assert plain.snapshot() == before
    # A file the agent did not create stops being its to edit as soon as git stops tracking it.
    plain.commit({"b.txt": "b\n"})
    assert cli("apply", input=json.dumps({"file_path": "b.txt", "old_string": "b", "new_string": "B"})).code == 0
    plain.git("rm", "-q", "--cached", "b.txt")
    plain.git("commit", "-q", "-m", "untrack b")
    r = cli("apply", "--json", input=json.dumps({"file_path": "b.txt", "old_string": "B", "new_string": "C"}))
    assert r.code == 1 and r.json()["findings"][0]["code"] == "untracked", r


# ====================================================================== 6. the policy cache


def _off(text: str) -> dict[str, Any]:
    """What the default preset says, with path protection switched off."""
    import yaml

    data = yaml.safe_load(text)
    data["checks"]["path-protected"] = "off"
    data["paths"]["protected"] = []
    return data  # type: ignore[no-any-return]


def _default_text() -> str:
    from guard.policy import PRESET_DIR

    return (PRESET_DIR / "default.yaml").read_text()


def _env_edit(repo: Repo, env: dict[str, str]) -> int:
    """The exit status of `agent-guard apply --check` writing .env (1: refused, path-protected)."""
    r = guard_child(
        repo.root, "apply", "--check", "--json", input=json.dumps({"file_path": ".env", "content": "x\n"}).encode(), env=env
    )
    assert r.returncode in (0, 1), r
    return r.returncode


@pytest.fixture
def cache_world(repo: Repo, tmp_path: Path) -> tuple[Repo, Path]:
    repo.commit({".env": "TOKEN=1\n", "a.txt": TEXT})
    return repo, tmp_path


def test_no_cache_entry_anywhere_is_read(cache_world: tuple[Repo, Path]) -> None:
    """Before: a parsed-policy cache lived in the user's cache folder, and a planted entry (HOME or
    XDG_CACHE_HOME in the tree, a folder others may write) turned path-protected off for the
    preset.  Now every call parses its policy: entries an earlier version or an agent left in
    any of those places are never read, and nothing is written there."""
    import zlib

    repo, tmp = cache_world
    text = _default_text()
    raw = text.encode()
    planted = {"version": 2, "loader": "3", "text": text, "data": _off(text)}
    names = [f"{zlib.crc32(raw):08x}-{len(raw)}.json", "0" * 64 + ".json"]
    for env, base in (
        ({"XDG_CACHE_HOME": str(tmp / "home" / ".cache")}, tmp / "home" / ".cache"),
        ({"XDG_CACHE_HOME": str(repo.root / ".cache")}, repo.root / ".cache"),
        ({"HOME": str(repo.root), "XDG_CACHE_HOME": ""}, repo.root / ".cache"),
    ):
        folder = base / "agent-guard" / "policies"
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            (folder / name).write_text(json.dumps(planted))
        before = sorted(p.name for p in folder.iterdir())
        assert _env_edit(repo, {"HOME": str(tmp / "home"), **env}) == 1, env  # .env is protected
        assert sorted(p.name for p in folder.iterdir()) == before


# ====================================================================== 7. what a terminal is sent


ESCAPES = [
    "\x1b]0;pwned\x07",
    "\x1b[2K\x1b[1A",
    "\x1b[31mred\x1b[0m",
    "\x9b2J",
    "\x1b]52;c;aGk=\x07",
    "x = 1  # \u202e } \u2066if admin\u2069",
    "ok\rhidden = True",
    "\x08\x08\x08evil",
    "\x7f\x00"[:1],
]


def test_terminal_escapes_in_added_lines_are_escaped_in_human_output(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: `--diff`, `log -p` and `rollback --diff` sent an added line's escapes to the terminal raw."""
    raw = "".join(f"line{i} = {e!s}\n" for i, e in enumerate(ESCAPES))
    edit = json.dumps({"file_path": "evil.py", "content": raw})
    outs = {
        "apply --check --diff": cli("apply", "--check", "--diff", input=edit).stdout,
        "apply --diff": cli("apply", "--diff", input=edit).stdout,
        "log -p": cli("log", "-p").stdout,
        "git agent-log -p": command(plain.root, "git", "agent-log", "-p").stdout.decode(),
        "rollback --check --diff": cli("rollback", "--check", "--diff").stdout,
        "mcp list_turns": mcp(plain.root, agent="agent").call("list_turns", {"diff": True}).text,
        "rollback --diff": cli("rollback", "--diff").stdout,
    }
    for route, text in outs.items():
        assert "line0 = " in text, (route, text)
        bad = sorted(
            {
                hex(ord(c))
                for c in text
                if (ord(c) < 32 and c not in "\n\t")
                or 0x7F <= ord(c) < 0xA0
                or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
            }
        )
        assert not bad, (route, bad)
        assert "\\x1b]0;pwned\\x07" in text and "\\u202e" in text, (route, text)
    # JSON keeps the exact content.
    r = cli("apply", "--check", "--json", input=edit)
    assert "\x1b]0;pwned\x07" in r.json()["diff"]  # type: ignore[operator]


def test_a_crlf_file_s_diff_keeps_its_line_ends(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    plain.commit({"w.txt": "one\r\ntwo\r\n"})
    r = cli("apply", "--check", "--diff", input=json.dumps({"file_path": "w.txt", "old_string": "two", "new_string": "2"}))
    assert "-two\r\n+2\r\n" in r.stdout and "\\x0d" not in r.stdout, r


def test_a_finding_quotes_a_long_line_within_bounds(plain: Repo, cli) -> None:  # type: ignore[no-untyped-def]
    """Before: a `syntax` finding printed a 60 KB line whole (in the message's excerpt, twice)."""
    long_line = "x = [" + "1, " * 20_000 + "]\n"
    plain.commit({"m.py": "def f():\n    return 1\n" + long_line, ".agent-guard.yaml": "checks: {syntax: error}\n"})
    r = cli(
        "apply",
        "--json",
        input=json.dumps({"file_path": "m.py", "old_string": "    return 1\n", "new_string": "    return (1\n"}),
    )
    got = r.json()
    assert r.code == 1 and got["findings"][0]["code"] == "syntax", r
    for f in got["findings"]:
        for line in (f["message"] + "\n" + f["hint"]).splitlines():
            assert len(line) <= 520, (f["code"], len(line))
    r = cli("apply", input=json.dumps({"file_path": "m.py", "old_string": "    return 1\n", "new_string": "    return (1\n"}))
    assert len(r.stdout + r.stderr) < 4000, len(r.stdout + r.stderr)
    # Every excerpt of a file's lines is bounded: not-found's closest region, ambiguous candidates.
    plain.commit({"wide.txt": ("y" * 50_000 + "\n") * 2})
    for edit in (
        {"file_path": "wide.txt", "old_string": "y" * 49_999 + "z", "new_string": "q"},
        {"file_path": "wide.txt", "old_string": "y" * 50_000, "new_string": "q"},
    ):
        r = cli("apply", input=json.dumps(edit))
        assert r.code == 1 and len(r.stdout + r.stderr) < 4000, (len(r.stdout + r.stderr), r.stderr[:300])


def test_the_wordings_that_escape_and_bound() -> None:
    from guard.model import Finding
    from guard.text.wording import CLIP, clip, printable, printable_diff

    assert printable("a\u202eb\u2066c") == "a\\u202eb\\u2066c"
    assert printable_diff("+x\r\n+a\rb\x1b[2K\n+y\r") == "+x\r\n+a\\x0db\\x1b[2K\n+y\r"
    assert clip("short") == "short"
    line = "x" * 30_000 + "HERE" + "y" * 30_000
    shown = clip(line, at=30_000)
    assert "HERE" in shown and len(shown) < CLIP + 40 and shown.startswith("...") and "(60,004 characters)" in shown
    f = Finding("syntax", "error", "a.py", 1, "m " + "z" * 100_000, "h\n" + "q" * 100_000 + "\nend")
    assert max(len(ln) for ln in (f.message + "\n" + f.hint).splitlines()) < 520
    assert f.hint.endswith("\nend")


def test_every_finding_about_a_protected_file_is_reworded() -> None:
    from guard import policy
    from guard.files import redaction
    from guard.model import Finding

    pol = policy.load(None, "default")
    secret = "TOKEN=hunter2"
    for code in (
        "not-found",
        "ambiguous",
        "stale",
        "no-op",
        "placeholder",
        "whitespace",
        "syntax",
        "conflict-marker",
        "rollback-conflict",
        "some-new-code",
    ):
        for path in (".env", "./.env", "deploy/.env.prod", "x/y.pem"):
            f = Finding(code, "error", path, 3, f"closest: {secret}", f"     1| {secret}")
            got = redaction.finding(f, pol)
            assert secret not in got.message + got.hint and got.line is None and got.code == code, (code, path, got)
            assert path in got.message
        assert redaction.finding(Finding(code, "error", "src/app.py", 3, secret, secret), pol).message == secret
    for code in sorted(redaction.SAFE_CODES):
        f = Finding(code, "error", ".env", None, "about the path", "")
        assert redaction.finding(f, pol) is f


def test_the_allow_list_case_rule_in_protected_finding() -> None:
    from guard import policy
    from guard.files import paths

    base = policy.load(None, "default")
    for ignorecase, refused in ((False, True), (True, False)):
        pol = policy.Policy(
            "t",
            {**base.data, "paths": {**base.data["paths"], "allow": ["src/**"]}},  # type: ignore[dict-item]
            ignorecase=ignorecase,
        )
        assert (paths.protected_finding("SRC/evil.py", pol) is not None) is refused
        assert paths.protected_finding("src/ok.py", pol) is None
        assert paths.protected_finding("src/.ENV", pol) is not None  # protected globs ignore case either way
