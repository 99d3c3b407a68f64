"""What every bench script's scratch repositories share: git isolated from the user.

No system or global config (a user's hooks, templates or signing never run), a fixed
identity, and no credential prompt; and git's own three-way merge (``GitMerge``), the
reference the corpora hold agent-guard's merges to.  The scripts run as
``python bench/NAME.py``, so this folder is on their import path.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
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
        proc = subprocess.run(
            ["git", "merge-file", "-p", *names], capture_output=True, timeout=60, env={**os.environ, **GIT_ENV}, check=False
        )
        if proc.returncode == 0:
            return "clean", proc.stdout
        if 0 < proc.returncode < 128:  # the number of conflicts
            return "conflict", b""
        raise RuntimeError(f"git merge-file failed: {proc.stderr.decode(errors='replace')}")


_NEEDS_FIX = re.compile(r"[ \t\r]$|^[ \t]* \t")  # trailing whitespace, or a space before a tab in the indent


class GitWhitespaceFix:
    """Lines as ``git apply --whitespace=fix`` writes them, under git's default ``core.whitespace``.

    The reference for what the default policy (`whitespace: fix`) leaves of an edit's
    new lines: git itself applies a patch that adds them as a new file, with one more
    line after them so that git's blank-at-eof rule cannot take trailing blank lines
    off a fragment from the middle of a file.  Lines that break none of git's default
    rules skip the subprocess.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.calls = 0

    def __call__(self, lines: list[str]) -> list[str]:
        if not any(_NEEDS_FIX.search(x) for x in lines):
            return list(lines)
        body = "".join(f"+{x}\n" for x in [*lines, "end"])
        patch = f"--- /dev/null\n+++ b/fixed\n@@ -0,0 +1,{len(lines) + 1} @@\n{body}"
        target = self.folder / "fixed"
        target.unlink(missing_ok=True)
        (self.folder / "patch").write_text(patch, encoding="utf-8", errors="surrogateescape")
        self.calls += 1
        proc = subprocess.run(
            ["git", "apply", "--whitespace=fix", "patch"],
            cwd=self.folder,
            capture_output=True,
            timeout=60,
            env={**os.environ, **GIT_ENV},
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"git apply --whitespace=fix failed: {proc.stderr.decode(errors='replace')}")
        out = target.read_text(encoding="utf-8", errors="surrogateescape").split("\n")
        assert out[-2:] == ["end", ""] and len(out) == len(lines) + 2, out[-3:]
        return out[:-2]


_FIXER: list[GitWhitespaceFix] = []


def whitespace_fixed(lines: list[str]) -> list[str]:
    """`GitWhitespaceFix` in a scratch folder of its own, made on first use and removed at exit."""
    if not _FIXER:
        folder = Path(tempfile.mkdtemp(prefix="bench-wsfix-"))
        atexit.register(shutil.rmtree, folder, True)
        _FIXER.append(GitWhitespaceFix(folder))
    return _FIXER[0](lines)
