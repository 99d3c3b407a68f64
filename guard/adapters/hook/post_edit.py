"""A file tool's PostToolUse: the tool's own change recorded as the agent's turn; and Read.

Claude Code has written the file.  The turn is recorded on the agent's shadow ref with the
stashed content as *before* and the file on disk as *after* (``Guard.record``), so ``git
agent-log`` and ``git agent-rollback`` cover it.  Without a stash (the pre hook was not
installed) the tool's ``originalFile`` is the *before*, when Claude Code reports one.  An agent
that reports the file's text before and after its write (``HookCall.told``: Gemini CLI) is
taken at its word: its *before* where there is no stash, its *after* as what the tool made of
the file, which tells the tool's change from what others changed meanwhile.  The
tool call is then logged for ``agent-guard stats`` under its own name (a denial was logged
by the pre hook), so each call counts once, with its real outcome.  A call the pre hook
denied and Claude Code wrote anyway is undone.  A PostToolUse of ``Read`` (only when the
settings' matcher adds it) records the lines Claude was shown, as ``git agent-read`` does,
so ``read_before_edit`` policies count Claude's reads.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import stash
from .answer import Answer
from .payload import PASSED, HookCall, Told

if TYPE_CHECKING:
    from ...model import FileChange
    from ...pipeline.engine import Guard

READ_LINES = 2000  # lines Claude Code's Read shows when the call gives no limit


def post(g: Guard, call: HookCall, rel: str, agent: str, turn: str | None) -> Answer:
    """Record the tool's own change as the agent's turn; undo a write the pre hook had denied.

    One case each: the pre hook denied the call (``_denied``), passed it (``_stashed``), or left
    no stash (``_unstashed``).  `rel` is the path in the repository as the tool wrote it; the
    stash's agent and turn are the pre hook's.
    """
    from ...files import paths

    resolved, finding = paths.resolve(g.root, rel)
    if finding is not None or resolved is None:
        return call.form.report(f"agent-guard: not recording {rel}: {finding.message if finding else 'bad path'}")
    kept = stash.take(g, stash.name(call.data, resolved), resolved)
    if isinstance(kept, stash.Denied):
        return _denied(g, call, resolved, kept, kept.turn or turn)
    if isinstance(kept, stash.Passed):
        return _stashed(g, call, resolved, kept, kept.turn or turn)
    return _unstashed(g, call, resolved, agent, turn)


def _unstashed(g: Guard, call: HookCall, rel: str, agent: str, turn: str | None) -> Answer:
    """No stash from the pre hook (it was not installed, or none is this call's): the file before
    the tool is what the agent reports (``HookCall.told``; Claude Code's ``originalFile``, the
    file it read), or none for a ``create``; without either, nothing can be recorded."""
    from ...tree import worktree

    resp = call.data.get("tool_response")
    original = resp.get("originalFile") if isinstance(resp, dict) else None
    before: bytes | None
    if call.told is not None:
        try:
            now, _ = worktree.read(g.root, rel)
        except (worktree.UnsafePath, OSError) as exc:
            return call.form.report(f"agent-guard: cannot read {rel} to record it: {exc}")
        before = None if call.told.before is None else on_disk(call.told.before, now, call.told)
    elif isinstance(original, str):
        before = original.encode("utf-8")
    elif isinstance(resp, dict) and resp.get("type") == "create":
        before = None
    else:
        return call.form.report(
            f"agent-guard: cannot record {call.shown} of {rel}: no content from before the tool ran "
            f"(tool_use_id {call.data.get('tool_use_id')!r} has no stash); install the PreToolUse hook too"
        )
    told = stash.Passed(
        path=rel, before=before, mode=None, intended=None, agent=agent, turn=turn, missing_dirs=(), warnings=(), duration=0.0
    )
    return _stashed(g, call, rel, told, turn)


def _stashed(g: Guard, call: HookCall, rel: str, kept: stash.Passed, turn: str | None) -> Answer:
    """Record the tool's change as `kept.agent`'s turn, and log the call; `kept` is the stash of a call
    the pre hook passed, or what Claude Code reports when there is none (``_unstashed``).

    The file on disk may hold more than the tool's change: while Claude Code waited on its
    permission prompt, another agent or a person may have edited it.  The tool's change is
    what the pre hook worked out (the stashed content, and the tool's result on it); git's
    merge rule takes it back out of the file on disk, which leaves what everyone else did,
    and the turn is recorded from there (the ledger's sync commit records their part as not
    the agent's).  Where the other change touches the same lines, nobody can tell the two
    apart: nothing is given to the agent, and the hook says so.
    """
    from ...report import Report, events
    from ...tree import worktree

    try:
        after, new_mode = worktree.read(g.root, rel)
    except (worktree.UnsafePath, OSError) as exc:
        return call.form.report(f"agent-guard: cannot read {rel} to record it: {exc}")
    if call.told is not None:
        kept = _as_told(kept, call.told, after)
    before, unclear = tools_part(rel, call.shown, kept, after)
    edit_bytes = len(json.dumps(call.data.get("tool_input")))
    landed = Report("applied", None)
    if before != after:
        change = change_of(rel, kept, before, after, new_mode)
        recorded = g.record(
            [change],
            agent=kept.agent,
            turn=turn,
            dialect="whole" if call.tool in PASSED or call.tool == "Write" else "json",
            edit_bytes=edit_bytes,
            created_dirs=made_dirs(rel, kept) if after is not None else [],  # the file is there: so are they
        )
        landed = Report("applied", None, changes=(change,), turn=recorded)
    # The tool call counts once, now that it landed, with what the pre hook's check warned about.
    decision = events.Decision("apply", kept.agent, turn, edit_bytes, kept.duration, call.tool)
    events.record(g.repo.commondir, decision, landed, warnings=list(kept.warnings))
    return Answer(0) if unclear is None else call.form.tell(unclear, call.data.get("tool_response"))


def _as_told(kept: stash.Passed, told: Told, after: bytes | None) -> stash.Passed:
    """`kept` with what the agent says its tool did: the file as the tool left it (`intended`), and
    as the tool found it (`before`) where that is not what the pre hook saw (someone changed the
    file in between, while the agent waited for the user's approval).  The pre hook's bytes stay
    where the two are the same text: they are the file's exactly, BOM and line ends and all."""
    before = kept.before
    found = None if told.before is None else on_disk(told.before, after, told)
    if found is None or before is None or not _same_text(found, before):
        try:
            (before or b"").decode("utf-8")
            before = found  # the agent read the file as UTF-8 text: its words are the file's
        except UnicodeDecodeError:
            pass  # the agent's text of a file that is not UTF-8 is not its bytes
    return replace(kept, before=before, intended=on_disk(told.after, after, told))


def on_disk(text: str, now: bytes | None, told: Told) -> bytes:
    """A text the agent reported (`told`'s), as the file's bytes: UTF-8, with CRLF line ends again
    where the agent made them LF and the file on disk (`now`) has them."""
    data = text.encode("utf-8", "surrogatepass")
    if told.lf_only and now is not None and b"\r\n" in now:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return data


def change_of(rel: str, kept: stash.Passed, before: bytes | None, after: bytes | None, new_mode: int | None) -> FileChange:
    """The turn's change to `rel`: `before` to `after`, in the stashed mode before (the file's, without one)."""
    from ...model import Op
    from ...tree import diffs

    op = Op.CREATE if before is None else Op.DELETE if after is None else Op.MODIFY
    return diffs.make_change(
        rel,
        op,
        before,
        after,
        old_mode=(kept.mode or new_mode) if before is not None else None,
        new_mode=new_mode if after is not None else None,
    )


def made_dirs(rel: str, kept: stash.Passed) -> list[str]:
    """The folders the pre hook found missing on the way to the file, which the tool made: a rollback
    of the turn takes them away again once they are empty."""
    parents = {rel.rsplit("/", n)[0] for n in range(1, rel.count("/") + 1)}
    return [d for d in kept.missing_dirs if d in parents]


def tools_part(rel: str, tool: str, kept: stash.Passed, after: bytes | None) -> tuple[bytes | None, str | None]:
    """The *before* of the turn, and what the model must be told (None: nothing): the stashed
    content, unless others changed the file too while the tool waited; then the file as they left
    it, or, where their change and the tool's cannot be told apart, the file now (nothing
    recorded) and a message that says so."""
    before, intended = kept.before, kept.intended
    if before == after or intended is None or _same_text(after, intended):
        return before, None
    others = _others_change(before, intended, after)
    if others is not None:
        return others, None  # the file as everyone else left it: the turn is the tool's change alone
    return after, (
        f"agent-guard: {rel} also changed while this {tool} waited (another agent, or a person), in "
        f"or next to the lines the {tool} changed: the two cannot be told apart, so nothing was recorded "
        f"as {kept.agent}'s turn and `git agent-rollback` will not undo this {tool}. Read the file again "
        "before the next edit."
    )


def _same_text(a: bytes | None, b: bytes | None) -> bool:
    """Equal but for line ends: Claude Code writes an edit with the file's own line ends."""
    return a == b or (a is not None and b is not None and a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n"))


def _others_change(before: bytes | None, intended: bytes, now: bytes | None) -> bytes | None:
    """The file as others left it: `now` with the tool's change (`before` -> `intended`) taken back
    out by git's merge rule; None where the two changes touch and cannot be told apart."""
    from ...repo.merge import merge_file

    if now is None or before is None:
        return None  # created or deleted meanwhile as well: no line of either to tell apart
    merged = merge_file(intended, now, before)
    return merged.data if merged.clean else None


def _denied(g: Guard, call: HookCall, rel: str, kept: stash.Denied, turn: str | None) -> Answer:
    """The pre hook denied the call, and the agent wrote it anyway: put the file back
    (``put_back``), record nothing as the agent's, and tell the model."""
    from ...repo import FILE
    from ...report import Report, events
    from ...tree import worktree

    try:
        now, mode = worktree.read(g.root, rel)
    except (worktree.UnsafePath, OSError) as exc:
        return call.form.tell(f"agent-guard: {call.shown} of {rel} was refused, and cannot be checked now: {exc}", None)
    if now == kept.before:
        return Answer(0)  # the denial held: nothing was written
    restored, kept_note = put_back(g, kept, now)
    with worktree.locked(g.repo):
        worktree.write(g.repo, [worktree.Write(rel, now, restored, mode, kept.mode or mode or FILE)])
    events.record(g.repo.commondir, events.Decision("apply", kept.agent, turn, tool=call.tool), Report("refused", None))
    return call.form.tell(
        f"agent-guard: this {call.shown} of {rel} had been refused before it ran, and was written anyway; agent-guard "
        f"put {rel} back as it was (nothing was recorded as {kept.agent}'s).{kept_note} Why it was refused:\n"
        + "\n".join(kept.reasons),
        None,
    )


def put_back(g: Guard, kept: stash.Denied, now: bytes | None) -> tuple[bytes | None, str]:
    """What a denied call's file goes back to, and a note for the message: the file as it is `now`
    with the tool's change taken out by git's merge rule, which keeps what others changed meanwhile;
    where that cannot be done, the content from before the call, with the overwritten one kept as
    a blob whose id the note gives."""
    from ...repo.merge import merge_file

    before, intended = kept.before, kept.intended
    restored = before
    if intended is not None and now is not None and before is not None:
        merged = merge_file(intended, now, before)
        if merged.clean:
            restored = merged.data
    if restored == before and now is not None and now != intended:
        return restored, f" What the file held just now is kept as blob {g.repo.write_blob(now)} (git cat-file -p <id> shows it)."
    return restored, ""


def note_read(g: Guard, rel: str, ti: dict[str, Any], agent: str) -> Answer:
    """Record the lines Claude's Read showed, so `read_before_edit` policies count Claude's reads.

    A path agent-guard would not show (protected, unless the policy says read_protected)
    is not recorded either: its content is never stored as a blob.
    """
    from ...record import reads
    from ...tree import worktree

    rel2, finding = g.resolve(rel, g.policy(agent), reading=True)
    if finding is not None or rel2 is None:
        return Answer(0)
    try:
        data, _ = worktree.read(g.root, rel2)
    except (worktree.UnsafePath, OSError):
        return Answer(0)
    if data is None:
        return Answer(0)
    offset, limit = ti.get("offset"), ti.get("limit")
    first = offset if isinstance(offset, int) and not isinstance(offset, bool) and offset > 0 else 1
    count = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else READ_LINES
    last = min(first + count - 1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))
    with worktree.locked(g.repo):
        reads.record(g.repo, g.reader(agent), rel2, g.repo.write_blob(data), (first, last) if first <= last else None)
    return Answer(0)
