"""A command as a turn: Bash, or any other tool the settings' matcher names.

What a command changes in each repository it can change is a turn of the agent there
(``guard.turns.shell``): the pre hook takes the work tree and the policy before it runs
(a stash per repository, ``command_stash``), and the post hook records the difference and
checks it by that policy.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Iterator

from ...errors import UsageError
from . import command_stash, stash
from .answer import Answer, PayloadError
from .command_stash import CommandStash
from .payload import HookCall, agent_of, session_cwd, session_of, turn_of

if TYPE_CHECKING:
    from ...pipeline.engine import Guard
    from ...turns.shell import Finished


def command(call: HookCall) -> Answer:
    """Bash, or any other tool the settings' matcher names: what it changes in each repository it
    can change is a turn of the agent there (``shell``): the work tree and the policy before it runs,
    the difference after, recorded and checked by that policy.

    The repositories it can change are that of the session's folder (``cwd``) and those the command
    enters, worked out from its text before it runs (``entered``: ``cd X && ...``, ``(cd X;
    ...)``, ``pushd X``, ``git -C X``, ``bash -c '...'``).  Each gets a stash naming them all, so
    that the post hook finishes every one whichever folder the command left the session in: the
    cwd's repository, or one the command enters, read from the cwd or a folder above it.  The pre
    hook never denies a command for what it may do, but it fails closed: a snapshot that cannot be
    taken, or a policy that cannot be carried to the post hook, denies (the change could not be
    recorded, or judged)."""
    cwd = session_cwd(call)
    if not os.path.isdir(cwd):
        raise PayloadError(f"the {call.event} payload's cwd {cwd[:200]!r} is not a folder")
    ti = call.data.get("tool_input")
    text = str(ti.get("command", "")) if isinstance(ti, dict) else ""
    name = "cmd-" + stash.name(call.data, "")
    if call.event == "PreToolUse":
        return _before(call, cwd, text, name)
    return _after(call, cwd, text, name)


def _watched(g: Guard) -> None:
    """Give `g` its work tree's watch (``warm/watch.py``), where the system has inotify: a hook's
    shell turns then ask git about the paths that changed, not about the whole tree."""
    if sys.platform.startswith("linux"):
        from ...warm.watch import Remote

        g.watch = Remote(str(g.root), str(g.repo.gitdir))


def _repositories(folders: list[str], policy: str | None, seen: set[str] | None = None) -> list[Guard]:
    """The repository of each folder (of the nearest one that exists: the command may make it),
    each once (`seen`: the roots already found), in the order the folders come."""
    from ...pipeline.engine import Guard

    seen = set() if seen is None else seen
    out: list[Guard] = []
    for folder in dict.fromkeys(folders):
        while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
            folder = os.path.dirname(folder)
        try:
            g = Guard(folder, policy)
        except UsageError:
            continue  # in no repository
        root = os.path.realpath(g.root)
        if root not in seen:
            seen.add(root)
            out.append(g)
    return out


def _before(call: HookCall, cwd: str, text: str, name: str) -> Answer:
    """PreToolUse of a command: a stash of what is there before it, in each repository it can change
    (all of them, or none: a snapshot that cannot be taken or a policy that cannot be carried
    leaves none)."""
    from ...record import entered, snapshot
    from ...turns import shell

    guards = _repositories([cwd, *entered.entered(text, cwd).folders], call.policy)
    if not guards:
        return Answer(0)  # in no repository, entering none it names: nothing of ours
    agent = agent_of(call)
    turn = turn_of(call)
    roots = tuple(str(g.root) for g in guards)
    taken: list[tuple[Guard, shell.Before]] = []
    try:
        for g in guards:
            g.recover()
            snapshot.sweep(g.repo)
            _watched(g)
            taken.append((g, shell.begin(g, agent)))
        for g, before in taken:
            command_stash.write(g, name, CommandStash(before, agent, turn, text[:10000], roots))
    except BaseException as exc:
        for g, before in taken:
            command_stash.drop(g, name)
            snapshot.discard(before.snapshot)
        if isinstance(exc, shell.Uncarried):
            return call.form.blocked(f"agent-guard: {exc}; this {call.tool} call was blocked")
        raise
    command_stash.note(name, roots)
    return Answer(0)


def _after(call: HookCall, cwd: str, text: str, name: str) -> Answer:
    """PostToolUse of a command.  One case each: a stash the pre hook left (``_stashed``), or none
    (``_unstashed``)."""
    found = _first_stash(cwd, text, name, call.policy)
    if found is None:
        return _unstashed(call, cwd, text)
    return _stashed(call, name, *found)


def _stashed(call: HookCall, name: str, first: Guard, kept: CommandStash) -> Answer:
    """Finish the turn of the repository whose stash was found first, then that of each other one it
    names, by its own stash; one without a stash is said to be not recorded."""
    turn = turn_of(call)
    finished = [_finish(call, first, kept, turn)]
    missing: list[str] = []
    for root in _others(first, kept.repositories):
        found = _stash_in(root, name, call.policy)
        if found is None:
            missing.append(root)
        else:
            finished.append(_finish(call, *found, turn))
    return _said(call, finished, missing)


def _finish(call: HookCall, g: Guard, kept: CommandStash, turn: str | None) -> tuple[str, Finished]:
    """The command's turn in `g`, by its stash (its turn, else the post hook's `turn`)."""
    from ...turns import shell

    g.recover()
    _watched(g)
    g.budget_session = session_of(call) or g.budget_session  # the turn names Claude Code's session
    # The post hook's alarm is off (the command ran: nothing is left to block), but Claude Code's own
    # timeout still ends the hook: the verify commands keep to the deadline the pre hook had.
    done = shell.finish(
        g,
        kept.before,
        agent=kept.agent,
        turn=kept.turn or turn,
        tool=call.tool,
        command=kept.command,
        verify_deadline=call.verify_by,
    )
    return str(g.root), done


def _others(first: Guard, roots: tuple[str, ...]) -> list[str]:
    """The repositories of `roots` other than `first`'s, each once, in their order."""
    seen = {os.path.realpath(first.root)}
    out: list[str] = []
    for root in roots:
        real = os.path.realpath(root)
        if real not in seen:
            seen.add(real)
            out.append(root)
    return out


def _stash_in(root: str, name: str, policy: str | None) -> tuple[Guard, CommandStash] | None:
    """The repository at `root` and the stash the pre hook kept there (taken away); None without either."""
    from ...pipeline.engine import Guard

    try:
        g = Guard(root, policy)
    except UsageError:
        return None
    kept = command_stash.take(g, name)
    return None if kept is None else (g, kept)


def _first_stash(cwd: str, text: str, name: str, policy: str | None) -> tuple[Guard, CommandStash] | None:
    """A stash the pre hook kept for this call (taken away), and its repository: in the cwd's
    repository, else in one the pre hook noted (``command_stash.note``), else in one of the folders
    the command enters, read from the cwd or a folder above it (the pre hook's cwd, which a `cd` may
    have left)."""
    from ...record import entered

    noted = list(command_stash.take_note(name))  # taken away whichever way the stash is found

    def ways() -> Iterator[list[str]]:  # the command is read only when those found nothing
        yield [cwd]
        yield noted
        up = cwd
        while True:
            yield list(entered.entered(text, up).folders)
            if os.path.dirname(up) == up:
                return
            up = os.path.dirname(up)

    seen: set[str] = set()
    for folders in ways():
        for g in _repositories(folders, policy, seen):
            kept = command_stash.take(g, name)
            if kept is not None:
                return g, kept
    return None


def _unstashed(call: HookCall, cwd: str, text: str) -> Answer:
    """A post hook with no stash from before the command (none this version of agent-guard wrote):
    what to say, and to whom."""
    from ...record import entered

    tool = call.shown
    found = _repositories([cwd], call.policy)
    if not found:
        return Answer(0)  # in no repository now: nothing of ours that it changed is known
    here = found[0]
    moved = entered.entered(text, cwd)
    if moved.folders or moved.unknown:
        # It changes folder, and the pre hook found no repository where it started or where it went.
        why = (
            "it changes folder to one only the shell works out"
            if moved.unknown
            else "it changes folder, to a repository there was no sign of before it ran, or the PreToolUse hook did not run"
        )
        said = (
            f"agent-guard: what this {tool} command changed in {here.root} was not recorded as your turn, nor "
            f"checked: agent-guard could not tell, before the command ran, which repository it would change ({why}). "
            f"Run `cd` in its own {tool} call first, then the command: what each call changes is then recorded and checked."
        )
        return call.form.context(said, "PostToolUse")
    return call.form.report(
        f"agent-guard: cannot record what {tool} changed: no snapshot from before it ran (tool_use_id "
        f"{call.data.get('tool_use_id')!r}); the PreToolUse hook did not run for this call: is {tool} in its matcher?"
    )


def _said(call: HookCall, finished: list[tuple[str, Finished]], missing: list[str]) -> Answer:
    """What the model hears of a command's turns (one per repository it changed, each named when there
    are several): errors (and a revert) told in the agent's form (``Form.tell``); warnings and what
    was not recorded as additional context."""
    from ...report.render import finding_text
    from ...turns.hint import undo_command

    tool = call.shown
    several = len(finished) + len(missing) > 1
    refused: list[str] = []
    context: list[str] = []
    for root, done in finished:
        report = done.report
        there = f" in {root}" if several else ""
        errors = [f for f in report.findings if f.severity == "error"]
        said = [finding_text(f) for f in report.findings] + [f"note: {n}" for n in report.notes]
        where = f"turn {report.turn.id} of {report.turn.agent}" if report.turn is not None else "no turn"
        undo = f"`{undo_command(report.turn.agent)}` undoes them" if report.turn is not None else "nothing recorded to undo"
        if errors:
            what = (
                f"agent-guard reverted what it changed{there}, and nothing else (the policy's shell.on_violation is revert)"
                if done.reverted
                else f"its changes{there} stay, recorded as {where} ({undo})"
            )
            refused += [
                f"agent-guard: this {tool} command changed files in ways the policy refuses; {what}. Fix what each finding says:"
            ] + said
        elif said:
            context += [f"agent-guard recorded this {tool} command's changes{there} as {where}:"] + said
    for root in missing:
        context.append(
            f"agent-guard: no snapshot from before this {tool} command in {root}: what it changed there is not recorded"
        )
    if refused:
        return call.form.tell("\n".join(refused + context), call.data.get("tool_response"))
    if context:
        return call.form.context("\n".join(context), "PostToolUse")
    return Answer(0)
