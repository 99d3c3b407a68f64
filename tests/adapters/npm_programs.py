"""The real agent programs the system tier drives, installed from npm into a cache beside the user's
(``$AGENT_GUARD_HARNESS``, else ``~/.cache/agent-guard-harness/NAME/VERSION``), once per version.

``program`` gives a program's path when it is there and answers ``--version`` as its version;
otherwise, asked to install, it runs `npm install` into the cache first (bounded in time), and
gives None when npm is missing, the install fails or the program answers as another version: the
tests that need it then skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable

# Read when the module is imported, before a test's fixtures give it a home of its own.
CACHE = Path(os.environ.get("AGENT_GUARD_HARNESS") or os.path.join(os.path.expanduser("~"), ".cache", "agent-guard-harness"))


def program(
    name: str, package: str, version: str, *, install: bool, timeout: float, answers: Callable[[str], bool] | None = None
) -> Path | None:
    """The `name` program of `package`@`version` in the cache (see the module doc); `answers` judges
    its ``--version`` output (default: the version appears in it)."""
    folder = CACHE / name / version
    exe = folder / "node_modules" / ".bin" / name
    if not exe.exists() and install and shutil.which("npm"):
        folder.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), f"{package}@{version}"],
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None
    if not exe.exists():
        return None
    try:
        out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    ok = answers(out) if answers is not None else version in out
    return exe if ok else None
