"""The real OpenCode (``opencode_harness.VERSION``), run headless against the scripted model (``responses_fake``).

``program`` finds OpenCode ``VERSION`` in a cache folder outside the repository
(``$AGENT_GUARD_HARNESS``, else ``~/.cache/agent-guard-harness``), installing it there with npm
the first time when ``install`` is asked; None when it cannot be had (no npm, no network).
``environment`` gives OpenCode a home of its own whose one provider is the fake server (through
``@ai-sdk/openai-compatible``, the provider OpenCode documents for any OpenAI-compatible
server), so no user configuration is read or written.  ``run`` runs ``opencode run`` in a
repository with a bounded time.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import npm_programs

VERSION = "1.18.33"
PROVIDER, MODEL = "fake", "fake-model"

CACHE = npm_programs.CACHE


def program(install: bool = False, timeout: float = 300) -> Path | None:
    """The `opencode` program of ``VERSION`` in the cache, installed there first when `install` is asked."""
    return npm_programs.program("opencode", "opencode-ai", VERSION, install=install, timeout=timeout)


def environment(home: Path, base_url: str, base: dict[str, str] | None = None, model: str = MODEL) -> dict[str, str]:
    """`base` (default: this process's) for OpenCode: `home` as its HOME and every XDG folder, its
    user config naming the fake server at `base_url` as the one provider, serving `model`, and
    none of the user's OpenCode or model settings.  (OpenCode picks the file tools it offers by
    the model's name: ``apply_patch`` for a ``gpt-`` one, ``edit`` and ``write`` for others.)

    OpenCode's network calls that are not the model's are switched off (the model catalog from
    models.dev, the update check, sharing, language-server downloads); the one left is its
    background install of its plugin package into the config folder, which fails harmlessly
    when there is no network.
    """
    drop = ("OPENCODE", "OPENAI", "ANTHROPIC", "GEMINI", "GOOGLE", "XDG_")
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(drop)}
    config = home / ".config"
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(config),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_SHARE="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
    )
    provider = {"npm": "@ai-sdk/openai-compatible", "name": PROVIDER, "options": {"baseURL": base_url, "apiKey": "fake"}}
    models = {model: {"name": model, "tool_call": True}}
    settings = {"model": f"{PROVIDER}/{model}", "provider": {PROVIDER: {**provider, "models": models}}}
    (config / "opencode").mkdir(parents=True, exist_ok=True)
    (config / "opencode" / "opencode.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return env


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


def run(exe: Path, repo: Path, env: dict[str, str], wrap: Sequence[str] = (), timeout: float = 180) -> Ran:
    """`opencode run` in `repo` (under the command `wrap`, when given), its events as JSON lines on
    standard output.

    OpenCode takes its project folder from $PWD, not from the process's working directory:
    without PWD it would load no project config (no MCP server, nothing denied), and say nothing.
    """
    argv = [*wrap, str(exe), "run", "--format", "json", "do the task"]
    done = subprocess.run(
        argv,
        cwd=repo,
        env={**env, "PWD": str(repo)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Ran(done.returncode, done.stdout, done.stderr)
