"""What the files become when a rollback undoes its turns in the work tree as it is now (``undo_turns``).

Each file is git's three-way merge of the current file with the file before the turn,
the turn's result as their base: later changes merge in unless they touch or adjoin
what the turn changed.  Those regions conflict (``rollback-conflict``, naming the lines
and what would unblock it); ``force`` takes the turn's old side there and keeps every
other later change.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable, NamedTuple

from ..model import FileChange, Finding, Op, error
from ..pipeline.engine import Guard
from ..policy import Policy
from ..record import ledger
from ..repo import FILE, TreeChange
from ..repo.merge import merge_file
from ..text.textfile import NotText, decode
from ..text.wording import clip
from ..tree import diffs, worktree
from . import history, presence
from .hint import undo_command


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


class Undone(NamedTuple):
    """What undoing turns does: the changes, the conflicts that refuse them, where each renamed file's
    old path is now (its bits go back with it), and the files a fetched turn's change never reached
    (left as they are, ``presence``)."""

    changes: list[FileChange]
    findings: list[Finding]
    moved_back: dict[str, str]
    never_here: list[str]


def undo_turns(g: Guard, pol: Policy, targets: list[ledger.Turn], force: bool, forced: str, fetched: bool = False) -> Undone:
    """Undo `targets` (newest first) one after the other in the files as they are now (``Undone``);
    `fetched`: the turn was made in another clone, so a file its change never reached is left alone,
    --force or not (``presence``)."""
    state = _State(g, {})
    originals: dict[str, tuple[bytes | None, int | None]] = {}
    moved_back: dict[str, str] = {}  # a renamed file's old path -> where it is now
    findings: list[Finding] = []
    never_here: list[str] = []
    here = presence.copies(g.repo) if fetched else None
    for t in targets:  # newest first
        unblock = _Unblock(forced, t.commit, lambda path, t=t: _later_turns(g, pol.ledger_prefix, t, path))  # type: ignore[misc]
        changed = history.turn_changes(g, t)
        if here is not None:
            absent = [tc for tc in changed if not presence.reached(tc, state.get(tc.path)[0], here, partial(history.blob, g))]
            never_here += [tc.path for tc in absent]
            changed = [tc for tc in changed if tc not in absent]
        for was, now in history.renamed(g, t, changed).items():
            moved_back[was] = moved_back.get(now, now)
        for tc in changed:
            touched = [tc.path] + ([tc.old_path] if tc.old_path else [])
            for p in touched:
                if p not in originals:
                    originals[p] = state.get(p)
            f = _undo_change(g, state, tc, force, unblock, moved_back)
            if f is not None:
                findings.append(f)
    return Undone(_changes(originals, state.files), findings, moved_back, never_here)


def _undo_change(
    g: Guard, state: _State, tc: TreeChange, force: bool, unblock: _Unblock, moved_back: dict[str, str]
) -> Finding | None:
    """Undo one file change of a turn in `state` (a move: moved back), or the conflict that refuses it."""
    after, before = history.blob(g, tc.new), history.blob(g, tc.old)
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


def _later_turns(g: Guard, prefix: str, t: ledger.Turn, path: str) -> list[str]:
    """The turns recorded after `t` (any agent's) that changed `path` and are still in effect, newest
    first, each as the command that undoes it."""
    out: list[tuple[float, str]] = []
    since = history.when(t)
    for name in history.agents(g, prefix, None):
        for later, rolled in history.turns(g, ledger.ref_for(g.repo, prefix, name), name):
            if later.commit == t.commit or history.when(later) < since:
                break
            if not rolled and later.kind == "turn" and any(path in (f[1], f[1].partition(" <- ")[2]) for f in later.files):
                out.append((history.when(later), undo_command(name, "--turn", later.id)))
    return [how for _, how in sorted(out, reverse=True)]


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
