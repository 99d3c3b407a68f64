"""A command as a turn: Bash, or any other tool the settings' matcher names.

What a command changes in each repository it can change is a turn of the agent there
(``guard.record.shell``): the pre hook takes the work tree and the policy before it runs
(a stash per repository, kept as JSON with the file tools' stashes, ``stash.folder``), and
the post hook records the difference and checks it by that policy.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ...errors import UsageError
from ...fs.filekind import read_regular
from . import stash
from .answer import BLOCK, REPORTED, Answer, PayloadError, output
from .payload import HookCall, agent_of, session_cwd, turn_of

if TYPE_CHECKING:
    from ...pipeline.engine import Guard


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
    """PreToolUse of a command: a stash of what is there before it, in each repository it can change."""
    from ...record import entered, snapshot
    from ...turns import shell

    guards = _repositories([cwd, *entered.entered(text, cwd).folders], call.policy)
    if not guards:
        return Answer(0)  # in no repository, entering none it names: nothing of ours
    agent = agent_of(call)
    turn = turn_of(call)
    taken: list[tuple[Guard, shell.Before]] = []
    try:
        for g in guards:
            g.recover()
            snapshot.sweep(g.repo)
            taken.append((g, shell.begin(g, agent)))
        kept = [before.as_json() for _g, before in taken]
    except BaseException as exc:
        for _g, before in taken:
            snapshot.discard(before.snapshot)
        if isinstance(exc, shell.Uncarried):
            return Answer(BLOCK, stderr=f"agent-guard: {exc}; this {call.tool} call was blocked\n")
        raise
    roots = [str(g.root) for g in guards]
    for (g, _before), doc in zip(taken, kept):
        doc.update(agent=agent, turn=turn, started=time.time(), command=text[:10000], repositories=roots)
        path = stash.folder(g) / name
        tmp = path.with_name(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, path)
    _note_pending(name, roots)
    return Answer(0)


def _pending_file(name: str) -> Path | None:
    """Where the pre hook of a command notes the repositories it took stashes in, for the post hook
    to find whatever folder the command leaves the session in (`cd ..` at its end): the user's
    runtime folder (the warm server's), when it is theirs alone; None when it is not usable."""
    from ...warm import client

    folder = Path(os.fsdecode(client.runtime_dir(os.environb, os.geteuid())))
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    if client.folder_problem(os.fsencode(folder), os.geteuid()) is not None:
        return None
    pending = folder / "pending"
    try:
        pending.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return pending / name


def _note_pending(name: str, roots: list[str]) -> None:
    path = _pending_file(name)
    if path is None:
        return  # the post hook looks from its own folder, as without the note
    try:
        tmp = path.with_name(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(roots), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def _pending_roots(name: str) -> list[str]:
    """The repositories the pre hook of this call noted (``_note_pending``), the note taken away."""
    path = _pending_file(name)
    if path is None:
        return []
    try:
        roots = json.loads(read_regular(path))
    except (OSError, ValueError):
        return []
    path.unlink(missing_ok=True)
    return [r for r in roots if isinstance(r, str)] if isinstance(roots, list) else []


def _after(call: HookCall, cwd: str, text: str, name: str) -> Answer:
    """PostToolUse of a command: finish the turn of each repository the pre hook took a stash in."""
    from ...pipeline.engine import Guard
    from ...turns import shell

    first = _first_stash(cwd, text, name, call.policy)
    if first is None:
        return _unrecorded(call, cwd, text)
    agent = agent_of(call)
    turn = turn_of(call)
    listed = first[1].get("repositories")
    roots = [r for r in listed if isinstance(r, str)] if isinstance(listed, list) else []
    here = os.path.realpath(first[0].root)
    finished: list[tuple[str, shell.Finished]] = []
    missing: list[str] = []
    seen: set[str] = set()
    for root in [str(first[0].root), *roots]:
        if os.path.realpath(root) in seen:
            continue
        seen.add(os.path.realpath(root))
        if os.path.realpath(root) == here:
            g, doc = first
        else:
            try:
                g = Guard(root, call.policy)
            except UsageError:
                missing.append(root)
                continue
            found = _command_stash(g, name)
            if found is None:
                missing.append(root)
                continue
            doc = found
        (stash.folder(g) / name).unlink(missing_ok=True)
        try:
            before = shell.Before.from_json(doc)
        except (ValueError, KeyError, TypeError):
            missing.append(root)
            continue
        g.recover()
        # The post hook's alarm is off (the command ran: nothing is left to block), but Claude Code's own
        # timeout still ends the hook: the verify commands keep to the deadline the pre hook had.
        done = shell.finish(
            g,
            before,
            agent=doc.get("agent") or agent,
            turn=doc.get("turn") or turn,
            tool=call.tool,
            command=str(doc.get("command") or ""),
            verify_deadline=call.verify_by,
        )
        finished.append((str(g.root), done))
    return _said(call.tool, finished, missing)


def _command_stash(g: Guard, name: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(read_regular(stash.folder(g) / name))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _first_stash(cwd: str, text: str, name: str, policy: str | None) -> tuple[Guard, dict[str, Any]] | None:
    """A stash the pre hook took for this call, and its repository: in the cwd's repository, else in
    one the pre hook noted (``_note_pending``), else in one of the folders the command enters, read
    from the cwd or a folder above it (the pre hook's cwd, which a `cd` may have left)."""
    from ...record import entered

    noted = _pending_roots(name)  # taken away whichever way the stash is found

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
            doc = _command_stash(g, name)
            if doc is not None:
                return g, doc
    return None


def _unrecorded(call: HookCall, cwd: str, text: str) -> Answer:
    """A post hook with no stash from before the command: what to say, and to whom."""
    from ...record import entered

    tool = call.tool
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
        return Answer(0, stdout=output({"additionalContext": said}, "PostToolUse"))
    return Answer(
        REPORTED,
        stderr=(
            f"agent-guard: cannot record what {tool} changed: no snapshot from before it ran (tool_use_id "
            f"{call.data.get('tool_use_id')!r}); the PreToolUse hook did not run for this call: is {tool} in its matcher?\n"
        ),
    )


def _said(tool: str, finished: list[tuple[str, Any]], missing: list[str] | None = None) -> Answer:
    """What the model hears of a command's turns (one per repository it changed, each named when there
    are several): errors (and a revert) on standard error with exit 2, which Claude Code shows the
    model; warnings and what was not recorded as additional context."""
    from ...report.render import finding_text

    several = len(finished) + len(missing or ()) > 1
    refused: list[str] = []
    context: list[str] = []
    for root, done in finished:
        report = done.report
        there = f" in {root}" if several else ""
        errors = [f for f in report.findings if f.severity == "error"]
        said = [finding_text(f) for f in report.findings] + [f"note: {n}" for n in report.notes]
        where = f"turn {report.turn.id} of {report.turn.agent}" if report.turn is not None else "no turn"
        if errors:
            what = (
                f"agent-guard reverted what it changed{there}, and nothing else (the policy's shell.on_violation is revert)"
                if done.reverted
                else f"its changes{there} stay, recorded as {where} (`git agent-rollback` undoes them)"
            )
            refused += [
                f"agent-guard: this {tool} command changed files in ways the policy refuses; {what}. Fix what each finding says:"
            ] + said
        elif said:
            context += [f"agent-guard recorded this {tool} command's changes{there} as {where}:"] + said
    for root in missing or ():
        context.append(
            f"agent-guard: no snapshot from before this {tool} command in {root}: what it changed there is not recorded"
        )
    if refused:
        return Answer(BLOCK, stderr="\n".join(refused + context) + "\n")
    if context:
        return Answer(0, stdout=output({"additionalContext": "\n".join(context)}, "PostToolUse"))
    return Answer(0)
