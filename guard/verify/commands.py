"""The policy's ``verify`` entries as values, and each as it runs on one edit's result.

An entry (``guard/policy/schema.py`` says what it may hold) is a shell command with a name,
globs that say which changed files concern it, a timeout and whether its changes to the
files may be taken (``fix``); or the word ``pre-commit``: the repository's own
``.pre-commit-config.yaml`` hooks, run as ``pre-commit run --files`` on the changed files.

``{files}`` in a command stands for the changed files its globs match, each shell-quoted, as
paths from the top of the checkout (the command's folder).  A command whose globs match no
changed path is not run; nor is one that is given ``{files}`` (or pre-commit) when the only
matching changes are deletions: there is nothing to hand it.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..policy.schema import PRE_COMMIT

if TYPE_CHECKING:
    from ..model import FileChange
    from ..policy import Policy

DEFAULT_TIMEOUT = 60.0  # seconds
FILES = "{files}"
CONFIG = ".pre-commit-config.yaml"


@dataclass(frozen=True, slots=True)
class Command:
    """One ``verify`` entry: its name, the shell command (None: the repository's pre-commit hooks),
    the globs of the changed files that concern it (empty: every one), its timeout in seconds,
    whether its changes may be taken into the edit, and its place in the policy's list."""

    name: str
    run: str | None
    files: tuple[str, ...]
    timeout: float
    fix: bool
    index: int

    @property
    def hooks(self) -> bool:
        """The repository's pre-commit hooks, rather than a command of the policy's."""
        return self.run is None

    @property
    def setting(self) -> str:
        return f"verify[{self.index}]"


def configured(pol: Policy) -> tuple[Command, ...]:
    """The policy's ``verify`` commands, in order (none: nothing is run)."""
    value = pol.get("verify")
    if not isinstance(value, list):
        return ()
    out: list[Command] = []
    for i, item in enumerate(value):
        if item == PRE_COMMIT:
            item = {PRE_COMMIT: True}
        if not isinstance(item, dict):
            continue  # the schema refused it already
        timeout = item.get("timeout", DEFAULT_TIMEOUT)
        files = item.get("files") or []
        hooks = item.get(PRE_COMMIT) is True
        out.append(
            Command(
                name=str(item.get("name") or PRE_COMMIT),
                run=None if hooks else str(item.get("run")),
                files=tuple(str(f) for f in files) if isinstance(files, list) else (),
                timeout=float(timeout)
                if isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                else DEFAULT_TIMEOUT,
                fix=item.get("fix") is True,
                index=i,
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Invocation:
    """A command as it runs on one result: the program and arguments, how the user reads it, and
    the changed files it is given."""

    command: Command
    argv: tuple[str, ...]
    shown: str
    files: tuple[str, ...]


def invocation(
    cmd: Command, changes: Sequence[FileChange], pol: Policy, left_out: frozenset[str] = frozenset()
) -> Invocation | str:
    """`cmd` as it runs on the result of `changes`, or why it does not run (its globs match no changed
    path, or nothing is left to hand it).  `left_out`: paths not in the checkout (protected files)."""
    from ..text.globs import first_match

    def wanted(path: str) -> bool:
        return not cmd.files or first_match((path,), cmd.files, pol.ignorecase) is not None

    touched = [p for c in changes for p in dict.fromkeys((c.old_path or c.path, c.path)) if wanted(p)]
    if not touched:
        return f"no changed file matches its files ({', '.join(cmd.files)})"
    there = tuple(c.path for c in changes if c.after is not None and wanted(c.path) and c.path not in left_out)
    if cmd.hooks:
        if not there:
            return "no changed file is left to give it (deletions only)"
        program = pre_commit_program()
        named = [_not_an_option(p) for p in there]
        argv = (*program, "run", "--color=never", "--files", *named) if program else ()
        return Invocation(cmd, argv, shlex.join(["pre-commit", "run", "--files", *named]), there)
    assert cmd.run is not None
    line = cmd.run
    if FILES in line:
        if not there:
            return "no changed file is left to give it as {files} (deletions only)"
        line = line.replace(FILES, " ".join(shlex.quote(_not_an_option(p)) for p in there))
    return Invocation(cmd, ("/bin/sh", "-c", line), line, there)


def _not_an_option(path: str) -> str:
    """A path as an argument no program reads as an option (``-rf.py`` -> ``./-rf.py``)."""
    return "./" + path if path.startswith("-") else path


def pre_commit_program() -> tuple[str, ...]:
    """How to start pre-commit: the one on the user's PATH, else the one beside agent-guard's Python
    (its module); () when there is none."""
    found = shutil.which("pre-commit")
    if found:
        return (found,)
    from importlib.util import find_spec

    return (sys.executable, "-m", "pre_commit") if find_spec("pre_commit") is not None else ()
