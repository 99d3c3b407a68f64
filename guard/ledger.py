"""The shadow ledger: every applied turn as a commit on ``<prefix><agent>``.

Shape of an agent's ref::

    HEAD-at-first-turn ── [sync] ── turn 1 ── [sync] ── turn 2 ── rollback 3 ...

A *sync* commit is made only when the files a turn touches no longer match the
ledger (the user edited or committed them since): it records the work tree's
state of just those files, so ``git diff <turn>^ <turn>`` is exactly the turn's
change and never the user's.  Only the touched paths are looked at, so the cost
follows the edit.  Commit messages carry machine-readable trailers
(``Agent-Guard-*``) that ``log``, budgets and rollbacks read back.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Sequence

from .model import FileChange, Op
from .repo import Entry, GitRepo

DEFAULT_PREFIX = "refs/agent-guard/"
_TRAILER = re.compile(r"^Agent-Guard-([A-Za-z-]+): ?(.*)$", re.M)
USAGE_KEYS = ("files", "lines_added", "lines_removed", "hunks", "bytes")
MAX_TURN_ID = 64
# A turn id is written into the commit message as a trailer: anything but these could
# forge trailer lines (a newline), or be mistaken for a list (a comma in Rolls-Back).
_TURN_ID = re.compile(rf"[A-Za-z0-9._-]{{1,{MAX_TURN_ID}}}")


def ref_name(prefix: str, agent: str) -> str:
    return (prefix if prefix.endswith("/") else prefix + "/") + agent


AGENT_RULE = ("an agent name is part of a git ref name (refs/agent-guard/NAME): a letter or digit, then letters, "
              "digits, '.', '_' or '-', at most 64 characters, without '..' and not ending in '.' or '.lock'")


def agent_problem(agent: str) -> str | None:
    """What is wrong with `agent` as an agent name (git's ref-name rules, narrowed), or None."""
    if not agent:
        return "it is empty"
    bad = sorted({ch for ch in agent if not (ch.isascii() and (ch.isalnum() or ch in "._-"))})
    if bad:
        return f"it holds {', '.join(repr(ch) for ch in bad)}"
    if not agent[0].isalnum():
        return f"it starts with {agent[0]!r}"
    if len(agent) > 64:
        return f"it is {len(agent)} characters long"
    if ".." in agent:
        return "it holds '..'"
    if agent.endswith(".lock"):
        return "it ends in '.lock', which git keeps for its lock files"
    if agent.endswith("."):
        return "it ends in '.'"
    return None


def valid_agent(agent: str) -> bool:
    return agent_problem(agent) is None


def turn_id_problem(turn_id: str) -> str | None:
    """What is wrong with `turn_id` as a turn id (None: nothing)."""
    if _TURN_ID.fullmatch(turn_id):
        return None
    shown = turn_id if len(turn_id) <= 80 else turn_id[:80] + "..."
    if len(turn_id) > MAX_TURN_ID and _TURN_ID.fullmatch(turn_id[:MAX_TURN_ID]):
        what = f"is {len(turn_id):,} characters long; the limit is {MAX_TURN_ID}"
    else:
        bad = next((c for c in turn_id if not _TURN_ID.fullmatch(c)), "")
        what = "is empty" if not turn_id else f"holds {bad!r}"
    return (f"invalid turn id {shown!r}: it {what}; a turn id is 1 to {MAX_TURN_ID} letters, digits, "
            "'.', '_' and '-' (e.g. 7, fix-login, p1a2b3c4)")


def check_turn_id(repo: GitRepo, ref: str, agent: str, turn_id: str) -> str | None:
    """What keeps `turn_id` from naming the agent's next (or current) turn, or None.

    An id names one turn: the agent's latest turn may go on under it (several applies,
    one turn), but an id that an earlier turn (or a rollback) already has would make two
    turns answer to it, and `rollback --turn ID` undo both.
    """
    problem = turn_id_problem(turn_id)
    if problem is not None:
        return problem
    tip = next(turns(repo, ref, agent, limit=1), None)
    if tip is None or (tip.kind == "turn" and tip.id == turn_id):
        return None
    number = _number(turn_id)
    if number is not None and number > _highest(tip):
        return None  # above every number handed out: no turn has it (and no walk is needed)
    for t in turns(repo, ref, agent):
        if t.id == turn_id:
            what = "rollback" if t.kind == "rollback" else "turn"
            return (f"turn id {turn_id!r} is taken: an earlier {what} of {agent} (commit {t.commit[:12]}) has it, and "
                    "--turn continues only the agent's latest turn; give a new id, or none for the next number")
    return None


@dataclass(frozen=True)
class Turn:
    commit: str
    parent: str | None
    agent: str
    id: str
    kind: str  # "turn" | "rollback" | "sync"
    time: int
    format: str
    files: tuple[tuple[str, str, int, int], ...]  # (op letter, path, added, removed)
    repairs: tuple[str, ...]
    policy: str
    rolls_back: tuple[str, ...]
    trailers: Mapping[str, str] = field(default_factory=dict)

    @property
    def added(self) -> int:
        return sum(f[2] for f in self.files)

    @property
    def created_dirs(self) -> tuple[str, ...]:
        """Folders the turn's write created (they did not exist before it), repository-relative."""
        try:
            dirs = json.loads(self.trailers.get("created-dirs", "[]"))
        except ValueError:
            return ()
        return tuple(d for d in dirs if isinstance(d, str)) if isinstance(dirs, list) else ()

    @property
    def removed(self) -> int:
        return sum(f[3] for f in self.files)


def _trailers(message: str) -> dict[str, str]:
    return {m.group(1).lower(): m.group(2).strip() for m in _TRAILER.finditer(message)}


# Commits never change: a turn parsed once is kept, by commit id (a session reads
# the tip's trailers for its usage, its next id and its sequence number).
_PARSED: dict[tuple[str, str], Turn | None] = {}
_PARSED_KEPT = 256


def parse_turn(repo: GitRepo, commit: str, agent: str) -> Turn | None:
    key = (commit, agent)
    if key in _PARSED:
        return _PARSED[key]
    t = _parse_turn(repo, commit, agent)
    if len(_PARSED) >= _PARSED_KEPT:
        del _PARSED[next(iter(_PARSED))]
    _PARSED[key] = t
    return t


def _parse_turn(repo: GitRepo, commit: str, agent: str) -> Turn | None:
    info = repo.commit_info(commit)
    tr = _trailers(info.message)
    if "kind" not in tr:
        return None
    files = []
    for line in info.message.splitlines():
        m = re.match(r"^ ([AMDR]) (.+) \+(\d+) -(\d+)", line)
        if m:
            files.append((m.group(1), m.group(2).split(" (")[0].split(" <- ")[0], int(m.group(3)), int(m.group(4))))
    return Turn(
        commit=info.oid,
        parent=info.parents[0] if info.parents else None,
        agent=tr.get("agent", agent),
        id=tr.get("turn", ""),
        kind=tr["kind"],
        time=info.time,
        format=tr.get("format", ""),
        files=tuple(files),
        repairs=tuple(r for r in tr.get("repairs", "").split(",") if r),
        policy=tr.get("policy", ""),
        rolls_back=tuple(r for r in tr.get("rolls-back", "").split(",") if r),
        trailers=tr,
    )


def turns(repo: GitRepo, ref: str, agent: str, limit: int | None = None) -> Iterator[Turn]:
    """The agent's turns and rollbacks, newest first (sync commits skipped)."""
    tip = repo.ref(ref)
    if tip is None:
        return
    count = 0
    for info in repo.walk(tip):
        t = parse_turn(repo, info.oid, agent)
        if t is None or t.kind == "base":
            break  # reached the user's history the ledger forked from (or a gc cut)
        if t.kind == "sync":
            continue
        yield t
        count += 1
        if limit is not None and count >= limit:
            return


@dataclass(frozen=True)
class Pending:
    """A turn committed to the object database whose ref is not moved yet."""

    ref: str
    old: str | None
    new: str
    turn: str
    usage_turn: Mapping[str, int]


def _letter(op: Op) -> str:
    return {Op.CREATE: "A", Op.DELETE: "D", Op.RENAME: "R", Op.MODIFY: "M"}[op]


def session_id() -> str:
    return os.environ.get("AGENT_GUARD_SESSION", "default")


def usage(repo: GitRepo, ref: str, agent: str, turn_id: str | None) -> tuple[dict[str, int], dict[str, int]]:
    """What the agent used in the current turn (when `turn_id` continues the tip's turn) and session."""
    tip = repo.ref(ref)
    zero = {k: 0 for k in USAGE_KEYS}
    if tip is None:
        return dict(zero), dict(zero)
    t = parse_turn(repo, tip, agent)
    if t is None or t.kind == "sync":
        return dict(zero), dict(zero)
    tr = t.trailers
    turn = dict(zero)
    if turn_id is not None and t.id == turn_id and t.kind == "turn":
        turn = {k: int(tr.get("turn-" + k.replace("_", "-"), "0") or 0) for k in USAGE_KEYS}
    session = dict(zero)
    if tr.get("session") == session_id():
        session = {k: int(tr.get("session-" + k.replace("_", "-"), "0") or 0) for k in USAGE_KEYS}
    return turn, session


def _number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


def _highest(t: Turn | None) -> int:
    """The highest number handed out as a turn id up to `t` (its `Seq` trailer)."""
    return (_number(t.trailers.get("seq", "0")) or 0) if t is not None else 0


def _next_id(repo: GitRepo, ref: str, agent: str) -> str:
    # One more than any number used so far, automatic or given (`--turn 3`): never an id
    # another turn has.
    return str(_highest(next(turns(repo, ref, agent, limit=1), None)) + 1)


def prepare(
    repo: GitRepo,
    *,
    prefix: str,
    agent: str,
    turn_id: str | None,
    changes: Sequence[FileChange],
    fmt: str,
    policy: str,
    edit_bytes: int,
    kind: str = "turn",
    rolls_back: Sequence[str] = (),
    created_dirs: Sequence[str] = (),
) -> Pending:
    """Write the turn's commit(s) to the object database; the caller moves the ref.

    `created_dirs`: the folders writing `changes` creates, recorded so that rolling the
    turn back removes them again (when nothing else is in them by then).
    """
    ref = ref_name(prefix, agent)
    tip = repo.ref(ref)
    tip_turn = parse_turn(repo, tip, agent) if tip else None
    amend = (
        kind == "turn" and turn_id is not None and tip_turn is not None
        and tip_turn.kind == "turn" and tip_turn.id == turn_id
    )
    if amend:
        assert tip is not None and tip_turn is not None
        parent: str | None = tip_turn.parent
        base_tree: str | None = repo.commit_tree(tip)
    else:
        parent = tip or repo.head_commit()
        base_tree = repo.commit_tree(parent) if parent else None
        # Sync the touched paths with the work tree as it was before this turn.
        before: dict[str, Entry | None] = {}
        seen: set[str] = set()
        for ch in changes:
            for p, data, mode in ((ch.old_path or ch.path, ch.before, ch.old_mode), (ch.path, ch.before if not ch.old_path else None, ch.old_mode)):
                if p in seen:
                    continue
                seen.add(p)
                want = None if data is None else Entry(repo.hash_blob(data), mode or 0o100644)
                if repo.tree_entry(base_tree, p) != want:
                    if data is not None:
                        repo.write_blob(data)  # only a sync commit needs the blob stored
                    before[p] = want
        if before:
            sync_tree = repo.build_tree(base_tree, before)
            if sync_tree != base_tree:
                msg = (f"agent-guard: sync {len(before)} file(s) with the work tree before {agent}'s next turn\n\n"
                       f"Agent-Guard-Agent: {agent}\nAgent-Guard-Kind: sync\n")
                parent = repo.write_commit(sync_tree, [parent] if parent else [], msg)
                base_tree = sync_tree
    updates: dict[str, Entry | None] = {}
    for ch in changes:
        if ch.old_path and ch.old_path != ch.path:
            updates[ch.old_path] = None
        updates[ch.path] = None if ch.after is None else Entry(repo.write_blob(ch.after), ch.new_mode or 0o100644)
    tree = repo.build_tree(base_tree, updates)
    this = {
        "files": len(changes),
        "lines_added": sum(len(c.added) for c in changes),
        "lines_removed": sum(len(c.removed) for c in changes),
        "hunks": sum(c.hunks for c in changes),
        "bytes": edit_bytes,
    }
    prev_turn, prev_session = usage(repo, ref, agent, turn_id if amend else None)
    turn_usage = {k: this[k] + (prev_turn[k] if amend else 0) for k in USAGE_KEYS}
    session_usage = {k: this[k] + prev_session[k] for k in USAGE_KEYS}
    tid = turn_id if turn_id is not None else _next_id(repo, ref, agent)
    # `Seq`: the highest number used as an id so far, so the next automatic id passes it.
    last = next(turns(repo, ref, agent, limit=1), None)
    seq = str(max(_highest(last), _number(tid) or 0))
    files_changed: dict[str, tuple[str, str, int, int, tuple[str, ...]]] = {}
    if amend and tip_turn is not None:
        for letter, path, a, r in tip_turn.files:
            files_changed[path] = (letter, path, a, r, ())
    for c in changes:
        label = c.path if not c.old_path or c.old_path == c.path else f"{c.path} <- {c.old_path}"
        prev = files_changed.get(c.path)
        a = len(c.added) + (prev[2] if prev else 0)
        r = len(c.removed) + (prev[3] if prev else 0)
        files_changed[c.path] = (_letter(c.op) if not prev else prev[0], label, a, r, c.repairs)
    repairs = sorted({r for c in changes for r in c.repairs} | (set(tip_turn.repairs) if amend and tip_turn else set()))
    title = {"turn": f"agent-guard: {agent} turn {tid} ({fmt})", "rollback": f"agent-guard: {agent} rollback of turn(s) {', '.join(rolls_back)}"}[kind]
    body = [title, ""]
    for letter, label, a, r, reps in files_changed.values():
        body.append(f" {letter} {label} +{a} -{r}" + (f" ({', '.join(reps)})" if reps else ""))
    body.append("")
    trailers = {
        "Agent": agent,
        "Turn": tid,
        "Seq": seq,
        "Kind": kind,
        "Format": fmt,
        "Policy": policy,
        "Repairs": ",".join(repairs),
        "Session": session_id(),
        "Time": f"{time.time():.6f}",
    }
    if rolls_back:
        trailers["Rolls-Back"] = ",".join(rolls_back)
    dirs = list(dict.fromkeys([*(tip_turn.created_dirs if amend and tip_turn else ()), *created_dirs]))
    if dirs:
        # JSON on one line: a folder name may hold a comma (never a newline: paths.resolve refuses those).
        trailers["Created-Dirs"] = json.dumps(dirs)
    for k in USAGE_KEYS:
        trailers["Turn-" + k.replace("_", "-").title()] = str(turn_usage[k])
        trailers["Session-" + k.replace("_", "-").title()] = str(session_usage[k])
    body += [f"Agent-Guard-{k}: {v}" for k, v in trailers.items()]
    commit = repo.write_commit(tree, [parent] if parent else [], "\n".join(body) + "\n")
    return Pending(ref, tip, commit, tid, turn_usage)
