"""The verify commands behind the Claude Code hook and around shell turns (issue 26 §1).

PreToolUse checks the edit Claude's tool will make; the verify commands run on its result
within the hook's deadline: one that fails, or cannot finish by then, denies (exit 2), and a
formatter's change cannot be taken into the tool's edit, so it denies with the diff.  A shell
turn (``agent-guard run``) is judged by them once recorded; ``shell.on_violation`` decides.
Every hook runs as Claude Code runs it: the installed command, the payload on standard input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import Repo, checkout_env, command

AGENT_GUARD = Path(sys.executable).with_name("agent-guard")
CALC = "def add(a, b):\n    return a + b\n\n\ndef twice(x):\n    return add(x, x)\n"
CHECK = 'for f in "$@"; do if grep -n BAD "$f"; then echo "$f: BAD is not allowed" >&2; exit 3; fi; done\n'


def hook(
    repo: Repo,
    tool_input: dict[str, Any],
    *args: str,
    tool: str = "Edit",
    event: str = "PreToolUse",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    data = {
        "session_id": "s1",
        "cwd": str(repo.root),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    return subprocess.run(
        [str(AGENT_GUARD), "hook", "claude-code", *args],
        input=json.dumps(data),
        cwd=repo.root,
        env=checkout_env(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def edit(repo: Repo, new: str) -> dict[str, Any]:
    return {"file_path": str(repo.root / "src" / "calc.py"), "old_string": "    return add(x, x)", "new_string": new}


def project(repo: Repo, policy: str, **scripts: str) -> Repo:
    repo.commit({"src/calc.py": CALC, "check.sh": CHECK, ".agent-guard.yaml": policy, **scripts})
    return repo


def test_the_pre_hook_denies_what_the_commands_refuse(repo: Repo) -> None:
    project(repo, 'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n')
    before = repo.snapshot()
    denied = hook(repo, edit(repo, "    return add(x, x)  # BAD"))
    assert denied.returncode == 2, denied
    assert "verify: 'no-bad' (sh check.sh src/calc.py) failed with exit status 3" in denied.stderr
    assert "src/calc.py: BAD is not allowed" in denied.stderr
    assert repo.snapshot() == before
    passed = hook(repo, edit(repo, "    return x + x"))
    assert passed.returncode == 0, passed
    assert "permissionDecision" not in passed.stdout  # a pass grants nothing
    assert repo.snapshot() == before  # the pre hook writes nothing; Claude's tool does


def test_a_command_that_cannot_finish_before_the_deadline_denies(repo: Repo, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    project(
        repo,
        "verify_sandbox: off\n"
        'verify:\n  - {name: slow, run: "sleep 60 & echo $! > \\"$VERIFY_PIDS\\"; sleep 60", timeout: 120}\n',
    )
    before = repo.snapshot()
    started = time.monotonic()
    denied = hook(repo, edit(repo, "    return x + x"), "--deadline", "4", env={"VERIFY_PIDS": str(pids)})
    took = time.monotonic() - started
    assert denied.returncode == 2, denied
    assert "'slow'" in denied.stderr and "left before the hook's deadline (4 s, --deadline)" in denied.stderr
    assert took < 9, took  # the command was stopped before the deadline, not at its own 120 s timeout
    assert repo.snapshot() == before
    pid = int(pids.read_text())
    time.sleep(0.2)
    try:
        state = Path(f"/proc/{pid}/status").read_text()
        assert "\nState:\tZ" in state, f"{pid} outlived the hook"
    except FileNotFoundError:
        pass


def test_a_formatters_change_denies_with_the_diff_to_send(repo: Repo) -> None:
    fmt = (
        'for f in "$@"; do if grep -q "[a-z]+[a-z]" "$f"; then sed "s/\\([a-z]\\)+\\([a-z]\\)/\\1 + \\2/g" "$f" > '
        '"$f.t" && mv "$f.t" "$f"; s=1; fi; done; exit ${s:-0}\n'
    )
    project(repo, 'verify:\n  - {name: format, run: "sh fmt.sh {files}", files: ["*.py"], fix: true}\n', **{"fmt.sh": fmt})
    denied = hook(repo, edit(repo, "    return x+x"))
    assert denied.returncode == 2, denied
    assert "-    return x+x" in denied.stderr and "+    return x + x" in denied.stderr
    assert "cannot rewrite this tool's edit" in denied.stderr
    assert hook(repo, edit(repo, "    return x + x")).returncode == 0


def test_a_shell_turn_is_verified_and_reverted_by_the_policy(repo: Repo) -> None:
    project(repo, 'shell: {on_violation: revert}\nverify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n')
    report = repo.root.parent / "report.json"
    script = "import pathlib; p = pathlib.Path('src/calc.py'); p.write_text(p.read_text() + '# BAD\\n')"
    result = command(repo.root, "agent-guard", "run", "--report", str(report), "--", sys.executable, "-c", script)
    assert result.returncode == 1, result
    shown = json.loads(report.read_text())
    assert [f["code"] for f in shown["findings"] if f["severity"] == "error"] == ["verify"]
    assert shown["verify"][0]["status"] == "failed"
    assert repo.read("src/calc.py") == CALC.encode()  # reverted
    assert b"reverted" in result.stderr


def test_a_shell_turn_that_passes_stays(repo: Repo) -> None:
    project(repo, 'verify:\n  - {name: no-bad, run: "sh check.sh {files}", files: ["*.py"]}\n')
    script = "import pathlib; p = pathlib.Path('src/calc.py'); p.write_text(p.read_text() + '# fine\\n')"
    result = command(
        repo.root,
        "agent-guard",
        "run",
        "--",
        sys.executable,
        "-c",
        script,
        env={k: v for k, v in os.environ.items() if k == "PATH"},
    )
    assert result.returncode == 0, result
    assert repo.read("src/calc.py").endswith(b"# fine\n")
