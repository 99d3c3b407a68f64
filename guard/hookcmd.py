"""Agent hooks: ``agent-guard hook claude-code`` puts Claude Code's own file tools under the guard.

Claude Code runs a command hook with one JSON payload on standard input
(``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``,
``tool_use_id``...).  One command serves both events; ``hook_event_name`` says which:

``PreToolUse`` (Edit, MultiEdit, Write; NotebookEdit is passed through)
    The edit is worked out exactly as the tool will make it (``old_string`` must
    occur once unless ``replace_all``; MultiEdit's edits apply in sequence) and the
    diff to the resulting file is checked against the policy with
    ``Guard.apply(check=True)``: nothing is written.  When the tool's exact match
    would fail, the edit goes to the engine as written, whose findings say why.  A refusal answers ``permissionDecision: deny`` with the
    findings and hints as the reason, which Claude Code shows the model; a pass
    answers ``allow`` (``--on-pass ask`` or ``defer`` keep Claude Code's own
    permission prompt).  Before answering, the file's current content is stashed
    (its blob in the object database, the blob id in
    ``<git common dir>/agent-guard/hooks/claude-code/<tool_use_id>.json``).
    NotebookEdit is only checked for its path (protected, outside); its cells are
    JSON, not lines an agent wrote.

``PostToolUse``
    Claude Code has written the file.  The turn is recorded on the agent's shadow
    ref with the stashed content as *before* and the file on disk as *after*
    (``Guard.record``), so ``git agent-log`` and ``git agent-rollback`` cover it.
    Without a stash (the pre hook was not installed) the tool's ``originalFile`` is
    the *before*, when Claude Code reports one.  A PostToolUse of ``Read`` (only when
    the settings' matcher adds it) records the lines Claude was shown, as
    ``git agent-read`` does, so ``read_before_edit`` policies count Claude's reads.

Exit statuses follow Claude Code's hook protocol, not ``apply``'s: 0 with the JSON
answer on standard output; 2 with the reason on standard error blocks the tool
(an unreadable payload or an internal error in the pre hook: the guard fails
closed); 1 is a non-blocking error (the post hook could not record a write that
already happened).  Files outside the repository, other tools, other events and
folders that are not in a git repository are not ours: exit 0, no output.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import click

from .cli import CONTEXT, cli

EDIT_TOOLS = ("Edit", "MultiEdit", "Write")
PASSED = ("NotebookEdit",)
READ = "Read"  # PostToolUse only, when the settings add it: records what Claude read
READ_LIMIT = 2000  # lines Claude Code's Read shows when the call gives no limit
STASH_DAYS = 1  # stashes whose post hook never came (the tool failed) are dropped after this


class HookError(Exception):
    """A payload the hook cannot act on."""


class Answer(NamedTuple):
    code: int
    stdout: str = ""
    stderr: str = ""


# ---------------------------------------------------------------------- payload


def _payload(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise HookError("no hook payload on standard input (Claude Code sends one JSON object)")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise HookError(f"the hook payload is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HookError(f"the hook payload must be a JSON object, not {type(data).__name__}")
    event = data.get("hook_event_name")
    if not isinstance(event, str):
        raise HookError('the hook payload has no "hook_event_name" (expected "PreToolUse" or "PostToolUse")')
    return data


def _tool_input(data: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
    """(tool name, tool input, the file it writes as written by the tool)."""
    tool = data.get("tool_name")
    ti = data.get("tool_input")
    if not isinstance(ti, dict):
        raise HookError(f'the {tool} payload has no "tool_input" object')
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    target = ti.get(key)
    if not isinstance(target, str) or not target:
        raise HookError(f'the {tool} tool input has no "{key}" string (keys: {", ".join(sorted(ti)) or "none"})')
    return str(tool), ti, target


def _repo_path(root: Path, cwd: str, target: str) -> str | None:
    """The target relative to the repository (validated later), or None when it lies outside."""
    full = os.path.normpath(os.path.join(cwd, target))
    for base in dict.fromkeys((str(root), os.path.realpath(root))):
        if full.startswith(base.rstrip("/") + "/"):
            return full[len(base.rstrip("/")) + 1:]
    # The folder may be reached through a symlink (a linked home, /tmp on macOS): resolve the
    # folder, never the file itself, so a linked file inside the repository stays a finding.
    parent = os.path.realpath(os.path.dirname(full))
    if parent == str(root) or parent.startswith(str(root) + "/"):
        return os.path.relpath(os.path.join(parent, os.path.basename(full)), root)
    return None


def _turn(data: dict[str, Any], turn: str | None) -> str | None:
    """`--turn`, $AGENT_GUARD_TURN, else one turn per user prompt when Claude Code names the prompt."""
    if turn:
        return turn
    if os.environ.get("AGENT_GUARD_TURN"):
        return os.environ["AGENT_GUARD_TURN"]
    prompt = data.get("prompt_id")
    if isinstance(prompt, str):
        hexed = re.sub(r"[^0-9a-fA-F]", "", prompt)[:8].lower()
        if hexed:
            return "p" + hexed
    return None


# ---------------------------------------------------------------------- stash


def _stash_dir(g) -> Path:  # type: ignore[no-untyped-def]
    from . import worktree

    d = worktree.state_dir(g.repo) / "hooks" / "claude-code"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _stash_name(data: dict[str, Any], rel: str) -> str:
    key = data.get("tool_use_id")
    if not isinstance(key, str) or not key:
        # Without an id, the session and path pair the two hooks of one call.
        key = f"{data.get('session_id', '')}-{rel}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)[:200] + ".json"


def _stash(g, data: dict[str, Any], rel: str, agent: str, turn: str | None) -> None:  # type: ignore[no-untyped-def]
    from . import worktree

    before, mode = worktree.read(g.root, rel)
    d = _stash_dir(g)
    cutoff = time.time() - STASH_DAYS * 86400
    for old in d.glob("*.json"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass
    doc = {"path": rel, "before": g.repo.write_blob(before) if before is not None else None, "mode": mode,
           "agent": agent, "turn": turn, "tool": data.get("tool_name"), "time": time.time()}
    tmp = d / f".{os.getpid()}.tmp"
    tmp.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(tmp, d / _stash_name(data, rel))


def _unstash(g, data: dict[str, Any], rel: str) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    path = _stash_dir(g) / _stash_name(data, rel)
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    return doc if isinstance(doc, dict) and doc.get("path") == rel else None


# ---------------------------------------------------------------------- PreToolUse


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


def _edit_for(g, tool: str, ti: dict[str, Any], rel: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The edit (text, dialect) whose check decides the tool call."""
    from . import diffs, worktree
    from .model import Op

    if tool == "Write":
        return json.dumps({"file_path": rel, "content": ti.get("content")}), "json"
    edits: list[Any] = ti.get("edits") if tool == "MultiEdit" else [  # type: ignore[assignment]
        {k: ti[k] for k in ("old_string", "new_string", "replace_all") if k in ti}]
    if not isinstance(edits, list):
        raise HookError('the MultiEdit tool input has no "edits" list')
    try:
        current, _ = worktree.read(g.root, rel)
    except (worktree.UnsafePath, OSError):
        current = None  # the check below reports the path
    if current is None and tool == "Edit" and ti.get("old_string") == "":
        # Edit with no old text creates the file.
        return json.dumps({"file_path": rel, "content": ti.get("new_string")}), "json"
    if current is not None:
        try:
            result = _simulate(current.decode("utf-8"), edits)
        except UnicodeDecodeError:
            result = None
        if result is not None and result.encode("utf-8") != current:
            # Check the file exactly as the tool will leave it, as a diff: the checks see the
            # lines it changes and a budget counts the size of the change, not of the file.
            return diffs.make_change(rel, Op.MODIFY, current, result.encode("utf-8")).diff, "unified"
    # The tool's exact match fails, or changes nothing: the engine's locator explains why.
    return json.dumps({"file_path": rel, "edits": edits}), "json"


def _decision(decision: str, reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}})


def _pass(on_pass: str, reason: str) -> Answer:
    return Answer(0, "" if on_pass == "defer" else _decision(on_pass, reason) + "\n")


def _refusal(report) -> str:  # type: ignore[no-untyped-def]
    from .report import format_finding

    lines = ["agent-guard refused this edit; nothing was written. Fix what each finding says and retry."]
    lines += [format_finding(f) for f in report.findings]
    return "\n".join(lines)


def pre(g, data: dict[str, Any], rel: str, tool: str, ti: dict[str, Any], agent: str, turn: str | None, on_pass: str) -> Answer:  # type: ignore[no-untyped-def]
    from . import paths
    from .report import format_finding

    pol = g.policy(agent)
    if tool in PASSED:
        rel2, finding = paths.resolve(g.root, rel)
        if finding is None and rel2 is not None:
            finding = paths.protected_finding(rel2, pol)
        if finding is not None and finding.severity == "error":
            return Answer(0, _decision("deny", "agent-guard refused this edit; nothing was written.\n" + format_finding(finding)) + "\n")
        _stash(g, data, rel2 or rel, agent, turn)
        return _pass(on_pass, f"agent-guard: {tool} of {rel} passed through (path checked only)")
    text, fmt = _edit_for(g, tool, ti, rel)
    report = g.apply(text, format=fmt, agent=agent, turn=turn, check=True)
    if report.status == "refused":
        return Answer(0, _decision("deny", _refusal(report)) + "\n")
    _stash(g, data, report.changes[0].path if report.changes else rel, agent, turn)
    warnings = [format_finding(f) for f in report.findings]
    return _pass(on_pass, "\n".join([f"agent-guard: {tool} of {rel} checked"] + warnings))


# ---------------------------------------------------------------------- PostToolUse


def post(g, data: dict[str, Any], rel: str, tool: str, agent: str, turn: str | None) -> Answer:  # type: ignore[no-untyped-def]
    from . import diffs, paths, worktree
    from .model import Op

    rel2, finding = paths.resolve(g.root, rel)
    if finding is not None or rel2 is None:
        return Answer(1, stderr=f"agent-guard: not recording {rel}: {finding.message if finding else 'bad path'}\n")
    stash = _unstash(g, data, rel2)
    if stash is not None:
        before = g.repo.read_blob(stash["before"]) if stash.get("before") else None
        old_mode = stash.get("mode")
        agent, turn = stash.get("agent") or agent, stash.get("turn") or turn
    else:
        resp = data.get("tool_response")
        original = resp.get("originalFile") if isinstance(resp, dict) else None
        if isinstance(original, str):
            before, old_mode = original.encode("utf-8"), None
        elif isinstance(resp, dict) and resp.get("type") == "create":
            before, old_mode = None, None
        else:
            return Answer(1, stderr=(
                f"agent-guard: cannot record {tool} of {rel2}: no content from before the tool ran "
                f"(tool_use_id {data.get('tool_use_id')!r} has no stash); install the PreToolUse hook too\n"))
    try:
        after, new_mode = worktree.read(g.root, rel2)
    except (worktree.UnsafePath, OSError) as exc:
        return Answer(1, stderr=f"agent-guard: cannot read {rel2} to record it: {exc}\n")
    if before == after:
        return Answer(0)
    op = Op.CREATE if before is None else Op.DELETE if after is None else Op.MODIFY
    change = diffs.make_change(rel2, op, before, after, old_mode=(old_mode or new_mode) if before is not None else None,
                               new_mode=new_mode if after is not None else None)
    fmt = "whole" if tool in PASSED or tool == "Write" else "json"
    g.record([change], agent=agent, turn=turn, fmt=fmt, nbytes=len(json.dumps(data.get("tool_input"))))
    return Answer(0)


def note_read(g, rel: str, ti: dict[str, Any], agent: str) -> Answer:  # type: ignore[no-untyped-def]
    """Record the lines Claude's Read showed, so `read_before_edit` policies count Claude's reads."""
    from . import paths, reads, worktree

    rel2, finding = paths.resolve(g.root, rel)
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
    count = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else READ_LIMIT
    last = min(first + count - 1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))
    with worktree.locked(g.repo):
        reads.record(g.repo, agent, rel2, g.repo.write_blob(data), (first, last) if first <= last else None)
    return Answer(0)


# ---------------------------------------------------------------------- command


def claude_code(raw: bytes, agent: str | None, turn: str | None, policy: str | None, on_pass: str) -> Answer:
    """Answer one Claude Code hook call (the payload's bytes)."""
    from .engine import Guard, default_agent
    from .errors import UsageError

    try:
        data = _payload(raw)
    except HookError as exc:
        return Answer(2, stderr=f"agent-guard hook: {exc}\n")
    event = data["hook_event_name"]
    if event not in ("PreToolUse", "PostToolUse"):
        return Answer(0)
    blocking = 2 if event == "PreToolUse" else 1  # a post hook cannot undo the write: never block
    tool_name = data.get("tool_name")
    if tool_name not in EDIT_TOOLS + PASSED and not (tool_name == READ and event == "PostToolUse"):
        return Answer(0)
    try:
        tool, ti, target = _tool_input(data)
        given = data.get("cwd")
        cwd = given if isinstance(given, str) and given else os.getcwd()
        try:
            g = Guard(cwd, policy)
        except UsageError:
            return Answer(0)  # not a git repository: nothing of ours to guard or record
        rel = _repo_path(g.root, cwd, target)
        if rel is None:
            return Answer(0)  # outside the repository: Claude Code's own permissions decide
        agent = default_agent(agent or os.environ.get("AGENT_GUARD_AGENT") or "claude")
        turn = _turn(data, turn)
        session = data.get("session_id")
        saved = os.environ.get("AGENT_GUARD_SESSION")
        if saved is None and isinstance(session, str) and session:
            os.environ["AGENT_GUARD_SESSION"] = session  # per-session budgets follow Claude Code's session
        try:
            if event == "PreToolUse":
                return pre(g, data, rel, tool, ti, agent, turn, on_pass)
            if tool == READ:
                return note_read(g, rel, ti, agent)
            return post(g, data, rel, tool, agent, turn)
        finally:
            if saved is None:
                os.environ.pop("AGENT_GUARD_SESSION", None)
    except HookError as exc:
        return Answer(blocking, stderr=f"agent-guard hook: {exc}\n")
    except UsageError as exc:
        return Answer(blocking, stderr=f"agent-guard hook: {exc}\n")
    except Exception as exc:  # fail closed before the write, report after it
        if os.environ.get("AGENT_GUARD_DEBUG"):
            raise
        what = "the edit was blocked" if blocking == 2 else "the write was not recorded"
        return Answer(blocking, stderr=f"agent-guard hook: internal error ({type(exc).__name__}: {exc}); {what}\n")


@cli.group("hook", context_settings=CONTEXT)
def hook_group() -> None:
    """Adapters that put agents' own edit tools under the guard."""


@hook_group.command("claude-code", context_settings=CONTEXT)
@click.option("--agent", default=None, help="Agent name (default: $AGENT_GUARD_AGENT, else 'claude').")
@click.option("--turn", default=None, help="Turn id (default: one turn per user prompt, else one per tool call).")
@click.option("--policy", default=None, help="Preset name or policy file (default: .agent-guard.yaml, else 'default').")
@click.option("--on-pass", type=click.Choice(["allow", "ask", "defer"]), default="allow", show_default=True,
              help="Answer for an edit that passes: allow (skip Claude Code's prompt), ask, or defer (no answer).")
def claude_code_cmd(agent: str | None, turn: str | None, policy: str | None, on_pass: str) -> None:
    """Claude Code PreToolUse/PostToolUse hook: payload on standard input.

    PreToolUse: check Edit/MultiEdit/Write against the policy without writing and
    answer deny (with the findings) or allow.  PostToolUse: record what the tool
    wrote as a turn on the shadow ref.  Exit 0 with JSON on standard output; 2
    blocks the tool (unreadable payload before the write); 1 reports a post-hook
    failure without blocking.
    """
    answer = claude_code(sys.stdin.buffer.read(), agent, turn, policy, on_pass)
    if answer.stdout:
        click.echo(answer.stdout, nl=False)
    if answer.stderr:
        click.echo(answer.stderr, nl=False, err=True)
    sys.exit(answer.code)
