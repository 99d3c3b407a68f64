"""One pass from input bytes to a Report: parse, locate, check, stage, write, record.

``Guard`` is a session on one repository.  The CLI makes one per command; the
Python API and the MCP server keep one alive, so the repository handle and the
parsed policy are reused across calls (the policy is re-read only when its file
changes).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from . import dialects, worktree
from .errors import UsageError
from .files import target
from .model import EditSet, FileChange, Finding, LineRange, Value, error
from .record import ledger, stage
from .repo import GitRepo, RefLocked
from .report import Report, TurnRef
from .report.audience import CLI, Audience
from .text.textfile import BOM
from .workspace import Workspace

if TYPE_CHECKING:
    from .checks import CheckInput
    from .files.attributes import AttrLookup
    from .policy import Policy
    from .verify import Verdict

# Rounds of verify-then-plan-again before an edit whose files keep changing meanwhile is refused.
VERIFY_ROUNDS = 3


class Planned(Value):
    changes: tuple[FileChange, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]


def default_agent(agent: str | None) -> str:
    name = agent or os.environ.get("AGENT_GUARD_AGENT") or "agent"
    problem = ledger.agent_problem(name)
    if problem is not None:
        raise UsageError(f"invalid agent name {name!r}: {problem}; {ledger.AGENT_RULE}")
    return name


def default_turn(turn: str | None) -> str | None:
    """`turn`, else $AGENT_GUARD_TURN, else None (a new turn); a usage error when it is no valid id."""
    tid = turn or os.environ.get("AGENT_GUARD_TURN") or None
    problem = ledger.turn_id_problem(tid) if tid is not None else None
    if problem is not None:
        raise UsageError(problem + ("" if turn else " ($AGENT_GUARD_TURN)"))
    return tid


def _has_errors(findings: Sequence[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def _verifies(pol: Policy) -> bool:
    """Does the policy name verify commands?  (A key look-up: guard/verify/ is imported only then.)"""
    value = pol.get("verify")
    return isinstance(value, list) and bool(value)


def _key(changes: Sequence[FileChange]) -> tuple[tuple[object, ...], ...]:
    """What a verify verdict is about: each change's paths, contents and modes."""
    return tuple((c.path, c.old_path, c.before, c.after, c.old_mode, c.new_mode) for c in changes)


class Verified(Value):
    """A verify verdict (guard/verify/), and the changes it judged (``_key``)."""

    key: tuple[tuple[object, ...], ...]
    verdict: Verdict


class Guard(Workspace):
    """A workspace that applies edits: parse, locate, check, write, record (see the module doc)."""

    # The budget session its caller runs in (Claude Code's session id, the MCP server's own):
    # None, the environment's or the command line's (guard/record/sessions.py).
    budget_session: str | None = None

    def session(self, agent: str) -> str:
        """The budget session `agent`'s next turn counts in (``sessions.current``)."""
        from .record import sessions

        return sessions.current(self.repo.commondir, agent, self.budget_session)

    # ------------------------------------------------------------------ apply

    def apply(
        self,
        data: bytes | str,
        *,
        format: str = "auto",
        agent: str | None = None,
        turn: str | None = None,
        check: bool = False,
        path: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        audience: Audience | None = None,
        tool: str | None = None,
        log_pass: bool = True,
        require_read: bool = False,
        verify_deadline: tuple[float, str] | None = None,
        verify_fixes: bool = True,
    ) -> Report:
        """Apply one edit, or refuse it whole.

        Relative paths the agent names are read from `cwd` (default: the current folder)
        when it is inside the work tree, else from the root; `diff --git` names are always
        from the root (``PathBase``; the README's "First apply").  Hints name the tools of
        `audience` (default: the command line, from that folder).  The outcome is logged
        (guard/report/events.py) with the agent's `tool` when an adapter names one; with
        `log_pass=False` only a refusal is, and the caller logs the edit once it lands.
        With `require_read` (the MCP server's rule) every existing file the edit changes,
        moves or deletes must be one the agent read as it is now (``target.change_for``:
        judged on the path the engine writes, after every repair of the agent's path).
        Protected contents in the report are redacted (guard/files/redaction.py).

        The policy's ``verify`` commands run on the edit's result once it passes the checks
        (guard/verify/), also with `check`.  `verify_deadline`: (a ``time.monotonic()`` instant,
        what messages call it) no command may run past, the Claude Code hook's deadline;
        `verify_fixes`: whether a ``fix: true`` command's changes may become the edit's (the hook
        cannot rewrite the tool's edit: False).
        """
        started = time.monotonic()
        agent = default_agent(agent)
        turn = default_turn(turn)
        pol = self.policy(agent)
        # A str may hold a lone surrogate (no character, and no UTF-8): kept as bytes that
        # are not UTF-8, it is refused below as `not-utf8` like any other such input.
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        here = self.folder(cwd)
        report = self._apply(
            raw,
            format,
            agent,
            turn,
            check,
            path,
            pol,
            here,
            audience or Audience("cli", here),
            require_read,
            verify_deadline,
            verify_fixes,
        )
        if report.changes or report.findings:
            from .files import redaction

            report = redaction.report(report, pol)
        if log_pass or report.status == "refused":
            self._event("apply", agent, turn, report, len(raw), started, tool)
        return report

    def folder(self, cwd: str | os.PathLike[str] | None = None) -> str:
        """The repository-relative folder relative paths start from ("" for the root)."""
        from .files import paths

        return paths.folder_of(self.root, os.getcwd() if cwd is None else cwd)

    def _apply(
        self,
        raw: bytes,
        dialect: str,
        agent: str,
        turn: str | None,
        check: bool,
        path: str | None,
        pol: Policy,
        here: str = "",
        audience: Audience = CLI,
        require_read: bool = False,
        verify_deadline: tuple[float, str] | None = None,
        verify_fixes: bool = True,
    ) -> Report:
        too_big = _over_byte_budget(len(raw), pol)
        if too_big is not None:
            return Report("refused", None if dialect == "auto" else dialect, findings=(too_big,))
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
            # ED A0..ED BF: a lone surrogate of a str (see `apply`), not a byte anyone sent.
            pair = raw[exc.start : exc.start + 2]
            half = len(pair) == 2 and pair[0] == 0xED and pair[1] >= 0xA0
            what = ": half of a UTF-16 surrogate pair, no character" if half else ""
            return Report(
                "refused",
                None,
                findings=(
                    error(
                        "not-utf8", None, None, f"the edit is not UTF-8 text (byte {exc.start}{what})", "send the edit as UTF-8"
                    ),
                ),
            )
        edits, findings = dialects.parse(text, dialect, path, audience)
        if edits is None:
            return Report("refused", None if dialect == "auto" else dialect, findings=tuple(findings))
        # The verify commands run with the repository unlocked (they may take minutes, and every other
        # agent's edit waits on the lock): the edit is planned again once they are done, and written
        # only if it is still the edit they judged.
        verified: Verified | None = None
        for _round in range(VERIFY_ROUNDS):
            with worktree.locked(self.repo):
                outcome = self._decide(edits, raw, agent, turn, check, pol, here, audience, require_read, verified, path)
            if isinstance(outcome, Report):
                return outcome
            from . import verify

            until, name = verify_deadline if verify_deadline is not None else (None, "")
            verdict = verify.run(self.repo, pol, agent, outcome.changes, until=until, take_fixes=verify_fixes, deadline_name=name)
            if verdict.refused:
                return Report(
                    "refused",
                    edits.format,
                    outcome.changes,
                    outcome.findings + verdict.findings,
                    notes=outcome.notes + verdict.notes,
                    extra={"verify": list(verdict.runs)},
                )
            verified = Verified(_key(outcome.changes), verdict)
        files = ", ".join(sorted({c.path for c in outcome.changes})) if outcome.changes else "its files"
        return Report(
            "refused",
            edits.format,
            outcome.changes,
            outcome.findings
            + (
                error(
                    "stale",
                    None,
                    None,
                    f"{files} changed {VERIFY_ROUNDS} times while the verify commands ran on this edit's "
                    "result; nothing was written",
                    "read the files again and send the edit again",
                ),
            ),
            notes=outcome.notes,
        )

    def _decide(
        self,
        edits: EditSet,
        raw: bytes,
        agent: str,
        turn: str | None,
        check: bool,
        pol: Policy,
        here: str,
        audience: Audience,
        require_read: bool,
        verified: Verified | None,
        path: str | None = None,
    ) -> Report | Planned:
        """Under the repository lock: plan the edit, and write it when it passes (unless `check`).  The plan
        itself when the policy's verify commands have yet to judge it (`verified` is about other changes)."""
        stage.recover(self.repo)
        self._check_turn(pol, agent, turn)
        locked = ref_locked(self.repo, ledger.ref_name(pol.ledger_prefix, agent)) if not check else None
        if locked is not None:
            return Report("refused", edits.format, findings=(locked,))
        self.forget_control_paths()
        plan = self.plan(edits, pol, agent, turn, len(raw), here, audience, require_read)
        status = "refused" if _has_errors(plan.findings) else ("checked" if check else "applied")
        if status == "refused":
            suggestion = None
            if path is None:
                from .suggest import for_refusal

                suggestion = for_refusal(self, edits, plan, pol, agent, turn, here, audience, require_read)
            return Report(status, edits.format, plan.changes, plan.findings, notes=plan.notes, suggestion=suggestion)
        if all(c.before == c.after and c.old_mode == c.new_mode and not c.old_path for c in plan.changes):
            # Nothing to write (a no-op let through as a warning): no empty turn either, and nothing to verify.
            return Report(status, edits.format, plan.changes, plan.findings, notes=plan.notes)
        extra: dict[str, object] = {}
        if _verifies(pol):
            if verified is None or verified.key != _key(plan.changes):
                from . import verify

                skipped = verify.nothing_to_run(pol, plan.changes)
                if skipped is None:
                    return plan  # to be verified with the repository unlocked
                verified = Verified(_key(plan.changes), skipped)
            plan = self._with_verdict(plan, verified.verdict, pol, agent, turn, len(raw))
            extra = {"verify": list(verified.verdict.runs)}
            if _has_errors(plan.findings):
                return Report("refused", edits.format, plan.changes, plan.findings, notes=plan.notes, extra=extra)
        emptied = self._emptied(plan.changes, here)
        if emptied:
            folders = ", ".join(d + "/" for d in emptied)
            plan = plan._replace(
                notes=plan.notes
                + (
                    f"{'would remove' if check else 'removed'} the {'folder' if len(emptied) == 1 else 'folders'} "
                    f"{folders}, empty once the files are deleted (as git rm does)",
                )
            )
        if status != "applied":
            return Report(status, edits.format, plan.changes, plan.findings, notes=plan.notes, extra=extra)
        try:
            turn_ref = self._write_turn(plan.changes, pol, agent, turn, edits.format, len(raw), remove_dirs=emptied)
        except worktree.UnsafePath as exc:
            return Report(
                "refused", edits.format, plan.changes, plan.findings + (swapped_path(exc),), notes=plan.notes, extra=extra
            )
        except RefLocked as exc:
            return Report(
                "refused",
                edits.format,
                plan.changes,
                plan.findings + (lock_finding(exc.name, exc.lock),),
                notes=plan.notes,
                extra=extra,
            )
        return Report("applied", edits.format, plan.changes, plan.findings, turn_ref, plan.notes, extra=extra)

    def _with_verdict(
        self, plan: Planned, verdict: Verdict, pol: Policy, agent: str, turn: str | None, edit_bytes: int
    ) -> Planned:
        """`plan` as the verify commands leave it: the files a ``fix: true`` command changed take its
        changes (repair ``verify-fix``), and the policy's checks judge them again, reporting only (the
        files must stay what the commands passed: a whitespace fix becomes a warning)."""
        from . import checks, diffs

        findings, notes = plan.findings + verdict.findings, plan.notes + verdict.notes
        if not verdict.fixed:
            return Planned(plan.changes, findings, notes)
        changes = tuple(
            diffs.make_change(
                c.path,
                c.op,
                c.before,
                verdict.fixed[c.path],
                old_path=c.old_path,
                old_mode=c.old_mode,
                new_mode=c.new_mode,
                repairs=(*c.repairs, "verify-fix"),
                whole=c.whole,
            )
            if c.path in verdict.fixed and c.after is not None
            else c
            for c in plan.changes
        )
        levels = dict(pol.data.get("checks") or {})  # type: ignore[call-overload]
        if levels.get("whitespace") == "fix":
            levels["whitespace"] = "warning"
        judged = pol._replace(data={**pol.data, "checks": levels})
        again = checks.run(self._check_input(changes, judged, agent, turn, edit_bytes, self.attributes_before(pol, agent, turn)))
        return Planned(changes, findings + tuple(f for f in again.findings if f not in findings), notes)

    def _emptied(self, changes: Sequence[FileChange], here: str) -> list[str]:
        """The folders the files `changes` delete (or move away) leave empty, deepest first: taken away
        with them, as `git rm` and `git apply` do; never the folder relative paths start from (the
        current one), nor one above it."""
        gone = [
            p
            for c in changes
            for p in (c.path if c.after is None else None, c.old_path if c.old_path and c.old_path != c.path else None)
            if p
        ]
        if not gone:
            return []
        kept = {""} | {here.rsplit("/", i)[0] for i in range(here.count("/") + 1)} if here else {""}
        folders = [d for p in gone for d in _parents(p) if d not in kept]
        return worktree.emptied_dirs(self.root, folders, gone)

    def _check_turn(self, pol: Policy, agent: str, turn: str | None) -> None:
        """A usage error when `turn` names an earlier turn of the agent (call under the lock)."""
        if turn is not None:
            problem = ledger.check_turn_id(
                self.repo, ledger.ref_name(pol.ledger_prefix, agent), agent, turn, memo=self.ledger_memo
            )
            if problem is not None:
                raise UsageError(problem)

    def _write_turn(
        self,
        changes: Sequence[FileChange],
        pol: Policy,
        agent: str,
        turn: str | None,
        dialect: str,
        edit_bytes: int,
        kind: str = "turn",
        rolls_back: Sequence[str] = (),
        remove_dirs: Sequence[str] = (),
    ) -> TurnRef:
        """Write `changes` to the work tree and record them as the agent's turn (``stage.write_turn``)."""
        new = ledger.NewTurn(agent, turn, dialect, pol.name, edit_bytes, kind, tuple(rolls_back), session=self.session(agent))
        staged = stage.write_turn(self.repo, pol.ledger_prefix, new, changes, remove_dirs=remove_dirs, memo=self.ledger_memo)
        return TurnRef(agent, staged.turn, staged.commit, staged.ref)

    def record(
        self,
        changes: Sequence[FileChange],
        *,
        agent: str | None = None,
        turn: str | None = None,
        dialect: str = "external",
        edit_bytes: int = 0,
        created_dirs: Sequence[str] = (),
    ) -> TurnRef:
        """Record changes another tool already wrote to the work tree as a turn.

        Nothing is written but the ledger: each change's ``before`` must be the file
        as it was before that tool ran (the ledger syncs to it first, so the turn's
        diff is exactly ``before`` -> ``after``).  The ref moves by compare-and-swap.
        `created_dirs`: the folders that tool made for them, which a rollback of the
        turn removes once they are empty.
        """
        agent = default_agent(agent)
        turn = default_turn(turn)
        pol = self.policy(agent)
        with worktree.locked(self.repo):
            stage.recover(self.repo)
            self._check_turn(pol, agent, turn)
            staged = stage.record_turn(
                self.repo,
                pol.ledger_prefix,
                ledger.NewTurn(agent, turn, dialect, pol.name, edit_bytes, session=self.session(agent)),
                changes,
                created_dirs,
                memo=self.ledger_memo,
            )
        return TurnRef(agent, staged.turn, staged.commit, staged.ref)

    # ------------------------------------------------------------------ planning

    def plan(
        self,
        edits: EditSet,
        pol: Policy,
        agent: str,
        turn: str | None,
        edit_bytes: int,
        here: str = "",
        audience: Audience = CLI,
        require_read: bool = False,
    ) -> Planned:
        """Locate and check `edits`; relative paths start from the folder `here` (see ``folder``);
        `require_read`: see ``apply``."""
        from . import checks

        changes: list[FileChange] = []
        findings: list[Finding] = []
        notes: list[str] = []
        if edits.rewrites:
            # Structural rewrites become file edits against the tree as it is (under the lock).
            from .structural.expansion import expand

            expanded = expand(self, edits, pol, agent, here)
            if expanded.edits is None or _has_errors(expanded.findings):
                return Planned((), expanded.findings, expanded.notes)
            edits = expanded.edits
            findings += expanded.findings
            notes += expanded.notes
        seen: dict[str, int] = {}
        tiers = tuple(pol.tiers)
        if any(
            isinstance(c, LineRange) and (c.block or c.cut is not None or c.paste is not None)
            for fe in edits.files
            for c in fe.changes
        ):
            # Blocks and registers: line numbers and lines only the files as read can give.
            from .reading import registers

            edits, refused = registers.resolve(self, edits, pol, here, audience)
            if refused:
                return Planned((), tuple(refused), ())
        attr = self.attributes_before(pol, agent, turn)
        for fe in edits.files:
            ch, fs, ns = target.change_for(
                self,
                fe,
                pol,
                tiers,
                here,
                audience,
                guessed_whole=edits.detected and edits.format == "whole",
                require_read=require_read,
                attr=attr,
            )
            findings += fs
            notes += ns
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
                seen[p] = 1
            changes.append(ch)
        # A folder the edit makes a git directory (whatever the names) runs what its config says.
        from .files.control import nested_findings

        findings += nested_findings(self.root, changes, pol)
        # Parse-level repairs (a stripped line-number prefix...) belong to every file; a
        # recount is already reported per hunk by the locator.
        extra = tuple(r for r in edits.repairs if r != "recount")
        if extra:
            changes = [c._replace(repairs=tuple(dict.fromkeys(c.repairs + extra))) for c in changes]
        result = checks.run(self._check_input(changes, pol, agent, turn, edit_bytes, attr))
        return Planned(tuple(result.changes), tuple(findings) + tuple(result.findings), tuple(notes))

    def _check_input(
        self, changes: Sequence[FileChange], pol: Policy, agent: str, turn: str | None, edit_bytes: int, attr: AttrLookup
    ) -> CheckInput:
        """What the policy's checks judge `changes` with: git's view of the paths, the agent's usage so far."""
        from . import checks

        turn_used, session_used = ledger.usage(
            self.repo, ledger.ref_name(pol.ledger_prefix, agent), agent, turn, self.session(agent), memo=self.ledger_memo
        )
        return checks.CheckInput(
            changes=tuple(changes),
            policy=pol,
            tracked=target.tracked_for(self, pol, agent),
            attr=attr,
            core_whitespace=self.repo.config("core.whitespace"),
            usage=checks.Usage(turn_used, session_used),
            edit_bytes=edit_bytes,
        )

    def attributes_before(self, pol: Policy, agent: str, turn: str | None) -> AttrLookup:
        """The attributes the checks of `turn` read: the tree's from before the turn, never what
        the turn wrote (a turn going on over several applies: ``attributes.before_turn``)."""
        if turn is None:
            return self.repo.attr  # a new turn: nothing of it is written yet
        from .files import attributes

        ref = ledger.ref_name(pol.ledger_prefix, agent)
        found = ledger.turn_originals(self.repo, ref, agent, turn, attributes.is_attributes_file, memo=self.ledger_memo)
        return attributes.before_turn(self.repo, {attributes.key(p): data for p, data in found.items()})

    def resolve(self, raw: str, pol: Policy, reading: bool = False) -> tuple[str | None, Finding | None]:
        """An agent's path as a repository-relative one, or the finding that refuses it (``target.resolve``)."""
        return target.resolve(self, raw, pol, reading)

    # ------------------------------------------------------------------ events

    def _event(
        self, kind: str, agent: str, turn: str | None, report: Report, edit_bytes: int, started: float, tool: str | None = None
    ) -> None:
        try:
            from .report import events
        except ImportError:
            return
        # The outcome log must never turn an apply into a failure: `record` swallows its errors.
        events.record(self.repo.commondir, kind, agent, turn, report, edit_bytes, time.monotonic() - started, tool=tool)


def _parents(path: str) -> list[str]:
    """The folders holding `path`, deepest first: ``a/b/c.txt`` -> ``a/b``, ``a``."""
    out = []
    while "/" in path:
        path = path.rsplit("/", 1)[0]
        out.append(path)
    return out


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


def swapped_path(exc: worktree.UnsafePath) -> Finding:
    """A folder became a symlink between the checks and the write (which then undid itself)."""
    return error(
        "path-outside",
        None,
        None,
        f"{exc} at write time (it was a plain folder when the edit was checked); nothing was written",
        "something replaced a folder with a symbolic link while the edit ran; check the repository, then retry",
    )


def ref_locked(repo: GitRepo, ref: str) -> Finding | None:
    """A refusal when git's lock file for the agent's ledger ref is there: the turn could not be recorded."""
    lock = repo.lock_of(ref)
    return lock_finding(ref, lock) if lock is not None else None


def lock_finding(ref: str, lock: Path) -> Finding:
    return error(
        "stale",
        None,
        None,
        f"the ledger ref {ref} is locked: {lock} exists, so no turn can be recorded (nothing was changed)",
        "another git or agent-guard command may be updating it: wait and retry. If none is running "
        f"(`ps` shows no git and no agent-guard), the lock was left by one that died: remove it "
        f"(rm '{lock}') and retry",
    )
