"""Undoing turns: ``rollback`` picks the turns asked for, checks the paths, undoes, records.

A rollback reverse-applies a turn onto the work tree as it is *now* with git's
three-way merge (base: the turn's result, ours: the current file, theirs: the
file before the turn), so later changes to other lines, or other files, survive.
Where a later change touches or adjoins what must be undone it refuses with
``rollback-conflict``, naming the lines; ``force`` takes the pre-turn text in
those regions only and keeps every other later change.  The
rollback is recorded as a turn of its own, so it can itself be undone.

Undoing a turn puts back the user's own version of what it changed, which no path
protection refuses (only git's own folders); undoing a rollback writes an agent's
change again and obeys protection as an edit does (``protection`` has the rule).
What each file becomes is ``undo``'s; reading the ledger is ``history``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Callable

from ..errors import UsageError
from ..files import redaction
from ..pipeline.engine import Guard, default_agent, lock_finding, ref_locked, swapped_path
from ..policy import Policy
from ..record import clones, ledger, stage
from ..repo import GitError, RefLocked
from ..report import Report, TurnRef
from ..tree import worktree
from . import history
from .hint import undo_command
from .protection import protection
from .undo import undo_turns


@dataclass(frozen=True, slots=True)
class Asked:
    """The turns a rollback is asked to undo: the agent's last (nothing given), one (`turn`) or
    every one after `to`; `clone` with `turn`: that turn of another clone, fetched here
    (``clones``); `commit`: the turn recorded at that commit, this clone's or fetched (one
    commit, where a turn id may name several); `session`: the last turn of that session (its
    ``Agent-Guard-Session``), whatever other sessions of the agent did since."""

    turn: str | None = None
    to: str | None = None
    clone: str | None = None
    commit: str | None = None
    session: str | None = None


LAST_TURN = Asked()  # the agent's last turn not rolled back


@dataclass(frozen=True, slots=True)
class _Run:
    """One rollback as it runs: the agent whose ledger it records in, the policy it is judged by,
    and how (`check`: write nothing; `force`: take the turn's old side where later changes
    conflict; `forced`: the command that asks for it with --force, for a refusal's hint;
    `reverting`: see ``protection``)."""

    agent: str
    policy: Policy
    check: bool
    force: bool
    forced: str
    reverting: bool


def rollback(
    g: Guard,
    agent: str | None,
    asked: Asked = LAST_TURN,
    *,
    check: bool = False,
    force: bool = False,
    policy: Policy | None = None,
    reverting: bool = False,
) -> Report:
    """Undo the turns `asked` names (``Asked``; see the module doc).

    Another clone's turn is undone as any turn is (its commit's parent -> it,
    merged into the work tree as it is now), and recorded as a rollback on this clone's ledger
    of the agent that names it.

    Path protection (``protection``), however the rollback is asked for (the command line, the
    Python API, the MCP tool, whose `force` the agent sets): undoing a turn puts back what was
    there before it, and putting back the user's own version of a file an agent wrote is no
    agent write, so protected paths and control files do not refuse it (git's own folders
    always do); undoing a rollback writes an agent's change again, as an edit does, and obeys
    protection as an edit does.  The report shows no protected file's contents.

    `policy`: the policy to judge by (default: the agent's now; a shell turn is undone by the one
    it was judged by, ``shell``); `reverting`: this is agent-guard's own revert of a turn its
    policy refused just now (``shell.on_violation: revert``), see ``protection``.
    """
    turn_id, to_id, clone, commit = asked.turn, asked.to, asked.clone, asked.commit
    if asked.session is not None and (turn_id is not None or to_id is not None or clone is not None or commit is not None):
        raise UsageError("give --session alone: it names the last turn of that session, in this clone's ledger")
    if commit is not None and (turn_id is not None or to_id is not None or clone is not None):
        raise UsageError("give --commit alone: it names one turn, this clone's or one fetched from another clone")
    if clone is not None and to_id is not None:
        raise UsageError(
            f"--to undoes this clone's turns after one of them; name the turn of clone {clone} to undo with --turn ID"
        )
    sha = None
    if commit is not None:
        sha, agent = _turn_commit(g, agent, commit)
    agent = default_agent(agent)
    pol = policy if policy is not None else g.policy(agent)
    if clone is not None:
        problem = clones.name_problem(clone)
        if problem is not None:
            raise UsageError(f"invalid clone name {clone!r}: {problem}")
        if clone == clones.name(g.repo):
            clone = None  # this clone's own turns
            asked = replace(asked, clone=None)
        elif turn_id is None:
            raise UsageError(
                f"name the turn of clone {clone} to undo: --clone {clone} --turn ID (git agent-log --clone {clone} lists them)"
            )
    prefix = pol.ledger_prefix
    if sha is not None:
        select: Callable[[], _Selected] = partial(_commit_targets, g, agent, prefix, sha)
    elif asked.session is not None:
        select = partial(_session_targets, g, agent, prefix, asked.session)
    elif clone is not None and turn_id is not None:
        select = partial(_fetched_targets, g, agent, prefix, clone, turn_id)
    else:

        def select() -> _Selected:
            return _targets(g, agent, prefix, turn_id, to_id), None

    run = _Run(agent, pol, check, force, _force_command(agent, asked), reverting)
    rep, targets = _rollback(g, run, select)
    shown = rep.turn.commit if rep.turn is not None else (targets[0].commit if len(targets) == 1 else None)
    return redaction.report(rep, pol, shown)


# The turns a rollback undoes, newest first, and, for another clone's turn, (clone, id, commit).
_Selected = tuple[list[ledger.Turn], tuple[str, str, str] | None]


def _turn_commit(g: Guard, agent: str | None, rev: str) -> tuple[str, str]:
    """The turn commit `rev` names, and its agent (a usage error when it is no turn's, or another agent's)."""
    try:
        sha = g.repo.resolve(rev)
        t = ledger.parse_turn(g.repo, sha, agent or "", g.ledger_memo)
    except GitError:
        raise UsageError(
            f"--commit {rev[:80]!r} names no commit here: give a turn's commit id "
            "(git agent-log lists them, with the turns fetched from other clones)"
        ) from None
    if t is None or t.kind not in ("turn", "rollback"):
        what = "a commit agent-guard made between turns" if t is not None else "no turn's commit"
        raise UsageError(f"--commit {rev[:80]!r} ({sha[:12]}) is {what}: give a turn's commit id (git agent-log lists them)")
    if agent is not None and t.agent != default_agent(agent):
        raise UsageError(
            f"commit {sha[:12]} is a turn of {t.agent}, not of {agent}: leave out --agent, or give --agent {t.agent}"
        )
    return sha, t.agent


def _commit_targets(g: Guard, agent: str, prefix: str, sha: str) -> _Selected:
    """The turn recorded at `sha`: in this clone's ledger of the agent, else in a fetched one."""
    for t, rolled in history.turns(g, ledger.ref_for(g.repo, prefix, agent), agent):
        if t.commit == sha:
            if rolled:
                raise UsageError(f"turn {t.id} of {agent} ({sha[:12]}) is already rolled back")
            return [t], None
    me = clones.name(g.repo)
    for copy in clones.copies(g.repo, agent):
        if copy.clone == me:
            continue  # what this clone pushed: an older version of its own ledger
        for t, _rolled in history.turns(g, copy.ref, agent):
            if t.commit == sha:
                return _fetched_one(g, agent, prefix, copy, t)
    raise UsageError(
        f"{sha[:12]} is a turn of {agent}, but no ledger here holds it, this clone's or a fetched "
        "one (it may have been pruned): agent-guard fetch REMOTE brings other clones' turns"
    )


def _fetched_targets(g: Guard, agent: str, prefix: str, clone: str, turn_id: str) -> _Selected:
    """Turn `turn_id` of `clone`'s ledger of the agent, fetched here (one commit, whichever remote it came by)."""
    problem = ledger.turn_id_problem(turn_id)
    if problem is not None:
        raise UsageError(problem)
    found = clones.copies(g.repo, agent, clone)
    if not found:
        raise UsageError(history.no_clone(g, clone, agent, clones.name(g.repo)))
    hits: dict[str, tuple[clones.Copy, ledger.Turn]] = {}
    for copy in found:
        commits = set(ledger.commits_of(g.repo, copy.ref, agent, turn_id, g.ledger_memo))
        for t, _rolled in history.turns(g, copy.ref, agent):
            if not commits:
                break
            if t.commit in commits:
                hits.setdefault(t.commit, (copy, t))
                commits.discard(t.commit)
    if not hits:
        ids = [t.id for t in ledger.turns(g.repo, found[0].ref, agent, limit=20, memo=g.ledger_memo)]
        raise UsageError(
            f"clone {clone} has no turn {turn_id!r} of {agent} here; its turns, as last fetched: "
            f"{', '.join(ids)} (agent-guard fetch REMOTE brings newer ones)"
        )
    if len(hits) > 1:
        listed = "; ".join(f"{c[:12]} in {copy.ref}" for c, (copy, _t) in hits.items())
        raise UsageError(
            f"turn {turn_id} of {agent}@{clone} is recorded at {len(hits)} commits here ({listed}): "
            "name the one to undo with --commit"
        )
    copy, t = next(iter(hits.values()))
    return _fetched_one(g, agent, prefix, copy, t)


def _fetched_one(g: Guard, agent: str, prefix: str, copy: clones.Copy, t: ledger.Turn) -> _Selected:
    undone = history.rolled_here(g, prefix, agent)
    clone = t.clone or copy.clone
    if t.commit in undone:
        raise UsageError(
            f"turn {t.id} of {agent}@{clone} ({t.commit[:12]}) is already rolled back here, by "
            f"rollback {undone[t.commit]}; {undo_command(agent, '--turn', undone[t.commit])} undoes that rollback"
        )
    return [t], (clone, t.id, t.commit)


def _rollback(g: Guard, run: _Run, select: Callable[[], _Selected]) -> tuple[Report, list[ledger.Turn]]:
    """Undo the turns `select` picks, under the repository lock, and record the rollback."""
    agent, pol, check = run.agent, run.policy, run.check
    ref = ledger.ref_for(g.repo, pol.ledger_prefix, agent)
    with worktree.locked(g.repo):
        stage.recover(g.repo)
        targets, origin = select()
        extra: dict[str, Any] = {
            "rolls_back": [t.id for t in targets] if origin is None else [],
            "rolls_back_from": None if origin is None else {"clone": origin[0], "id": origin[1], "commit": origin[2]},
        }
        guarded, put_back = protection(g, pol, targets, own=origin is None, reverting=run.reverting)
        if any(f.severity == "error" for f in guarded):
            return Report("refused", "rollback", (), tuple(guarded), extra=extra), targets
        warned = tuple(guarded)
        changes, findings, moved_back, never_here = undo_turns(g, pol, targets, run.force, run.forced, origin is not None)
        label = ",".join(t.id for t in targets) if origin is None else f"{origin[1]} of clone {origin[0]}"
        if findings:
            return Report("refused", "rollback", tuple(changes), warned + tuple(findings), extra=extra), targets
        notes: tuple[str, ...] = ()
        if never_here:
            # Another clone's change that never came here: nothing of it to undo, and its before-state
            # is that clone's, which --force must not write here either.
            notes += (
                f"left {', '.join(never_here)} as {'it is' if len(never_here) == 1 else 'they are'}: turn {label}'s "
                "change never reached this clone's copy (not in the work tree, the index or HEAD)",
            )
        # The folders the undone turns created go too, once nothing is left in them.
        created = [d for t in targets for d in t.created_dirs] if changes else []
        emptied = worktree.emptied_dirs(g.root, created, [c.path for c in changes if c.after is None])
        notes += (
            (
                f"{'would remove' if check else 'removed'} the {'folder' if len(emptied) == 1 else 'folders'} "
                f"{'turn' if len(targets) == 1 else 'turns'} {label} created, "
                f"empty once it is undone: {', '.join(d + '/' for d in emptied)}",
            )
            if emptied
            else ()
        )
        restored = [p for p in put_back if any(p in (c.path, c.old_path) for c in changes)]
        if restored:
            notes += (
                f"{'would put' if check else 'put'} back {', '.join(restored)} as before "
                f"{'turn' if len(targets) == 1 else 'turns'} {label}: protected, but undoing what an agent's turn "
                "changed there is no agent write",
            )
        if check or not changes:
            return Report(
                "checked" if check else "applied",
                "rollback",
                tuple(changes),
                warned,
                notes=notes + (() if changes else (f"{'turn' if len(targets) == 1 else 'turns'} {label}: nothing left to undo",)),
                extra=extra,
            ), targets
        locked = ref_locked(g.repo, ref)
        if locked is not None:
            return Report("refused", "rollback", tuple(changes), warned + (locked,), extra=extra), targets
        new = ledger.NewTurn(
            agent,
            None,
            "rollback",
            pol.name,
            0,
            kind="rollback",
            rolls_back=tuple(extra["rolls_back"]),
            rolls_back_from=origin,
            session=g.session(agent),
        )
        try:
            staged = stage.write_turn(
                g.repo, pol.ledger_prefix, new, changes, remove_dirs=created, memo=g.ledger_memo, like=moved_back
            )
        except worktree.UnsafePath as exc:
            return Report("refused", "rollback", tuple(changes), warned + (swapped_path(exc),), extra=extra), targets
        except RefLocked as exc:
            return Report(
                "refused", "rollback", tuple(changes), warned + (lock_finding(exc.name, exc.lock),), extra=extra
            ), targets
        turn_ref = TurnRef(agent, staged.turn, staged.commit, staged.ref)
    return Report("applied", "rollback", tuple(changes), warned, turn_ref, notes, extra=extra), targets


def _force_command(agent: str, asked: Asked) -> str:
    """The rollback asked for, with --force."""
    if asked.commit is not None:
        return undo_command(None, "--commit", asked.commit, "--force")
    where = ("--clone", asked.clone) if asked.clone is not None else ()
    which = ("--turn", asked.turn) if asked.turn is not None else ("--to", asked.to) if asked.to is not None else ()
    if asked.session is not None:
        which = ("--session", asked.session)
    return undo_command(agent, *where, *which, "--force")


def _session_targets(g: Guard, agent: str, prefix: str, session: str) -> _Selected:
    """The newest live turn (or rollback) of `session` in this work tree's ledger of the agent (a usage
    error when there is none).  The later turns of other sessions stay: where one changed the same
    lines, undoing the turn refuses as ``rollback-conflict``, as ``--turn`` does (``undo``)."""
    ref = ledger.ref_for(g.repo, prefix, agent)
    if ledger.latest(g.repo, ref, agent, g.ledger_memo) is None:
        raise UsageError(history.no_turns(g, agent, prefix, "rollback"))
    others: dict[str, None] = {}
    had = False
    for t, rolled in history.turns(g, ref, agent):
        said = t.trailers.get("session", "")
        if said != session:
            others.setdefault(said)
            continue
        if not rolled:
            return [t], None
        had = True
    if had:
        raise UsageError(f"every turn of {agent} in session {session} is already rolled back")
    listed = ", ".join(name for name in list(others)[:10] if name)
    raise UsageError(f"{agent} has no turn in session {session}; sessions with turns here, newest first: {listed}")


def _targets(g: Guard, agent: str, prefix: str, turn_id: str | None, to_id: str | None) -> list[ledger.Turn]:
    """The turns a rollback undoes, newest first (a usage error when there are none): the
    one `turn_id` names, every live one after `to_id`, or else the latest live one.

    Read from the tip down as far as the turns asked for, no further; an id that names
    no turn is found missing in the turn-id index, without reading the ledger.
    """
    ref = ledger.ref_for(g.repo, prefix, agent)
    memo = g.ledger_memo
    if ledger.latest(g.repo, ref, agent, memo) is None:
        raise UsageError(history.no_turns(g, agent, prefix, "rollback"))
    named = turn_id if turn_id is not None else to_id
    commits = set(ledger.commits_of(g.repo, ref, agent, named, memo)) if named is not None else set()
    if named is not None and not commits:
        ids = [t.id for t in ledger.turns(g.repo, ref, agent, limit=20, memo=memo)]
        raise UsageError(f"{agent} has no turn {named!r}; turns: {', '.join(ids)}")
    targets: list[ledger.Turn] = []
    if turn_id is not None:
        for t, rolled in history.turns(g, ref, agent):
            if t.commit in commits:
                if not rolled:
                    targets.append(t)
                commits.discard(t.commit)
                if not commits:
                    break
        if not targets:
            raise UsageError(f"turn {turn_id} of {agent} is already rolled back")
    elif to_id is not None:
        for t, rolled in history.turns(g, ref, agent):
            if t.id == to_id:
                break
            if not rolled:
                targets.append(t)
        if not targets:
            raise UsageError(f"nothing to roll back after turn {to_id} of {agent}")
    else:
        targets = next(([t] for t, rolled in history.turns(g, ref, agent) if not rolled), [])
        if not targets:
            raise UsageError(f"every turn of {agent} is already rolled back")
    return targets
