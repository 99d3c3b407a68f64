"""Reading the ledger: ``log`` and ``one_turn``, and the readers a rollback and gc share.

Each agent's turns are read from the tip down, each with whether it is rolled back
(``turns``); ``log`` lists this clone's turns and those fetched from other clones
(``clones``).  Undoing turns is in ``rollback``, pruning them in ``prune``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from ..bounds import TURNS
from ..errors import UsageError
from ..files import redaction
from ..model import Op
from ..pipeline.engine import Guard, default_agent
from ..policy import Policy
from ..record import clones, ledger
from ..repo import Entry, TreeChange
from ..text.wording import plural, printable
from ..tree import diffs


def agents(g: Guard, prefix: str, agent: str | None) -> list[str]:
    if agent:
        return [default_agent(agent)]
    # This work tree's (``ledger.own_refs``): a ref deeper under the prefix is another worktree's ledger,
    # or turns fetched there by hand.
    return sorted(name.rpartition("/")[2] for name in ledger.own_refs(g.repo, prefix))


def no_turns(g: Guard, agent: str, prefix: str, command: str) -> str:
    """Why `agent` has nothing for `command` ("log", "rollback") to show, and whose turns there are."""
    others = [
        (name, sum(1 for _t in ledger.turns(g.repo, ledger.ref_for(g.repo, prefix, name), name)))
        for name in agents(g, prefix, None)
        if name != agent
    ]
    others = [(name, n) for name, n in others if n]
    said = f"{agent} has no recorded turns ({ledger.ref_for(g.repo, prefix, agent)} does not exist)"
    elsewhere = [ref for ref, _name, _tree in _all_ledgers(g, prefix, agent) if ref != ledger.ref_for(g.repo, prefix, agent)]
    if elsewhere:
        said += (
            f"; its turns in other worktrees ({', '.join(elsewhere)}) are theirs to "
            f"{'undo there' if command != 'log' else 'list: git agent-log --all-worktrees'}"
        )
    me = clones.name(g.repo)
    fetched = sorted({c.clone for c in clones.copies(g.repo, agent) if c.clone != me})
    if fetched and command != "log":
        said += (
            f"; turns of {agent} fetched from other clones ({', '.join(fetched)}) are undone one at a time: "
            f"git agent-{command} --agent {agent} --clone {fetched[0]} --turn ID"
        )
    if not others:
        here = "this worktree" if g.repo.worktree_id is not None else "this repository"
        where = "this clone" if fetched and command != "log" else here
        return f"{said}; no agent has any in {where} yet: an applied edit records one"
    listed = ", ".join(f"{name} ({plural(n, 'turn')})" for name, n in others)
    name = others[0][0]
    if command == "log":
        how = (
            f"list them with git agent-log --agent {name}" if len(others) == 1 else "list every agent's turns with git agent-log"
        )
    elif len(others) == 1:
        how = f"undo {name}'s last turn with git agent-{command} --agent {name}"
    else:
        how = f"name the agent whose last turn to undo, e.g. git agent-{command} --agent {name}"
    return f"{said}; turns are recorded for {listed}: {how}"


class _Rolled:
    """Which turns are rolled back, decided newest first (`see` each turn in the ledger's order).

    Replayed oldest first, each rollback marks the turns it names rolled back, and
    the turns a rollback it names had undone live again; a turn's state is the last
    such mark on its id.  Every mark on a turn's id comes from a rollback newer than
    it, and so does every rollback whose undoing marks it, so a walk from the tip
    knows a turn's state when it reaches the turn, and may stop there.
    """

    def __init__(self) -> None:
        # id -> (rank of the rollback that marks it, 0 the newest; place in that rollback; rolled back)
        self._marks: dict[str, tuple[int, int, bool]] = {}
        # rollback id -> where the rollbacks that undo it name it: (rank, place)
        self._undoers: dict[str, list[tuple[int, int]]] = {}
        self._rank = 0

    def see(self, t: ledger.Turn) -> bool:
        """Is `t`, the next turn from the tip down, rolled back?"""
        mark = self._marks.get(t.id)
        rolled = mark[2] if mark is not None else False
        if t.kind == "rollback":
            rank, self._rank = self._rank, self._rank + 1
            for place, target in enumerate(t.rolls_back):
                self._mark(target, rank, 2 * place, True)
                self._undoers.setdefault(target, []).append((rank, 2 * place + 1))
            for undoer, place in self._undoers.get(t.id, ()):
                for inner in t.rolls_back:
                    self._mark(inner, undoer, place, False)
        return rolled

    def _mark(self, turn_id: str, rank: int, place: int, rolled: bool) -> None:
        # The newest rollback's mark stands; within one, the last one it makes.
        mark = self._marks.get(turn_id)
        if mark is None or rank < mark[0] or (rank == mark[0] and place > mark[1]):
            self._marks[turn_id] = (rank, place, rolled)


def turns(g: Guard, ref: str, agent: str) -> Iterator[tuple[ledger.Turn, bool]]:
    """The agent's turns newest first, each with whether it is rolled back, read as they are asked for."""
    rolled = _Rolled()
    for t in ledger.turns(g.repo, ref, agent, memo=g.ledger_memo):
        yield t, rolled.see(t)


def turn_changes(g: Guard, t: ledger.Turn) -> list[TreeChange]:
    parent_tree = g.repo.commit_tree(t.parent) if t.parent else None
    return g.repo.changed_files(parent_tree, g.repo.commit_tree(t.commit))


_RENAME_LINE = re.compile(r"^ R (.+) <- (.+) \+\d+ -\d+$")


def renamed(g: Guard, t: ledger.Turn, changed: list[TreeChange]) -> dict[str, str]:
    """The files turn `t` moved, old path -> new, as its message lists them (` R new <- old`).

    git's tree diff pairs only exact copies; a file moved and edited shows as a delete and
    an add.  A line of the message counts only when the tree holds that delete and that add.
    """
    added = {tc.path for tc in changed if tc.status == "A"}
    deleted = {tc.path for tc in changed if tc.status == "D"}
    out: dict[str, str] = {}
    for line in g.repo.commit_info(t.commit).message.splitlines():
        m = _RENAME_LINE.match(line)
        if m and m.group(1) in added and m.group(2) in deleted:
            out[m.group(2)] = m.group(1)
    return out


def blob(g: Guard, e: Entry | None) -> bytes | None:
    return None if e is None else g.repo.read_blob(e.oid)


def _turn_diff(g: Guard, t: ledger.Turn, viewer: Policy) -> str:
    """The turn's diff, with protected files' contents left out (``redaction``)."""
    out = []
    for tc in turn_changes(g, t):
        op = {"A": Op.CREATE, "D": Op.DELETE, "R": Op.RENAME}.get(tc.status, Op.MODIFY)
        out.append(
            diffs.make_change(
                tc.path,
                op,
                blob(g, tc.old),
                blob(g, tc.new),
                old_path=tc.old_path,
                old_mode=tc.old.mode if tc.old else None,
                new_mode=tc.new.mode if tc.new else None,
            )
        )
    return redaction.turn_diff(out, viewer, t.commit)


def rolled_here(g: Guard, prefix: str, agent: str) -> dict[str, str]:
    """The fetched turns (by commit) that a rollback of this clone's, not itself undone, undoes: -> its id."""
    here: dict[str, str] = {}
    for t, rolled in turns(g, ledger.ref_for(g.repo, prefix, agent), agent):
        origin = t.rolls_back_from
        if t.kind == "rollback" and not rolled and origin is not None:
            here.setdefault(origin[2], t.id)
    return here


class _Source(NamedTuple):
    """A ledger `log` reads: its ref and agent; the fetched copy it is (None: this clone's own); and
    the work tree whose turns it holds, its id and folder (None: a fetched copy, another clone's)."""

    ref: str
    agent: str
    copy: clones.Copy | None
    worktree: dict[str, str | None] | None


def _sources(g: Guard, prefix: str, agent: str | None, listing: Listing) -> list[_Source]:
    """The ledgers `log` reads for `listing`: this work tree's (or, `all_worktrees`, every one's), and
    the copies fetched from other clones."""
    clone, local = listing.clone, listing.local
    me = clones.name(g.repo)
    if clone is not None and clone != me and local:
        raise UsageError(f"--local lists this clone's turns ({me}), --clone {clone} another's: give one of them")
    out: list[_Source] = []
    if clone is None or clone == me:
        if listing.all_worktrees:
            out += [_Source(ref, name, None, tree) for ref, name, tree in _all_ledgers(g, prefix, agent)]
        else:
            here: dict[str, str | None] = {"id": g.repo.worktree_id, "path": str(g.root)}
            out += [_Source(ledger.ref_for(g.repo, prefix, name), name, None, here) for name in agents(g, prefix, agent)]
    if not local and clone != me:
        # This clone's own folder, fetched back, is what it pushed: its turns are listed above.
        found = [c for c in clones.copies(g.repo, default_agent(agent) if agent else None, clone) if c.clone != me]
        if clone is not None and not found:
            raise UsageError(no_clone(g, clone, agent, me))
        out += [_Source(c.ref, c.agent, c, None) for c in found]
    return out


def _all_ledgers(g: Guard, prefix: str, agent: str | None) -> list[tuple[str, str, dict[str, str | None]]]:
    """Every work tree's ledgers (of `agent`; None: of every agent), by name (``ledger.placed``): (ref,
    agent, the work tree's id and folder; the folder None when the worktree is gone)."""
    wanted = default_agent(agent) if agent else None
    parts: dict[str | None, tuple[str | None, Path | None]] = {}
    for wid, path in g.repo.worktrees().items():
        if wid is None:
            parts[None] = (None, path)
        elif (life := ledger.life(g.repo.commondir / "worktrees" / wid, make=False)) is not None:
            parts[f"{ledger.worktree_part(wid)}{ledger.LIFE}{life}"] = (wid, path)
    out = []
    for ref in sorted(g.repo.refs(prefix)):
        found = ledger.placed(prefix, ref)
        if found is None or (wanted is not None and found[1] != wanted):
            continue
        gone = None if found[0] is None else ledger.worktree_of(found[0])  # a worktree that is gone, or an earlier life
        wid, path = parts.get(found[0], (gone, None))
        out.append((ref, found[1], {"id": wid, "path": str(path) if path is not None else None}))
    return out


def no_clone(g: Guard, clone: str, agent: str | None, me: str) -> str:
    problem = clones.name_problem(clone)
    if problem is not None:
        return f"invalid clone name {clone!r}: {problem}"
    held = sorted({(c.clone, c.agent) for c in clones.copies(g.repo) if c.clone != me})
    whose = f"{default_agent(agent)}'s turns of clone {clone}" if agent else f"turns of clone {clone}"
    if not held:
        return (
            f"no {whose} are here: no other clone's turns are fetched yet (this clone is {me}); "
            "agent-guard fetch REMOTE brings every clone's turns that were pushed there"
        )
    listed = ", ".join(f"{a}@{c}" for c, a in held)
    return f"no {whose} are fetched here; fetched: {listed} (this clone is {me}); agent-guard fetch REMOTE brings more"


@dataclass(frozen=True, slots=True)
class Listing:
    """Which turns ``log`` lists: the newest `limit` (None: all); this clone's and those fetched
    from other clones, or `clone`'s alone, or (`local`) this clone's alone; with `turn`, only the
    turn of that id (of each agent that has one); with `session`, only that session's turns.
    This clone's are this work tree's, or (`all_worktrees`) those of every worktree of the
    repository (``ledger.ref_for``)."""

    limit: int | None = None
    clone: str | None = None
    local: bool = False
    turn: str | None = None
    session: str | None = None
    all_worktrees: bool = False


ALL_TURNS = Listing()  # every turn, this clone's and those fetched


def log(
    g: Guard, agent: str | None, listing: Listing = ALL_TURNS, patch: bool = False, viewer: str | None = None
) -> list[dict[str, Any]]:
    """The turns of `agent` (None: every agent) that `listing` names, newest first, as dictionaries
    (the `--json` shape).

    Each turn with the clone that recorded it (``clones``), its session, and the work tree whose
    ledger holds it (``worktree``: its id, None for the main worktree, and its folder; None for
    a fetched turn).  A fetched turn is rolled back when its own clone rolled it back, or a
    rollback here undid it (``rolled_back_here``).

    With `patch`, each turn's diff, as the policy of `viewer` (the agent who asks; default:
    `agent`, else $AGENT_GUARD_AGENT, else ``agent``) lets it be shown: a protected file's
    contents are left out unless that policy says ``read_protected: true``.
    """
    limit, turn, session = listing.limit, listing.turn, listing.session
    problem = TURNS.problem(limit) if limit is not None else None
    if problem is not None:
        raise UsageError(f"the number of turns to list {problem}")
    problem = ledger.turn_id_problem(turn) if turn is not None else None
    if problem is not None:
        raise UsageError(problem)
    prefix = g.policy(agent).ledger_prefix
    shown_to = g.policy(default_agent(viewer or agent)) if patch else None
    me = clones.name(g.repo)
    rows: list[tuple[float, dict[str, Any]]] = []
    seen: set[str] = set()  # a clone's turns fetched from two remotes are listed once
    here: dict[str, dict[str, str]] = {}
    for ref, name, copy, tree in _sources(g, prefix, agent, listing):
        undone = {} if copy is None else here.setdefault(name, rolled_here(g, prefix, name))
        # An agent's turns are recorded one after the other, so its newest `limit` are
        # the only ones of it that can be among the newest `limit` of all.
        history: Iterator[tuple[ledger.Turn, bool]] = turns(g, ref, name)
        if turn is not None:
            history = _one_turn(g, ref, name, turn, history)
        if session is not None:
            history = ((t, rolled) for t, rolled in history if t.trailers.get("session") == session)
        for t, rolled in islice(history, limit) if limit is not None else history:
            if t.commit in seen:
                continue
            seen.add(t.commit)
            origin = t.rolls_back_from
            e: dict[str, Any] = {
                "agent": name,
                "id": t.id,
                "kind": t.kind,
                "commit": t.commit,
                "clone": t.clone or (copy.clone if copy is not None else me),
                "ref": ref,
                "time": int(when(t)),
                "format": t.format,
                "files": [{"op": op, "path": p, "added": a, "removed": r} for op, p, a, r in t.files],
                "added": t.added,
                "removed": t.removed,
                "repairs": list(t.repairs),
                "policy": t.policy,
                "rolled_back": rolled or t.commit in undone,
                "rolled_back_here": (t.commit in undone) if copy is not None else rolled,
                "rolls_back": list(t.rolls_back),
                "rolls_back_from": None if origin is None else {"clone": origin[0], "id": origin[1], "commit": origin[2]},
                "session": t.trailers.get("session") or None,
                "worktree": tree,
            }
            if shown_to is not None:
                e["diff"] = _turn_diff(g, t, shown_to)
            rows.append((when(t), e))
    # Newest first; the sort is stable, so one agent's turns keep the ledger's order.
    rows.sort(key=lambda pair: pair[0], reverse=True)
    out = [e for _, e in rows]
    return out[:limit] if limit is not None else out


def _one_turn(
    g: Guard, ref: str, agent: str, turn: str, history: Iterator[tuple[ledger.Turn, bool]]
) -> Iterator[tuple[ledger.Turn, bool]]:
    """The turn of `agent` whose id is `turn`, from `history`: read from the tip down to it (its
    rolled-back state needs the rollbacks after it), and not at all when the turn-id index says
    the agent has none."""
    commits = set(ledger.commits_of(g.repo, ref, agent, turn, g.ledger_memo))
    if not commits:
        return
    for t, rolled in history:
        if t.commit in commits:
            yield t, rolled
            return


def one_turn(g: Guard, turn: str, agent: str | None, patch: bool = True) -> list[dict[str, Any]]:
    """`turn` (of `agent`, else of the one agent that has a turn of that id), as ``log`` gives it; a
    usage error naming the agents when none or several have it."""
    rows = log(g, agent, Listing(turn=turn), patch)
    if len(rows) == 1:
        return rows
    prefix = g.policy(agent).ledger_prefix
    if len(rows) > 1:
        owners = ", ".join(sorted(r["agent"] for r in rows))
        raise UsageError(f"turn {turn} is a turn of {owners}: name one, e.g. --agent {rows[0]['agent']}")
    if agent is not None:
        ids = [
            t.id
            for t in ledger.turns(
                g.repo, ledger.ref_for(g.repo, prefix, default_agent(agent)), default_agent(agent), limit=20, memo=g.ledger_memo
            )
        ]
        if not ids:
            raise UsageError(no_turns(g, default_agent(agent), prefix, "log"))
        raise UsageError(f"{default_agent(agent)} has no turn {turn!r}; its newest turns: {', '.join(ids)}")
    names = agents(g, prefix, None)
    if not names:
        raise UsageError("no recorded turns: no agent has any in this repository yet; an applied edit records one")
    raise UsageError(f"no agent has a turn {turn!r} (agents with turns: {', '.join(names)}); list them with git agent-log")


def when(t: ledger.Turn) -> float:
    try:
        return float(t.trailers.get("time", t.time))
    except ValueError:
        return float(t.time)


def render(rows: list[dict[str, Any]], patch: bool, colour: bool = False, worktrees: bool = False) -> str:
    """`log`'s rows for people: control characters in paths and added lines are escaped (``printable``);
    with `colour`, each turn's line in yellow and its diff as git colours one; with `worktrees`, each
    turn's line names its work tree."""
    from ..report.render import YELLOW, diff_text, paint

    if not rows:
        return "no recorded turns\n"
    out = []
    for e in rows:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e["time"]))
        fetched = e["ref"].startswith(clones.FETCHED)
        who = f"{e['agent']}@{e['clone']}" if fetched else e["agent"]
        flag = (
            ""
            if not e["rolled_back"]
            else "  (rolled back)"
            if not fetched
            else "  (rolled back here)"
            if e["rolled_back_here"]
            else f"  (rolled back in {e['clone']})"
        )
        origin = e["rolls_back_from"]
        what = (
            e["format"]
            if e["kind"] != "rollback"
            else f"rollback of {', '.join(e['rolls_back'])}"
            if origin is None
            else f"rollback of {e['agent']}@{origin['clone']} turn {origin['id']} ({origin['commit'][:12]})"
        )
        tree = e.get("worktree")
        if worktrees and tree is not None:
            name = "main worktree" if tree["id"] is None else f"worktree {tree['id']}"
            flag += f"  ({name} {tree['path']})" if tree["path"] is not None else f"  ({name}, removed)"
        out.append(
            paint(
                printable(f"{who} turn {e['id']}  {e['commit'][:12]}  {when}  {what}  +{e['added']} -{e['removed']}{flag}"),
                YELLOW,
                colour,
            )
        )
        for f in e["files"]:
            out.append(printable(f"    {f['op']} {f['path']} +{f['added']} -{f['removed']}"))
        if e["repairs"]:
            out.append(f"    repairs: {', '.join(e['repairs'])}")
        if patch and e.get("diff"):
            out.append(diff_text(e["diff"], colour))
    return "\n".join(out) + "\n"
