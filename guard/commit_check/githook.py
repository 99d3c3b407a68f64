"""The plain git pre-commit hook that runs `agent-guard check` (`install-hook`, `uninstall-hook`).

For repositories that do not use the pre-commit framework.  ``install`` writes the
hook where git looks (core.hooksPath, else the common git dir's hooks/), keeping a
hook already there as ``PREVIOUS``, which then runs first; ``uninstall`` puts it back.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UsageError
from ..files.workspace import Workspace

HOOK_MARK = "# agent-guard-hook: 1"
PREVIOUS = "pre-commit.agent-guard-previous"

_HOOK = """#!/bin/sh
# agent-guard pre-commit hook: `agent-guard check` on what is being committed.
# For repositories that do not use the pre-commit framework.  Copy it to
# .git/hooks/pre-commit (or into core.hooksPath), or let `agent-guard install-hook` do it:
# that keeps a hook already there as pre-commit.agent-guard-previous, which runs first,
# and `agent-guard uninstall-hook` puts it back.  Skip the check once: git commit --no-verify
__MARK__

previous="$(dirname "$0")/__PREVIOUS__"
if [ -x "$previous" ]; then
    "$previous" "$@" || exit $?
fi

# The Python that installed this hook (empty in the copy shipped in hooks/), else PATH.
AGENT_GUARD_PYTHON=__PYTHON__
if [ -n "$AGENT_GUARD_PYTHON" ] && [ -x "$AGENT_GUARD_PYTHON" ]; then
    exec "$AGENT_GUARD_PYTHON" -m guard check
fi
if command -v agent-guard >/dev/null 2>&1; then
    exec agent-guard check
fi
echo "agent-guard pre-commit hook: agent-guard is not installed here (not on PATH\
${AGENT_GUARD_PYTHON:+, not at $AGENT_GUARD_PYTHON})." >&2
echo "  Install it (the git-agent-guard package), or remove this hook: agent-guard uninstall-hook" >&2
exit 1
"""


def hook_script(python: str = "") -> str:
    """The plain pre-commit hook; `python` (an interpreter with agent-guard) is tried before PATH."""
    import shlex

    return (
        _HOOK.replace("__MARK__", HOOK_MARK)
        .replace("__PREVIOUS__", PREVIOUS)
        .replace("__PYTHON__", shlex.quote(python) if python else "''")
    )


def hooks_dir(g: Workspace) -> tuple[Path, bool]:
    """Where git looks for hooks: core.hooksPath (relative to the work tree) or the common git dir."""
    configured = g.repo.config("core.hooksPath")
    if configured:
        path = Path(os.path.expanduser(configured))
        return (path if path.is_absolute() else g.root / path), True
    return g.repo.commondir / "hooks", False


def _is_ours(path: Path) -> bool:
    from ..fs.filekind import read_regular

    try:
        # Not a plain read: a named pipe there would hold it until something wrote to it.
        return HOOK_MARK.encode() in read_regular(path)
    except OSError:  # missing, or a pipe, socket or device (filekind.NotRegular): not ours
        return False


def _write_executable(path: Path, text: str) -> None:
    import tempfile  # here: only installing a hook writes a file

    fd, tmp = tempfile.mkstemp(prefix=".agent-guard-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def install(g: Workspace, python: str) -> list[str]:
    """Install the hook where git looks, keeping a hook already there: what was done, line by line."""
    folder, configured = hooks_dir(g)
    target, previous = folder / "pre-commit", folder / PREVIOUS
    where = f"{target}" + (" (core.hooksPath)" if configured else "")
    lines: list[str] = []
    folder.mkdir(parents=True, exist_ok=True)
    if _is_ours(target):
        lines.append(f"agent-guard: updated the pre-commit hook at {where}")
    elif os.path.lexists(target):
        if os.path.lexists(previous):
            raise UsageError(
                f"{target} is another tool's hook, and {previous} (where install-hook keeps such a hook) "
                "exists too; move one of them away, then run `agent-guard install-hook` again"
            )
        os.replace(target, previous)
        lines.append(f"agent-guard: installed the pre-commit hook at {where}")
        lines.append(f"  the hook that was there is now {previous}; it runs first, and a failure there still stops the commit")
        if not os.access(previous, os.X_OK):
            lines.append("  note: it is not executable, so (as before) it does not run")
    else:
        lines.append(f"agent-guard: installed the pre-commit hook at {where}")
    _write_executable(target, hook_script(python))
    inside = [g.root, g.repo.commondir]
    if configured and not any(target.resolve().is_relative_to(p) for p in inside):
        lines.append(f"  note: {folder} is outside this repository: every repository that uses it now runs the hook")
    lines.append("  `git commit` now runs `agent-guard check`; remove it with `agent-guard uninstall-hook`")
    return lines


def ours(g: Workspace) -> Path | None:
    """agent-guard's pre-commit hook where git looks for one, if it is installed there."""
    folder, _configured = hooks_dir(g)
    target = folder / "pre-commit"
    return target if os.path.lexists(target) and _is_ours(target) else None


def uninstall(g: Workspace) -> list[str]:
    """Remove our hook and put back the one it kept: what was done, line by line."""
    folder, _configured = hooks_dir(g)
    target, previous = folder / "pre-commit", folder / PREVIOUS
    if not os.path.lexists(target):
        if os.path.lexists(previous):
            os.replace(previous, target)
            return [f"agent-guard: no hook at {target}; put back the one kept at {previous}"]
        return [f"agent-guard: no pre-commit hook at {target}; nothing to do"]
    if not _is_ours(target):
        return [f"agent-guard: the pre-commit hook at {target} is not agent-guard's; left it alone"]
    os.unlink(target)
    if os.path.lexists(previous):
        os.replace(previous, target)
        return [f"agent-guard: removed the pre-commit hook at {target} and put back the hook it had kept"]
    return [f"agent-guard: removed the pre-commit hook at {target}"]
