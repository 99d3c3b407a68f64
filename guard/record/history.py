"""Reading and undoing the ledger: ``log``, ``rollback`` and ``gc``.

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
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice
from typing import Any, Callable, Iterator

from .. import diffs, worktree
from ..bounds import AGE_SECONDS, KEEP, TURNS
from ..engine import Guard, default_agent, lock_finding, ref_locked, swapped_path
from ..errors import UsageError
from ..files import control, paths, redaction
from ..model import FileChange, Finding, Op, error
from ..policy import Policy
from ..repo import FILE, Entry, GitError, RefLocked, TreeChange
from ..repo.merge import merge_file
from ..report import Report, TurnRef
from ..text.textfile import NotText, decode
from ..text.wording import clip, plural, printable
from . import clones, ledger, stage


def _agents(g: Guard, prefix: str, agent: str | None) -> list[str]:
    if agent:
        return [default_agent(agent)]
    # A ref deeper under the prefix (turns fetched there by hand) is no agent's ledger.
    return sorted(n for n in (name[len(prefix) :] for name in g.repo.refs(prefix)) if ledger.agent_problem(n) is None)


def no_turns(g: Guard, agent: str, prefix: str, command: str) -> str:
    """Why `agent` has nothing for `command` ("log", "rollback") to show, and whose turns there are."""
    others = [
        (name, sum(1 for _t in ledger.turns(g.repo, ledger.ref_name(prefix, name), name)))
        for name in _agents(g, prefix, None)
        if name != agent
    ]
    others = [(name, n) for name, n in others if n]
    said = f"{agent} has no recorded turns ({ledger.ref_name(prefix, agent)} does not exist)"
    me = clones.name(g.repo)
    fetched = sorted({c.clone for c in clones.copies(g.repo, agent) if c.clone != me})
    if fetched and command != "log":
        said += (
            f"; turns of {agent} fetched from other clones ({', '.join(fetched)}) are undone one at a time: "
            f"git agent-{command} --agent {agent} --clone {fetched[0]} --turn ID"
        )
    if not others:
        where = "this clone" if fetched and command != "log" else "this repository"
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


def _history(g: Guard, ref: str, agent: str) -> Iterator[tuple[ledger.Turn, bool]]:
    """The agent's turns newest first, each with whether it is rolled back, read as they are asked for."""
    rolled = _Rolled()
    for t in ledger.turns(g.repo, ref, agent, memo=g.ledger_memo):
        yield t, rolled.see(t)


def _turn_changes(g: Guard, t: ledger.Turn) -> list[TreeChange]:
    parent_tree = g.repo.commit_tree(t.parent) if t.parent else None
    return g.repo.changed_files(parent_tree, g.repo.commit_tree(t.commit))


_RENAME_LINE = re.compile(r"^ R (.+) <- (.+) \+\d+ -\d+$")


def _renamed(g: Guard, t: ledger.Turn, changed: list[TreeChange]) -> dict[str, str]:
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


def _blob(g: Guard, e: Entry | None) -> bytes | None:
    return None if e is None else g.repo.read_blob(e.oid)


def _turn_diff(g: Guard, t: ledger.Turn, viewer: Policy) -> str:
    """The turn's diff, with protected files' contents left out (``redaction``)."""
    out = []
    for tc in _turn_changes(g, t):
        op = {"A": Op.CREATE, "D": Op.DELETE, "R": Op.RENAME}.get(tc.status, Op.MODIFY)
        out.append(
            diffs.make_change(
                tc.path,
                op,
                _blob(g, tc.old),
                _blob(g, tc.new),
                old_path=tc.old_path,
                old_mode=tc.old.mode if tc.old else None,
                new_mode=tc.new.mode if tc.new else None,
            )
        )
    return redaction.turn_diff(out, viewer, t.commit)


def _rolled_here(g: Guard, prefix: str, agent: str) -> dict[str, str]:
    """The fetched turns (by commit) that a rollback of this clone's, not itself undone, undoes: -> its id."""
    here: dict[str, str] = {}
    for t, rolled in _history(g, ledger.ref_name(prefix, agent), agent):
        origin = t.rolls_back_from
        if t.kind == "rollback" and not rolled and origin is not None:
            here.setdefault(origin[2], t.id)
    return here


def _sources(
    g: Guard, prefix: str, agent: str | None, clone: str | None, local: bool
) -> list[tuple[str, str, clones.Copy | None]]:
    """The ledgers `log` reads: (ref, agent, the fetched copy it is, or None for this clone's own)."""
    me = clones.name(g.repo)
    if clone is not None and clone != me and local:
        raise UsageError(f"--local lists this clone's turns ({me}), --clone {clone} another's: give one of them")
    out: list[tuple[str, str, clones.Copy | None]] = []
    if clone is None or clone == me:
        out += [(ledger.ref_name(prefix, name), name, None) for name in _agents(g, prefix, agent)]
    if not local and clone != me:
        # This clone's own folder, fetched back, is what it pushed: its turns are listed above.
        found = [c for c in clones.copies(g.repo, default_agent(agent) if agent else None, clone) if c.clone != me]
        if clone is not None and not found:
            raise UsageError(_no_clone(g, clone, agent, me))
        out += [(c.ref, c.agent, c) for c in found]
    return out


def _no_clone(g: Guard, clone: str, agent: str | None, me: str) -> str:
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


def log(
    g: Guard,
    agent: str | None,
    limit: int | None,
    patch: bool,
    viewer: str | None = None,
    *,
    clone: str | None = None,
    local: bool = False,
    turn: str | None = None,
) -> list[dict[str, Any]]:
    """The turns of `agent` (None: every agent), newest first, as dictionaries (the `--json` shape).

    This clone's turns and those fetched from other clones (``clones``), each with the clone
    that recorded it; `clone` lists that clone's alone, `local` this clone's alone.  A
    fetched turn is rolled back when its own clone rolled it back, or a rollback here
    undid it (``rolled_back_here``).

    With `patch`, each turn's diff, as the policy of `viewer` (the agent who asks; default:
    `agent`, else $AGENT_GUARD_AGENT, else ``agent``) lets it be shown: a protected file's
    contents are left out unless that policy says ``read_protected: true``.  With `turn`,
    only the turn of that id (of each agent that has one).
    """
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
    for ref, name, copy in _sources(g, prefix, agent, clone, local):
        undone = {} if copy is None else here.setdefault(name, _rolled_here(g, prefix, name))
        # An agent's turns are recorded one after the other, so its newest `limit` are
        # the only ones of it that can be among the newest `limit` of all.
        history: Iterator[tuple[ledger.Turn, bool]] = _history(g, ref, name)
        if turn is not None:
            history = _one_turn(g, ref, name, turn, history)
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
                "time": int(_when(t)),
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
            }
            if shown_to is not None:
                e["diff"] = _turn_diff(g, t, shown_to)
            rows.append((_when(t), e))
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
    rows = log(g, agent, None, patch, turn=turn)
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
                g.repo, ledger.ref_name(prefix, default_agent(agent)), default_agent(agent), limit=20, memo=g.ledger_memo
            )
        ]
        if not ids:
            raise UsageError(no_turns(g, default_agent(agent), prefix, "log"))
        raise UsageError(f"{default_agent(agent)} has no turn {turn!r}; its newest turns: {', '.join(ids)}")
    names = _agents(g, prefix, None)
    if not names:
        raise UsageError("no recorded turns: no agent has any in this repository yet; an applied edit records one")
    raise UsageError(f"no agent has a turn {turn!r} (agents with turns: {', '.join(names)}); list them with git agent-log")


def _when(t: ledger.Turn) -> float:
    try:
        return float(t.trailers.get("time", t.time))
    except ValueError:
        return float(t.time)


def render(rows: list[dict[str, Any]], patch: bool, colour: bool = False) -> str:
    """`log`'s rows for people: control characters in paths and added lines are escaped (``printable``);
    with `colour`, each turn's line in yellow and its diff as git colours one."""
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


# ---------------------------------------------------------------------- rollback


class _State:
    """The work tree as successive undos see it: path -> (bytes or None, mode)."""

    __slots__ = ("g", "files")

    def __init__(self, g: Guard, files: dict[str, tuple[bytes | None, int | None]]) -> None:
        self.g = g
        self.files = files

    def get(self, path: str) -> tuple[bytes | None, int | None]:
        if path not in self.files:
            self.files[path] = worktree.read(self.g.root, path)
        return self.files[path]


def _is_text(data: bytes) -> bool:
    try:
        decode(data)
    except NotText:
        return False
    return True


@dataclass(frozen=True, slots=True)
class _Unblock:
    """What a refused rollback can be told to do instead: the command with --force, the turn's
    commit (whose files are what the turn left), and the later turns that changed each file."""

    force: str  # the same rollback with --force
    commit: str  # the undone turn's commit
    later: Callable[[str], list[str]]  # a path -> the later turns (agent and id) that changed it, still in effect

    def ways(self, path: str, what: str, force_does: str) -> str:
        """The hint of a `rollback-conflict` on `path`: the files are judged as they are now, so
        committing the later change does not help; what does: putting `what` back as the turn
        left it, undoing the later turn that changed it, or --force (which `force_does`)."""
        them = "them" if what.startswith("lines") else "it"
        ways = [
            f"put {what} back as the turn left {them} (git show {self.commit[:12]}:{path} shows the file "
            "as the turn left it), then roll back again"
        ]
        ways += [f"undo the later turn that changed it first: {how}" for how in self.later(path)[:1]]
        ways.append(f"{self.force} (preview it with --check): it {force_does}")
        return (
            "a rollback undoes the turn in the files as they are now, so committing the later change does not "
            "unblock it; any of these does:\n" + "\n".join(f"- {w}" for w in ways)
        )


def _undo_content(
    path: str, current: bytes | None, after: bytes | None, before: bytes | None, force: bool, unblock: _Unblock | None = None
) -> tuple[bytes | None, Finding | None]:
    """What `path` becomes when a turn that made it `after` from `before` is undone.

    git's three-way merge of the current file with the file before the turn, the
    turn's result as their base: later changes merge in unless they touch or adjoin
    what the turn changed.  Those regions conflict; ``force`` takes the turn's old
    side there and keeps every other later change.  `unblock` says, in a refusal's hint,
    what would let the rollback through.
    """
    if current == after or current == before:
        return before, None
    if current is None or after is None or before is None:
        if force:
            return before, None
        what = "was deleted" if current is None else "was changed"
        if before is None:
            what += " (the turn created it: undoing the turn deletes it)"
        hint = (
            unblock.ways(path, "the file", "takes the file as it was before the turn")
            if unblock is not None
            else "undo the later change first, or pass --force to take the file as it was before the turn"
        )
        return current, error(
            "rollback-conflict", path, None, f"{path} {what} after the turn, so undoing the turn would lose that change", hint
        )
    if not (_is_text(current) and _is_text(after) and _is_text(before)):
        if force:
            return before, None
        hint = (
            unblock.ways(path, "the file", "takes the file as it was before the turn")
            if unblock is not None
            else "pass --force to take the file as it was before the turn"
        )
        return current, error("rollback-conflict", path, None, f"{path} is not text and changed after the turn", hint)
    merged = merge_file(after, current, before, favor="theirs" if force else "normal")
    if merged.clean or force:
        return merged.data, None
    c = merged.conflicts[0]
    first, count = c.ours_line, len(c.ours)
    where = f"line {first}" if count == 1 else f"lines {first}-{first + count - 1}" if count else f"the place before line {first}"
    lost = "\n".join(f"{first + i:>6}| {clip(_shown(x))}" for i, x in enumerate(c.ours[:8]))
    more = f"\n       ... and {count - 8} more" if count > 8 else ""
    others = (
        f" (and {len(merged.conflicts) - 1} more region{'s' if len(merged.conflicts) > 2 else ''})"
        if len(merged.conflicts) > 1
        else ""
    )
    keeps = "keeps every other later change and " + (
        f"replaces these lines with the turn's old side, so they are lost:\n{lost}{more}"
        if count
        else "puts the turn's old lines back there"
    )
    hint = (
        unblock.ways(path, where, keeps) if unblock is not None else "undo that later change first, or pass --force: it " + keeps
    )
    return current, error(
        "rollback-conflict",
        path,
        first,
        f"{where} of {path} changed after the turn, next to or over what the turn changed{others}",
        hint,
    )


def _shown(line: bytes) -> str:
    return line.decode("utf-8", "replace").rstrip("\r\n")


def rollback(
    g: Guard,
    agent: str | None,
    turn_id: str | None,
    to_id: str | None,
    *,
    check: bool = False,
    force: bool = False,
    clone: str | None = None,
    commit: str | None = None,
    policy: Policy | None = None,
    reverting: bool = False,
) -> Report:
    """Undo the agent's last turn, one turn (`turn_id`) or every turn after `to_id` (see the module doc).

    `clone` with `turn_id`: that turn of another clone, fetched here (``clones``); `commit`:
    the turn recorded at that commit, this clone's or fetched (one commit, where a turn id may
    name several).  Another clone's turn is undone as any turn is (its commit's parent -> it,
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
        elif turn_id is None:
            raise UsageError(
                f"name the turn of clone {clone} to undo: --clone {clone} --turn ID (git agent-log --clone {clone} lists them)"
            )
    prefix = pol.ledger_prefix
    if sha is not None:
        select: Callable[[], _Selected] = partial(_commit_targets, g, agent, prefix, sha)
    elif clone is not None and turn_id is not None:
        select = partial(_fetched_targets, g, agent, prefix, clone, turn_id)
    else:

        def select() -> _Selected:
            return _targets(g, agent, prefix, turn_id, to_id), None

    asked = _force_command(agent, turn_id, to_id, clone, commit)
    rep, targets = _rollback(g, agent, pol, select, check, force, asked, reverting)
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
    for t, rolled in _history(g, ledger.ref_name(prefix, agent), agent):
        if t.commit == sha:
            if rolled:
                raise UsageError(f"turn {t.id} of {agent} ({sha[:12]}) is already rolled back")
            return [t], None
    me = clones.name(g.repo)
    for copy in clones.copies(g.repo, agent):
        if copy.clone == me:
            continue  # what this clone pushed: an older version of its own ledger
        for t, _rolled in _history(g, copy.ref, agent):
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
        raise UsageError(_no_clone(g, clone, agent, clones.name(g.repo)))
    hits: dict[str, tuple[clones.Copy, ledger.Turn]] = {}
    for copy in found:
        commits = set(ledger.commits_of(g.repo, copy.ref, agent, turn_id, g.ledger_memo))
        for t, _rolled in _history(g, copy.ref, agent):
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
    undone = _rolled_here(g, prefix, agent)
    clone = t.clone or copy.clone
    if t.commit in undone:
        raise UsageError(
            f"turn {t.id} of {agent}@{clone} ({t.commit[:12]}) is already rolled back here, by "
            f"rollback {undone[t.commit]}; git agent-rollback --agent {agent} --turn "
            f"{undone[t.commit]} undoes that rollback"
        )
    return [t], (clone, t.id, t.commit)


def protection(
    g: Guard, pol: Policy, targets: list[ledger.Turn], *, own: bool = True, reverting: bool = False
) -> tuple[list[Finding], list[str]]:
    """`path-protected` for each path the undone turns (`targets`, newest first; `own`: this clone's)
    touched that the policy keeps agents off: git's own folders (wherever they are now), control
    files, the policy's files, protected globs, the allow-list; at the level an edit of the path
    would get (errors refuse the rollback, warnings go with it).  And the protected paths the
    rollback puts back all the same.

    Git's own folders are never written.  Any other path is put back, whatever the policy says
    (undoing a turn puts back what was there before it, and putting back the user's own version
    of a file an agent wrote is no agent write), when
    - every undone turn that touched it is this clone's own turn, not a rollback (undoing a
      rollback writes an agent's change again; another clone's turn found its files in another
      tree, so what they held before it is not this tree's);
    - and, unless `reverting` (agent-guard's own revert, at once, of a turn its policy refused,
      which puts back what the command found), the file still holds what the newest of those
      turns left (putting the old version back would overwrite nothing of anyone's since) and
      what it held before the oldest is the user's own version: no agent's turn wrote it.
    """
    out: list[Finding] = []
    put_back: list[str] = []
    folders = g.repo.git_folders()
    touching: dict[str, list[ledger.Turn]] = {}
    for t in targets:
        for tc in _turn_changes(g, t):
            for p in (tc.path, tc.old_path):
                if p and t not in touching.setdefault(p, []):
                    touching[p].append(t)
    for p, turns in touching.items():
        git_folder = paths.git_folder_finding(p, folders)
        if git_folder is not None:
            out.append(replace(git_folder, hint=f"a rollback never writes git's own files; {git_folder.hint}"))
            continue
        controls = control.path_finding(p, g.control_paths(), pol)
        f = controls or paths.protected_finding(p, pol)
        if f is None:
            continue
        why = _not_put_back(g, pol, p, turns, targets, own, reverting)
        if why is None:
            put_back.append(p)
        elif f is controls:
            out.append(replace(f, hint=f"{why}, so the rollback changes it as an edit does; {f.hint}"))
        elif f.severity == "error":
            out.append(
                replace(
                    f,
                    hint=f"{why}, so the rollback changes it as an edit does, and the policy keeps agents off {p}; the "
                    f"user can undo turn {turns[0].id} there by hand (git show {turns[0].commit[:12]} -- {p} shows "
                    "what it did), or roll back under a policy that allows it",
                )
            )
        else:
            out.append(
                replace(
                    f, hint=f"{why}, so the rollback changes it as an edit does; this policy only warns about {p}, as for an edit"
                )
            )
    return out, put_back


def _not_put_back(
    g: Guard, pol: Policy, path: str, turns: list[ledger.Turn], targets: list[ledger.Turn], own: bool, reverting: bool
) -> str | None:
    """Why undoing `turns` (newest first, the undone turns that touched `path`) does not merely put
    back the user's own version of `path` (see ``protection``), or None when it does."""
    t = turns[0]
    if not own:
        return f"turn {t.id} is another clone's: what {path} held before it there is not this tree's"
    rollbacks = [u.id for u in turns if u.kind != "turn"]
    if rollbacks:
        return f"undoing rollback {rollbacks[0]} writes the agent's change to {path} again"
    if reverting:
        return None
    try:
        now, mode = worktree.read(g.root, path)
    except (worktree.UnsafePath, OSError) as exc:
        return f"{path} cannot be read now ({exc})"
    left = g.repo.tree_entry(g.repo.commit_tree(t.commit), path)
    if (None if now is None else Entry(g.repo.hash_blob(now), mode or FILE)) != left:
        return f"{path} changed after turn {t.id}: putting its old version back would overwrite that"
    for newer, older in zip(turns, turns[1:]):
        if _before(g, newer, path) != g.repo.tree_entry(g.repo.commit_tree(older.commit), path):
            return f"{path} changed between turns {older.id} and {newer.id}: putting its old version back would overwrite that"
    writer = _written_by(g, pol.ledger_prefix, path, _before(g, turns[-1], path), targets)
    if writer is not None:
        return f"what {path} held before turn {turns[-1].id} is what {writer} wrote, not the user's own version"
    return None


def _before(g: Guard, t: ledger.Turn, path: str) -> Entry | None:
    return g.repo.tree_entry(g.repo.commit_tree(t.parent), path) if t.parent else None


def _written_by(g: Guard, prefix: str, path: str, entry: Entry | None, targets: list[ledger.Turn]) -> str | None:
    """The agent turn (not one of `targets`) that left `path` as `entry` (None: absent), as "NAME's
    turn ID", or None when no agent's turn did: then it is the user's own version."""
    undone = {t.commit for t in targets}
    for name in _agents(g, prefix, None):
        for t, _rolled in _history(g, ledger.ref_name(prefix, name), name):
            if t.kind != "turn" or t.commit in undone or not any(f[1] == path for f in t.files):
                continue
            if g.repo.tree_entry(g.repo.commit_tree(t.commit), path) == entry:
                return f"{name}'s turn {t.id}"
    return None


def _rollback(
    g: Guard,
    agent: str,
    pol: Policy,
    select: Callable[[], _Selected],
    check: bool,
    force: bool,
    forced: str,
    reverting: bool = False,
) -> tuple[Report, list[ledger.Turn]]:
    """`forced`: the command that asks for this rollback with --force (for a refusal's hint);
    `reverting`: see ``protection``."""
    ref = ledger.ref_name(pol.ledger_prefix, agent)
    with worktree.locked(g.repo):
        stage.recover(g.repo)
        targets, origin = select()
        extra: dict[str, Any] = {
            "rolls_back": [t.id for t in targets] if origin is None else [],
            "rolls_back_from": None if origin is None else {"clone": origin[0], "id": origin[1], "commit": origin[2]},
        }
        guarded, put_back = protection(g, pol, targets, own=origin is None, reverting=reverting)
        if any(f.severity == "error" for f in guarded):
            return Report("refused", "rollback", (), tuple(guarded), extra=extra), targets
        warned = tuple(guarded)
        changes, findings, moved_back = _undo(g, pol, targets, force, forced)
        label = ",".join(t.id for t in targets) if origin is None else f"{origin[1]} of clone {origin[0]}"
        if findings:
            return Report("refused", "rollback", tuple(changes), warned + tuple(findings), extra=extra), targets
        # The folders the undone turns created go too, once nothing is left in them.
        created = [d for t in targets for d in t.created_dirs] if changes else []
        emptied = worktree.emptied_dirs(g.root, created, [c.path for c in changes if c.after is None])
        notes: tuple[str, ...] = (
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


def _undo(
    g: Guard, pol: Policy, targets: list[ledger.Turn], force: bool, forced: str
) -> tuple[list[FileChange], list[Finding], dict[str, str]]:
    """The changes that undo `targets` (newest first) one after the other, the conflicts that
    refuse them, and where each renamed file's old path is now (its bits go back with it)."""
    state = _State(g, {})
    originals: dict[str, tuple[bytes | None, int | None]] = {}
    moved_back: dict[str, str] = {}  # a renamed file's old path -> where it is now
    findings: list[Finding] = []
    for t in targets:  # newest first
        unblock = _Unblock(forced, t.commit, lambda path, t=t: _later_turns(g, pol.ledger_prefix, t, path))  # type: ignore[misc]
        changed = _turn_changes(g, t)
        for was, now in _renamed(g, t, changed).items():
            moved_back[was] = moved_back.get(now, now)
        for tc in changed:
            touched = [tc.path] + ([tc.old_path] if tc.old_path else [])
            for p in touched:
                if p not in originals:
                    originals[p] = state.get(p)
            f = _undo_change(g, state, tc, force, unblock, moved_back)
            if f is not None:
                findings.append(f)
    return _changes(originals, state.files), findings, moved_back


def _undo_change(
    g: Guard, state: _State, tc: TreeChange, force: bool, unblock: _Unblock, moved_back: dict[str, str]
) -> Finding | None:
    """Undo one file change of a turn in `state` (a move: moved back), or the conflict that refuses it."""
    after, before = _blob(g, tc.new), _blob(g, tc.old)
    cur, cur_mode = state.get(tc.path)
    restored, f = _undo_content(tc.path, cur, after, before, force, unblock)
    if tc.status == "R" and tc.old_path:
        if f is None and state.get(tc.old_path)[0] is not None and not force:
            f = error(
                "rollback-conflict",
                tc.old_path,
                None,
                f"cannot move {tc.path} back to {tc.old_path}: {tc.old_path} exists again",
                "remove or rename it first, or pass --force",
            )
        if f is not None:
            return f
        state.files[tc.path] = (None, None)
        state.files[tc.old_path] = (restored, tc.old.mode if tc.old else FILE)
        moved_back[tc.old_path] = moved_back.get(tc.path, tc.path)
        return None
    if f is not None:
        return f
    mode = cur_mode
    if tc.old is not None and (cur_mode is None or tc.new is None or cur_mode == tc.new.mode):
        mode = tc.old.mode
    state.files[tc.path] = (restored, mode if restored is not None else None)
    return None


def _force_command(
    agent: str, turn_id: str | None, to_id: str | None, clone: str | None = None, commit: str | None = None
) -> str:
    """The rollback asked for, with --force (agent names that need quoting are not valid names)."""
    if commit is not None:
        return f"git agent-rollback --commit {commit} --force"
    who = "" if agent == default_agent(None) else f" --agent {agent}"
    where = f" --clone {clone}" if clone is not None else ""
    which = f" --turn {turn_id}" if turn_id is not None else f" --to {to_id}" if to_id is not None else ""
    return f"git agent-rollback{who}{where}{which} --force"


def _later_turns(g: Guard, prefix: str, t: ledger.Turn, path: str) -> list[str]:
    """The turns recorded after `t` (any agent's) that changed `path` and are still in effect, newest
    first, each as the command that undoes it."""
    out: list[tuple[float, str]] = []
    since = _when(t)
    for name in _agents(g, prefix, None):
        for later, rolled in _history(g, ledger.ref_name(prefix, name), name):
            if later.commit == t.commit or _when(later) < since:
                break
            if not rolled and later.kind == "turn" and any(path in (f[1], f[1].partition(" <- ")[2]) for f in later.files):
                who = "" if name == default_agent(None) else f" --agent {name}"
                out.append((_when(later), f"git agent-rollback{who} --turn {later.id}"))
    return [how for _, how in sorted(out, reverse=True)]


def _targets(g: Guard, agent: str, prefix: str, turn_id: str | None, to_id: str | None) -> list[ledger.Turn]:
    """The turns a rollback undoes, newest first (a usage error when there are none): the
    one `turn_id` names, every live one after `to_id`, or else the latest live one.

    Read from the tip down as far as the turns asked for, no further; an id that names
    no turn is found missing in the turn-id index, without reading the ledger.
    """
    ref = ledger.ref_name(prefix, agent)
    memo = g.ledger_memo
    if ledger.latest(g.repo, ref, agent, memo) is None:
        raise UsageError(no_turns(g, agent, prefix, "rollback"))
    named = turn_id if turn_id is not None else to_id
    commits = set(ledger.commits_of(g.repo, ref, agent, named, memo)) if named is not None else set()
    if named is not None and not commits:
        ids = [t.id for t in ledger.turns(g.repo, ref, agent, limit=20, memo=memo)]
        raise UsageError(f"{agent} has no turn {named!r}; turns: {', '.join(ids)}")
    targets: list[ledger.Turn] = []
    if turn_id is not None:
        for t, rolled in _history(g, ref, agent):
            if t.commit in commits:
                if not rolled:
                    targets.append(t)
                commits.discard(t.commit)
                if not commits:
                    break
        if not targets:
            raise UsageError(f"turn {turn_id} of {agent} is already rolled back")
    elif to_id is not None:
        for t, rolled in _history(g, ref, agent):
            if t.id == to_id:
                break
            if not rolled:
                targets.append(t)
        if not targets:
            raise UsageError(f"nothing to roll back after turn {to_id} of {agent}")
    else:
        targets = next(([t] for t, rolled in _history(g, ref, agent) if not rolled), [])
        if not targets:
            raise UsageError(f"every turn of {agent} is already rolled back")
    return targets


def _changes(
    originals: dict[str, tuple[bytes | None, int | None]], final: dict[str, tuple[bytes | None, int | None]]
) -> list[FileChange]:
    out = []
    for path, (before, bmode) in sorted(originals.items()):
        after, amode = final.get(path, (before, bmode))
        if before == after and (after is None or bmode == amode):
            continue
        op = Op.CREATE if before is None else Op.DELETE if after is None else Op.MODIFY
        out.append(
            diffs.make_change(path, op, before, after, old_mode=bmode, new_mode=amode or (FILE if after is not None else None))
        )
    return out


# ---------------------------------------------------------------------- gc

_AGE = re.compile(r"^([0-9]+)([smhdw])$")


def _age_seconds(text: str) -> int:
    m = _AGE.match(text.strip())
    if not m:
        raise UsageError(
            f"--older-than takes a whole number and a unit (s, m, h, d, w), from 1s to 100 years "
            f"(36,600d), e.g. 30d; got {text[:40]!r}"
        )
    # Counted only when it can be in range: int() of a 5,000-digit count is refused by Python itself.
    seconds = (
        int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
        if len(m.group(1)) <= 12
        else int(AGE_SECONDS.high) + 1
    )
    if AGE_SECONDS.problem(seconds) is not None:
        raise UsageError(
            f"--older-than {text.strip()[:24]!r}: an age is from 1s to 100 years (36,600d, 5,228w); "
            "to drop every turn, give --keep 0"
        )
    return seconds


def gc(
    g: Guard, agent: str | None, keep: int | None, older_than: str | None, *, include_pushed: bool = False, dry_run: bool = False
) -> str:
    """Prune each agent's oldest turns (beyond `keep`, older than `older_than`); say what went, per agent.

    The kept turns are written again on a root of their own (``ledger.base_message``).  A
    turn that a fetched copy of a ledger holds was pushed (``clones``): this clone's own,
    as it pushed it, or another's that has it.  Those stay, and with them every older one,
    unless `include_pushed` (the next push then replaces the remote's copy with the pruned
    ledger).  `dry_run`: say what would go, change nothing.
    """
    problem = KEEP.problem(keep) if keep is not None else None
    if problem is not None:
        raise UsageError(f"--keep {problem}")
    prefix = g.policy(agent).ledger_prefix
    cutoff = time.time() - _age_seconds(older_than) if older_than else None
    would = "would remove" if dry_run else "removed"
    lines = []
    with worktree.locked(g.repo):
        for name in _agents(g, prefix, agent):
            ref = ledger.ref_name(prefix, name)
            tip = g.repo.ref(ref)
            if tip is None:
                continue
            chain = []  # commits of the ledger, newest first, with their turn (None for sync)
            kept_turns = 0
            cut_at = None
            for info in g.repo.walk(tip):
                t = ledger.parse_turn(g.repo, info.oid, name, g.ledger_memo)
                if t is None or t.kind == "base":
                    break
                if t.kind != "sync":
                    too_many = keep is not None and kept_turns >= keep
                    too_old = cutoff is not None and t.time < cutoff
                    if too_many or too_old:
                        cut_at = info.oid
                        break
                    kept_turns += 1
                chain.append(info)
            if cut_at is None:
                lines.append(f"{name}: nothing to prune ({plural(kept_turns, 'turn')})")
                continue
            dropped = [t.commit for t in ledger.turns(g.repo, ref, name, memo=g.ledger_memo)][kept_turns:]
            refs, pushed = _pushed(g, name, dropped) if not include_pushed else ([], set())
            if pushed:
                them = "it" if len(dropped) == 1 else "them"
                what = (
                    f"the {plural(len(dropped), 'turn')} to prune {'was' if len(dropped) == 1 else 'were'} pushed"
                    if len(pushed) == len(dropped)
                    else f"{len(pushed):,} of the {plural(len(dropped), 'turn')} to prune were pushed"
                )
                lines.append(
                    f"{name}: removed nothing, kept {plural(kept_turns + len(dropped), 'turn')}: {what} "
                    f"({', '.join(refs)} {'holds' if len(refs) == 1 else 'hold'} {them}); agent-guard gc "
                    f"--include-pushed removes {them} too, and the next agent-guard push replaces the "
                    "remote's copy"
                )
                continue
            if dry_run:
                pass
            elif not chain:
                g.repo.update_ref(ref, None, tip, "agent-guard: gc")
            else:
                oldest = chain[-1]
                base_tree = g.repo.commit_tree(oldest.parents[0]) if oldest.parents else g.repo.commit_tree(oldest.oid)
                parent = g.repo.write_commit(base_tree, [], ledger.base_message(name))
                for info in reversed(chain):
                    parent = g.repo.write_commit(info.tree, [parent], info.message)
                g.repo.update_ref(ref, parent, tip, "agent-guard: gc")
            gone = f"every turn ({len(dropped):,})" if not kept_turns else plural(len(dropped), "turn")
            lines.append(f"{name}: {would} {gone}" + (f", kept {plural(kept_turns, 'turn')}" if kept_turns else ""))
    return "\n".join(lines)


def _pushed(g: Guard, agent: str, commits: list[str]) -> tuple[list[str], set[str]]:
    """Which of `commits` (the agent's turns) fetched copies hold: (those copies' refs, the commits)."""
    wanted, held, refs = set(commits), set(), []
    for copy in clones.copies(g.repo, agent):
        has = {t.commit for t in ledger.turns(g.repo, copy.ref, agent, memo=g.ledger_memo)} & wanted
        if has:
            refs.append(copy.ref)
            held |= has
    return refs, held
