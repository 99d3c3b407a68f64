"""The warm path gives the cold path's answers: a pass, a deny, a post hook's record, for many repositories.

A real `agent-guard serve` runs in a child; the hooks are run as Claude Code runs them, both the small
command (``python -SI guard/warm/hook.py``) and `agent-guard hook claude-code`, and each answer is held
to the answer of the same call made cold (no server) on a twin repository: exit status, standard
output and standard error, byte for byte, and what the repository holds afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Repo
from warmtools import SRC, Server, answer, cold_env, command_hook, edit, payload, warm_hook

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

HOOKS = {"hook.py": warm_hook, "agent-guard hook claude-code": command_hook}


def twins(tmp_path: Path) -> tuple[Repo, Repo]:
    out = []
    for name in ("warm", "cold"):
        root = tmp_path / name / "proj"  # the same path below each, so that messages naming it agree
        root.mkdir(parents=True)
        r = Repo(root)
        r.commit({"stats.py": SRC, "README.md": "# demo\n"})
        out.append(r)
    return out[0], out[1]


def same(warm: tuple[int, str, str], cold: tuple[int, str, str], warm_repo: Repo, cold_repo: Repo) -> None:
    """The two answers are one, once each repository's path is written the same."""

    def norm(a: tuple[int, str, str], repo: Repo) -> tuple[int, str, str]:
        top = str(repo.root.parent)
        return a[0], a[1].replace(top, "<top>"), a[2].replace(top, "<top>")

    assert norm(warm, warm_repo) == norm(cold, cold_repo)


def ledger(repo: Repo, agent: str = "claude") -> list[tuple[str, str]]:
    """Each commit on `agent`'s shadow ref (turns, and the syncs with the user's own changes between
    them): its subject and its diff."""
    ref = f"refs/agent-guard/{agent}"
    if not repo.git("for-each-ref", ref).strip():
        return []
    shas = repo.git("rev-list", ref).split()
    return [
        (repo.git("log", "-1", "--format=%s", s).strip(), repo.git("diff", f"{s}^", s))
        for s in shas
        if repo.git("rev-list", "--parents", "-1", s).count(" ")
    ]


@pytest.mark.parametrize("hook", list(HOOKS))
def test_pass_deny_and_post_answer_as_cold(tmp_path: Path, hook: str) -> None:
    run = HOOKS[hook]
    warm_repo, cold_repo = twins(tmp_path)
    cold = cold_env(tmp_path)
    with Server(tmp_path) as server:
        for args, make in (
            ((), lambda r: edit(r, "s = 0", "s = 0.0")),  # passes: no output at all
            (("--on-pass", "ask"), lambda r: edit(r, "s = 0", "s = 0.0")),  # passes: asks
            ((), lambda r: edit(r, "s += i", "# ... existing code ...")),  # refused: placeholder
            ((), lambda r: edit(r, "nothing like this", "x")),  # refused: not-found, with the closest lines
            ((), lambda r: b"{not json"),  # a payload it cannot read: blocked
        ):
            before = warm_repo.snapshot()
            w = answer(run(warm_repo.root, make(warm_repo), *args))
            c = answer(command_hook(cold_repo.root, make(cold_repo), *args, env=cold))
            same(w, c, warm_repo, cold_repo)
            assert warm_repo.snapshot()["<refs>"] == before["<refs>"]
        assert [c.split(":")[0] for c in server.calls()] == ["PreToolUse"] * 4 + ["None"], server.log()
        assert server.calls()[2].startswith("PreToolUse: exit 2")
        assert answer(run(warm_repo.root, edit(warm_repo, "s += i", "# ... existing code ...")))[0] == 2

        # A whole edit: pre, the tool writes, post records the turn; both ways record the same turn.
        for repo, hook_run, env in ((warm_repo, run, None), (cold_repo, command_hook, cold)):
            pre = edit(repo, "s = 0", "s = 0.0", tool_use_id="toolu_42")
            assert answer(hook_run(repo.root, pre, env=env)) == (0, "", "")
            repo.write({"stats.py": SRC.replace("s = 0", "s = 0.0")})
            post = edit(repo, "s = 0", "s = 0.0", event="PostToolUse", tool_use_id="toolu_42")
            assert answer(hook_run(repo.root, post, env=env)) == (0, "", "")
        assert ledger(warm_repo) == ledger(cold_repo) != []
        assert [c.split(" (")[0] for c in server.calls()[-2:]] == ["PreToolUse: exit 0", "PostToolUse: exit 0"]


def test_the_callers_environment_names_the_agent(tmp_path: Path, repo: Repo) -> None:
    repo.commit({"stats.py": SRC})
    with Server(tmp_path) as server:
        env = {"AGENT_GUARD_AGENT": "codex"}
        assert warm_hook(repo.root, edit(repo, "s = 0", "s = 1", tool_use_id="t9"), env=env).returncode == 0
        repo.write({"stats.py": SRC.replace("s = 0", "s = 1")})
        r = warm_hook(repo.root, edit(repo, "s = 0", "s = 1", event="PostToolUse", tool_use_id="t9"), env=env)
        assert answer(r) == (0, "", "")
        assert len(server.calls()) == 2
    assert repo.git("for-each-ref", "--format=%(refname)", "refs/agent-guard/").split() == ["refs/agent-guard/codex"]


def test_many_repositories_through_one_server(tmp_path: Path) -> None:
    repos = []
    for n in range(3):
        root = tmp_path / f"r{n}"
        root.mkdir()
        r = Repo(root)
        r.commit({"stats.py": SRC.replace("total", f"total{n}")})
        repos.append(r)
    with Server(tmp_path) as server:
        for step in range(2):  # interleaved: pre of each, then the writes, then post of each
            for n, r in enumerate(repos):
                data = edit(r, "return s\n", f"return s + {step}\n", tool_use_id=f"t{n}{step}")
                assert answer(warm_hook(tmp_path, data)) == (0, "", ""), n
            for r in repos:
                r.write({"stats.py": r.read("stats.py").decode().replace("return s\n", f"return s + {step}\n")})
            for n, r in enumerate(repos):
                data = edit(r, "return s\n", f"return s + {step}\n", event="PostToolUse", tool_use_id=f"t{n}{step}")
                assert answer(warm_hook(tmp_path, data)) == (0, "", ""), n
            for r in repos:
                r.git("checkout", "-q", "--", "stats.py")
        # Each repository holds its own two turns, nothing of the others'.
        for n, r in enumerate(repos):
            turns = [t for t in ledger(r) if " turn " in t[0]]
            assert len(turns) == 2, (n, turns)
            assert all(f"total{n}" in diff and all(f"total{m}" not in diff for m in range(3) if m != n) for _, diff in turns)
        assert len(server.calls()) == 12, server.log()
        # A denial in one repository, while the others pass.
        bad = edit(repos[1], "s += i", "# ... rest of the loop ...")
        assert warm_hook(tmp_path, bad).returncode == 2


def test_arguments_for_the_command_line_go_cold(tmp_path: Path, repo: Repo) -> None:
    repo.commit({"stats.py": SRC})
    with Server(tmp_path) as server:
        r = warm_hook(repo.root, b"", "--help")
        assert r.returncode == 0 and b"Usage: agent-guard hook claude-code" in r.stdout
        r = warm_hook(repo.root, edit(repo, "s = 0", "s = 1"), "--on-pass", "allow")
        assert r.returncode == 2 and b"'allow' was removed" in r.stderr  # click's usage error, as cold
        r = warm_hook(repo.root, edit(repo, "s = 0", "s = 1"), "--deadline", "0")
        assert r.returncode == 2 and b"--deadline" in r.stderr
        assert all("left to the hook" in c for c in server.calls()), server.log()


def test_a_post_hook_of_a_read_and_other_tools(tmp_path: Path, repo: Repo) -> None:
    repo.commit({"stats.py": SRC})
    with Server(tmp_path) as server:
        read = payload(repo, "Read", {"file_path": str(repo.root / "stats.py")}, event="PostToolUse")
        assert answer(warm_hook(repo.root, read)) == (0, "", "")
        bash = payload(repo, "Bash", {"command": "ls"})
        assert answer(warm_hook(repo.root, bash)) == (0, "", "")
        assert len(server.calls()) == 2


def test_parallel_calls_each_find_a_worker(tmp_path: Path, repo: Repo) -> None:
    """Claude Code runs the hooks of parallel tool calls at once: each gets its own answer."""
    import subprocess
    import sys

    from conftest import checkout_env
    from warmtools import HOOK

    files = {f"m{n}.py": SRC.replace("total", f"total{n}") for n in range(8)}
    repo.commit(files)
    with Server(tmp_path) as server:
        procs = []
        for n in range(8):
            new = "# ... existing code ..." if n % 2 else "s = 1"  # every other one is refused
            data = payload(
                repo,
                "Edit",
                {"file_path": str(repo.root / f"m{n}.py"), "old_string": "s = 0", "new_string": new},
                tool_use_id=f"p{n}",
            )
            proc = subprocess.Popen(
                [sys.executable, "-SI", str(HOOK)],
                cwd=repo.root,
                env=checkout_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            procs.append((n, proc, data))
        for n, proc, data in procs:
            out, err = proc.communicate(data, timeout=60)
            assert proc.returncode == (2 if n % 2 else 0), (n, out, err)
            assert (b"placeholder" in err) == bool(n % 2), (n, err)
        assert len(server.calls()) == 8, server.log()


def test_the_callers_umask_makes_the_files(tmp_path: Path) -> None:
    """The stash a pre hook keeps is made under the hook's umask, as the command makes it."""
    import os
    import subprocess
    import sys

    from conftest import checkout_env
    from warmtools import HOOK

    warm_repo, cold_repo = twins(tmp_path)

    def run(repo: Repo, argv: list[str], env: dict[str, str] | None) -> int:
        data = edit(repo, "s = 0", "s = 1", tool_use_id="umask1")
        r = subprocess.run(
            argv,
            input=data,
            cwd=repo.root,
            env=checkout_env(env),
            capture_output=True,
            timeout=60,
            check=False,
            preexec_fn=lambda: os.umask(0o077),
        )
        assert r.returncode == 0, r
        stash = repo.root / ".git" / "agent-guard" / "hooks" / "umask1.json"
        return stash.stat().st_mode & 0o777

    with Server(tmp_path) as server:  # the server itself runs under the test's umask (022)
        warm = run(warm_repo, [sys.executable, "-SI", str(HOOK)], None)
        assert len(server.calls()) == 1
    cold = run(cold_repo, [sys.executable, "-m", "guard", "hook", "claude-code"], cold_env(tmp_path))
    assert warm == cold == 0o600
