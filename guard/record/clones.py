"""Turns that travel: this clone's name, where its turns go on a remote, the turns fetched from others.

Teams run agents in many clones of one repository; git remotes carry their turns, with
plain git and no server of ours.  Three namespaces, none inside another::

    here, this clone's own      refs/agent-guard/<agent>                     (ledger.ref_prefix)
    on a remote, each clone's   refs/agent-guard-clones/<clone>/<agent>
    here, fetched from REMOTE   refs/agent-guard-remotes/<REMOTE>/<clone>/<agent>

    git push REMOTE '+refs/agent-guard/*:refs/agent-guard-clones/<clone>/*'
    git fetch REMOTE '+refs/agent-guard-clones/*:refs/agent-guard-remotes/REMOTE/*'

A linked worktree's ledgers (``refs/agent-guard/_worktrees/<id>/<agent>``, guard/record/ledger.py
``ref_for``) go with the push of the prefix, but are no clone's copy: `fetch` leaves them
out of what it reads back.

A clone writes only its own folder on the remote, so two clones recording turns of
`claude` never move each other's refs.  Both refspecs force (`+`): a ledger moves other
than forward in two ways, a turn continued under the same id replaces its commit and
``gc`` rewrites the kept turns, and the copy of a clone's ledger follows it as git's
remote-tracking branches follow a remote's.

The fetched copy of this clone's own folder is what was pushed (``gc`` keeps the turns it
holds); `push` records it at once, as git itself does for a remote whose fetch refspecs
name the folder.

A clone's name is ``git config agent-guard.clone``, else made once and kept in the git
dir (``agent-guard/clone.<host>``): the host name and six random hex digits.  A git dir
found on another host (copied into a container image, say) makes a name of its own there,
so that two sandboxes started from one image do not push over each other's turns.  Every
turn records the name of the clone it was recorded in (``Agent-Guard-Clone``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..fs.filekind import write_new
from ..repo import GitError, GitRepo, RefMoved
from ..text.wording import plural
from . import ledger

if TYPE_CHECKING:
    from ..repo.transport import Transfer

PUSHED = "refs/agent-guard-clones/"  # on a remote: <clone>/<agent>
FETCHED = "refs/agent-guard-remotes/"  # here: <remote>/<clone>/<agent>
CONFIG = "agent-guard.clone"
_HOST_CHARS = 40


# ---------------------------------------------------------------------- this clone's name


def name_problem(text: str) -> str | None:
    """What is wrong with `text` as a clone name (one component of a ref name, as an agent's), or None."""
    return ledger.agent_problem(text)


def name(repo: GitRepo) -> str:
    """This clone's name: `agent-guard.clone`, else the one made for it (see the module doc)."""
    configured = repo.config(CONFIG)
    if configured is not None:
        problem = name_problem(configured)
        if problem is not None:
            raise UsageError(
                f"git config {CONFIG} is {configured[:80]!r}, which cannot name a clone: {problem}; "
                f"a clone name is part of a git ref name ({PUSHED}CLONE/AGENT): {ledger.NAME_RULE}; "
                f"set another with git config {CONFIG} NAME, or unset it for a made one"
            )
        return configured
    return _made(repo)


def _host() -> str:
    """This host's name as a clone name's start: its first label, other characters as '-'."""
    uname = getattr(os, "uname", None)
    node = uname().nodename if uname is not None else os.environ.get("COMPUTERNAME", "")
    label = node.split(".")[0]
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "-" for ch in label)
    cleaned = cleaned.strip("-_")[:_HOST_CHARS].rstrip("-_")
    return cleaned or "clone"


def _made(repo: GitRepo) -> str:
    """The name made for this clone on this host, kept in the git dir (one file per host name)."""
    host = _host()
    file = repo.commondir / "agent-guard" / f"clone.{host}"
    # Looked for before it is read: a file that is there holds a whole name (it appears by
    # a link, complete), so one that holds none was spoilt, and is replaced.
    present = os.path.lexists(file)
    kept = _read(file)
    if kept is not None and kept.startswith(host + "-") and name_problem(kept) is None:
        return kept
    made = f"{host}-{os.urandom(3).hex()}"
    tmp = file.with_name(f"{file.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        write_new(tmp, (made + "\n").encode("ascii"))
        if not present:
            try:
                os.link(tmp, file)  # the first name made stands: processes started at once agree on it
            except FileExistsError:
                pass
        else:
            os.replace(tmp, file)
    except OSError:
        return made  # a git dir that cannot be written records no turn either
    finally:
        tmp.unlink(missing_ok=True)
    return _read(file) or made


def _read(file: os.PathLike[str]) -> str | None:
    """The name kept in `file` (None: none; a pipe or another file that is no regular one is never waited on)."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        text = os.read(fd, 200).decode("ascii").strip()
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return text or None


# ---------------------------------------------------------------------- the namespaces


def push_refspec(prefix: str, clone: str) -> str:
    return f"+{prefix}*:{PUSHED}{clone}/*"


def fetch_refspec(remote: str) -> str:
    return f"+{PUSHED}*:{FETCHED}{remote}/*"


def prefix_problem(prefix: str) -> str | None:
    """Why the ledger's `prefix` cannot travel (it holds, or lies in, the clones' namespaces), or None."""
    for space in (PUSHED, FETCHED):
        if prefix.startswith(space) or space.startswith(prefix):
            return (
                f"ledger.ref_prefix {prefix!r} overlaps {space}, where agent-guard keeps the turns of other "
                f"clones: set ledger.ref_prefix to a folder of its own, such as 'refs/agent-guard/'"
            )
    return None


@dataclass(frozen=True, slots=True)
class Copy:
    """A fetched copy of one clone's ledger of one agent."""

    ref: str
    remote: str
    clone: str
    agent: str
    tip: str


def copies(repo: GitRepo, agent: str | None = None, clone: str | None = None) -> list[Copy]:
    """The fetched copies here (of `agent`'s ledgers, of `clone`'s), by ref name."""
    out = []
    for ref, tip in sorted(repo.refs(FETCHED).items()):
        parts = ref[len(FETCHED) :].split("/")
        if len(parts) < 3 or name_problem(parts[-1]) is not None or name_problem(parts[-2]) is not None:
            continue  # not one of ours (a ref put there by hand)
        if len(parts) >= 5 and parts[-3] == ledger.WORKTREES:
            continue  # a linked worktree's ledger, which the push of the whole prefix carried along
        found = Copy(ref, "/".join(parts[:-2]), parts[-2], parts[-1], tip)
        if (agent is None or found.agent == agent) and (clone is None or found.clone == clone):
            out.append(found)
    return out


def tracking_ref(remote: str, clone: str, agent: str) -> str:
    return f"{FETCHED}{remote}/{clone}/{agent}"


# ---------------------------------------------------------------------- push and fetch


def remote_problem(repo: GitRepo, remote: str) -> str | None:
    """Why `remote` cannot be pushed to or fetched from here (it must be a configured remote's name), or None."""
    if repo.config(f"remote.{remote}.url") is not None or repo.config(f"remote.{remote}.pushurl") is not None:
        return None
    return (
        f"{remote!r} is not a remote of this repository: give a remote's name (git remote -v lists them), "
        "or add one with git remote add NAME URL; fetched turns are kept under the remote's name"
    )


def push_args(prefix: str, clone: str, remote: str) -> list[str]:
    """The git command (after `git`) that pushes the turns of `clone` (this one) to `remote`."""
    return ["push", "--porcelain", remote, push_refspec(prefix, clone)]


def fetch_args(remote: str) -> list[str]:
    """The git command (after `git`) that fetches every clone's turns from `remote`."""
    return ["fetch", remote, fetch_refspec(remote)]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What `push` or `fetch` did: git's own output, the lines that say what moved, and whether all went."""

    ok: bool
    git: Transfer
    lines: tuple[str, ...]


def push(repo: GitRepo, prefix: str, clone: str, remote: str, timeout: float | None = None) -> Outcome:
    """Push the ledgers of this clone, named `clone`, to `remote` (``push_args``); record what landed as pushed.

    A pushed ledger's copy is kept here under the fetched namespace, as ``git fetch``
    would bring it back: from the ref as it was before the push, when it still is (a
    turn recorded during the push leaves it for the next fetch to record).
    """
    from ..repo.transport import pushed_refs, run  # runs git: imported where it runs

    before = repo.refs(prefix)
    done = run(repo.root, push_args(prefix, clone, remote), timeout)
    lines = []
    for line in pushed_refs(done.out):
        agent = line.destination[len(f"{PUSHED}{clone}/") :]
        if not line.landed:
            lines.append(f"{line.source}: not pushed ({line.summary})")
            continue
        if agent.startswith(ledger.WORKTREES + "/"):
            # A linked worktree's ledger (``ledger.ref_for``): pushed with the prefix, not a clone's copy.
            lines.append(f"{line.source}: pushed, as {line.destination}")
            continue
        tip = before.get(line.source)
        if tip is None or repo.ref(line.source) != tip:
            lines.append(f"{line.source}: pushed; it moved meanwhile, so agent-guard fetch {remote} records it")
            continue
        tracking = tracking_ref(remote, clone, agent)
        try:
            current = repo.ref(tracking)
            if current != tip:
                repo.update_ref(tracking, tip, current, f"agent-guard: pushed to {remote}")
        except (RefMoved, GitError):
            lines.append(f"{line.source}: pushed; not recorded here (agent-guard fetch {remote} records it)")
            continue
        count = sum(1 for _t in ledger.turns(repo, line.source, agent))
        what = "already there" if line.flag == "=" else "pushed"
        lines.append(f"{agent}: {plural(count, 'turn')} {what}, as {line.destination}")
    return Outcome(done.status == 0, done, tuple(lines))


def fetch(repo: GitRepo, remote: str, timeout: float | None = None) -> Outcome:
    """Fetch every clone's ledgers from `remote` (``fetch_args``): what this clone now has of each."""
    from ..repo.transport import run

    me = name(repo)
    # Only this clone writes its folder, and `push` records what it wrote: a copy that moved
    # on the remote since was written by another clone that goes by the same name.
    pushed = {c.ref: c.tip for c in copies(repo, clone=me) if c.remote == remote}
    done = run(repo.root, fetch_args(remote), timeout)
    lines = []
    for copy in copies(repo):
        if copy.remote != remote:
            continue
        count = sum(1 for _t in ledger.turns(repo, copy.ref, copy.agent))
        whose = "this clone's, as pushed" if copy.clone == me else f"clone {copy.clone}"
        lines.append(f"{copy.agent} ({whose}): {plural(count, 'turn')} in {copy.ref}")
        if copy.ref in pushed and pushed[copy.ref] != copy.tip:
            lines.append(
                f"warning: {PUSHED}{me}/{copy.agent} on {remote} is not what this clone last pushed there: "
                f"unless it was pushed from here with plain git, another clone is named {me} too, and each "
                "push replaces the other's turns; give every clone its own name "
                f"(git config {CONFIG} NAME)"
            )
    return Outcome(done.status == 0, done, tuple(lines))
