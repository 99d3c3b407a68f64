"""Outside every repository, a command says so at once: before it imports pygit2 (or, for the MCP
server, its SDK), which cost `agent-guard mcp` 2.7 s and `log` 0.45 s just to say so.

Each program is run in a child, as its console script runs it, and reports at its end which of
the heavy modules it loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import checkout_env

_REPORT = """\
import json, os, sys
from guard.cli import program
real_exit = os._exit
def leave(status):
    heavy = sorted(m for m in ("pygit2", "mcp", "guard.pipeline.engine", "guard.turns.history") if m in sys.modules)
    print(json.dumps({"status": status, "heavy": heavy}), file=sys.stderr)
    sys.stderr.flush()
    real_exit(status)
os._exit = leave
program.run(ARGS)
"""


def _run(cwd: Path, args: list[str]) -> tuple[dict[str, object], str]:
    """The program's end (status, heavy modules loaded), and what it printed (stdout, then stderr)."""
    r = subprocess.run(
        [sys.executable, "-c", _REPORT.replace("ARGS", repr(args))],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=checkout_env(),
        timeout=120,
        check=False,
    )
    *said, last = r.stderr.strip().splitlines()
    return json.loads(last), r.stdout + "\n".join(said)


@pytest.mark.parametrize(
    "args",
    [
        ["mcp"],
        ["log"],
        ["show", "1"],
        ["rollback"],
        ["gc", "--keep", "1"],
        ["stats"],
        ["read", "a.py"],
        ["uninstall"],
        ["log", "--json"],
    ],
)
def test_outside_a_repository_nothing_heavy_is_loaded(tmp_path: Path, args: list[str]) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    got, said = _run(outside, args)
    assert got["status"] == 2, (got, said)
    assert f"agent-guard: not a git repository (or any parent up to /): {outside}" in said.splitlines(), said
    assert got["heavy"] == [], got


def test_mcp_says_a_bad_repository_before_loading_the_sdk(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    got, said = _run(tmp_path, ["mcp", "--repo", str(outside)])
    assert got["status"] == 2 and "not a git repository" in said and "mcp" not in got["heavy"], (got, said)


def test_inside_a_repository_the_same_commands_still_run(repo) -> None:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "x = 1\n"})
    got, said = _run(repo.root, ["log"])
    assert got["status"] == 0 and "no recorded turns" in said, (got, said)
