"""A patch tool's call (Codex's own ``apply_patch``): the patch checked before the agent applies it,
and what landed recorded after.

``PreToolUse``
    The patch is checked exactly as ``agent-guard apply --check --format DIALECT`` checks it, from
    the session's folder (``Guard.apply(check=True)``: nothing is written).  A refusal denies with
    the findings and their hints.  Either way each file the patch names is stashed
    (``patch_stash``) with its content now: a pass's post hook records the agent's change, a
    denial's undoes a write that went through anyway.  Where agent-guard's result is the
    patch's own lines (no repair that rewrites them), it is stashed too, so that the post hook
    can tell the agent's change from what others changed meanwhile (as a file tool's does).

``PostToolUse``
    The agent has applied the patch, all of it, part of it, or none of it (its own applier can
    fail where agent-guard's located the lines, or stop half way).  Each stashed file as it is
    now against its stashed content is the agent's change; together they are one turn
    (``Guard.record``), which ``git agent-log`` shows and ``git agent-rollback`` undoes.

The repository is the one that holds the session's folder (``cwd``); a patch that names files
of a repository while the session runs outside every one is denied (its paths would be read
from elsewhere), and a write into a git directory or a harness's settings outside every
repository is denied as a file tool's is.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from . import patch_stash, stash
from .answer import Answer, why_refused
from .payload import HookCall, agent_of, locate, outside_write, prompt_turn, session_cwd, session_of

if TYPE_CHECKING:
    from ...model import FileChange
    from ...pipeline.engine import Guard
    from ...report import Report

# Repairs after which agent-guard's result is still the patch's own lines, as the agent's applier
# writes them: only where the lines are, or how the patch was read, was put right.
AS_WRITTEN = frozenset({"offset", "recount", "fuzz", "trailing-whitespace", "empty-chunk", "context-prefix"})


def patch(call: HookCall, text: str, dialect: str) -> Answer:
    """The patch tool's call: `text` is its patch, in `dialect`."""
    from ...pipeline.engine import Guard

    cwd = session_cwd(call)
    try:
        g = Guard(cwd, call.policy)
    except UsageError:
        return _outside(call, text, dialect, cwd)
    g.recover()
    agent = agent_of(call)
    turn = prompt_turn(g, call, agent)
    session = session_of(call)
    if session is not None:
        g.budget_session = session  # per-session budgets, turns and reads follow the agent's session
    name = "patch-" + stash.name(call.data, "")
    if call.event == "PreToolUse":
        return _before(g, call, (text, dialect), agent, turn, name)
    return _after(g, call, (text, dialect), turn, name)


def _before(g: Guard, call: HookCall, edit: tuple[str, str], agent: str, turn: str | None, name: str) -> Answer:
    """Check the patch (`edit`: its text and dialect); stash each file it names; deny a refusal."""
    from ...report.audience import Audience
    from ...report.render import finding_text

    text, dialect = edit
    cwd = session_cwd(call)
    started = time.monotonic()
    report = g.apply(
        text,
        format=dialect,
        agent=agent,
        turn=turn,
        check=True,
        cwd=cwd,
        audience=Audience("cli", g.folder(cwd)),  # the agent's shell runs `git agent-read`
        tool=call.tool,
        log_pass=False,
        verify_deadline=call.verify_by,
        verify_fixes=False,
    )
    if report.status == "refused":
        reasons = tuple(finding_text(f) for f in report.findings) or ("refused",)
        denied = [
            stash.Denied(**_now(g, rel), intended=None, agent=agent, turn=turn, reasons=reasons)
            for rel in _named(g, text, dialect, cwd)
        ]
        if denied:
            patch_stash.write(g, name, denied)
        return call.form.deny(why_refused(report.findings, report.suggestion))
    took = time.monotonic() - started
    warned = tuple(f.code for f in report.findings if f.severity != "error")
    patch_stash.write(g, name, [_passed(g, c, rel, agent, turn, warned, took) for c in report.changes for rel in _paths(c)])
    said = [finding_text(f) for f in report.findings] + [f"note: {n}" for n in report.notes]
    return call.form.passing(call.on_pass, f"agent-guard: {call.tool} checked", said)


def _paths(change: FileChange) -> list[str]:
    """The files a change touches: a rename's old path too (the agent deletes it)."""
    return [change.path] + ([change.old_path] if change.old_path and change.old_path != change.path else [])


def _now(g: Guard, rel: str) -> dict[str, Any]:
    """`rel` as it is now: its path, content (None: no file) and git mode."""
    from ...tree import worktree

    before, mode = worktree.read(g.root, rel)
    return {"path": rel, "before": before, "mode": mode}


def _passed(
    g: Guard, change: FileChange, rel: str, agent: str, turn: str | None, warned: tuple[str, ...], took: float
) -> stash.Passed:
    """The stash of one file of a patch the check passed: as it is now, and, when agent-guard's
    result is the patch's own lines, what the agent will make of it."""
    from ...tree import worktree

    if rel != change.path:  # a rename's old path: the agent deletes it
        intended = None
    else:
        intended = change.after if AS_WRITTEN.issuperset(change.repairs) else None
    try:
        missing = tuple(worktree.missing_dirs(g.root, [rel]))
    except worktree.UnsafePath:
        missing = ()
    return stash.Passed(
        **_now(g, rel), intended=intended, agent=agent, turn=turn, missing_dirs=missing, warnings=warned, duration=took
    )


def _named(g: Guard, text: str, dialect: str, cwd: str) -> list[str]:
    """The files of the tree a refused patch names, each once (none when it cannot be read): those a
    write that went through anyway could have changed."""
    from ...dialects import parse
    from ...files import paths
    from ...tree import worktree

    edits, _ = parse(text, dialect)
    folder = g.folder(cwd)
    out: dict[str, None] = {}
    for edit in edits.files if edits is not None else ():
        for raw in (edit.path, edit.old_path):
            rel, refused = paths.resolve(g.root, paths.from_folder(folder, raw)) if raw else (None, None)
            if rel is None or refused is not None:
                continue  # outside the tree, or in git's own folders: nothing agent-guard may write there
            try:
                worktree.read(g.root, rel)
            except (worktree.UnsafePath, OSError):
                continue  # not a regular file: the agent cannot have written it either
            out[rel] = None
    return list(out)


def _after(g: Guard, call: HookCall, edit: tuple[str, str], turn: str | None, name: str) -> Answer:
    """Record what landed as the agent's turn (`edit`: the patch's text and dialect); undo a write
    the pre hook had denied."""
    kept = patch_stash.take(g, name)
    if kept is None:
        return call.form.report(
            f"agent-guard: cannot record this {call.tool}: no stash from before it ran (tool_use_id "
            f"{call.data.get('tool_use_id')!r}); is {call.tool} in the PreToolUse hook's matcher?"
        )
    denied = [k for k in kept if isinstance(k, stash.Denied)]
    if denied:
        return _undo(g, call, denied)
    return _record(g, call, [k for k in kept if isinstance(k, stash.Passed)], edit, turn)


def _record(g: Guard, call: HookCall, kept: list[stash.Passed], edit: tuple[str, str], turn: str | None) -> Answer:
    """Each stashed file as it is now against its stashed content: one turn of the agent."""
    from ...report import Report, events
    from ...tree import worktree
    from .post_edit import change_of, made_dirs, tools_part

    if not kept:
        return Answer(0)
    changes: list[FileChange] = []
    made: list[str] = []
    unclear: list[str] = []
    for entry in kept:
        try:
            after, mode = worktree.read(g.root, entry.path)
        except (worktree.UnsafePath, OSError) as exc:
            return call.form.report(f"agent-guard: cannot read {entry.path} to record this {call.tool}: {exc}")
        if entry.intended is not None and _as_written(after, entry.intended):
            entry = replace(entry, intended=None)  # what the patch says, as the agent's applier writes it
        before, said = tools_part(entry.path, call.tool, entry, after)
        if said is not None:
            unclear.append(said)
        if before != after:
            changes.append(change_of(entry.path, entry, before, after, mode))
            made += made_dirs(entry.path, entry) if after is not None else []
    first, edit_bytes = kept[0], len(edit[0].encode("utf-8", "surrogatepass"))
    landed: Report = Report("applied", None)
    if changes:
        recorded = g.record(
            changes, agent=first.agent, turn=first.turn or turn, dialect=edit[1], edit_bytes=edit_bytes, created_dirs=made
        )
        landed = Report("applied", None, changes=tuple(changes), turn=recorded)
    decision = events.Decision("apply", first.agent, first.turn or turn, edit_bytes, first.duration, call.tool)
    events.record(g.repo.commondir, decision, landed, warnings=list(first.warnings))
    return Answer(0) if not unclear else call.form.tell("\n".join(unclear), call.data.get("tool_response"))


def _as_written(now: bytes | None, intended: bytes) -> bool:
    """`now` is agent-guard's result but for line ends and the final newline, which the agent's own
    applier writes its way."""
    if now is None:
        return False
    a, b = now.replace(b"\r\n", b"\n"), intended.replace(b"\r\n", b"\n")
    return a == b or a.rstrip(b"\n") == b.rstrip(b"\n")


def _undo(g: Guard, call: HookCall, denied: list[stash.Denied]) -> Answer:
    """The pre hook denied the patch, and the agent applied it anyway: put each file it changed back,
    record nothing as the agent's, and tell the model."""
    from ...repo import FILE
    from ...report import Report, events
    from ...tree import worktree
    from .post_edit import put_back

    writes, notes = [], []
    for entry in denied:
        try:
            now, mode = worktree.read(g.root, entry.path)
        except (worktree.UnsafePath, OSError) as exc:
            return call.form.tell(
                f"agent-guard: this {call.tool} was refused, and {entry.path} cannot be checked now: {exc}", None
            )
        if now != entry.before:
            restored, note = put_back(g, entry, now)
            writes.append(worktree.Write(entry.path, now, restored, mode, entry.mode or mode or FILE))
            notes.append(note)
    if not writes:
        return Answer(0)  # the denial held: nothing was written
    with worktree.locked(g.repo):
        worktree.write(g.repo, writes)
    first = denied[0]
    events.record(g.repo.commondir, events.Decision("apply", first.agent, first.turn, tool=call.tool), Report("refused", None))
    names = ", ".join(w.path for w in writes)
    return call.form.tell(
        f"agent-guard: this {call.tool} had been refused before it ran, and was applied anyway; agent-guard put "
        f"{names} back as they were (nothing was recorded as {first.agent}'s).{''.join(notes)} Why it was refused:\n"
        + "\n".join(first.reasons),
        None,
    )


def _outside(call: HookCall, text: str, dialect: str, cwd: str) -> Answer:
    """The session runs outside every repository: a patch that names a file of one is denied (its
    relative paths would be read from here, which agent-guard does not check from); a write into
    a git directory or a harness's settings is denied; anything else is not ours."""
    from ...dialects import parse
    from ...model import error

    if call.event != "PreToolUse":
        return Answer(0)
    edits, _ = parse(text, dialect)
    for edit in edits.files if edits is not None else ():
        for raw in (edit.path, edit.old_path):
            if not raw:
                continue
            held = outside_write(raw, cwd)
            if held is not None:
                return call.form.deny(why_refused([held]))
            found = locate(raw, cwd, call.policy)
            if found is not None:
                root = found[0].root
                refused = error(
                    "path-outside",
                    raw,
                    None,
                    f"{raw!r} is a file of the repository {root}, but this session runs in {cwd}, outside "
                    "every repository: agent-guard checks a patch from the repository the session runs in",
                    f"start the agent in {root}, or send the patch with `git -C {root} agent-apply`",
                )
                return call.form.deny(why_refused([refused]))
    return Answer(0)
