"""The real Claude Code, run headless against the scripted model (``anthropic_fake``).

``program`` finds Claude Code ``VERSION`` in a cache folder outside the repository
(``$AGENT_GUARD_HARNESS``, else ``~/.cache/agent-guard-harness``), installing it there with npm
the first time when ``install`` is asked; None when it cannot be had (no npm, no network).
``environment`` gives Claude Code a home of its own and the fake server as its API, and nothing
of the user's Anthropic settings; ``print_`` runs ``claude -p`` in a folder with a bounded time.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import npm_programs

VERSION = "2.1.332"

CACHE = npm_programs.CACHE


def cache() -> Path:
    return CACHE / "claude" / VERSION


def program(install: bool = False, timeout: float = 300) -> Path | None:
    """The `claude` program of ``VERSION`` in the cache, installed there first when `install` is asked."""
    return npm_programs.program("claude", "@anthropic-ai/claude-code", VERSION, install=install, timeout=timeout)


def environment(home: Path, base_url: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's) for Claude Code: its own HOME, the fake as its API with a made-up
    key, none of the user's Anthropic or Claude settings, and no traffic but the fake's."""
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(("ANTHROPIC", "CLAUDE"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="fake",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        IS_SANDBOX="1",  # as root, Claude Code refuses --dangerously-skip-permissions without it
    )
    return env


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str

    def result(self) -> dict[str, Any]:
        """Claude Code's JSON result (``--output-format json``); {} when there is none."""
        try:
            data = json.loads(self.stdout)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}


def print_(exe: Path, cwd: Path, env: dict[str, str], prompt: str, timeout: float = 180) -> Ran:
    """`claude -p PROMPT` in `cwd`, with no permission prompts (the hooks are what is tested) and no
    session kept."""
    argv = [str(exe), "-p", prompt, "--output-format", "json", "--dangerously-skip-permissions", "--no-session-persistence"]
    done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    return Ran(done.returncode, done.stdout, done.stderr)
