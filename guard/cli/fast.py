"""`agent-guard check` without click: its arguments when they are plain, and its run.

A pre-commit hook runs `check` on every commit, so ``program`` reads a plain `check`
here and skips importing click (~20 ms of a ~350 ms check of a large commit).  Any
argument this reader does not know (help, an unknown option, an option given twice, a
value that looks like an option) goes to click (``check.py``), which owns the help and
every message about a mistake in the arguments; both then call ``run_check``.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from ..errors import UsageError

_VALUED = {"--from-ref": "from_ref", "--to-ref": "to_ref", "--policy": "policy", "--format": "renderer"}
_FLAGS = {"--staged": ("mode", "staged"), "--all-files": ("mode", "all-files"), "--json": ("as_json", True)}


def check_conflict(mode: str | None, from_ref: str | None, to_ref: str | None, renderer: str | None,
                   as_json: bool) -> str | None:
    """What is wrong with a combination of `check`'s options, or None."""
    if as_json and renderer not in (None, "json"):
        return f"--json and --format {renderer} disagree; give one"
    if mode is not None and (from_ref or to_ref):
        return f"--{mode} and --from-ref/--to-ref choose different things to check; give one"
    return None


def parse_check(args: Sequence[str]) -> dict[str, Any] | None:
    """`check`'s arguments as click would read them, or None when click must read them."""
    from ..render import RENDERERS

    out: dict[str, Any] = {"paths": [], "mode": None, "from_ref": None, "to_ref": None, "policy": None,
                           "renderer": None, "as_json": False}
    seen: set[str] = set()
    only_paths = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if only_paths or arg == "-" or not arg.startswith("-"):
            out["paths"].append(arg)
            continue
        if arg == "--":
            only_paths = True
            continue
        name, eq, value = arg.partition("=")
        key: str
        given: object
        if name in _VALUED:
            if not eq:
                if i >= len(args) or args[i].startswith("-"):
                    return None  # a missing value, or one that looks like an option
                value = args[i]
                i += 1
            key, given = _VALUED[name], value
        elif name in _FLAGS and not eq:
            key, given = _FLAGS[name]
        else:
            return None
        if key in seen:
            return None
        seen.add(key)
        out[key] = given
    if out["renderer"] is not None and out["renderer"] not in RENDERERS:
        return None
    if check_conflict(out["mode"], out["from_ref"], out["to_ref"], out["renderer"], out["as_json"]) is not None:
        return None
    return out


def repo_paths(root: Path, raw: Sequence[str]) -> tuple[str, ...]:
    """Paths as given (relative to the current folder) -> relative to the repository root."""
    # Plain strings, not pathlib (pre-commit names thousands of files), and each
    # folder resolved once.
    top = str(root)
    inside = top.rstrip("/") + "/"
    folders: dict[str, str] = {}
    out: list[str] = []
    cwd = os.getcwd()
    for p in raw:
        full = os.path.normpath(os.path.join(cwd, p))  # os.path.abspath, without a getcwd per path
        folder, name = os.path.split(full)
        # Resolve the folders, not the name itself: a committed symlink is judged as itself.
        if name:
            real_folder = folders.get(folder)
            if real_folder is None:
                real_folder = folders[folder] = os.path.realpath(folder)
            real = os.path.join(real_folder, name)
        else:
            real = os.path.realpath(full)
        if real == top:
            out.append("")
        elif real.startswith(inside):
            out.append(real[len(inside):])
        else:
            raise UsageError(f"{p} is outside the repository {root}; name paths inside it")
    return tuple(out)


def run_check(paths: Sequence[str], *, mode: str | None = None, from_ref: str | None = None,
              to_ref: str | None = None, policy: str | None = None, renderer: str | None = None,
              process_ends: bool = False) -> int:
    """`agent-guard check` once its options are read (by click or by ``parse_check``): print the
    report, return the status.

    `mode` is "staged", "all-files" or None; `renderer` one of ``render.RENDERERS`` or None
    (human).  The options are consistent (the caller refused the rest).  `process_ends`:
    the process ends after this command (``program.run``), so what the check holds may be
    left to the exit, and objects are read as git reads them (unverified).
    """
    from .. import commit_check, render
    from ..repo import read_objects_unverified
    from ..workspace import Workspace

    if mode is None and from_ref is None and to_ref is None:
        env_from, env_to = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
        if env_from and env_to:
            from_ref, to_ref = env_from, env_to
    if process_ends:
        read_objects_unverified()  # this process reads the commit and ends: as git reads it
    collect = gc.isenabled()
    # A check allocates a tuple per added line and keeps them all: the cycle collector
    # would walk them again and again while they pile up, and find no cycle.
    gc.disable()
    try:
        g = Workspace(".", policy, bare_ok=True)
        # A bare repository (a server's receive hook) has no work tree: paths are the repository's.
        named = tuple(os.path.normpath(p) for p in paths) if g.repo.bare else repo_paths(g.root, paths)
        report = commit_check.check(g, from_ref=from_ref, to_ref=to_ref, all_files=mode == "all-files", paths=named)
    finally:
        # Turned back on, the collector would first walk everything the check still holds
        # (a tuple per added line, tens of milliseconds): not worth it when the process
        # ends after this command.
        if collect and not process_ends:
            gc.enable()
    if renderer is None and os.environ.get("PRE_COMMIT") and not report.findings and not report.notes:
        # pre-commit prints a passing hook's output (the hook is `verbose`, so that warnings
        # show): a clean check has nothing to add to its "Passed".
        return report.exit_code
    sys.stdout.write(render.check(report, renderer or "human") + "\n")
    sys.stdout.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return report.exit_code
