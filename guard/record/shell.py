"""A shell command's changes as a turn: recorded, checked, and reverted when the policy says so.

``begin`` takes a ``snapshot`` of the work tree before the command; ``finish`` finds what
the command changed (``snapshot.changes``), records it as one turn of the agent (dialect
``shell``; the ledger syncs each file to its content before the command first, so the
turn holds the command's change and nothing else), and runs the checks an edit gets
on it, judged by the attributes from before the command: protected paths, control
files and a repository made inside the tree, placeholders, conflict markers,
whitespace, syntax, budgets.  What the policy does with a violation (``shell.on_violation``)
is the user's choice: ``warn`` (the default) keeps the change and tells the agent;
``revert`` rolls the turn back at once, as ``git agent-rollback`` would (a turn of its
own, which can be undone too).  Only a recorded turn makes that revert safe: it undoes
the command's change by git's merge rule and nothing else.

The Claude Code hook runs this around Bash (PreToolUse ``begin``, PostToolUse
``finish``); ``agent-guard run -- CMD`` around any command.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .. import worktree
from ..model import Finding, Value, error, warning
from ..report import Report
from . import snapshot

if TYPE_CHECKING:
    from ..engine import Guard
    from ..policy import Policy

DIALECT = "shell"
ON_VIOLATION = ("warn", "revert")


def on_violation(pol: Policy) -> str:
    value = pol.get("shell.on_violation", "warn")
    return value if isinstance(value, str) and value in ON_VIOLATION else "warn"


def begin(g: Guard, agent: str) -> snapshot.Snapshot:
    """The work tree before a command (under the repository lock, after any crash is recovered)."""
    from . import stage

    pol = g.policy(agent)
    with worktree.locked(g.repo):
        stage.recover(g.repo)
        return snapshot.take(g.repo, pol.ledger_prefix, pol.max_file_bytes)


class Finished(Value):
    """What ``finish`` did: its report (status "applied": recorded and passed; "refused": the checks
    found errors, and the change was reverted or kept as `reverted` says), and whether it reverted."""

    report: Report
    reverted: bool


def finish(
    g: Guard,
    snap: snapshot.Snapshot,
    *,
    agent: str,
    turn: str | None,
    tool: str | None = None,
    command: str = "",
    started: float | None = None,
    verify_deadline: tuple[float, str] | None = None,
) -> Finished:
    """Record what the command changed since `snap` as the agent's turn, check it, and revert it when
    the policy's ``shell.on_violation`` is ``revert`` and the checks found an error.

    The policy's verify commands (guard/verify/) judge the result too, once it is recorded; what
    they would change is reported, never taken (the command's files are written).
    `verify_deadline`: (a ``time.monotonic()`` instant, its name) they must be done by."""
    from ..report import events
    from . import history, stage

    began = started if started is not None else time.monotonic()
    pol = g.policy(agent)
    try:
        with worktree.locked(g.repo):
            stage.recover(g.repo)
            found = snapshot.changes(g.repo, snap, pol.ledger_prefix, pol.max_file_bytes)
    finally:
        snapshot.discard(snap)
    notes = tuple(f"{path}: {why}" for path, why in found.unrecorded)
    findings = list(_unrecorded_findings(found.unrecorded))
    if not found.changes:
        report = Report(
            "refused" if any(f.severity == "error" for f in findings) else "applied",
            DIALECT,
            findings=tuple(findings),
            notes=notes,
        )
        events.record(g.repo.commondir, "apply", agent, turn, report, len(command), time.monotonic() - began, tool=tool)
        return Finished(report, False)
    findings += check(g, pol, found)
    turn_ref = g.record(list(found.changes), agent=agent, turn=turn, dialect=DIALECT, edit_bytes=len(command.encode()))
    extra: dict[str, object] = {}
    if pol.get("verify"):
        from .. import verify

        until, name = verify_deadline if verify_deadline is not None else (None, "")
        verdict = verify.run(g.repo, pol, agent, found.changes, until=until, take_fixes=False, deadline_name=name)
        findings += verdict.findings
        notes += verdict.notes
        extra = {"verify": list(verdict.runs)}
    failed = any(f.severity == "error" for f in findings)
    report = Report("refused" if failed else "applied", DIALECT, found.changes, tuple(findings), turn_ref, notes, extra=extra)
    reverted = False
    if failed and on_violation(pol) == "revert":
        undo = history.rollback(g, agent, turn_ref.id, None)
        reverted = undo.status == "applied"
        if reverted:
            report = report._replace(
                notes=report.notes
                + (
                    f"reverted: turn {turn_ref.id} was rolled back at once (shell.on_violation: revert) as turn "
                    f"{undo.turn.id if undo.turn else '?'}",
                )
            )
        else:
            report = report._replace(
                findings=report.findings + undo.findings,
                notes=report.notes
                + (f"shell.on_violation is revert, but turn {turn_ref.id} could not be rolled back: its change stays",),
            )
    events.record(g.repo.commondir, "apply", agent, turn, report, len(command), time.monotonic() - began, tool=tool)
    return Finished(report, reverted)


def _unrecorded_findings(unrecorded: tuple[tuple[str, str], ...]) -> list[Finding]:
    """A repository made inside the tree is a control file (refused); the rest are reported."""
    from ..files.control import SETTING

    out: list[Finding] = []
    for path, why in unrecorded:
        if why.startswith("a repository of its own"):
            out.append(
                error(
                    "path-protected",
                    path,
                    None,
                    f"{path!r}: {why}; git takes it for a repository and runs the commands its config "
                    "names, so agents may not make one",
                    f"remove it (rm -r {path!r}) or ask the user; they can allow it with {SETTING} in .agent-guard.yaml",
                )
            )
        else:
            out.append(
                warning(
                    "stale",
                    path,
                    None,
                    f"{path}: {why}; this change is not in the turn, and a rollback will not undo it",
                    "check the file by hand (git diff)",
                )
            )
    return out


def check(g: Guard, pol: Policy, found: snapshot.Found) -> list[Finding]:
    """The checks an edit gets, on what a command changed (see the module doc)."""
    from .. import checks
    from ..files import attributes, control, paths

    folders = g.repo.git_folders()
    named = g.control_paths()
    out: list[Finding] = []
    for c in found.changes:
        for p in dict.fromkeys(x for x in (c.old_path, c.path) if x):
            f = paths.git_folder_finding(p, folders) or control.path_finding(p, named, pol)
            if f is not None:
                out.append(f)
    originals = {attributes.key(p): data for p, data in found.originals.items() if attributes.is_attributes_file(p)}
    attr = attributes.before_turn(g.repo, originals)
    levels = dict(pol.data.get("checks") or {})  # type: ignore[call-overload]
    for name in ("untracked", "no-op", "stale"):
        levels[name] = "off"  # a command's files need no tracking; a change that changes nothing is none
    if levels.get("whitespace") == "fix":
        levels["whitespace"] = "warning"  # what the command wrote is written: report, never rewrite
    judged = pol._replace(data={**pol.data, "checks": levels})
    inp = checks.CheckInput(
        changes=found.changes, policy=judged, tracked=lambda _p: True, attr=attr, core_whitespace=g.repo.config("core.whitespace")
    )
    return out + list(checks.run(inp).findings)
