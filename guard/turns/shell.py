"""A shell command's changes as a turn: recorded, checked, and reverted when the policy says so.

``begin`` takes what the command is judged against before it runs (``Before``): a
``snapshot`` of the work tree, and the policy as it is then.  ``finish`` finds what the
command changed (``snapshot.changes``), records it as one turn of the agent (dialect
``shell``; the ledger syncs each file to its content before the command first, so the
turn holds the command's change and nothing else), and runs the checks an edit gets on
it: protected paths, control files and a repository made inside the tree, placeholders,
conflict markers, whitespace, syntax, budgets, and the policy's verify commands.

Everything is judged by what was there before the command: the attributes, and the policy,
every setting of it (levels, protected paths, verify, the ledger, ``shell.on_violation``),
from wherever it is read (.agent-guard.yaml, pyproject.toml's table, the files it extends).
A command that rewrites the policy, or breaks it, is judged by the policy it overwrote.

What the policy does with a violation (``shell.on_violation``) is the user's choice:
``warn`` (the default) keeps the change and tells the agent; ``revert`` rolls it back at
once, as ``git agent-rollback`` would (a turn of its own, which can be undone too).  The
revert undoes this command and nothing else: a command to be reverted is recorded as a
turn of its own (the next number), never folded into the turn it would go on with (Claude
Code's turn of the prompt, whose earlier calls are not this one's to undo), and that
turn's commit is rolled back.  So that the verdict is whole before the record, the verify
commands run first under ``revert``; under ``warn`` the change is recorded first.  The
revert puts back what the files held before the command, protected files and control
files included (``record.protection``): only git's own folders are never written.  Only
a recorded turn makes that revert safe: it undoes the command's change by git's merge rule
and nothing else.

The Claude Code hook runs this around Bash (PreToolUse ``begin``, PostToolUse
``finish``), carrying ``Before`` from one process to the other as JSON; ``agent-guard run
-- CMD`` around any command, in one process.  Which repositories a command can change,
the hook works out from the command before it runs (``entered``).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from ..model import Finding, error, warning
from ..record import snapshot
from ..report import Report, TurnRef
from ..tree import worktree

if TYPE_CHECKING:
    from ..pipeline.engine import Guard
    from ..policy import Policy
    from ..verify import Verdict

DIALECT = "shell"
ON_VIOLATION = ("warn", "revert")


def on_violation(pol: Policy) -> str:
    value = pol.get("shell.on_violation", "warn")
    return value if isinstance(value, str) and value in ON_VIOLATION else "warn"


class Uncarried(ValueError):
    """A policy that does not come back from JSON exactly as it is (a value JSON has no spelling for)."""


@dataclass(frozen=True, slots=True)
class Before:
    """What a command is judged against, as it was before the command ran: the work tree and the policy."""

    snapshot: snapshot.Snapshot
    policy: Policy
    # The protected files at the top of the tree that git ignores (``.env``), which the snapshot
    # (what `git status` lists) does not see: name -> [blob id, git mode], kept as the snapshot keeps
    # a dirty file (a loose object no ref names), so that a revert can put it back.
    ignored: dict[str, list[object]] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        """The JSON the hook keeps between its two processes; ``Uncarried`` when the policy would not
        come back from it exactly (then the command cannot be judged by it, and must not run)."""
        doc = {f.name: getattr(self.policy, f.name) for f in fields(self.policy)}
        try:
            back = _policy(json.loads(json.dumps(doc)))
        except (TypeError, ValueError):
            back = None
        if back != self.policy:
            raise Uncarried(
                f"the policy {self.policy.name} holds a value that JSON does not carry exactly, so the command "
                "could not be judged by it once it has run"
            )
        return {"snapshot": self.snapshot.as_json(), "policy": doc, "ignored": dict(self.ignored)}

    @classmethod
    def from_json(cls, doc: object) -> Before:
        if not isinstance(doc, dict) or not isinstance(doc.get("ignored", {}), dict):
            raise ValueError("not a shell turn's stash")
        ignored = dict(doc.get("ignored", {}))
        if any("/" in name or name in ("", ".", "..", ".git") for name in ignored):
            raise ValueError("not a shell turn's stash: an ignored file's name is no name at the top of the tree")
        return cls(snapshot.Snapshot.from_json(doc["snapshot"]), _policy(doc["policy"]), ignored)


def _policy(doc: object) -> Policy:
    """A policy from its fields as JSON gave them back (a tuple comes back a list)."""
    from ..policy import Policy

    if not isinstance(doc, dict) or set(doc) != {f.name for f in fields(Policy)}:
        raise ValueError("not a policy")
    values: dict[str, Any] = {name: tuple(value) if isinstance(value, list) else value for name, value in doc.items()}
    return Policy(**values)


def begin(g: Guard, agent: str) -> Before:
    """The work tree and the policy before a command (under the repository lock, after any crash is recovered)."""
    from ..record import stage

    pol = g.policy(agent)
    with worktree.locked(g.repo):
        stage.recover(g.repo)
        return Before(snapshot.take(g.repo, pol.ledger_prefix, pol.max_file_bytes, g.watch), pol, _ignored_protected(g, pol))


def _ignored_protected(g: Guard, pol: Policy, keep: bool = True) -> dict[str, list[object]]:
    """The regular files at the top of the tree that the policy protects and git ignores: each one's
    blob id and git mode (``Before.ignored``; `keep`: write the blob, for a revert to read).  Only
    the top: a walk of ignored folders (node_modules) costs what a command's turn must not."""
    import stat as stat_mod

    from ..files import paths
    from ..repo.objects import blob_id

    out: dict[str, list[object]] = {}
    try:
        names = [e.name for e in os.scandir(g.root) if e.name != ".git"]
    except OSError:
        return out
    for name in names:
        found = paths.protected_finding(name, pol)
        if found is None or found.severity != "error" or not g.repo.ignored(name):
            continue
        try:
            st = os.lstat(g.root / name)
            if not stat_mod.S_ISREG(st.st_mode) or st.st_size > (pol.max_file_bytes or 1 << 24):
                out[name] = ["not a regular file, or too large to keep", 0]
                continue
            data, mode = worktree.read(g.root, name)
        except (OSError, worktree.UnsafePath):
            continue
        if data is not None:
            out[name] = [g.repo.write_blob(data) if keep else blob_id(data), mode]
    return out


def _ignored_findings(g: Guard, before: Before) -> list[Finding]:
    """`path-protected` for each protected file at the top that git ignores and the command changed,
    made or removed: no turn can hold it (git does not see it); ``_put_back_ignored`` undoes it."""
    now = _ignored_protected(g, before.policy, keep=False)
    out: list[Finding] = []
    for name in sorted(set(now) | set(before.ignored)):
        if now.get(name, [None])[0] == before.ignored.get(name, [None])[0]:
            continue
        what = "made" if name not in before.ignored else "removed" if name not in now else "changed"
        out.append(
            error(
                "path-protected",
                name,
                None,
                f"{name} (protected, and ignored by git) was {what} by the command; agents may not change it",
                f"leave {name} alone: tell the user what should change in it and why",
            )
        )
    return out


def _put_back_ignored(g: Guard, before: Before, findings: list[Finding]) -> tuple[str, ...]:
    """Under ``revert``: each ignored protected file the command changed (``_ignored_findings``) as it
    was before, from the blob kept; one made by the command removed.  What is done, as notes."""
    changed = {f.path for f in findings if f.code == "path-protected" and f.path is not None}
    said: list[str] = []
    for name in sorted(changed & (set(before.ignored) | set(_ignored_protected(g, before.policy, keep=False)))):
        was = before.ignored.get(name)
        try:
            with worktree.locked(g.repo):
                now, mode = worktree.read(g.root, name)
                if was is None:
                    worktree.write(g.repo, [worktree.Write(name, now, None, mode, None)])
                else:
                    blob, was_mode = was
                    data = g.repo.read_blob(blob) if isinstance(blob, str) and len(blob) in (40, 64) else None
                    if data is None:
                        said.append(f"reverted: {name} could not be put back (what it held was not kept)")
                        continue
                    back = was_mode if isinstance(was_mode, int) else None
                    worktree.write(g.repo, [worktree.Write(name, now, data, mode, back)])
        except (OSError, worktree.UnsafePath) as exc:
            said.append(f"reverted: {name} could not be put back: {exc}")
            continue
        said.append(f"reverted: {name} is as it was before the command")
    return tuple(said)


@dataclass(frozen=True, slots=True)
class Finished:
    """What ``finish`` did: its report (status "applied": recorded and passed; "refused": the checks
    found errors, and the change was reverted or kept as `reverted` says), and whether it reverted."""

    report: Report
    reverted: bool


def finish(
    g: Guard,
    before: Before,
    *,
    agent: str,
    turn: str | None,
    tool: str | None = None,
    command: str = "",
    verify_deadline: tuple[float, str] | None = None,
) -> Finished:
    """Record what the command changed since `before` as the agent's turn, check it, and revert it when
    the policy's ``shell.on_violation`` is ``revert`` and the checks found an error (see the module doc).

    The policy's verify commands (guard/verify/) judge the result too; what they would change is
    reported, never taken (the command's files are written).  `verify_deadline`: (a
    ``time.monotonic()`` instant, its name) they must be done by.  The report shows no protected
    file's contents (``redaction``)."""
    from ..files import redaction
    from ..record import stage
    from ..report import events

    began = time.monotonic()
    pol = before.policy
    try:
        with worktree.locked(g.repo):
            stage.recover(g.repo)
            found = snapshot.changes(g.repo, before.snapshot, pol.ledger_prefix, pol.max_file_bytes, g.watch)
    finally:
        snapshot.discard(before.snapshot)
    notes = tuple(f"{path}: {why}" for path, why in found.unrecorded)
    findings = list(_unrecorded_findings(g, pol, found.unrecorded)) + _ignored_findings(g, before)
    if not found.changes:
        report = Report(
            "refused" if _failed(findings) else "applied",
            DIALECT,
            findings=tuple(findings),
            notes=notes,
        )
        undo = on_violation(pol) == "revert" and _failed(findings)
        put = _put_aside(g, found) + _put_back_ignored(g, before, findings) if undo else ()
        report = redaction.report(replace(report, notes=report.notes + put), pol)
        stays = _failed(findings) and not put
        events.record(
            g.repo.commondir, events.Decision("apply", agent, turn, len(command), time.monotonic() - began, tool, stays), report
        )
        return Finished(report, bool(put))
    findings += check(g, pol, found)
    revert = on_violation(pol) == "revert"
    verdict = _verify(g, pol, agent, found, verify_deadline) if revert else None
    if verdict is not None:
        findings += verdict.findings
        notes += verdict.notes
    undoing = revert and _failed(findings)
    kept = turn if undoing and turn is not None and _goes_on(g, pol, agent, turn) else None
    turn_ref, said = _record(g, pol, found, agent, None if undoing else turn, len(command.encode()))
    notes += said
    if not revert:
        verdict = _verify(g, pol, agent, found, verify_deadline)
        if verdict is not None:
            findings += verdict.findings
            notes += verdict.notes
    extra: dict[str, object] = {"verify": list(verdict.runs)} if verdict is not None else {}
    failed = _failed(findings)  # under `revert`, as `undoing` found: the verdict was whole before the record
    report = Report("refused" if failed else "applied", DIALECT, found.changes, tuple(findings), turn_ref, notes, extra=extra)
    reverted = False
    if undoing:
        reverted, report = _revert(g, pol, agent, report, turn_ref, kept)
        report = replace(report, notes=report.notes + _put_aside(g, found) + _put_back_ignored(g, before, findings))
    report = redaction.report(report, pol)
    stays = failed and not reverted  # flagged, and still in the tree: it landed (``stats``)
    decision = events.Decision("apply", agent, turn, len(command), time.monotonic() - began, tool, stays)
    events.record(g.repo.commondir, decision, report)
    return Finished(report, reverted)


def _failed(findings: list[Finding] | tuple[Finding, ...]) -> bool:
    return any(f.severity == "error" for f in findings)


def _verify(g: Guard, pol: Policy, agent: str, found: snapshot.Found, deadline: tuple[float, str] | None) -> Verdict | None:
    """The policy's verify commands on the command's result, or None when it names none."""
    if not pol.get("verify"):
        return None
    from .. import verify

    until, name = deadline if deadline is not None else (None, "")
    return verify.run(g.repo, pol, agent, found.changes, until=until, take_fixes=False, deadline_name=name)


def _goes_on(g: Guard, pol: Policy, agent: str, turn: str) -> bool:
    """Is `turn` the agent's latest turn, which a record under its id would go on with?"""
    from ..record import ledger

    tip = ledger.latest(g.repo, ledger.ref_for(g.repo, pol.ledger_prefix, agent), agent, g.ledger_memo)
    return tip is not None and tip.kind == "turn" and tip.id == turn


def _record(
    g: Guard, pol: Policy, found: snapshot.Found, agent: str, turn: str | None, edit_bytes: int
) -> tuple[TurnRef, tuple[str, ...]]:
    """Record the command's change as the agent's turn, as ``Guard.record`` does, but under the policy
    from before the command (its ledger prefix and name), and the notes to add.

    `turn` goes on with the agent's latest turn of that id.  An id an earlier turn has, which a
    later turn or rollback came after (a revert within Claude Code's prompt), cannot go on: the
    change is recorded as the next number rather than not at all (it would land in the user's next
    sync), and a note says so."""
    from ..record import ledger, stage

    said: tuple[str, ...] = ()
    with worktree.locked(g.repo):
        stage.recover(g.repo)
        if turn is not None:
            ref = ledger.ref_for(g.repo, pol.ledger_prefix, agent)
            if ledger.check_turn_id(g.repo, ref, agent, turn, memo=g.ledger_memo) is not None:
                said = (f"turn {turn} of {agent} cannot go on (a later turn or rollback came after it): recorded on its own",)
                turn = None
        new = ledger.NewTurn(agent, turn, DIALECT, pol.name, edit_bytes, session=g.session(agent))
        staged = stage.record_turn(g.repo, pol.ledger_prefix, new, found.changes, memo=g.ledger_memo)
    return TurnRef(agent, staged.turn, staged.commit, staged.ref), said


def _revert(g: Guard, pol: Policy, agent: str, report: Report, turn_ref: TurnRef, kept: str | None) -> tuple[bool, Report]:
    """Roll back the command's turn (its commit: that and nothing else); `kept`: the turn the command
    would have gone on with, whose earlier calls stay.  (Whether it reverted, the report.)"""
    from .rollback import Asked, rollback

    undo = rollback(g, agent, Asked(commit=turn_ref.commit), policy=pol, reverting=True)
    files = ", ".join(dict.fromkeys(c.path for c in report.changes))
    if undo.status != "applied":
        return False, replace(
            report,
            findings=report.findings + undo.findings,
            notes=report.notes
            + (f"shell.on_violation is revert, but turn {turn_ref.id} could not be rolled back: its change stays ({files})",),
        )
    stays = f"; turn {kept}, with what earlier calls of it changed, stays" if kept is not None else ""
    said = (
        f"reverted: this command's change ({files}) was recorded as turn {turn_ref.id} and rolled back at once "
        f"(shell.on_violation: revert) as turn {undo.turn.id if undo.turn else '?'}{stays}"
    )
    return True, replace(report, notes=report.notes + (said,))


def _unrecorded_findings(g: Guard, pol: Policy, unrecorded: tuple[tuple[str, str], ...]) -> list[Finding]:
    """What a command changed that cannot be recorded (``snapshot.Found.unrecorded``): a repository
    made inside the tree, and any such change at a protected path or a control file (a policy file
    swapped for a link), are refused; the rest are reported."""
    from ..files import control, paths
    from ..files.control import SETTING

    named = g.control_paths()
    out: list[Finding] = []
    for path, why in unrecorded:
        if why == snapshot.MADE_REPOSITORY:
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
            continue
        guarded = control.path_finding(path, named, pol) or paths.protected_finding(path, pol)
        if guarded is not None and guarded.severity == "error":
            out.append(replace(guarded, message=f"{path}: {why}; {guarded.message}"))
            continue
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


def _put_aside(g: Guard, found: snapshot.Found) -> tuple[str, ...]:
    """Under ``revert``, what a turn cannot hold put back as well: a repository the command made
    inside the tree is moved out of it (into agent-guard's folder of the git dir, kept, never
    deleted), and a link (or other file that is not regular) the command put where the snapshot
    knows what was there is replaced by that again.  What is done, as notes."""
    import stat as stat_mod

    said: list[str] = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    with worktree.locked(g.repo):
        for path, why in found.unrecorded:
            was = found.unrecorded_before.get(path)
            full = g.root / path
            try:
                st = os.lstat(full)
            except OSError:
                continue  # gone already
            if why == snapshot.MADE_REPOSITORY:
                aside = worktree.state_dir(g.repo) / "put-aside" / f"{stamp}-{os.getpid()}" / path
                try:
                    aside.parent.mkdir(parents=True, exist_ok=True)
                    os.rename(full, aside)
                except OSError as exc:
                    said.append(f"reverted: {path}/ (a repository the command made) could not be moved away: {exc}")
                    continue
                said.append(f"reverted: {path}/, a repository the command made, was moved out of the tree to {aside}")
                continue
            if was is None or stat_mod.S_ISREG(st.st_mode) or stat_mod.S_ISDIR(st.st_mode):
                continue  # what it held is not known, or the change is one of content: the warning stands
            try:
                os.unlink(full)
                if was[0] is not None:
                    worktree.write(g.repo, [worktree.Write(path, None, was[0], None, was[1])])
            except (OSError, worktree.UnsafePath) as exc:
                said.append(f"reverted: {path} could not be put back: {exc}")
                continue
            now = "the file it was" if was[0] is not None else "gone again"
            said.append(f"reverted: {path} is {now} (the command made it a link)")
    return tuple(said)


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
    out += control.nested_findings(g.root, found.changes, pol)  # a repository made by hand, file by file
    originals = {attributes.key(p): data for p, data in found.originals.items() if attributes.is_attributes_file(p)}
    # An attributes file the command swapped for a link is read as it was, as every other one.
    originals.update(
        {attributes.key(p): was[0] for p, was in found.unrecorded_before.items() if attributes.is_attributes_file(p)}
    )
    attr = attributes.before_turn(g.repo, originals)
    levels = dict(pol.data.get("checks") or {})  # type: ignore[call-overload]
    for name in ("untracked", "no-op", "stale"):
        levels[name] = "off"  # a command's files need no tracking; a change that changes nothing is none
    if levels.get("whitespace") == "fix":
        levels["whitespace"] = "warning"  # what the command wrote is written: report, never rewrite
    judged = replace(pol, data={**pol.data, "checks": levels})
    inp = checks.CheckInput(
        changes=found.changes, policy=judged, tracked=lambda _p: True, attr=attr, core_whitespace=g.repo.config("core.whitespace")
    )
    return out + list(checks.run(inp).findings)
