"""The repository's git configuration as git itself reads it: every scope, includes resolved.

libgit2 reads configuration files too, but git is what later runs the commands a
configuration names (hooks, filters, drivers), and libgit2 neither names the file an
entry came from nor sees ``git -c`` settings, so git is asked: ``git config --list
--show-origin --show-scope -z``, which follows ``include.path`` and every
``includeIf`` condition git knows, and sees ``git -c`` settings through the
environment.  Each entry comes with the file it was read from, so a relative
include target resolves against that file's folder, as git resolves it.

Nothing is kept on disk or between processes: every command asks git.  A long-lived
process (the warm server's workers, the MCP server, the Python API's sessions) keeps git's
last answer for each repository in memory (``KEPT``, the one cache of the configuration; this
module is its owner) while every file git read for it, every include target, the standard
locations, HEAD (for ``includeIf "onbranch:"``) and the environment variables git reads
configuration from are as they were: starting git for every call of a server, or every edit
of a session, is what it saves (bench/README.md, "repo/: what the caches cost", and "Claude
Code's own cost per Edit").
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..fs.kept import ByStamps, Stamps

_TIMEOUT = 20  # seconds: git reading a few small files
# Environment variables that change what `git config --list` says.
_ENV = (
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG",
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "PREFIX",
)


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    """One setting: its key as git prints it (section and name lowercased), its value (None:
    a bare key, which means true), and the file it came from (None: the command line)."""

    key: str
    value: str | None
    origin: str | None  # an absolute path
    scope: str


def is_include(key: str) -> bool:
    section, _, rest = key.partition(".")
    return (section == "include" and rest == "path") or (section == "includeif" and rest.endswith(".path"))


def include_target(entry: ConfigEntry, root: Path) -> str | None:
    """The absolute file an `include.path` / `includeIf.*.path` entry names, as git resolves it:
    `~/` from the home folder, a relative path from the folder of the file that holds it."""
    if entry.value is None or not entry.value.strip():
        return None
    value = os.path.expanduser(entry.value)
    if os.path.isabs(value):
        return os.path.normpath(value)
    base = os.path.dirname(entry.origin) if entry.origin else str(root)
    return os.path.normpath(os.path.join(base, value))


def _parse(out: bytes, root: Path) -> list[ConfigEntry]:
    fields = out.split(b"\0")
    entries: list[ConfigEntry] = []
    for i in range(0, len(fields) - 2, 3):
        scope, origin, item = (os.fsdecode(f) for f in fields[i : i + 3])
        key, newline, value = item.partition("\n")
        path = None
        if origin.startswith("file:"):
            path = os.path.normpath(os.path.join(root, origin[len("file:") :]))
        entries.append(ConfigEntry(key, value if newline else None, path, scope))
    return entries


def _from_git(root: Path) -> list[ConfigEntry] | None:
    try:
        proc = subprocess.run(
            ["git", "config", "--list", "--show-origin", "--show-scope", "-z"],
            cwd=root,
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return _parse(proc.stdout, root)


class KeptConfig:
    """git's last answers, one per repository, kept while nothing each depends on changed (see the
    module doc): under ``fs.kept``'s rule, with the stamps of every file git read or would read,
    and the environment variables git reads configuration from."""

    def __init__(self, size: int) -> None:
        self._kept: ByStamps[list[ConfigEntry]] = ByStamps(size)

    def clear(self) -> None:
        self._kept.clear()

    def entries(
        self, root: Path, gitdir: Path, commondir: Path, fallback: Callable[[], Sequence[tuple[str, str | None]]]
    ) -> list[ConfigEntry]:
        """Every configuration entry git would read in this repository, as git reads it now.

        `fallback`: libgit2's (key, value) pairs, used only when git cannot be run; their
        relative include targets then resolve from the common git dir (the local file's folder).
        """
        kept = self._kept.get(root)
        if kept is not None:
            return kept
        got = _from_git(root)
        if got is None:
            local = str(commondir / "config")
            return [ConfigEntry(k, v, local, "local") for k, v in fallback()]
        depends = standard_files(gitdir, commondir)
        depends += [e.origin for e in got if e.origin]
        depends += [t for e in got if is_include(e.key) and (t := include_target(e, root))]
        self._kept.keep(root, Stamps.now(depends, env_names()), got)
        return got


def standard_files(gitdir: Path, commondir: Path) -> list[str]:
    """The files git reads configuration from whether or not they hold any, and HEAD."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [
        "/etc/gitconfig",
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
        str(commondir / "config"),
        str(gitdir / "config.worktree"),
        str(gitdir / "HEAD"),
    ]
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if os.environ.get(var):
            files.append(os.path.abspath(os.environ[var]))
    return files


def env_names() -> list[str]:
    """The environment variables git reads configuration from now (``GIT_CONFIG_KEY_n`` and
    ``GIT_CONFIG_VALUE_n`` for each n below ``GIT_CONFIG_COUNT``)."""
    names = list(_ENV)
    count = os.environ.get("GIT_CONFIG_COUNT", "")
    for i in range(int(count) if count.isdigit() and len(count) < 6 else 0):
        names += [f"GIT_CONFIG_KEY_{i}", f"GIT_CONFIG_VALUE_{i}"]
    return names


KEPT = KeptConfig(16)  # the owner of git's configuration kept between calls (``GitRepo.config_entries``)
