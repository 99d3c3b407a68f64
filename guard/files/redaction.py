"""Protected contents kept out of everything agent-guard shows: diffs, previews, logs, findings.

A file the policy keeps agents from reading (``paths.read_finding``: its protected globs, the
policy's own files, git's folders; unless ``read_protected: true``) is refused by
``git agent-read`` and the MCP ``read_file``.  Its lines must not come out another way: the
diff of an apply or rollback (``--diff``, ``--check``, the JSON report's ``diff``, an MCP
result), a turn's diff in ``log -p`` and MCP ``list_turns``, or a finding that quotes the file
(``not-found``'s closest region, ``ambiguous`` candidates, ``stale`` excerpts, the lines a
``rollback-conflict`` would lose).  Whoever applies or reads the ledger, an agent may be the
one who sees it.

So every such output is made here from what the engine computed: a protected file's diff
becomes one line that names the file, its counts and where the user sees the change (``git
show COMMIT -- PATH``; the ledger keeps the contents, as git keeps any file); a finding about
it keeps its code, severity and path, and says what went wrong without quoting it.  Findings
that only ever speak of the path (``SAFE_CODES``) pass as they are.  The Python API's
``FileChange`` values keep their bytes: a harness's own code may read them.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

from ..model import FileChange, Finding
from ..tree import diffs
from . import paths

if TYPE_CHECKING:
    from ..policy import Policy
    from ..report import Report

# Findings whose message and hint name the path and the rule, never a line of the file.
SAFE_CODES = frozenset(
    {"path-protected", "path-outside", "untracked", "exists", "missing", "budget", "binary", "not-utf8", "overlap", "parse-error"}
)

# What a finding of each code says about a protected file, without its lines.
_MEANING = {
    "not-found": "the text to change is not in {path}",
    "ambiguous": "the text to change matches more than one place in {path}",
    "stale": "{path} does not read as the edit expects (it changed since, or the agent never saw it)",
    "no-op": "the edit changes nothing in {path}",
    "placeholder": "text added to {path} elides code",
    "whitespace": "lines added to {path} have whitespace errors",
    "syntax": "after this edit {path} no longer parses",
    "conflict-marker": "lines added to {path} are merge-conflict markers",
    "rollback-conflict": "{path} changed after the turn, over or next to what the rollback must undo",
}
_HINT = {
    "rollback-conflict": "undo or commit that later change first, or pass --force to take the turn's old side where they overlap",
}
_FALLBACK_HINT = (
    "agent-guard does not show a protected file's contents to agents; leave the change to the user, "
    "who can set `read_protected: true` in the policy to let agents read such files"
)


def sealed(path: str | None, policy: Policy) -> bool:
    """Whether `path`'s contents are kept from agents (``paths.read_finding``)."""
    if not path:
        return False
    spellings = {path, posixpath.normpath(path)} if not path.startswith("/") else {path}
    return any(paths.read_finding(p, policy) is not None for p in spellings)


def report(rep: Report, policy: Policy, commit: str | None = None) -> Report:
    """`rep` as agents may see it: protected files' diffs and findings without their contents.

    `commit`: where the user sees a change with ``git show`` (default: the report's turn; None
    for a change not recorded yet).
    """
    where = commit or (rep.turn.commit if rep.turn is not None else None)
    changes = tuple(change(c, policy, where) for c in rep.changes)
    found = findings(rep.findings, policy)
    if changes == rep.changes and found == rep.findings:
        return rep
    return replace(rep, changes=changes, findings=found)


def change(c: FileChange, policy: Policy, commit: str | None) -> FileChange:
    """`c` with its diff replaced by ``note`` when either of its paths is protected."""
    if not (sealed(c.path, policy) or sealed(c.old_path, policy)):
        return c
    return c._replace(diff=note(c, commit))


def note(c: FileChange, commit: str | None) -> str:
    """A protected file's entry in a diff: its header (no `index` line, no contents) and one line
    that says what changed and where the user sees it."""
    label = c.path if not c.old_path or c.old_path == c.path else f"{c.old_path} -> {c.path}"
    if commit:
        import shlex

        see = f"the user sees them with: git show {commit[:12]} -- {shlex.quote(c.path)}"
    else:
        see = "nothing is recorded yet: the edit itself holds them"
    head = diffs.header(c.path, c.op, c.old_path, c.old_mode, c.new_mode)
    return "\n".join(head) + (
        f"\n{label}: +{len(c.added)} -{len(c.removed)}: its contents are protected and not shown (read_protected is off); {see}\n"
    )


def findings(found: Sequence[Finding], policy: Policy) -> tuple[Finding, ...]:
    """Each finding as agents may see it: one about a protected file quotes none of its lines."""
    return tuple(finding(f, policy) for f in found)


def finding(f: Finding, policy: Policy) -> Finding:
    if f.code in SAFE_CODES or not sealed(f.path, policy):
        return f
    path = f.path or ""
    said = _MEANING.get(f.code, "{path}: " + f.code).format(path=path)
    return replace(
        f,
        line=None,
        message=f"{said}; its contents are protected, so no line of it is quoted here",
        hint=_HINT.get(f.code, _FALLBACK_HINT),
    )


def turn_diff(changes: Sequence[FileChange], policy: Policy, commit: str) -> str:
    """A recorded turn's diff (``log -p``, MCP ``list_turns``) as agents may see it."""
    return "".join(change(c, policy, commit).diff for c in changes)
