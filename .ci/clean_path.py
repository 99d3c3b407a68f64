"""Print $PATH with every agent-guard command hidden, the venv's own included.

Tests start `git agent-check`, `agent-guard` and the like by name, and must find the
ones of the environment under test: tests/conftest.py's `command_env` puts its bin
first on PATH.  A test that forgets to would still pass wherever an earlier install
is on PATH, and fail on a fresh machine.  Under this PATH it fails everywhere.

A folder that holds such a command besides other programs (`/usr/local/bin` after a
`pip install` as root) is replaced by a folder of links to its other programs, so
git, man and the rest are still found.  The link folders go under argv[1].
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

NAMES = ("agent-guard", "git-agent-")


def ours(name: str) -> bool:
    return name == NAMES[0] or name.startswith(NAMES[1])


def main(shadow_root: str) -> int:
    venv_bin = Path(sys.executable).parent.resolve()
    out: list[str] = []
    for n, entry in enumerate(os.environ.get("PATH", os.defpath).split(os.pathsep)):
        folder = Path(entry or ".")
        if not folder.is_dir() or folder.resolve() == venv_bin:
            continue
        names = sorted(os.listdir(folder))
        hidden = [name for name in names if ours(name)]
        if not hidden:
            out.append(entry)
            continue
        shadow = Path(shadow_root) / f"{n}"
        shadow.mkdir(parents=True)
        for name in names:
            if not ours(name):
                (shadow / name).symlink_to(folder.resolve() / name)
        print(f"ci: hiding {', '.join(hidden)} in {entry} from the tests", file=sys.stderr)
        out.append(str(shadow))
    print(os.pathsep.join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
