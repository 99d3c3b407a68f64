"""An edit planned: every file section's change worked out (``file_change``) and the policy's
checks run on them all, under the repository lock; nothing is written here."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..model import EditSet, FileChange, Finding, LineRange, error
from ..record import ledger
from . import file_change

if TYPE_CHECKING:
    from ..checks import CheckInput
    from ..files.attributes import AttrLookup
    from ..policy import Policy
    from ..verify import Verdict
    from .call import Call


@dataclass(frozen=True, slots=True)
class Planned:
    """What an edit would change, what the checks found, and notes for the agent."""

    changes: tuple[FileChange, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]

    @property
    def refused(self) -> bool:
        return has_errors(self.findings)


def has_errors(findings: Sequence[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def plan(call: Call, edits: EditSet, edit_bytes: int) -> Planned:
    """Locate and check `edits` against the tree as it is (call under the repository lock)."""
    from .. import checks

    changes: list[FileChange] = []
    findings: list[Finding] = []
    notes: list[str] = []
    if edits.rewrites:
        # Structural rewrites become file edits against the tree as it is.
        from ..structural.expansion import expand

        expanded = expand(call.ws, edits, call.policy, call.agent, call.folder)
        if expanded.edits is None or has_errors(expanded.findings):
            return Planned((), expanded.findings, expanded.notes)
        edits = expanded.edits
        findings += expanded.findings
        notes += expanded.notes
    if any(
        isinstance(c, LineRange) and (c.block or c.cut is not None or c.paste is not None)
        for fe in edits.files
        for c in fe.changes
    ):
        # Blocks and registers: line numbers and lines only the files as read can give.
        from ..reading import registers

        edits, refused = registers.resolve(call.ws, edits, call.policy, call.folder, file_change.reader(call))
        if refused:
            return Planned((), tuple(refused), ())
    attr = attributes_before(call)
    guessed_whole = edits.detected and edits.format == "whole"
    seen: set[str] = set()
    for fe in edits.files:
        got = file_change.change_for(call, fe, attr, guessed_whole)
        findings += got.findings
        notes += got.notes
        ch = got.change
        if ch is None:
            continue
        for p in {ch.path, ch.old_path or ch.path}:
            if p in seen:
                findings.append(
                    error(
                        "overlap",
                        p,
                        fe.source_line or None,
                        f"{p} is changed by two separate file sections of this edit",
                        "put every change to one file in one section",
                    )
                )
            seen.add(p)
        changes.append(ch)
    # A folder the edit makes a git directory (whatever the names) runs what its config says.
    from ..files.control import nested_findings

    findings += nested_findings(call.root, changes, call.policy)
    # Parse-level repairs (a stripped line-number prefix...) belong to every file; a
    # recount is already reported per hunk by the locator.
    extra = tuple(r for r in edits.repairs if r != "recount")
    if extra:
        changes = [c._replace(repairs=tuple(dict.fromkeys(c.repairs + extra))) for c in changes]
    result = checks.run(check_input(call, changes, call.policy, edit_bytes, attr))
    return Planned(tuple(result.changes), tuple(findings) + tuple(result.findings), tuple(notes))


def check_input(call: Call, changes: Sequence[FileChange], pol: Policy, edit_bytes: int, attr: AttrLookup) -> CheckInput:
    """What the checks of `pol` judge `changes` with: git's view of the paths, the agent's usage so far."""
    from .. import checks

    turn_used, session_used = ledger.usage(call.repo, call.ledger_ref, call.agent, call.turn, call.session, memo=call.memo)
    return checks.CheckInput(
        changes=tuple(changes),
        policy=pol,
        tracked=file_change.tracked_for(call),
        attr=attr,
        core_whitespace=call.repo.config("core.whitespace"),
        usage=checks.Usage(
            turn_used, session_used, ledger.turn_paths(call.repo, call.ledger_ref, call.agent, call.turn, call.memo)
        ),
        edit_bytes=edit_bytes,
    )


def attributes_before(call: Call) -> AttrLookup:
    """The attributes the checks of the call's turn read: the tree's from before the turn, never
    what the turn wrote (a turn going on over several applies: ``attributes.before_turn``)."""
    if call.turn is None:
        return call.repo.attributes()  # a new turn: nothing of it is written yet
    from ..files import attributes

    found = ledger.turn_originals(
        call.repo, call.ledger_ref, call.agent, call.turn, attributes.is_attributes_file, memo=call.memo
    )
    return attributes.before_turn(call.repo, {attributes.key(p): data for p, data in found.items()})


def with_verdict(call: Call, planned: Planned, verdict: Verdict, edit_bytes: int) -> Planned:
    """`planned` as the verify commands leave it: the files a ``fix: true`` command changed take its
    changes (repair ``verify-fix``), and the policy's checks judge them again, reporting only (the
    files must stay what the commands passed: a whitespace fix becomes a warning)."""
    from .. import checks
    from ..tree import diffs

    findings, notes = planned.findings + verdict.findings, planned.notes + verdict.notes
    if not verdict.fixed:
        return Planned(planned.changes, findings, notes)
    changes = tuple(
        diffs.diffed(c._replace(after=verdict.fixed[c.path], repairs=(*c.repairs, "verify-fix")))
        if c.path in verdict.fixed and c.after is not None
        else c
        for c in planned.changes
    )
    judged = call.policy.reporting_only_whitespace()
    again = checks.run(check_input(call, changes, judged, edit_bytes, attributes_before(call)))
    return dataclasses.replace(
        planned, changes=changes, findings=findings + tuple(f for f in again.findings if f not in findings), notes=notes
    )
