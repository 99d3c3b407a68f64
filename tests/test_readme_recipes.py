"""README.md's configuration snippets, loaded from the README itself and used as a user would.

Each snippet marked ``<!-- file: NAME -->`` is parsed as NAME, and what it names is
checked against what exists: the commands it runs run (in scratch repositories, with
this checkout's commands first on PATH), the MCP servers it starts serve the tools it
names, and the pre-commit snippets work under the real pre-commit framework.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import readme
import yaml
from conftest import GIT_ENV, Repo, command, command_env, git
from readme import Block, blocks, file_blocks

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

ROOT = Path(__file__).resolve().parents[1]
README_TEXT = readme.text()  # the README and the pages under docs/
CODE = "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
LAZY = "def total(items):\n    # ... rest of the code unchanged\n    return result\n"
FILES = (
    ".agent-guard.yaml",
    ".pre-commit-config.yaml",
    ".github/workflows/agent-guard.yml",
    "hooks/pre-receive",
    ".mcp.json",
    ".claude/settings.json",
    ".codex/config.toml",
    "AGENTS.md",
    ".aider.conf.yml",
    "opencode.json",
)


def _toml(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


def _one(name: str) -> Block:
    [block] = file_blocks(name)
    return block


def _shell(marker_start: str) -> str:
    [block] = [b for b in blocks() if b.marker.startswith(marker_start)]
    return block.text.strip()


def test_every_snippet_parses() -> None:
    seen = {b.marker[len("file: ") :] for b in blocks() if b.marker.startswith("file: ")}
    assert seen == set(FILES), seen
    for b in blocks():
        try:
            if b.lang == "json":
                json.loads(b.text)
            elif b.lang == "yaml":
                assert yaml.safe_load(b.text) is not None
            elif b.lang == "toml":
                _toml(b.text)
            elif b.lang == "python":
                ast.parse(b.text)
        except Exception as exc:  # noqa: BLE001 - the report names the block
            pytest.fail(f"{b.where()}: the {b.lang} block does not parse: {exc}")


def test_policy_snippets_are_valid_policies(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    for n, block in enumerate(file_blocks(".agent-guard.yaml")):
        path = tmp_path / f"policy{n}.yaml"
        path.write_text(block.text)
        result = cli("policy", "check", str(path), cwd=tmp_path)
        assert result.code == 0, (block.where(), result)


# ---------------------------------------------------------------------- agents


def _server(argv: list[str]) -> tuple[str, list[str]]:
    """(command, args) of an `X mcp add NAME -- COMMAND ARGS...` line."""
    words = shlex.split(argv[0]) if len(argv) == 1 else argv
    cut = words.index("--")
    return words[cut + 1], words[cut + 2 :]


def _agent_of(args: list[str]) -> str:
    assert args[0] == "mcp" and "--agent" in args, args
    return args[args.index("--agent") + 1]


def test_each_agents_recipes_record_one_agent_name() -> None:
    mcp_json = json.loads(_one(".mcp.json").text)["mcpServers"]["agent-guard"]
    claude_add = _server([_shell("not run: it needs Claude Code")])
    assert claude_add == (mcp_json["command"], mcp_json["args"])
    assert _agent_of(mcp_json["args"]) == "claude"  # as the Claude Code hooks record Claude's turns
    codex_toml = _toml(_one(".codex/config.toml").text)["mcp_servers"]["agent-guard"]
    codex_add = _server([_shell("not run: it needs Codex")])
    assert codex_add == (codex_toml["command"], codex_toml["args"]) and _agent_of(codex_toml["args"]) == "codex"
    opencode = json.loads(_one("opencode.json").text)
    assert _agent_of(opencode["mcp"]["agent-guard"]["command"][1:]) == "opencode"
    assert opencode["permission"]["edit"] == "deny"
    # Claude Code's own editing tools, denied, are the ones its hooks watch.
    deny = set(json.loads(_one(".claude/settings.json").text)["permissions"]["deny"])
    hooks = json.loads((ROOT / "hooks" / "claude-code-settings.json").read_text())["hooks"]["PreToolUse"][0]
    assert deny == set(hooks["matcher"].split("|")) - {"Bash"}  # the hooks record Bash; MCP users keep it


def test_agents_md_names_the_servers_tools_unambiguously() -> None:
    from guard.adapters import mcp_server

    text = " ".join(_one("AGENTS.md").text.split())
    named = set(re.findall(r"`(\w+_\w+)`", text))
    assert named and named <= set(mcp_server.TOOLS), named - set(mcp_server.TOOLS)
    assert {"read_file", "edit_file", "apply_patch"} <= named
    for sentence in re.split(r"(?<=\.)\s+", text):
        if "apply_patch" in sentence and re.search(r"\b(not|never|no)\b", sentence, re.I):
            # Codex has a built-in tool of the same name: a sentence that forbids one names which.
            assert "built-in" in sentence, sentence
        elif "apply_patch" in sentence:
            assert "agent-guard" in sentence, sentence


def _mcp_session(root: Path, server_command: str, args: list[str], log: Path) -> dict[str, Any]:
    """Start the server as the recipe does, read and edit a file, list the turns."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in command_env(GIT_ENV).items() if not k.startswith("AGENT_GUARD_")}
    params = StdioServerParameters(command=server_command, args=args, cwd=str(root), env=env)
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        with anyio.fail_after(120), open(log, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=60) as s:
                    await s.initialize()
                    seen["tools"] = {t.name for t in (await s.list_tools()).tools}
                    await s.call_tool("read_file", {"path": "app.py"}, read_timeout_seconds=60)
                    edit = await s.call_tool(
                        "edit_file",
                        {"path": "app.py", "edits": [{"old_string": "result = 0", "new_string": "result = 0.0"}]},
                        read_timeout_seconds=60,
                    )
                    seen["edit_error"] = bool(edit.is_error)
                    turns = await s.call_tool("list_turns", {}, read_timeout_seconds=60)
                    seen["turns"] = (turns.structured_content or {}).get("turns", [])

    anyio.run(scenario)
    return seen


@pytest.mark.parametrize("recipe", ["claude", "codex", "opencode"])
def test_each_mcp_recipe_starts_a_server_with_the_tools_it_names(recipe: str, repo: Repo, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from guard.adapters import mcp_server

    if recipe == "claude":
        server = json.loads(_one(".mcp.json").text)["mcpServers"]["agent-guard"]
        server_command, args = server["command"], server["args"]
        named = set(mcp_server.TOOLS)
    elif recipe == "codex":
        server = _toml(_one(".codex/config.toml").text)["mcp_servers"]["agent-guard"]
        server_command, args = server["command"], server["args"]
        named = set(re.findall(r"`(\w+_\w+)`", _one("AGENTS.md").text))
    else:
        server_command, *args = json.loads(_one("opencode.json").text)["mcp"]["agent-guard"]["command"]
        said = re.search(r"appear to the model as (.*?), and so on", " ".join(README_TEXT.split()))
        assert said, "the OpenCode recipe no longer says how the tools appear"
        named = {name.removeprefix("agent-guard_") for name in re.findall(r"`([\w-]+)`", said.group(1))}
    repo.commit({"app.py": CODE})
    seen = _mcp_session(repo.root, server_command, args, tmp_path / "server.log")
    assert named and named <= seen["tools"], (named, seen["tools"], (tmp_path / "server.log").read_text())
    assert not seen["edit_error"]
    assert [t["agent"] for t in seen["turns"]] == [_agent_of(args)]
    assert f"refs/agent-guard/{_agent_of(args)}" in repo.git("for-each-ref", "--format=%(refname)")


def test_claude_code_hook_snippet_runs(repo: Repo) -> None:
    [block] = [b for b in blocks() if b.lang == "json" and '"PreToolUse"' in b.text and '"http"' not in b.text]
    settings = json.loads(block.text)
    assert settings == json.loads((ROOT / "hooks" / "claude-code-settings.json").read_text())
    repo.commit({"app.py": CODE})
    commands = set()
    for event in ("PreToolUse", "PostToolUse"):
        [entry] = settings["hooks"][event]
        [hook] = entry["hooks"]
        assert "Edit" in entry["matcher"].split("|")
        commands.add(hook["command"])
    [one] = commands  # one command serves both events, run by a shell as Claude Code runs it
    words = ["sh", "-c", one]

    def run(new: str) -> subprocess.CompletedProcess[bytes]:
        payload = {
            "session_id": "s1",
            "cwd": str(repo.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_use_id": "t1",
            "tool_input": {"file_path": str(repo.root / "app.py"), "old_string": "    result = 0\n", "new_string": new},
        }
        return command(repo.root, *words, input=json.dumps(payload).encode())

    before = repo.snapshot()
    passed = run("    result = 0.0\n")
    assert passed.returncode == 0 and b'"deny"' not in passed.stdout, passed
    refused = run("    # ... rest of the code unchanged\n")
    assert refused.returncode == 2 or b'"deny"' in refused.stdout, refused
    assert b"placeholder" in refused.stdout + refused.stderr
    assert repo.snapshot() == before  # PreToolUse decides; nothing is written


def test_aider_lint_command_checks_the_last_commit(repo: Repo) -> None:
    config = yaml.safe_load(_one(".aider.conf.yml").text)
    assert config["auto-lint"] is True
    repo.commit({"app.py": CODE})
    repo.commit({"app.py": CODE.replace("result = 0", "result = 0.0")}, message="aider: clean")
    # Aider appends the edited file's name to the lint command.
    clean = command(repo.root, *shlex.split(config["lint-cmd"]), "app.py")
    assert clean.returncode == 0, clean
    repo.commit({"app.py": LAZY}, message="aider: lazy")
    lazy = command(repo.root, *shlex.split(config["lint-cmd"]), "app.py")
    assert lazy.returncode == 1 and b"app.py:2: placeholder:" in lazy.stdout, lazy


def test_python_harness_calls_exist() -> None:
    import guard

    [block] = [b for b in blocks() if b.lang == "python" and "import guard" in b.text]
    calls = [
        node
        for node in ast.walk(ast.parse(block.text))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "guard"
    ]
    assert {c.func.attr for c in calls} >= {"apply", "read", "log", "rollback", "check"}  # type: ignore[attr-defined]
    for call in calls:
        function = getattr(guard, call.func.attr)  # type: ignore[attr-defined]
        params = inspect.signature(function).parameters
        for keyword in call.keywords:
            assert keyword.arg in params, f"guard.{call.func.attr}() takes no {keyword.arg}="  # type: ignore[attr-defined]


def test_python_harness_feedback_reads_well(repo: Repo) -> None:
    """The recipe's feedback for the model, run on real refusals: one with a line, one about no line
    (it once printed `app.py:None: budget: ...`)."""
    import guard

    [block] = [b for b in blocks() if b.lang == "python" and "import guard" in b.text]
    [line] = [ln.strip() for ln in block.text.splitlines() if ln.strip().startswith("feedback = ")]
    repo.commit({"app.py": CODE, ".agent-guard.yaml": "budget: {per_edit: {lines_added: 2}}\n"})
    lazy = json.dumps({"file_path": "app.py", "old_string": "    result = 0\n", "new_string": "    # ... rest of the code\n"})
    big = json.dumps({"file_path": "app.py", "old_string": "    return result\n", "new_string": "    return result\n" * 4})
    for edit, want in ((lazy, "app.py:2: placeholder: "), (big, "<input>: budget: this edit would reach 3 added lines")):
        report = guard.apply(edit, repo=repo.root)
        scope: dict[str, Any] = {"report": report}
        exec(line, scope)  # noqa: S102 - the README's own line
        assert scope["feedback"].startswith(want) and "None" not in scope["feedback"], scope["feedback"]


def test_every_environment_variable_read_is_documented() -> None:
    """Each variable the package reads by name is in the README's table (a prefix `X_*` covers its family)."""
    source = "\n".join(f.read_text(encoding="utf-8") for f in (ROOT / "guard").rglob("*.py"))
    read = set(re.findall(r"""environ(?:\.get|\.pop)?[\[(]\s*["']([A-Z][A-Z0-9_]+)["']""", source))
    section = README_TEXT.split("## Environment, shell completion, uninstalling", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`([A-Z][A-Z0-9_]*\*?)`", section))
    missing = sorted(n for n in read if n not in listed and not any(p.endswith("*") and n.startswith(p[:-1]) for p in listed))
    assert read and not missing, f"read by agent-guard, not in the README's table of environment variables: {missing}"


# ---------------------------------------------------------------------- commits


def _bad_range(repo: Repo) -> tuple[str, str]:
    base = repo.commit({"app.py": CODE})
    repo.commit({"app.py": LAZY}, message="lazy")
    return base, repo.git("rev-parse", "HEAD").strip()


def test_ci_workflow_steps_run(repo: Repo, tmp_path: Path) -> None:
    workflow = yaml.safe_load(_one(".github/workflows/agent-guard.yml").text)
    job = workflow["jobs"]["agent-guard"]
    steps = [s for s in job["steps"] if "agent-guard check" in s.get("run", "")]
    assert len(steps) == 2
    base, tip = _bad_range(repo)
    env = {"FROM": base, "TO": tip}
    annotate = command(repo.root, "bash", "-c", steps[0]["run"], env=env)
    assert annotate.returncode == 1 and b"::error file=app.py,line=2,title=agent-guard placeholder::" in annotate.stdout
    sarif = command(repo.root, "bash", "-c", steps[1]["run"], env=env)
    assert sarif.returncode == 0, sarif
    log = json.loads((repo.root / "agent-guard.sarif").read_text())
    assert log["version"] == "2.1.0" and log["runs"][0]["results"][0]["ruleId"] == "placeholder"
    upload = [s for s in job["steps"] if "upload-sarif" in s.get("uses", "")]
    assert upload and upload[0]["with"]["sarif_file"] == "agent-guard.sarif"


def test_pre_receive_hook_refuses_a_bad_push(repo: Repo, tmp_path: Path) -> None:
    hook_text = _one("hooks/pre-receive").text
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    hook = server / "hooks" / "pre-receive"
    hook.write_text(hook_text)
    hook.chmod(0o755)
    repo.commit({"app.py": CODE})
    repo.git("remote", "add", "origin", str(server))
    first = command(repo.root, "git", "push", "-q", "origin", "main")
    assert first.returncode == 0, first  # the first push: checked from its root, and clean
    repo.commit({"app.py": LAZY}, message="lazy")
    refused = command(repo.root, "git", "push", "origin", "main")
    assert refused.returncode != 0, refused
    assert b"remote: app.py:2: placeholder:" in refused.stderr, refused
    assert git(server, "rev-parse", "main") != repo.git("rev-parse", "HEAD")
    # The same commit on a new branch is refused too; a fixed history goes through.
    branch = command(repo.root, "git", "push", "origin", "HEAD:refs/heads/topic")
    assert branch.returncode != 0 and b"placeholder" in branch.stderr
    repo.git("reset", "-q", "--hard", "HEAD~1")  # drop the lazy commit
    repo.commit({"app.py": CODE.replace("result = 0", "result = 0.0")}, message="fixed")
    fine = command(repo.root, "git", "push", "-q", "origin", "main")
    assert fine.returncode == 0, fine
    assert git(server, "rev-parse", "main") == repo.git("rev-parse", "HEAD")


def _receiving(tmp_path: Path) -> Path:
    """A bare repository with the README's pre-receive hook."""
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    hook = server / "hooks" / "pre-receive"
    hook.write_text(_one("hooks/pre-receive").text)
    hook.chmod(0o755)
    return server


def _push(repo: Repo, *args: str) -> subprocess.CompletedProcess[bytes]:
    return command(repo.root, "git", "push", "origin", *args, timeout=120)


def _orphan(repo: Repo, branch: str) -> None:
    repo.git("checkout", "-q", "--orphan", branch)
    repo.git("rm", "-q", "-rf", ".")


def test_pre_receive_hook_checks_a_history_with_no_base(repo: Repo, tmp_path: Path) -> None:
    server = _receiving(tmp_path)
    repo.git("remote", "add", "origin", str(server))
    # The first push to an empty server: its whole history, a bad commit inside it included.
    repo.commit({"app.py": CODE})
    repo.commit({"app.py": LAZY}, message="lazy")
    repo.commit({"app.py": CODE}, message="fixed again")
    first = _push(repo, "main")
    assert first.returncode != 0 and b"remote: app.py:2: placeholder:" in first.stderr, first
    assert git(server, "for-each-ref") == ""
    repo.git("reset", "-q", "--hard", "HEAD~2")
    assert _push(repo, "-q", "main").returncode == 0
    # An --orphan branch: a new root, alone or with history after it.
    _orphan(repo, "pages")
    repo.commit({"index.py": LAZY}, message="lazy root")
    root = _push(repo, "pages")
    assert root.returncode != 0 and b"remote: index.py:2: placeholder:" in root.stderr, root
    repo.git("reset", "-q", "--hard")
    _orphan(repo, "pages2")
    repo.commit({"index.py": CODE}, message="clean root")
    repo.commit({"index.py": CODE + "x = 1\n"}, message="more")
    repo.commit({"index.py": LAZY}, message="lazy later")
    later = _push(repo, "pages2")
    assert later.returncode != 0 and b"remote: index.py:2: placeholder:" in later.stderr, later
    repo.git("reset", "-q", "--hard", "HEAD~1")
    assert _push(repo, "-q", "pages2").returncode == 0
    # main replaced by a history it has nothing in common with (a forced push).
    lazy_main = repo.commit({"index.py": LAZY}, message="lazy")
    forced = _push(repo, "--force", f"{lazy_main}:refs/heads/main")
    assert forced.returncode != 0 and b"placeholder" in forced.stderr, forced
    assert set(git(server, "for-each-ref", "--format=%(refname)").split()) == {"refs/heads/main", "refs/heads/pages2"}


def test_pre_receive_hook_lets_agents_turns_travel(repo: Repo, tmp_path: Path) -> None:
    """Turns pushed as the README says pass the hook, a placeholder a permissive policy let through included;
    the same commit pushed to a branch is checked, and refused."""
    server = _receiving(tmp_path)
    repo.git("remote", "add", "origin", str(server))
    repo.commit({"app.py": CODE})
    assert _push(repo, "-q", "main").returncode == 0
    lazy = json.dumps({"file_path": "app.py", "old_string": CODE, "new_string": LAZY})
    applied = command(repo.root, "agent-guard", "apply", "--policy", "permissive", "--agent", "claude", input=lazy.encode())
    assert applied.returncode == 0 and b"placeholder" in applied.stdout + applied.stderr, applied
    repo.git("config", "agent-guard.clone", "box")
    pushed = command(repo.root, "agent-guard", "push", "--timeout", "60", timeout=120)
    assert pushed.returncode == 0, pushed
    turn = repo.git("rev-parse", "refs/agent-guard/claude").strip()
    assert git(server, "rev-parse", "refs/agent-guard-clones/box/claude").strip() == turn
    branch = _push(repo, f"{turn}:refs/heads/agent-work")
    assert branch.returncode != 0 and b"remote: app.py:2: placeholder:" in branch.stderr, branch


def test_pre_receive_hook_holds_its_policy_and_checks_merges(repo: Repo, tmp_path: Path) -> None:
    server = _receiving(tmp_path)
    repo.git("remote", "add", "origin", str(server))
    repo.commit({"app.py": CODE})
    assert _push(repo, "-q", "main").returncode == 0
    # A push that relaxes the committed policy, then relies on it.
    repo.commit({".agent-guard.yaml": "extends: permissive\n"}, message="relax")
    repo.commit({"app.py": LAZY}, message="lazy")
    relaxed = _push(repo, "main")
    assert relaxed.returncode != 0 and b"remote: app.py:2: placeholder:" in relaxed.stderr, relaxed
    assert b"path-protected: '.agent-guard.yaml' is a file the policy is read from" in relaxed.stderr
    repo.git("reset", "-q", "--hard", "HEAD~2")
    # An evil merge: content of its own, in neither parent.
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit({"topic.py": "t = 1\n"}, message="topic")
    repo.git("checkout", "-q", "main")
    repo.commit({"main.py": "m = 1\n"}, message="main")
    repo.git("merge", "-q", "--no-commit", "--no-ff", "topic")
    repo.write({"app.py": LAZY})
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "Merge topic")
    evil = _push(repo, "main")
    assert evil.returncode != 0 and b"remote: app.py:2: placeholder:" in evil.stderr, evil
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    assert _push(repo, "-q", "main").returncode == 0


# ---------------------------------------------------------------------- pre-commit, as written


def _pre_commit_blocks() -> tuple[Block, Block]:
    remote, local = file_blocks(".pre-commit-config.yaml")
    assert "repo: local" in local.text and "rev:" in remote.text
    return remote, local


def _pre_commit(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture
def pre_commit_env(tmp_path: Path, package_caches: dict[str, str]) -> dict[str, str]:
    env = command_env({**package_caches, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"})
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT", "GIT_INDEX_FILE", "AGENT_GUARD_POLICY"):
        env.pop(key, None)
    return env


def _blocks_a_placeholder(repo: Repo, env: dict[str, str], warnings_shown: bool = True) -> None:
    installed = _pre_commit(repo.root, env, "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    start = repo.git("rev-parse", "HEAD").strip()
    repo.write({"app.py": LAZY})
    repo.git("add", "app.py")
    blocked = subprocess.run(
        ["git", "commit", "-m", "lazy"], cwd=repo.root, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert blocked.returncode != 0 and "app.py:2: placeholder:" in blocked.stdout + blocked.stderr, blocked
    assert repo.git("rev-parse", "HEAD").strip() == start
    repo.write({"app.py": CODE.replace("return result", "return result  ")})
    repo.git("add", "app.py")
    passed = subprocess.run(
        ["git", "commit", "-m", "fine"], cwd=repo.root, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    out = passed.stdout + passed.stderr
    assert passed.returncode == 0 and "Passed" in out, out
    if warnings_shown:
        assert "app.py:5: whitespace:" in out and "(warning)" in out, out  # shown although the hook passed


@pytest.mark.slow
def test_pre_commit_snippet_as_written(repo: Repo, tmp_path: Path, pre_commit_env: dict[str, str]) -> None:
    remote, _local = _pre_commit_blocks()
    config = yaml.safe_load(remote.text)
    [entry] = config["repos"]
    url, rev = entry["repo"], entry["rev"]
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"{remote.where()}: pin a commit id of main, not {rev!r}"
    # This checkout's repository stands for the published one (no network here): a clone of it.
    source = tmp_path / "agent-guard"
    git(tmp_path, "clone", "-q", "--no-checkout", str(ROOT), str(source))
    if git(source, "cat-file", "-t", rev, check=False).strip() != "commit":
        shallow = git(ROOT, "rev-parse", "--is-shallow-repository", check=False).strip() == "true"
        if shallow:
            pytest.skip(f"{ROOT} is a shallow clone: it may not hold the README's rev {rev}")
        pytest.fail(
            f"{remote.where()}: rev {rev} is not a commit of this repository; pin a commit of main "
            "(pre-commit autoupdate --freeze)"
        )
    assert url in remote.text
    repo.commit({"app.py": CODE, ".pre-commit-config.yaml": remote.text.replace(url, str(source))}, message="start")
    # The pinned commit may be older than this checkout: what it is known to do.
    _blocks_a_placeholder(repo, pre_commit_env, warnings_shown=False)
    # The README's advice to refresh the pin works: `autoupdate --freeze` writes a commit id again.
    updated = _pre_commit(repo.root, pre_commit_env, "autoupdate", "--freeze")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    now = yaml.safe_load((repo.root / ".pre-commit-config.yaml").read_text())["repos"][0]["rev"]
    assert re.fullmatch(r"[0-9a-f]{40}", now) and now == git(source, "rev-parse", "HEAD").strip()


def test_pre_commit_local_snippet_as_written(repo: Repo, pre_commit_env: dict[str, str]) -> None:
    _remote, local = _pre_commit_blocks()
    repo.commit({"app.py": CODE, ".pre-commit-config.yaml": local.text}, message="start")
    _blocks_a_placeholder(repo, pre_commit_env)
    assert os.path.isfile(repo.root / ".git" / "hooks" / "pre-commit")
