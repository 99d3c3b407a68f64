"""The shadow ledger: every applied turn as a commit on ``<prefix><agent>``.

Each work tree keeps its own (``ref_for``): the main worktree ``<prefix><agent>``, a
linked worktree ``<prefix>_worktrees/<id>/<agent>``, so that a rollback in one never
takes another's turn.

Shape of an agent's ref::

    HEAD-at-first-turn ── [sync] ── turn 1 ── [sync] ── turn 2 ── rollback 3 ...

A *sync* commit records the work tree's state of the files a turn touches when they
no longer match the ledger (``stage`` makes both).  Commit messages carry
machine-readable trailers (``Agent-Guard-*``) that ``log``, budgets and rollbacks
read back: this module writes them (`turn_message`) and reads them (`parse_turn`).

Reading follows the turns a command asks for, newest first from the tip (`turns`),
and stops there: the latest turn's usage and id cost one commit, however long the
ledger.  Where a turn is asked for by id, the turn-id index (`commits_of`) says which
commits have it: a file beside the ref, brought up to date with the ref's tip when read.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence

from ..fs.filekind import read_regular, write_new
from ..repo import GitRepo
from ..text.regex import lazy

if TYPE_CHECKING:
    from ..model import FileChange

_TRAILER = lazy(r"^Agent-Guard-([A-Za-z-]+): ?(.*)$", re.M)
USAGE_KEYS = ("files", "lines_added", "lines_removed", "hunks", "bytes")
MAX_TURN_ID = 64
# A turn id is written into the commit message as a trailer: anything but these could
# forge trailer lines (a newline), or be mistaken for a list (a comma in Rolls-Back).
_TURN_ID = lazy(rf"[A-Za-z0-9._-]{{1,{MAX_TURN_ID}}}")


WORKTREES = "_worktrees"  # under the prefix, the linked worktrees' ledgers: no agent name starts with '_'


def ref_for(repo: GitRepo, prefix: str, agent: str) -> str:
    """The ref of `agent`'s ledger in the work tree `repo` is opened on: ``<prefix><agent>`` in the
    main worktree (and a repository without linked ones), ``<prefix>_worktrees/<id>/<agent>`` in a
    linked one (``ledger_prefix``).  Every reader and writer of this work tree's turns asks here."""
    return ledger_prefix(repo, prefix) + agent


def ledger_prefix(repo: GitRepo, prefix: str) -> str:
    """Where the ledgers of the work tree `repo` is opened on are: each work tree undoes its own
    turns, and git keeps one index and one set of files per work tree, not per agent.

    Not git's per-worktree ``refs/worktree/``, which libgit2 reads and writes as git does:
    git's gc walks only the refs of the worktree it runs in (and the other worktrees' HEADs and
    reflogs), so a `git gc` in another worktree would prune the turns, and `git for-each-ref`
    lists no other worktree's.  Refs under the prefix are every worktree's, as branches are.
    """
    prefix = prefix if prefix.endswith("/") else prefix + "/"
    wid = repo.worktree_id
    return prefix if wid is None else f"{prefix}{WORKTREES}/{worktree_part(wid)}{LIFE}{life(repo.gitdir)}/"


LIFE = "@"  # between a linked worktree's id and the life of it, in its ledgers' names
LIFE_FILE = "worktree-life"  # in the worktree's own agent-guard folder


def life(gitdir: Path, make: bool = True) -> str | None:
    """Which life of a linked worktree's id this is: a random name kept in the worktree's own git dir,
    which `git worktree remove` and `prune` delete with it.  git gives a later worktree the same id
    again (the folder's name), and that worktree must not take the turns of the one before; None
    when there is none yet and `make` is false."""
    import secrets

    path = gitdir / "agent-guard" / LIFE_FILE
    try:
        said = read_regular(path).decode("ascii", "replace").strip()
    except OSError:
        said = ""
    if re.fullmatch(r"[0-9a-f]{12}", said):
        return said
    if not make:
        return None
    new = secrets.token_hex(6)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{LIFE_FILE}.{os.getpid()}")
    write_new(tmp, new.encode("ascii") + b"\n")
    try:
        os.link(tmp, path)  # the first to make it wins; another process's name is read back
    except FileExistsError:
        again = life(gitdir, make=False)
        if again is not None:
            return again
        os.replace(tmp, path)  # not one of ours (written by hand, a pipe): replaced
    finally:
        tmp.unlink(missing_ok=True)
    return new


def worktree_of(part: str) -> str:
    """The worktree id a ledger's worktree part names (its life taken off)."""
    return part.rpartition(LIFE)[0] or part


def worktree_part(wid: str) -> str:
    """A linked worktree's id as one ref name component of the rule agent names keep (git makes
    its ids valid ref name parts, but may keep a leading '-' or a letter beyond ASCII: such an id
    is named by its hash)."""
    if agent_problem(wid) is None:
        return wid
    import hashlib

    return "wt-" + hashlib.sha1(wid.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def own_refs(repo: GitRepo, prefix: str) -> dict[str, str]:
    """This work tree's ledgers: ref name -> tip (each ends in its agent's name, after the last '/')."""
    here = ledger_prefix(repo, prefix)
    return {name: tip for name, tip in repo.refs(here).items() if agent_problem(name[len(here) :]) is None}


def placed(prefix: str, ref: str) -> tuple[str | None, str] | None:
    """Whose ledger `ref` is, by its name: (the worktree part, None for the main worktree; the agent),
    or None when it is no ledger's name under `prefix`."""
    prefix = prefix if prefix.endswith("/") else prefix + "/"
    if not ref.startswith(prefix):
        return None
    parts = ref[len(prefix) :].split("/")
    if len(parts) == 1 and agent_problem(parts[0]) is None:
        return None, parts[0]
    if len(parts) == 3 and parts[0] == WORKTREES and agent_problem(parts[2]) is None:
        return parts[1], parts[2]
    return None


# What `agent_problem` holds a name to (an agent's, a clone's): one part of a git ref name.
NAME_RULE = (
    "a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters, without '..' and "
    "not ending in '.' or '.lock'"
)
AGENT_RULE = f"an agent name is part of a git ref name (refs/agent-guard/NAME): {NAME_RULE}"


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


def turn_id_problem(turn_id: str) -> str | None:
    """What is wrong with `turn_id` as a turn id (None: nothing)."""
    if _TURN_ID().fullmatch(turn_id):
        return None
    shown = turn_id if len(turn_id) <= 80 else turn_id[:80] + "..."
    if len(turn_id) > MAX_TURN_ID and _TURN_ID().fullmatch(turn_id[:MAX_TURN_ID]):
        what = f"is {len(turn_id):,} characters long; the limit is {MAX_TURN_ID}"
    else:
        bad = next((c for c in turn_id if not _TURN_ID().fullmatch(c)), "")
        what = "is empty" if not turn_id else f"holds {bad!r}"
    return (
        f"invalid turn id {shown!r}: it {what}; a turn id is 1 to {MAX_TURN_ID} letters, digits, "
        "'.', '_' and '-' (e.g. 7, fix-login, p1a2b3c4)"
    )


# ---------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class Turn:
    commit: str
    parent: str | None
    agent: str
    id: str
    kind: str  # "turn" | "rollback" | "sync" | "base"
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

    @property
    def clone(self) -> str | None:
        """The clone the turn was recorded in (``clones``), as its commit says (None: recorded before clones had names)."""
        return self.trailers.get("clone") or None

    @property
    def rolls_back_from(self) -> tuple[str, str, str] | None:
        """The turn of another clone this rollback undoes: (clone, turn id, commit), or None."""
        tr = self.trailers
        found = (tr.get("rolls-back-clone", ""), tr.get("rolls-back-turn", ""), tr.get("rolls-back-commit", ""))
        return found if all(found) else None


class Memo:
    """What a workspace keeps of its ledgers from one call to the next (``Workspace.ledger_memo``).

    Each turn parsed once, by commit (commits never change: each apply reads the tip's
    trailers for its usage, its next id and its sequence number), and each ref's
    turn-id index as of the tip it was last brought up to.
    """

    KEPT = 256

    def __init__(self) -> None:
        self.parsed: dict[tuple[str, str], Turn | None] = {}
        self.indexes: dict[str, _Index] = {}

    def keep(self, key: tuple[str, str], turn: Turn | None) -> None:
        if len(self.parsed) >= self.KEPT:
            del self.parsed[next(iter(self.parsed))]
        self.parsed[key] = turn


def parse_turn(repo: GitRepo, commit: str, agent: str, memo: Memo | None = None) -> Turn | None:
    """The turn (or sync, or base) `commit` records, or None: a commit that is none of the ledger's."""
    key = (commit, agent)
    if memo is not None and key in memo.parsed:
        return memo.parsed[key]
    t = _parse_turn(repo, commit, agent)
    if memo is not None:
        memo.keep(key, t)
    return t


def _trailers(message: str) -> dict[str, str]:
    return {m.group(1).lower(): m.group(2).strip() for m in _TRAILER().finditer(message)}


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


def _chain(repo: GitRepo, tip: str, agent: str, memo: Memo | None) -> Iterator[Turn]:
    """Every commit of the ledger from `tip` down, syncs too, as parsed turns (first parents)."""
    commit: str | None = tip
    while commit:
        t = parse_turn(repo, commit, agent, memo)
        if t is None or t.kind == "base":
            return  # reached the user's history the ledger forked from (or a gc cut)
        yield t
        commit = t.parent


def turns(repo: GitRepo, ref: str, agent: str, limit: int | None = None, memo: Memo | None = None) -> Iterator[Turn]:
    """The agent's turns and rollbacks, newest first (sync commits skipped), read as they are asked for."""
    tip = repo.ref(ref)
    if tip is None:
        return
    count = 0
    for t in _chain(repo, tip, agent, memo):
        if t.kind == "sync":
            continue
        yield t
        count += 1
        if limit is not None and count >= limit:
            return


def created_by_agent(repo: GitRepo, tip: str, agent: str, path: str, memo: Memo | None = None) -> bool:
    """Whether one of the agent's own turns (or rollbacks) brought `path` into its ledger at `tip`.

    Down from the tip while the ledger holds the path: the oldest commit that holds it must
    be a turn of the agent, and the commit before it must not hold it.  A path that came
    from the user's history the ledger forked from, or from a sync commit (the user's file,
    recorded before a turn that touched it), is the user's, not the agent's.
    """
    oldest: Turn | None = None
    for t in _chain(repo, tip, agent, memo):
        if repo.tree_entry(repo.commit_tree(t.commit), path) is None:
            break
        oldest = t
    if oldest is None or oldest.kind not in ("turn", "rollback"):
        return False
    parent = oldest.parent
    return parent is None or repo.tree_entry(repo.commit_tree(parent), path) is None


def latest(repo: GitRepo, ref: str, agent: str, memo: Memo | None = None) -> Turn | None:
    """The agent's newest turn or rollback."""
    return next(turns(repo, ref, agent, limit=1, memo=memo), None)


def usage(
    repo: GitRepo, ref: str, agent: str, turn_id: str | None, session: str, memo: Memo | None = None
) -> tuple[dict[str, int], dict[str, int]]:
    """What the agent used in the current turn (when `turn_id` continues the tip's turn) and in the
    budget session named `session` (guard/record/sessions.py), when the tip's turn counted in it."""
    tip = repo.ref(ref)
    zero = {k: 0 for k in USAGE_KEYS}
    if tip is None:
        return dict(zero), dict(zero)
    t = parse_turn(repo, tip, agent, memo)
    if t is None or t.kind == "sync":
        return dict(zero), dict(zero)
    tr = t.trailers
    turn = dict(zero)
    if turn_id is not None and t.id == turn_id and t.kind == "turn":
        turn = {k: int(tr.get("turn-" + k.replace("_", "-"), "0") or 0) for k in USAGE_KEYS}
    used = dict(zero)
    if tr.get("session") == session:
        used = {k: int(tr.get("session-" + k.replace("_", "-"), "0") or 0) for k in USAGE_KEYS}
    return turn, used


def turn_paths(repo: GitRepo, ref: str, agent: str, turn_id: str | None, memo: Memo | None = None) -> frozenset[str]:
    """The files the agent's turn `turn_id` changed so far, when it is the tip's and goes on (a
    budget counts a file once per turn, however many edits of the turn change it)."""
    tip = repo.ref(ref)
    t = parse_turn(repo, tip, agent, memo) if tip is not None and turn_id is not None else None
    if t is None or t.kind != "turn" or t.id != turn_id:
        return frozenset()
    return frozenset(path for _letter, path, _a, _r in t.files)


def turn_originals(
    repo: GitRepo, ref: str, agent: str, turn_id: str, wanted: Callable[[str], bool], memo: Memo | None = None
) -> dict[str, bytes | None]:
    """The files `wanted` picks that the agent's turn `turn_id` changed so far, when it is the
    tip's and goes on, each as it was before the turn (None: not there).

    A turn that goes on replaces its one commit (``stage``), whose parent holds the touched
    files as they were before the turn: one comparison of two trees.
    """
    tip = repo.ref(ref)
    t = parse_turn(repo, tip, agent, memo) if tip else None
    if t is None or t.kind != "turn" or t.id != turn_id or t.parent is None:
        return {}
    found: dict[str, bytes | None] = {}
    for change in repo.changed_files(repo.commit_tree(t.parent), repo.commit_tree(t.commit)):
        for path, entry in ((change.path, change.old if change.old_path is None else None), (change.old_path, change.old)):
            if path and wanted(path):
                found[path] = repo.read_blob(entry.oid) if entry is not None else None
    return found


def _number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


def _highest(t: Turn | None) -> int:
    """The highest number handed out as a turn id up to `t` (its `Seq` trailer)."""
    return (_number(t.trailers.get("seq", "0")) or 0) if t is not None else 0


def check_turn_id(repo: GitRepo, ref: str, agent: str, turn_id: str, memo: Memo | None = None) -> str | None:
    """What keeps `turn_id` from naming the agent's next (or current) turn, or None.

    An id names one turn: the agent's latest turn may go on under it (several applies,
    one turn), but an id that an earlier turn (or a rollback) already has would make two
    turns answer to it, and `rollback --turn ID` undo both.
    """
    problem = turn_id_problem(turn_id)
    if problem is not None:
        return problem
    tip = latest(repo, ref, agent, memo)
    if tip is None or (tip.kind == "turn" and tip.id == turn_id):
        return None
    number = _number(turn_id)
    if number is not None and number > _highest(tip):
        return None  # above every number handed out: no turn has it (and no walk is needed)
    for commit in commits_of(repo, ref, agent, turn_id, memo)[-1:]:
        t = parse_turn(repo, commit, agent, memo)
        what = "rollback" if t is not None and t.kind == "rollback" else "turn"
        return (
            f"turn id {turn_id!r} is taken: an earlier {what} of {agent} (commit {commit[:12]}) has it, and "
            "--turn continues only the agent's latest turn; give a new id, or none for the next number"
        )
    return None


# ---------------------------------------------------------------------- the turn-id index


@dataclass(frozen=True, slots=True)
class _Index:
    """An agent's turns and rollbacks, oldest first, as the lines of the index file:
    ``<commit> <turn id>`` (the ledger as of the last commit it lists)."""

    text: str

    @property
    def last(self) -> str | None:
        end = self.text.rfind("\n", 0, len(self.text) - 1) + 1
        return self.text[end : end + 40] or None

    def commits_with(self, turn_id: str) -> tuple[str, ...]:
        # A line holds one space, before the id: " <id>\n" is found at the end of its lines alone.
        needle, found = f" {turn_id}\n", []
        at = self.text.find(needle)
        while at != -1:
            found.append(self.text[at - 40 : at])
            at = self.text.find(needle, at + 1)
        return tuple(found)

    def lines(self) -> list[tuple[str, str]]:
        """Its (commit, turn id) lines; none when one is not a line of ours (read the ledger again)."""
        out = []
        for line in self.text.splitlines():
            commit, _, tid = line.partition(" ")
            if len(commit) != 40 or not _TURN_ID().fullmatch(tid):
                return []
            out.append((commit, tid))
        return out


def commits_of(repo: GitRepo, ref: str, agent: str, turn_id: str, memo: Memo | None = None) -> tuple[str, ...]:
    """The commits of the agent's turns and rollbacks whose id is `turn_id`, oldest first."""
    index = _index(repo, ref, agent, memo) if _TURN_ID().fullmatch(turn_id) else None
    if index is None:
        # An id a line of the index cannot hold (an older version's turns may have one): read the ledger.
        return tuple(t.commit for t in reversed(list(turns(repo, ref, agent, memo=memo))) if t.id == turn_id)
    return index.commits_with(turn_id)


def _index_file(repo: GitRepo, ref: str) -> Path:
    return repo.commondir / "agent-guard" / "turn-ids" / ref


def _index(repo: GitRepo, ref: str, agent: str, memo: Memo | None) -> _Index | None:
    """The ref's turn-id index, brought up to date with its tip (None: an id in the ledger that
    a line cannot hold).

    Kept in a file beside the ref (and in the workspace's memo): a commit's first-parent
    history never changes, so the index as of any commit it lists is that index cut
    after the commit.  From the tip down, the commits it does not list yet are read
    until one it lists (a turn or two, usually); a ledger rewritten (gc) or moved back
    is read whole once, and the index written again.
    """
    tip = repo.ref(ref)
    if tip is None:
        return _Index("")
    known = memo.indexes.get(ref) if memo is not None else None
    if known is None:
        try:
            known = _Index(read_regular(_index_file(repo, ref)).decode("ascii"))
        except (OSError, ValueError):
            known = _Index("")
    if known.last == tip:
        index = known
    else:
        lines = known.lines()
        at = {commit: i for i, (commit, _id) in enumerate(lines)}
        newer: list[tuple[str, str]] = []
        keep = 0
        for t in _chain(repo, tip, agent, memo):
            if t.commit in at:
                keep = at[t.commit] + 1
                break
            if t.kind != "sync":
                newer.append((t.commit, t.id))
        if not all(_TURN_ID().fullmatch(tid) for _commit, tid in newer):
            return None
        index = _Index("".join(f"{commit} {tid}\n" for commit, tid in lines[:keep] + newer[::-1]))
        _write_index(_index_file(repo, ref), index)
    if memo is not None:
        memo.indexes[ref] = index
    return index


def _write_index(path: Path, index: _Index) -> None:
    """Replace the index file whole (a cache: one that cannot be written is read again next time)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_new(tmp, index.text.encode("ascii"))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


# ---------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class NewTurn:
    """A turn about to be recorded: whose, under which id, what it is."""

    agent: str
    turn_id: str | None  # None: the next number
    dialect: str  # the dialect the edit came in ("rollback", "external" for a recorded one)
    policy: str
    edit_bytes: int  # the edit input's size, which the `bytes` budget counts
    kind: str = "turn"  # "turn" | "rollback"
    rolls_back: tuple[str, ...] = ()  # ids of the agent's own turns
    rolls_back_from: tuple[str, str, str] | None = None  # a fetched turn of another clone: (clone, turn id, commit)
    session: str = "default"  # the budget session it counts in (guard/record/sessions.py)
    clone: str = ""  # the clone recording it (``clones.name``), which ``stage`` fills in

    def continues(self, tip: Turn | None) -> bool:
        """Does this turn go on with the agent's latest (the same id, given again)?"""
        return (
            self.kind == "turn" and self.turn_id is not None and tip is not None and tip.kind == "turn" and tip.id == self.turn_id
        )


_LETTER = {"create": "A", "delete": "D", "rename": "R", "modify": "M"}


def sync_message(agent: str, count: int) -> str:
    return (
        f"agent-guard: sync {count} file(s) with the work tree before {agent}'s next turn\n\n"
        f"Agent-Guard-Agent: {agent}\nAgent-Guard-Kind: sync\n"
    )


def base_message(agent: str) -> str:
    """The root a pruned ledger (``gc``) starts from."""
    return f"agent-guard: history of {agent} pruned\n\nAgent-Guard-Agent: {agent}\nAgent-Guard-Kind: base\n"


def turn_message(
    repo: GitRepo,
    ref: str,
    new: NewTurn,
    tip: Turn | None,
    changes: Sequence[FileChange],
    created_dirs: Sequence[str],
    memo: Memo | None = None,
) -> tuple[str, str]:
    """The turn's id and its commit's message: what it changed, and the trailers read back.

    `tip`: what the ledger ref points at now.  `created_dirs`: the folders writing
    `changes` creates, recorded so that rolling the turn back removes them again (when
    nothing else is in them by then).
    """
    amend = new.continues(tip)
    last = latest(repo, ref, new.agent, memo)
    touched = {path for _letter, path, _a, _r in tip.files} if amend and tip is not None else set()
    this = {
        "files": len({c.path for c in changes} - touched),  # a file counts once per turn
        "lines_added": sum(len(c.added) for c in changes),
        "lines_removed": sum(len(c.removed) for c in changes),
        "hunks": sum(c.hunks for c in changes),
        "bytes": new.edit_bytes,
    }
    prev_turn, prev_session = usage(repo, ref, new.agent, new.turn_id if amend else None, new.session, memo)
    turn_usage = {k: this[k] + (prev_turn[k] if amend else 0) for k in USAGE_KEYS}
    session_usage = {k: this[k] + prev_session[k] for k in USAGE_KEYS}
    # One more than any number used so far, automatic or given (`--turn 3`): never an id
    # another turn has.
    tid = new.turn_id if new.turn_id is not None else str(_highest(last) + 1)
    # `Seq`: the highest number used as an id so far, so the next automatic id passes it.
    seq = str(max(_highest(last), _number(tid) or 0))
    files_changed: dict[str, tuple[str, str, int, int, tuple[str, ...]]] = {}
    if amend and tip is not None:
        for letter, path, a, r in tip.files:
            files_changed[path] = (letter, path, a, r, ())
    for c in changes:
        label = c.path if not c.old_path or c.old_path == c.path else f"{c.path} <- {c.old_path}"
        prev = files_changed.get(c.path)
        a = len(c.added) + (prev[2] if prev else 0)
        r = len(c.removed) + (prev[3] if prev else 0)
        files_changed[c.path] = (_LETTER[c.op.value] if not prev else prev[0], label, a, r, c.repairs)
    repairs = sorted({r for c in changes for r in c.repairs} | (set(tip.repairs) if amend and tip else set()))
    undone = (
        ", ".join(new.rolls_back)
        if new.rolls_back_from is None
        else f"{new.rolls_back_from[1]} of clone {new.rolls_back_from[0]}"
    )
    title = {
        "turn": f"agent-guard: {new.agent} turn {tid} ({new.dialect})",
        "rollback": f"agent-guard: {new.agent} rollback of turn(s) {undone}",
    }[new.kind]
    body = [title, ""]
    for letter, label, a, r, reps in files_changed.values():
        body.append(f" {letter} {label} +{a} -{r}" + (f" ({', '.join(reps)})" if reps else ""))
    body.append("")
    trailers = {
        "Agent": new.agent,
        "Clone": new.clone,
        "Turn": tid,
        "Seq": seq,
        "Kind": new.kind,
        "Format": new.dialect,
        "Policy": new.policy,
        "Repairs": ",".join(repairs),
        "Session": new.session,
        "Time": f"{time.time():.6f}",
    }
    if new.rolls_back:
        trailers["Rolls-Back"] = ",".join(new.rolls_back)
    if new.rolls_back_from is not None:
        # Apart from Rolls-Back, which names the agent's own turns by id: another clone's turn
        # 3 is not this ledger's, and its commit is what names it for certain.
        trailers["Rolls-Back-Clone"], trailers["Rolls-Back-Turn"], trailers["Rolls-Back-Commit"] = new.rolls_back_from
    dirs = list(dict.fromkeys([*(tip.created_dirs if amend and tip else ()), *created_dirs]))
    if dirs:
        # JSON on one line: a folder name may hold a comma (never a newline: paths.resolve refuses those).
        trailers["Created-Dirs"] = json.dumps(dirs)
    for k in USAGE_KEYS:
        trailers["Turn-" + k.replace("_", "-").title()] = str(turn_usage[k])
        trailers["Session-" + k.replace("_", "-").title()] = str(session_usage[k])
    body += [f"Agent-Guard-{k}: {v}" for k, v in trailers.items()]
    return tid, "\n".join(body) + "\n"
