"""One edit, from its bytes to a Report: read, parsed, planned, verified, landed -- or refused whole.

The steps, each its own function:

1. ``_parsed``: the input read as text (the byte budget, a BOM, NUL bytes, UTF-8) and parsed
   in its dialect (``dialects.parse``) into one ``EditSet``.
2. ``plan.plan``, under the repository lock: every file's change worked out and checked.
3. ``_verified``, with the lock released: the policy's verify commands judge the planned result
   (they may take minutes, and every other agent's edit waits on the lock); then the edit is
   planned again under the lock, and lands only if it is still the edit they judged.
4. ``_landed``, under the same lock as the plan it lands: the files written and the turn
   recorded (``land.write_turn``), or the report of an edit that is only checked, refused
   (with a suggestion to resend) or changes nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from .. import dialects
from ..errors import UsageError
from ..model import EditSet, FileChange, Finding, error
from ..record import ledger, stage
from ..repo import RefLocked
from ..report import Report
from ..text.textfile import BOM
from ..tree import worktree
from . import land
from .plan import Planned, has_errors, plan, with_verdict

if TYPE_CHECKING:
    from ..policy import Policy
    from ..verify import Verdict
    from .call import Call

# Rounds of verify-then-plan-again before an edit whose files keep changing meanwhile is refused.
VERIFY_ROUNDS = 3


@dataclass(frozen=True, slots=True)
class _Verified:
    """A verify verdict (guard/verify/), and the changes it judged (``_key``)."""

    key: tuple[tuple[object, ...], ...]
    verdict: Verdict


def apply(call: Call, raw: bytes, dialect: str = "auto", path: str | None = None) -> Report:
    """Apply one edit, or refuse it whole (with the call's `check`: judge it, write nothing).

    `dialect`: the edit's dialect ("auto": detected); `path`: the file a dialect without file
    names (a bare SEARCH/REPLACE block, a whole text) changes.
    """
    parsed = _parsed(call, raw, dialect, path)
    if isinstance(parsed, Report):
        return parsed
    edits, size = parsed
    verified: _Verified | None = None
    for _round in range(VERIFY_ROUNDS):
        with worktree.locked(call.repo):
            refused = _unrecordable(call)
            if refused is not None:
                return Report("refused", edits.format, findings=(refused,))
            planned = plan(call, edits, size)
            applies = _verify_applies(call, planned)
            known = _known_verdict(call, planned, verified) if applies else None
            if not applies or known is not None:
                return _landed(call, edits, planned, known, size, path)
        from .. import verify

        until, name = call.verify.deadline if call.verify.deadline is not None else (None, "")
        verdict = verify.run(
            call.repo, call.policy, call.agent, planned.changes, until=until, take_fixes=call.verify.fixes, deadline_name=name
        )
        if verdict.refused:
            return _report(
                "refused",
                edits,
                dataclasses.replace(planned, findings=planned.findings + verdict.findings, notes=planned.notes + verdict.notes),
                extra={"verify": list(verdict.runs)},
            )
        verified = _Verified(_key(planned.changes), verdict)
    files = ", ".join(sorted({c.path for c in planned.changes})) if planned.changes else "its files"
    stale = error(
        "stale",
        None,
        None,
        f"{files} changed {VERIFY_ROUNDS} times while the verify commands ran on this edit's result; nothing was written",
        "read the files again and send the edit again",
    )
    return _report("refused", edits, dataclasses.replace(planned, findings=planned.findings + (stale,)))


def _parsed(call: Call, raw: bytes, dialect: str, path: str | None) -> tuple[EditSet, int] | Report:
    """The edit read as UTF-8 text and parsed, with its size in bytes; or the refusal."""
    named = None if dialect == "auto" else dialect
    too_big = _over_byte_budget(len(raw), call.policy)
    if too_big is not None:
        return Report("refused", named, findings=(too_big,))
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
    if b"\x00" in raw:
        return Report(
            "refused",
            None,
            findings=(
                error(
                    "binary",
                    None,
                    None,
                    "the edit contains NUL bytes: binary input is not an edit",
                    "send text edits only; binary files cannot be changed through agent-guard",
                ),
            ),
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # ED A0..ED BF: a lone surrogate of a str (``Guard.apply``), not a byte anyone sent.
        pair = raw[exc.start : exc.start + 2]
        half = len(pair) == 2 and pair[0] == 0xED and pair[1] >= 0xA0
        what = ": half of a UTF-16 surrogate pair, no character" if half else ""
        return Report(
            "refused",
            None,
            findings=(
                error("not-utf8", None, None, f"the edit is not UTF-8 text (byte {exc.start}{what})", "send the edit as UTF-8"),
            ),
        )
    edits, findings = dialects.parse(text, dialect, path, call.audience)
    if edits is None:
        return Report("refused", named, findings=tuple(findings))
    return edits, len(raw)


def _unrecordable(call: Call) -> Finding | None:
    """Under the lock, before planning: a write a crash cut short is put back, the turn id is one
    the agent may use, and (unless only checking) the agent's ledger ref is not locked."""
    stage.recover(call.repo)
    check_turn(call)
    return None if call.check else land.ref_locked(call.repo, call.ledger_ref)


def check_turn(call: Call) -> None:
    """A usage error when the call's turn id names an earlier turn of the agent (call under the lock)."""
    if call.turn is not None:
        problem = ledger.check_turn_id(call.repo, call.ledger_ref, call.agent, call.turn, memo=call.memo)
        if problem is not None:
            raise UsageError(problem)


def _verify_applies(call: Call, planned: Planned) -> bool:
    """Whether the policy's verify commands judge `planned` before it lands: it passes the checks,
    changes something, and the policy names commands."""
    return not planned.refused and not _changes_nothing(planned.changes) and _verifies(call.policy)


def _known_verdict(call: Call, planned: Planned, verified: _Verified | None) -> Verdict | None:
    """The verdict on exactly `planned`'s changes, when there is one without running anything:
    the last round's, or the one no command concerns (``verify.nothing_to_run``); None: run them."""
    if verified is not None and verified.key == _key(planned.changes):
        return verified.verdict
    from .. import verify

    return verify.nothing_to_run(call.policy, planned.changes)


def _landed(call: Call, edits: EditSet, planned: Planned, verdict: Verdict | None, size: int, path: str | None) -> Report:
    """The outcome of `planned` under the lock it was planned in: refused (with a suggestion), judged
    by the verify verdict, checked only, or written and recorded."""
    status = "checked" if call.check else "applied"
    if planned.refused:
        return _refused(call, edits, planned, path)
    if _changes_nothing(planned.changes):
        # Nothing to write (a no-op let through as a warning): no empty turn either, and nothing to verify.
        return _report(status, edits, planned)
    extra: dict[str, object] = {}
    if verdict is not None:
        planned = with_verdict(call, planned, verdict, size)
        extra = {"verify": list(verdict.runs)}
        if planned.refused:
            return _report("refused", edits, planned, extra=extra)
    folders = land.emptied(call, planned.changes)
    if folders:
        listed = ", ".join(d + "/" for d in folders)
        said = (
            f"{'would remove' if call.check else 'removed'} the {'folder' if len(folders) == 1 else 'folders'} "
            f"{listed}, empty once the files are deleted (as git rm does)"
        )
        planned = dataclasses.replace(planned, notes=planned.notes + (said,))
    if call.check:
        return _report(status, edits, planned, extra=extra)
    try:
        turn = land.write_turn(call, planned.changes, edits.format, size, remove_dirs=folders)
    except worktree.UnsafePath as exc:
        return _report("refused", edits, _with(planned, land.swapped_path(exc)), extra=extra)
    except RefLocked as exc:
        return _report("refused", edits, _with(planned, land.lock_finding(exc.name, exc.lock)), extra=extra)
    return Report("applied", edits.format, planned.changes, planned.findings, turn, planned.notes, extra=extra)


def _refused(call: Call, edits: EditSet, planned: Planned, path: str | None) -> Report:
    """A refusal, with the edit to send back when it has one likely reading (``suggest``)."""
    suggestion = None
    if path is None:
        from .suggest import for_refusal

        suggestion = for_refusal(call, edits, planned, lambda again, size: plan(call, again, size))
    return Report("refused", edits.format, planned.changes, planned.findings, notes=planned.notes, suggestion=suggestion)


def _report(status: str, edits: EditSet, planned: Planned, extra: dict[str, object] | None = None) -> Report:
    return Report(status, edits.format, planned.changes, planned.findings, notes=planned.notes, extra=extra or {})


def _with(planned: Planned, finding: Finding) -> Planned:
    return dataclasses.replace(planned, findings=planned.findings + (finding,))


def _changes_nothing(changes: Sequence[FileChange]) -> bool:
    return all(c.before == c.after and c.old_mode == c.new_mode and not c.old_path for c in changes)


def _verifies(pol: Policy) -> bool:
    """Does the policy name verify commands?  (A key look-up: guard/verify/ is imported only then.)"""
    value = pol.get("verify")
    return isinstance(value, list) and bool(value)


def _key(changes: Sequence[FileChange]) -> tuple[tuple[object, ...], ...]:
    """What a verify verdict is about: each change's paths, contents and modes."""
    return tuple((c.path, c.old_path, c.before, c.after, c.old_mode, c.new_mode) for c in changes)


def _over_byte_budget(edit_bytes: int, pol: Policy) -> Finding | None:
    """The per-edit input budget, judged before parsing: a 50 MB patch is refused in
    constant time and memory instead of being parsed, located and diffed first."""
    limit = pol.budget("per_edit").get("bytes")
    if limit is None or edit_bytes <= limit or pol.level("budget") != "error":
        return None
    setting = "budget.per_edit.bytes"
    return error(
        "budget",
        None,
        None,
        f"this edit would reach {edit_bytes:,} bytes of edit input; the limit is {limit:,} "
        f"({setting}, from {pol.source(setting)})",
        "split the change into smaller edits",
    )


__all__ = ["VERIFY_ROUNDS", "apply", "check_turn", "has_errors"]
