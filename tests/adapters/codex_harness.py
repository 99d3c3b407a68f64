"""The real Codex CLI, run headless against the scripted model (``responses_fake``).

``program`` finds Codex ``VERSION`` in a cache folder outside the repository
(``$AGENT_GUARD_HARNESS``, else ``~/.cache/agent-guard-harness``), installing it there with npm
the first time when ``install`` is asked; None when it cannot be had (no npm, no network).
``home`` makes a ``CODEX_HOME`` whose provider is the fake server (``wire_api = "responses"``)
and whose model is a copy of one of Codex's own catalog entries, renamed.  ``exec_`` runs
``codex exec`` in a repository with a bounded time.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import npm_programs

VERSION = "0.171.0"
MODEL = "fake-model"
TEMPLATE = "gpt-5.5"  # the catalog entry the fake model copies (tools, shell type, prompts)


CACHE = npm_programs.CACHE


def cache() -> Path:
    return CACHE / "codex" / VERSION


def program(install: bool = False, timeout: float = 300) -> Path | None:
    """The `codex` program of ``VERSION`` in the cache, installed there first when `install` is asked."""
    return npm_programs.program("codex", "@openai/codex", VERSION, install=install, timeout=timeout)


def catalog(exe: Path, env: dict[str, str]) -> Path:
    """Codex's own catalog entry ``TEMPLATE`` as the one model ``MODEL`` (kept in the cache)."""
    path = cache() / "catalog.json"
    if not path.exists():
        out = subprocess.run(
            [str(exe), "debug", "models"], capture_output=True, text=True, timeout=120, env=env, check=True
        ).stdout
        entry = next(m for m in json.loads(out)["models"] if m["slug"] == TEMPLATE)
        entry.update(slug=MODEL, display_name=MODEL, supports_search_tool=False)
        path.write_text(json.dumps({"models": [entry]}), encoding="utf-8")
    return path


def environment(home: Path, codex_home: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's) for Codex: its own HOME and CODEX_HOME, the fake's key, and
    none of the user's OpenAI or Codex settings."""
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(("OPENAI", "CODEX"))}
    env.update(HOME=str(home), CODEX_HOME=str(codex_home), FAKE_OPENAI_KEY="fake", RUST_LOG="error")
    return env


def home(exe: Path, folder: Path, base_url: str, base: dict[str, str] | None = None) -> tuple[Path, dict[str, str]]:
    """A new CODEX_HOME in `folder` that talks to `base_url`; (its config.toml, the environment to run
    in, made from `base`)."""
    codex_home = folder / "codex-home"
    codex_home.mkdir(parents=True)
    (folder / "home").mkdir(exist_ok=True)
    env = environment(folder / "home", codex_home, base)
    config = codex_home / "config.toml"
    config.write_text(
        f"model_catalog_json = {json.dumps(str(catalog(exe, env)))}\n"
        f'model = "{MODEL}"\nmodel_provider = "fake"\n\n'
        "[model_providers.fake]\n"
        f'name = "fake"\nbase_url = {json.dumps(base_url)}\nenv_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n',
        encoding="utf-8",
    )
    return config, env


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


def exec_(exe: Path, repo: Path, env: dict[str, str], *flags: str, timeout: float = 180) -> Ran:
    """`codex exec` in `repo`, with no approvals and no sandbox (the hooks are what is tested)."""
    argv = [str(exe), "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", *flags]
    argv.append("do the task")
    done = subprocess.run(argv, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    return Ran(done.returncode, done.stdout, done.stderr)
