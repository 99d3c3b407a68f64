"""What every bench script's scratch repositories share: git isolated from the user.

No system or global config (a user's hooks, templates or signing never run), a fixed
identity, and no credential prompt; and git's own three-way merge (``GitMerge``), the
reference the corpora hold agent-guard's merges to.  The scripts run as
``python bench/NAME.py``, so this folder is on their import path.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_TERMINAL_PROMPT": "0",
}


class GitMerge:
    """``git merge-file -p OURS BASE THEIRS``, git's own three-way merge, as a reference.

    A call gives ("clean", the merged bytes) or ("conflict", b"").  The three texts are
    written to files in `folder` (git merge-file reads files) and git runs as a subprocess
    with a timeout, the user's configuration shut out like every other bench git call.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.calls = 0

    def __call__(self, ours: bytes, base: bytes, theirs: bytes) -> tuple[str, bytes]:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (self.folder / name).write_bytes(data)
            names.append(str(self.folder / name))
        self.calls += 1
        proc = subprocess.run(["git", "merge-file", "-p", *names], capture_output=True, timeout=60,
                              env={**os.environ, **GIT_ENV}, check=False)
        if proc.returncode == 0:
            return "clean", proc.stdout
        if 0 < proc.returncode < 128:  # the number of conflicts
            return "conflict", b""
        raise RuntimeError(f"git merge-file failed: {proc.stderr.decode(errors='replace')}")
