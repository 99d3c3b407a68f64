"""A file tool's PreToolUse: the edit worked out as the tool will make it, checked, and stashed.

The file and its repository come from the tool's ``file_path`` (``payload.locate``); the
path goes to the resolver ``agent-apply`` uses.  The edit is worked out exactly as the tool
will make it (``old_string`` must occur once unless ``replace_all``; MultiEdit's edits apply
in sequence) and the diff to the resulting file is checked against the policy with
``Guard.apply(check=True)``: nothing is written.  When the tool's exact match would fail,
the edit goes to the engine as written, whose findings say why.  Either way the file's
content is stashed (``stash``) for the post hook.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from . import stash
from .answer import Answer, PayloadError, why_refused
from .payload import PASSED, HookCall, session_cwd

if TYPE_CHECKING:
    from ...pipeline.engine import Guard
    from ...report.audience import Audience


def pre(g: Guard, call: HookCall, rel: str, ti: dict[str, Any], agent: str, turn: str | None) -> Answer:
    """`rel` is the path in the repository as the tool wrote it, not yet resolved; `ti` the tool's input.

    A refusal is logged for `stats` here; a pass is not: the post hook logs the tool call
    once its write has landed, so each call counts once, with its real outcome.  Either
    way the file's content is stashed, with what the tool will make of it: a pass's post
    hook records the tool's own change, a denial's undoes a write that went through anyway.

    The policy's verify commands run on the edit's result by the call's deadline (less a
    moment to answer): one that cannot finish by then denies.  A formatter's changes cannot
    be taken into the tool's edit: they deny, with the diff to send instead.
    """
    from ...model import error
    from ...report.render import finding_text

    tool = call.tool
    started = time.monotonic()
    edit_bytes = len(json.dumps(ti))  # the tool input stands for the edit
    pol = g.policy(agent)
    # The engine's resolver: outside, git's own folders, protected paths, submodules.
    resolved, finding = g.resolve(rel, pol)
    if finding is not None or resolved is None:
        refusal = finding or error("path-outside", rel, None, f"{rel!r} is not a file of the repository")
        _stash_denial(g, call, rel, agent, turn, [refusal])
        return _refuse(g, call, refusal, agent, turn, edit_bytes, started)
    if tool in PASSED:
        from ...files.target import special_file
        from ...tree import worktree

        try:
            kept = _passed(g, resolved, agent, turn, None, [], time.monotonic() - started)
        except worktree.NotAFile as exc:  # a pipe there would hold the tool's read, and the hook's
            return _refuse(g, call, special_file(exc, creates=False), agent, turn, edit_bytes, started)
        stash.write(g, stash.name(call.data, resolved), kept)
        return call.form.passing(call.on_pass, f"agent-guard: {call.shown} of {resolved} passed through (path checked only)", [])
    text, dialect, intended = _edit_for(g, tool, ti, resolved)
    report = g.apply(
        text,
        format=dialect,
        agent=agent,
        turn=turn,
        check=True,
        cwd=g.root,
        audience=_audience(g, call),
        tool=tool,
        log_pass=False,
        verify_deadline=call.verify_by,
        verify_fixes=False,
    )
    target = report.changes[0].path if report.changes else resolved
    if report.status == "refused":
        _stash_denial(g, call, target, agent, turn, report.findings, intended)
        return call.form.deny(why_refused(report.findings, report.suggestion))
    warned = [f.code for f in report.findings if f.severity != "error"]
    kept = _passed(g, target, agent, turn, intended, warned, time.monotonic() - started)
    stash.write(g, stash.name(call.data, target), kept)
    said = [finding_text(f) for f in report.findings] + [f"note: {n}" for n in report.notes]
    said += _unapplied_repairs(report)
    return call.form.passing(call.on_pass, f"agent-guard: {call.shown} of {resolved} checked", said)


def _passed(
    g: Guard, rel: str, agent: str, turn: str | None, intended: bytes | None, warned: list[str], took: float
) -> stash.Passed:
    """The stash of a call the check passed: the file as it is now, and the folders the tool will make
    on the way to it (the turn's: a rollback takes them away again once they are empty)."""
    from ...tree import worktree

    before, mode = worktree.read(g.root, rel)
    try:
        missing = worktree.missing_dirs(g.root, [rel])
    except worktree.UnsafePath:
        missing = []
    return stash.Passed(
        path=rel,
        before=before,
        mode=mode,
        intended=intended,
        agent=agent,
        turn=turn,
        missing_dirs=tuple(missing),
        warnings=tuple(warned),
        duration=took,
    )


def _stash_denial(
    g: Guard, call: HookCall, rel: str, agent: str, turn: str | None, findings: Any, intended: bytes | None = None
) -> None:
    """Note a denied call, so that a PostToolUse for it (a build that let it through) undoes the write.
    `rel` as the tool named it: a path the resolver refused may still be a file of the tree."""
    from ...files import paths
    from ...report.render import finding_text
    from ...tree import worktree

    plain, refused = paths.resolve(g.root, rel)
    if plain is None or refused is not None:
        return  # outside the tree, or in git's own folders: nothing agent-guard may write there
    try:
        before, mode = worktree.read(g.root, plain)
        reasons = tuple(finding_text(f) for f in findings) or ("refused",)
        kept = stash.Denied(path=plain, before=before, mode=mode, intended=intended, agent=agent, turn=turn, reasons=reasons)
        stash.write(g, stash.name(call.data, plain), kept)
    except (worktree.UnsafePath, OSError):
        pass  # not a regular file: the tool cannot have written it either


def _refuse(g: Guard, call: HookCall, finding: Any, agent: str, turn: str | None, edit_bytes: int, started: float) -> Answer:
    """Deny for a finding the hook made itself (the engine logs its own refusals)."""
    from ...report import Report, events

    report = Report("refused", None, findings=(finding,))
    events.record(
        g.repo.commondir, events.Decision("apply", agent, turn, edit_bytes, time.monotonic() - started, call.tool), report
    )
    return call.form.deny(why_refused(report.findings))


def _simulate(text: str, edits: list[Any]) -> str | None:
    """The file after `edits` as Claude Code makes them (exact, in order), or None when one fails."""
    for e in edits:
        if not isinstance(e, dict):
            return None
        old, new = e.get("old_string"), e.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        n = text.count(old)
        if n == 0 or (n > 1 and e.get("replace_all") is not True):
            return None
        text = text.replace(old, new) if e.get("replace_all") is True else text.replace(old, new, 1)
    return text


def _edit_for(g: Guard, tool: str, ti: dict[str, Any], rel: str) -> tuple[str, str, bytes | None]:
    """The edit (text, dialect) whose check decides the tool call, and the file as the tool will
    leave it (None when the tool's own match would fail); `rel` is resolved."""
    from ...model import Op
    from ...tree import diffs, worktree

    if tool == "Write":
        content = ti.get("content")
        made = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else None
        return json.dumps({"file_path": rel, "content": content}), "json", made
    edits: list[Any] = (
        ti.get("edits")
        if tool == "MultiEdit"
        else [  # type: ignore[assignment]
            {k: ti[k] for k in ("old_string", "new_string", "replace_all") if k in ti}
        ]
    )
    if not isinstance(edits, list):
        raise PayloadError('the MultiEdit tool input has no "edits" list')
    try:
        current, _ = worktree.read(g.root, rel)
    except (worktree.UnsafePath, OSError):
        current = None  # the check below reports the path
    if current is None and tool == "Edit" and ti.get("old_string") == "":
        # Edit with no old text creates the file.
        new = ti.get("new_string")
        made = new.encode("utf-8", "surrogatepass") if isinstance(new, str) else None
        return json.dumps({"file_path": rel, "content": new}), "json", made
    if current is not None:
        try:
            result = _simulate(current.decode("utf-8"), edits)
        except UnicodeDecodeError:
            result = None
        if result is not None and result.encode("utf-8", "surrogatepass") != current:
            # Check the file exactly as the tool will leave it, as a diff: the checks see the
            # lines it changes and a budget counts the size of the change, not of the file.
            made = result.encode("utf-8", "surrogatepass")
            return diffs.make_change(rel, Op.MODIFY, current, made).diff, "unified", made
    # The tool's exact match fails, or changes nothing: the engine's locator explains why.
    return json.dumps({"file_path": rel, "edits": edits}), "json", None


def _unapplied_repairs(report: Any) -> list[str]:
    """What agent-guard would have repaired in its own apply, but cannot in Claude's: say so, so that
    the model mends it (a `whitespace: fix` repair of trailing blanks, say)."""
    out: list[str] = []
    for c in report.changes:
        if "whitespace-fix" in c.repairs:
            out.append(
                f"{c.path}: warning: whitespace: lines this edit adds end in blanks or hold a space before "
                "a tab; agent-guard fixes that in its own applies but cannot rewrite this tool's edit: "
                "remove them (the policy's whitespace check)"
            )
    return out


def _audience(g: Guard, call: HookCall) -> Audience:
    """Whom a refusal's hints speak to: Claude Code's own Read and Write tools, whose calls its
    hooks record; any other agent's shell, where `git agent-read` records a read (its own read
    tool is not hooked, so a read through it is not one agent-guard knows of)."""
    from ...report.audience import Audience

    if call.form.name == "claude-code":
        return Audience("claude-code", root=str(g.root))
    return Audience("cli", g.folder(session_cwd(call)))
