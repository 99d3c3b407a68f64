"""The real Gemini CLI, run headless against the scripted model (``gemini_fake``).

``program`` finds Gemini CLI ``VERSION`` in a cache folder outside the repository
(``$AGENT_GUARD_HARNESS``, else ``~/.cache/agent-guard-harness``), installing it there with npm
the first time when ``install`` is asked; None when it cannot be had (no npm, no network).
``home`` makes a HOME whose user settings pick the API-key sign-in (the only one that honours
the base URL of the fake server), and the environment to run in.  ``run`` runs ``gemini -p`` in
a repository with a bounded time.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import npm_programs

VERSION = "0.61.0"
PACKAGE = "@google/gemini-cli"

CACHE = npm_programs.CACHE


def cache() -> Path:
    return CACHE / "gemini" / VERSION


def program(install: bool = False, timeout: float = 600) -> Path | None:
    """The `gemini` program of ``VERSION`` in the cache, installed there first when `install` is asked."""
    return npm_programs.program(
        "gemini", PACKAGE, VERSION, install=install, timeout=timeout, answers=lambda out: out.strip() == VERSION
    )


def home(folder: Path, base_url: str, base: dict[str, str] | None = None) -> tuple[Path, dict[str, str]]:
    """A new HOME in `folder` for Gemini to talk to `base_url`; (its user settings.json, the
    environment to run in, made from `base`).

    With only the base URL, Gemini picks the "gateway" sign-in, which a headless run refuses: the
    user settings pick the API key.  The folder is trusted by the environment
    (``GEMINI_CLI_TRUST_WORKSPACE``): Gemini runs no hook, and headless no tool, in another.  In
    GitHub's CI (``GITHUB_SHA``) Gemini would hand its hooks only a few variables: the test's
    PYTHONPATH, say, which points the hook at this checkout, would not reach them."""
    (folder / ".gemini").mkdir(parents=True)
    settings = folder / ".gemini" / "settings.json"
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}, indent=2), encoding="utf-8")
    env = {
        k: v
        for k, v in (base or os.environ).items()
        if not k.startswith(("GEMINI", "GOOGLE")) and k not in ("GITHUB_SHA", "SURFACE")
    }
    env.update(
        HOME=str(folder),
        GOOGLE_GEMINI_BASE_URL=base_url,
        GEMINI_API_KEY="fake",
        GEMINI_CLI_TRUST_WORKSPACE="true",
        NO_COLOR="1",
    )
    return settings, env


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


def run(exe: Path, repo: Path, env: dict[str, str], timeout: float = 240) -> Ran:
    """`gemini -p` in `repo`, every tool call approved (``--yolo``: the hooks are what is tested)."""
    argv = [str(exe), "-p", "do the task", "--yolo", "-o", "json"]
    done = subprocess.run(argv, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    return Ran(done.returncode, done.stdout, done.stderr)
