"""Agent hooks: ``agent-guard hook claude-code`` puts Claude Code's own file tools under the guard.

Claude Code runs a command hook with one JSON payload on standard input
(``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``,
``tool_use_id``...).  One command serves both events; ``hook_event_name`` says which:

``PreToolUse`` (Edit, MultiEdit, Write; NotebookEdit is passed through)
    The file and its repository come from ``tool_input.file_path`` (a relative path
    is read from ``cwd``), not from the folder Claude Code started in: the path is
    split where its text would climb (``..``), the repository is looked for in the
    folders before that point, and the rest of the path, as written, goes to the
    resolver ``agent-apply`` uses (``paths.resolve``), which refuses a ``..`` that
    follows a symbolic link.  The edit is worked out exactly as the tool will make
    it (``old_string`` must occur once unless ``replace_all``; MultiEdit's edits
    apply in sequence) and the diff to the resulting file is checked against the
    policy with ``Guard.apply(check=True)``: nothing is written.  When the tool's
    exact match would fail, the edit goes to the engine as written, whose findings
    say why.  A refusal denies: exit 2 with the findings and hints on standard
    error, which Claude Code shows the model.  A pass grants nothing: no permission
    decision (warnings go back as ``additionalContext``), so Claude Code's own
    permission rules and prompts apply (``--on-pass ask`` asks the user every
    time).  Before answering, the file's current content is stashed (its blob in
    the object database, the blob id in
    ``<git common dir>/agent-guard/hooks/claude-code/<tool_use_id>.json``).
    NotebookEdit is only checked for its path (protected, outside); its cells are
    JSON, not lines an agent wrote.

``PostToolUse``
    Claude Code has written the file.  The turn is recorded on the agent's shadow
    ref with the stashed content as *before* and the file on disk as *after*
    (``Guard.record``), so ``git agent-log`` and ``git agent-rollback`` cover it.
    Without a stash (the pre hook was not installed) the tool's ``originalFile`` is
    the *before*, when Claude Code reports one.  The tool call is then logged for
    ``agent-guard stats`` under its own name (a denial was logged by the pre hook),
    so each call counts once, with its real outcome.  A PostToolUse of ``Read`` (only when
    the settings' matcher adds it) records the lines Claude was shown, as
    ``git agent-read`` does, so ``read_before_edit`` policies count Claude's reads.

Claude Code lets a tool call go ahead when a PreToolUse hook exits with anything but
0 or 2, or runs past its ``timeout``; so the pre hook fails closed.  Every failure
(an unreadable payload, a missing field, a broken policy, an internal error, a write
to standard output that fails) exits 2 with the reason on standard error, and the
hook gives itself a deadline (``--deadline``, default ``DEADLINE`` seconds, under the
30 s ``timeout`` of ``hooks/claude-code-settings.json``) after which an alarm ends it
with exit 2, whatever it was doing.  After the write there is nothing left to block:
a failing post hook exits 1 (reported, not blocking).  Files outside every
repository, other tools and other events are not ours: exit 0, no output.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any, Iterator

from ..errors import UsageError
from ..files.filekind import read_regular

if TYPE_CHECKING:
    from ..engine import Guard

EDIT_TOOLS = ("Edit", "MultiEdit", "Write")
PASSED = ("NotebookEdit",)
READ_TOOL = "Read"  # PostToolUse only, when the settings add it: records what Claude read
READ_TOOL_LINES = 2000  # lines Claude Code's Read shows when the call gives no limit
STASH_DAYS = 1  # stashes whose post hook never came (the tool failed) are dropped after this
DEADLINE = 20.0  # seconds: the settings snippet gives the hook 30, and Python's start-up comes out of them
BLOCK, REPORTED = 2, 1  # a pre hook's failure blocks the tool; a post hook's is only reported


class PayloadError(Exception):
    """A payload the hook cannot act on."""


@dataclass(frozen=True, slots=True)
class Answer:
    code: int
    stdout: str = ""
    stderr: str = ""


class Deadline:
    """An alarm that ends the process with exit 2 and a reason once the pre hook runs out of time.

    Claude Code lets the tool call go ahead when a hook outlives its ``timeout``, so the
    hook must end first, denying.  The handler exits at once (``os._exit``): whatever the
    hook was doing (waiting for the repository lock, reading a payload that never ends)
    is abandoned; locks are flocks the kernel drops, and a pre hook writes nothing that a
    cut leaves half done.  A post hook's write already happened: it ``cancel``s the alarm
    and lets Claude Code's own timeout bound it.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.failing = BLOCK  # the exit status of a failure from here on
        self.ends = time.monotonic() + seconds  # set again when the alarm is armed
        self._old: Any = None
        self._armed = False

    def verify_by(self) -> tuple[float, str]:
        """The instant the policy's verify commands must be done by, and how their messages name it:
        the deadline, less a second (at most a tenth of it) to answer."""
        return self.ends - min(1.0, self.seconds / 10), f"the hook's deadline ({self.seconds:g} s, --deadline)"

    def _expire(self, signum: int, frame: FrameType | None) -> None:
        os.write(
            2,
            (f"agent-guard hook: no answer within the {self.seconds:g} s deadline (--deadline); the edit was blocked\n").encode(),
        )
        os._exit(BLOCK)

    def __enter__(self) -> Deadline:
        self.ends = time.monotonic() + self.seconds
        try:
            self._old = signal.signal(signal.SIGALRM, self._expire)
        except ValueError:  # not the main thread (an embedding caller): Claude Code's timeout bounds it
            return self
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def cancel(self) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def after_write(self) -> None:
        """The payload is a post hook's: nothing left to block."""
        self.failing = REPORTED
        self.cancel()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
            self._armed = False


# ---------------------------------------------------------------------- payload


def _payload(raw: bytes) -> dict[str, Any]:
    from .. import jsonvalue

    if not raw.strip():
        raise PayloadError("no hook payload on standard input (Claude Code sends one JSON object)")
    try:
        data = jsonvalue.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PayloadError(f"the hook payload is not UTF-8 (byte {exc.start})") from None
    except ValueError as exc:  # nested too deep, half a surrogate pair: decode errors too
        raise PayloadError(f"the hook payload is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise PayloadError(f"the hook payload must be a JSON object, not {type(data).__name__}")
    event = data.get("hook_event_name")
    if not isinstance(event, str):
        raise PayloadError('the hook payload has no "hook_event_name" (expected "PreToolUse" or "PostToolUse")')
    return data


def _tool_input(data: dict[str, Any], tool: str) -> tuple[dict[str, Any], str]:
    """(tool input, the file it writes as written by the tool)."""
    ti = data.get("tool_input")
    if not isinstance(ti, dict):
        raise PayloadError(f'the {tool} payload has no "tool_input" object')
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    target = ti.get(key)
    if not isinstance(target, str) or not target:
        raise PayloadError(f'the {tool} tool input has no "{key}" string (keys: {", ".join(sorted(ti)) or "none"})')
    return ti, target


def _locate(target: str, cwd: str, policy: str | None) -> tuple[Guard, str] | None:
    """The repository that holds `target` and the path in it as written, or None outside every repository.

    The repository is looked for in the folders the path names before its text first
    climbs (``..``): ``link/../a.txt`` is looked up from ``link``'s parent, never from
    where the OS would land, and the resolver then judges ``link/..`` as it judges any
    edit's path.  A folder reached through a symbolic link (a linked home) counts as
    the repository's when it is the repository's root or inside it.
    """
    from ..engine import Guard

    full = target if target.startswith("/") else os.path.join(cwd, target)
    parts = full.split("/")
    plain = next((i for i, p in enumerate(parts) if p in (".", "..")), len(parts))
    deepest = plain if plain < len(parts) else plain - 1  # a last plain name may be the file itself
    tried: set[str] = set()
    for i in range(deepest, 0, -1):
        folder = "/".join(parts[:i]) or "/"
        if not os.path.isdir(folder):
            continue
        try:
            g = Guard(folder, policy)
        except UsageError:
            continue  # not a repository here; a shallower folder may be one (reached through a link)
        root = str(g.root)
        if root in tried:
            continue
        tried.add(root)
        for j in range(i, 0, -1):
            if os.path.realpath("/".join(parts[:j]) or "/") == root:
                g.recover()
                return g, "/".join(parts[j:])
    return None


def _outside_write(target: str, cwd: str) -> Any:
    """`path-protected` for a write outside every work tree that would change what runs later or
    switch the guard off: into a git directory (a bare repository, such as the local remote the user
    pushes to, whose `hooks/` git runs; another clone's `.git`), by git's own rule
    (``discovery.git_directory_above``), or to an agent harness's or git's user settings
    (``control.user_kind``: `~/.claude/settings.json`, `~/.gitconfig`...).  None for any other path:
    Claude Code's own permissions decide those."""
    from ..files.control import user_kind
    from ..files.discovery import git_directory_above
    from ..model import error

    full = os.path.abspath(target if target.startswith("/") else os.path.join(cwd, target))
    held = git_directory_above(full)
    if held is not None:
        return error(
            "path-protected",
            target,
            None,
            f"{target!r} is inside the git directory {held!r}: git's own files (its hooks and config run "
            "commands), which agents may not write",
            "leave git's folders alone; change the repository's files through its work tree",
        )
    what = user_kind(full) or user_kind(os.path.realpath(full))
    if what is None:
        return None
    return error(
        "path-protected",
        target,
        None,
        f"{target!r} is {what}; agents may not change it (what it says runs later, or switches checks off)",
        "leave it to the user: say what should change and why",
    )


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


def _prompt_turn(g: Guard, data: dict[str, Any], turn: str | None, agent: str) -> str | None:
    """``_turn``, but a turn of the prompt that can no longer go on (a revert or rollback came after
    it) gives way to the next number: the prompt's next edit is a turn of its own, never refused for
    its id.  An id the user gave (`--turn`, $AGENT_GUARD_TURN) is kept, and its refusal said."""
    from ..record import ledger

    chosen = _turn(data, turn)
    if chosen is None or turn or os.environ.get("AGENT_GUARD_TURN"):
        return chosen
    ref = ledger.ref_name(g.policy(agent).ledger_prefix, agent)
    return chosen if ledger.check_turn_id(g.repo, ref, agent, chosen, memo=g.ledger_memo) is None else None


# ---------------------------------------------------------------------- stash


def _stash_dir(g: Guard) -> Path:
    from .. import worktree

    d = worktree.state_dir(g.repo) / "hooks" / "claude-code"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _stash_name(data: dict[str, Any], rel: str) -> str:
    key = data.get("tool_use_id")
    if not isinstance(key, str) or not key:
        # Without an id, the session and path pair the two hooks of one call.
        key = f"{data.get('session_id', '')}-{rel}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)[:200] + ".json"


def _stash(
    g: Guard,
    data: dict[str, Any],
    rel: str,
    agent: str,
    turn: str | None,
    warnings: list[str],
    took: float,
    intended: bytes | None = None,
    denied: list[str] | None = None,
) -> None:
    """Keep what the post hook needs: the content before the tool, what the tool will make of it
    (`intended`, when known), whether the pre hook denied the call (`denied`: what it said), and
    what the check said (for `stats`).

    A protected file's content is kept in the stash itself, never as a blob in the object
    database (protected contents are stored nowhere an agent's read could reach them)."""
    from .. import worktree
    from ..files import paths

    before, mode = worktree.read(g.root, rel)
    try:
        missing = worktree.missing_dirs(g.root, [rel])  # folders the tool will create: the turn's, to undo
    except worktree.UnsafePath:
        missing = []
    d = _stash_dir(g)
    cutoff = time.time() - STASH_DAYS * 86400
    for old in d.glob("*"):  # a post hook that never came; a temporary file a deadline cut short
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass
    inline = paths.read_finding(rel, g.policy(agent)) is not None
    doc = {
        "path": rel,
        "before": _keep(g, before, inline),
        "intended": _keep(g, intended, inline),
        "mode": mode,
        "missing_dirs": missing,
        "denied": denied,
        "agent": agent,
        "turn": turn,
        "tool": data.get("tool_name"),
        "time": time.time(),
        "warnings": warnings,
        "duration": took,
    }
    tmp = d / f".{os.getpid()}.tmp"
    tmp.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(tmp, d / _stash_name(data, rel))


def _keep(g: Guard, content: bytes | None, inline: bool) -> str | None:
    """`content` as the stash keeps it: a blob id, or (`inline`) "b64:" and its bytes in base64."""
    if content is None:
        return None
    if inline:
        import base64

        return "b64:" + base64.b64encode(content).decode("ascii")
    return g.repo.write_blob(content)


def _kept(g: Guard, value: object) -> bytes | None:
    if not isinstance(value, str):
        return None
    if value.startswith("b64:"):
        import base64

        return base64.b64decode(value[4:])
    return g.repo.read_blob(value)


def _unstash(g: Guard, data: dict[str, Any], rel: str) -> dict[str, Any] | None:
    path = _stash_dir(g) / _stash_name(data, rel)
    try:
        doc = json.loads(read_regular(path))
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


def _edit_for(g: Guard, tool: str, ti: dict[str, Any], rel: str) -> tuple[str, str, bytes | None]:
    """The edit (text, dialect) whose check decides the tool call, and the file as the tool will
    leave it (None when the tool's own match would fail); `rel` is resolved."""
    from .. import diffs, worktree
    from ..model import Op

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


def _output(fields: dict[str, str]) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}) + "\n"


def _pass(on_pass: str, reason: str, said: list[str]) -> Answer:
    """A passing edit: no permission decision (Claude Code's own rules apply), or `ask`."""
    if on_pass == "ask":
        return Answer(0, _output({"permissionDecision": "ask", "permissionDecisionReason": reason}))
    if said:  # warnings and notes reach the model as context, never as a grant
        return Answer(0, _output({"additionalContext": "\n".join([reason] + said)}))
    return Answer(0)


def _deny(findings: Any, suggestion: Any = None) -> Answer:
    """A denial in both of the forms Claude Code reads: the JSON decision on standard output and
    exit 2 with the reason on standard error (see the module doc: builds differ in which they honour).
    A refusal with one likely reading carries it as the tool call to make instead (guard/suggest/)."""
    from ..report.render import finding_text, suggestion_text

    lines = ["agent-guard refused this edit; nothing was written. Fix what each finding says and retry."]
    lines += [finding_text(f) for f in findings]
    if suggestion is not None:
        lines.append(suggestion_text(suggestion))
    reason = "\n".join(lines)
    return Answer(BLOCK, stdout=_output({"permissionDecision": "deny", "permissionDecisionReason": reason}), stderr=reason + "\n")


def _refuse(g: Guard, finding: Any, agent: str, turn: str | None, tool: str, edit_bytes: int, started: float) -> Answer:
    """Deny for a finding the hook made itself (the engine logs its own refusals)."""
    from ..report import Report, events

    report = Report("refused", None, findings=(finding,))
    events.record(g.repo.commondir, "apply", agent, turn, report, edit_bytes, time.monotonic() - started, tool=tool)
    return _deny(report.findings)


def _stash_denial(
    g: Guard, data: dict[str, Any], rel: str, agent: str, turn: str | None, findings: Any, intended: bytes | None = None
) -> None:
    """Note a denied call, so that a PostToolUse for it (a build that let it through) undoes the write.
    `rel` as the tool named it: a path the resolver refused may still be a file of the tree."""
    from .. import worktree
    from ..files import paths
    from ..report.render import finding_text

    plain, refused = paths.resolve(g.root, rel)
    if plain is None or refused is not None:
        return  # outside the tree, or in git's own folders: nothing agent-guard may write there
    try:
        _stash(g, data, plain, agent, turn, [], 0.0, intended=intended, denied=[finding_text(f) for f in findings] or ["refused"])
    except (worktree.UnsafePath, OSError):
        pass  # not a regular file: the tool cannot have written it either


def pre(
    g: Guard,
    data: dict[str, Any],
    rel: str,
    tool: str,
    ti: dict[str, Any],
    agent: str,
    turn: str | None,
    on_pass: str,
    deadline: Deadline | None = None,
) -> Answer:
    """`rel` is the path in the repository as the tool wrote it, not yet resolved.

    A refusal is logged for `stats` here; a pass is not: the post hook logs the tool call
    once its write has landed, so each call counts once, with its real outcome.  Either
    way the file's content is stashed, with what the tool will make of it: a pass's post
    hook records the tool's own change, a denial's undoes a write that went through anyway.

    The policy's verify commands run on the edit's result within the `deadline` (less a
    moment to answer): one that cannot finish by then denies.  A formatter's changes cannot
    be taken into the tool's edit: they deny, with the diff to send instead.
    """
    from ..model import error
    from ..report.audience import Audience
    from ..report.render import finding_text

    started = time.monotonic()
    edit_bytes = len(json.dumps(ti))  # the tool input stands for the edit
    pol = g.policy(agent)
    # The engine's resolver: outside, git's own folders, protected paths, submodules.
    resolved, finding = g.resolve(rel, pol)
    if finding is not None or resolved is None:
        refusal = finding or error("path-outside", rel, None, f"{rel!r} is not a file of the repository")
        _stash_denial(g, data, rel, agent, turn, [refusal])
        return _refuse(g, refusal, agent, turn, tool, edit_bytes, started)
    if tool in PASSED:
        from .. import worktree
        from ..files.target import special_file

        try:
            _stash(g, data, resolved, agent, turn, [], time.monotonic() - started)
        except worktree.NotAFile as exc:  # a pipe there would hold the tool's read, and the hook's
            return _refuse(g, special_file(exc, creates=False), agent, turn, tool, edit_bytes, started)
        return _pass(on_pass, f"agent-guard: {tool} of {resolved} passed through (path checked only)", [])
    text, dialect, intended = _edit_for(g, tool, ti, resolved)
    report = g.apply(
        text,
        format=dialect,
        agent=agent,
        turn=turn,
        check=True,
        cwd=g.root,
        audience=Audience("claude-code", root=str(g.root)),
        tool=tool,
        log_pass=False,
        verify_deadline=deadline.verify_by() if deadline is not None else None,
        verify_fixes=False,
    )
    target = report.changes[0].path if report.changes else resolved
    if report.status == "refused":
        _stash_denial(g, data, target, agent, turn, report.findings, intended)
        return _deny(report.findings, report.suggestion)
    warned = [f.code for f in report.findings if f.severity != "error"]
    _stash(g, data, target, agent, turn, warned, time.monotonic() - started, intended=intended)
    said = [finding_text(f) for f in report.findings] + [f"note: {n}" for n in report.notes]
    said += _unapplied_repairs(report)
    return _pass(on_pass, f"agent-guard: {tool} of {resolved} checked", said)


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


# ---------------------------------------------------------------------- PostToolUse


def post(g: Guard, data: dict[str, Any], rel: str, tool: str, agent: str, turn: str | None) -> Answer:
    """Record the tool's own change as the agent's turn; undo a write the pre hook had denied.

    The file on disk may hold more than the tool's change: while Claude Code waited on its
    permission prompt, another agent or a person may have edited it.  The tool's change is
    what the pre hook worked out (the stashed content, and the tool's result on it); git's
    merge rule takes it back out of the file on disk, which leaves what everyone else did,
    and the turn is recorded from there (the ledger's sync commit records their part as not
    the agent's).  Where the other change touches the same lines, nobody can tell the two
    apart: nothing is given to the agent, and the hook says so.
    """
    from .. import diffs, worktree
    from ..files import paths
    from ..model import Op
    from ..report import Report, events

    rel2, finding = paths.resolve(g.root, rel)
    if finding is not None or rel2 is None:
        return Answer(REPORTED, stderr=f"agent-guard: not recording {rel}: {finding.message if finding else 'bad path'}\n")
    stash = _unstash(g, data, rel2)
    checked: dict[str, Any] = stash or {}
    created: list[str] = []
    intended: bytes | None = None
    if stash is not None:
        before = _kept(g, stash.get("before"))
        intended = _kept(g, stash.get("intended"))
        old_mode = stash.get("mode")
        agent, turn = stash.get("agent") or agent, stash.get("turn") or turn
        if isinstance(stash.get("denied"), list):
            return _undo_denied(g, rel2, tool, stash, before, intended, agent, turn)
        # The folders the pre hook found missing on the way to the file and the tool made: a
        # rollback of this turn takes them away again once they are empty.
        missing = stash.get("missing_dirs")
        parents = {rel2.rsplit("/", n)[0] for n in range(1, rel2.count("/") + 1)}
        created = [d for d in missing if isinstance(d, str) and d in parents] if isinstance(missing, list) else []
    else:
        resp = data.get("tool_response")
        original = resp.get("originalFile") if isinstance(resp, dict) else None
        if isinstance(original, str):
            before, old_mode = original.encode("utf-8"), None
        elif isinstance(resp, dict) and resp.get("type") == "create":
            before, old_mode = None, None
        else:
            return Answer(
                REPORTED,
                stderr=(
                    f"agent-guard: cannot record {tool} of {rel2}: no content from before the tool ran "
                    f"(tool_use_id {data.get('tool_use_id')!r} has no stash); install the PreToolUse hook too\n"
                ),
            )
    try:
        after, new_mode = worktree.read(g.root, rel2)
    except (worktree.UnsafePath, OSError) as exc:
        return Answer(REPORTED, stderr=f"agent-guard: cannot read {rel2} to record it: {exc}\n")
    edit_bytes = len(json.dumps(data.get("tool_input")))
    landed = Report("applied", None)
    answer = Answer(0)
    if before != after and intended is not None and not _same_text(after, intended):
        others = _others_change(before, intended, after)
        if others is None:
            answer = Answer(
                BLOCK,
                stderr=(
                    f"agent-guard: {rel2} also changed while this {tool} waited (another agent, or a person), in "
                    f"or next to the lines the {tool} changed: the two cannot be told apart, so nothing was recorded "
                    f"as {agent}'s turn and `git agent-rollback` will not undo this {tool}. Read the file again "
                    "before the next edit.\n"
                ),
            )
            before = after  # record nothing
        else:
            before = others  # the file as everyone else left it: the turn is the tool's change alone
    if before != after:
        op = Op.CREATE if before is None else Op.DELETE if after is None else Op.MODIFY
        change = diffs.make_change(
            rel2,
            op,
            before,
            after,
            old_mode=(old_mode or new_mode) if before is not None else None,
            new_mode=new_mode if after is not None else None,
        )
        dialect = "whole" if tool in PASSED or tool == "Write" else "json"
        recorded = g.record(
            [change],
            agent=agent,
            turn=turn,
            dialect=dialect,
            edit_bytes=edit_bytes,
            created_dirs=created if after is not None else (),
        )  # the file is there: so are they
        landed = Report("applied", None, changes=(change,), turn=recorded)
    # The tool call counts once, now that it landed, with what the pre hook's check warned about.
    warned = checked.get("warnings")
    took = checked.get("duration")
    events.record(
        g.repo.commondir,
        "apply",
        agent,
        turn,
        landed,
        edit_bytes,
        took if isinstance(took, (int, float)) else 0.0,
        tool=tool,
        warnings=[str(w) for w in warned] if isinstance(warned, list) else [],
    )
    return answer


def _same_text(a: bytes | None, b: bytes | None) -> bool:
    """Equal but for line ends: Claude Code writes an edit with the file's own line ends."""
    return a == b or (a is not None and b is not None and a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n"))


def _others_change(before: bytes | None, intended: bytes, now: bytes | None) -> bytes | None:
    """The file as others left it: `now` with the tool's change (`before` -> `intended`) taken back
    out by git's merge rule; None where the two changes touch and cannot be told apart."""
    from ..repo.merge import merge_file

    if now is None or before is None:
        return None  # created or deleted meanwhile as well: no line of either to tell apart
    merged = merge_file(intended, now, before)
    return merged.data if merged.clean else None


def _undo_denied(
    g: Guard,
    rel: str,
    tool: str,
    stash: dict[str, Any],
    before: bytes | None,
    intended: bytes | None,
    agent: str,
    turn: str | None,
) -> Answer:
    """A PostToolUse for a call the pre hook denied: Claude Code wrote it anyway.  Put the file back
    as it was, keeping what others changed meanwhile (git's merge rule takes the tool's change
    out; where that cannot be done, the content from before the call, with the overwritten one
    kept as a blob whose id the message gives), record nothing as the agent's, and tell the model."""
    from .. import worktree
    from ..repo import FILE
    from ..report import Report, events

    try:
        now, mode = worktree.read(g.root, rel)
    except (worktree.UnsafePath, OSError) as exc:
        return Answer(BLOCK, stderr=f"agent-guard: {tool} of {rel} was refused, and cannot be checked now: {exc}\n")
    denied = "\n".join(str(x) for x in stash.get("denied") or [])
    if now == before:
        return Answer(0)  # the denial held: nothing was written
    restored: bytes | None = before
    kept_note = ""
    if intended is not None and now is not None and before is not None:
        from ..repo.merge import merge_file

        merged = merge_file(intended, now, before)
        if merged.clean:
            restored = merged.data
    if restored == before and now is not None and now != intended:
        kept_note = f" What the file held just now is kept as blob {g.repo.write_blob(now)} (git cat-file -p <id> shows it)."
    with worktree.locked(g.repo):
        worktree.write(g.repo, [worktree.Write(rel, now, restored, mode, stash.get("mode") or mode or FILE)])
    report = Report("refused", None)
    events.record(g.repo.commondir, "apply", agent, turn, report, 0, 0.0, tool=tool)
    return Answer(
        BLOCK,
        stderr=(
            f"agent-guard: this {tool} of {rel} had been refused before it ran, and was written anyway; agent-guard "
            f"put {rel} back as it was (nothing was recorded as {agent}'s).{kept_note} Why it was refused:\n"
            f"{denied}\n"
        ),
    )


def note_read(g: Guard, rel: str, ti: dict[str, Any], agent: str) -> Answer:
    """Record the lines Claude's Read showed, so `read_before_edit` policies count Claude's reads.

    A path agent-guard would not show (protected, unless the policy says read_protected)
    is not recorded either: its content is never stored as a blob.
    """
    from .. import worktree
    from ..reading import reads

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
    count = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else READ_TOOL_LINES
    last = min(first + count - 1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))
    with worktree.locked(g.repo):
        reads.record(g.repo, agent, rel2, g.repo.write_blob(data), (first, last) if first <= last else None)
    return Answer(0)


# ---------------------------------------------------------------------- command


def claude_code(
    raw: bytes, agent: str | None, turn: str | None, policy: str | None, on_pass: str, deadline: Deadline | None = None
) -> Answer:
    """Answer one Claude Code hook call (the payload's bytes); never raises."""
    failing = BLOCK
    try:
        data = _payload(raw)
        event = data["hook_event_name"]
        if event not in ("PreToolUse", "PostToolUse"):
            return Answer(0)
        if event == "PostToolUse":
            failing = REPORTED  # a post hook cannot undo the write: never block
            if deadline is not None:
                deadline.after_write()
        tool = data.get("tool_name")
        if not isinstance(tool, str) or not tool:
            raise PayloadError(f'the {event} payload has no "tool_name" string')
        if tool == READ_TOOL:
            return _answer(data, event, tool, agent, turn, policy, on_pass) if event == "PostToolUse" else Answer(0)
        if tool not in EDIT_TOOLS + PASSED:
            return _command(data, event, tool, agent, turn, policy, deadline)
        return _answer(data, event, tool, agent, turn, policy, on_pass, deadline)
    except Exception as exc:  # fail closed before the write, report after it
        if isinstance(exc, (PayloadError, UsageError)):
            why = str(exc)
        else:
            if os.environ.get("AGENT_GUARD_DEBUG"):
                import traceback

                traceback.print_exc()
            why = f"internal error ({type(exc).__name__}: {exc})"
        what = "the edit was blocked" if failing == BLOCK else "the write was not recorded"
        return Answer(failing, stderr=f"agent-guard hook: {why}; {what}\n")


def _command(
    data: dict[str, Any],
    event: str,
    tool: str,
    agent: str | None,
    turn: str | None,
    policy: str | None,
    deadline: Deadline | None = None,
) -> Answer:
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
    given = data.get("cwd")
    cwd = given if isinstance(given, str) and given else os.getcwd()
    if not os.path.isdir(cwd):
        raise PayloadError(f"the {event} payload's cwd {cwd[:200]!r} is not a folder")
    ti = data.get("tool_input")
    text = str(ti.get("command", "")) if isinstance(ti, dict) else ""
    name = "cmd-" + _stash_name(data, "")
    if event == "PreToolUse":
        return _command_before(data, tool, cwd, text, name, agent, turn, policy)
    return _command_after(data, tool, cwd, text, name, agent, turn, policy, deadline)


def _repositories(folders: list[str], policy: str | None, seen: set[str] | None = None) -> list[Guard]:
    """The repository of each folder (of the nearest one that exists: the command may make it),
    each once (`seen`: the roots already found), in the order the folders come."""
    from ..engine import Guard

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


def _command_before(
    data: dict[str, Any], tool: str, cwd: str, text: str, name: str, agent: str | None, turn: str | None, policy: str | None
) -> Answer:
    """PreToolUse of a command: a stash of what is there before it, in each repository it can change."""
    from ..engine import default_agent
    from ..record import entered, shell, snapshot

    guards = _repositories([cwd, *entered.entered(text, cwd).folders], policy)
    if not guards:
        return Answer(0)  # in no repository, entering none it names: nothing of ours
    agent = default_agent(agent or os.environ.get("AGENT_GUARD_AGENT") or "claude")
    turn = _turn(data, turn)
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
            return Answer(BLOCK, stderr=f"agent-guard: {exc}; this {tool} call was blocked\n")
        raise
    roots = [str(g.root) for g in guards]
    for (g, _before), doc in zip(taken, kept):
        doc.update(agent=agent, turn=turn, started=time.time(), command=text[:10000], repositories=roots)
        path = _stash_dir(g) / name
        tmp = path.with_name(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, path)
    _note_pending(name, roots)
    return Answer(0)


def _pending_file(name: str) -> Path | None:
    """Where the pre hook of a command notes the repositories it took stashes in, for the post hook
    to find whatever folder the command leaves the session in (`cd ..` at its end): the user's
    runtime folder (the warm server's), when it is theirs alone; None when it is not usable."""
    from ..warm import client

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


def _command_after(
    data: dict[str, Any],
    tool: str,
    cwd: str,
    text: str,
    name: str,
    agent: str | None,
    turn: str | None,
    policy: str | None,
    deadline: Deadline | None,
) -> Answer:
    """PostToolUse of a command: finish the turn of each repository the pre hook took a stash in."""
    from ..engine import Guard, default_agent
    from ..record import shell

    first = _first_stash(cwd, text, name, policy)
    if first is None:
        return _unrecorded(data, tool, cwd, text, policy)
    agent = default_agent(agent or os.environ.get("AGENT_GUARD_AGENT") or "claude")
    turn = _turn(data, turn)
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
                g = Guard(root, policy)
            except UsageError:
                missing.append(root)
                continue
            found = _command_stash(g, name)
            if found is None:
                missing.append(root)
                continue
            doc = found
        (_stash_dir(g) / name).unlink(missing_ok=True)
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
            tool=tool,
            command=str(doc.get("command") or ""),
            verify_deadline=deadline.verify_by() if deadline is not None else None,
        )
        finished.append((str(g.root), done))
    return _command_answer(tool, finished, missing)


def _command_stash(g: Guard, name: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(read_regular(_stash_dir(g) / name))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _first_stash(cwd: str, text: str, name: str, policy: str | None) -> tuple[Guard, dict[str, Any]] | None:
    """A stash the pre hook took for this call, and its repository: in the cwd's repository, else in
    one the pre hook noted (``_note_pending``), else in one of the folders the command enters, read
    from the cwd or a folder above it (the pre hook's cwd, which a `cd` may have left)."""
    from ..record import entered

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


def _unrecorded(data: dict[str, Any], tool: str, cwd: str, text: str, policy: str | None) -> Answer:
    """A post hook with no stash from before the command: what to say, and to whom."""
    from ..record import entered

    found = _repositories([cwd], policy)
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
        return Answer(
            0, stdout=json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": said}}) + "\n"
        )
    return Answer(
        REPORTED,
        stderr=(
            f"agent-guard: cannot record what {tool} changed: no snapshot from before it ran (tool_use_id "
            f"{data.get('tool_use_id')!r}); the PreToolUse hook did not run for this call: is {tool} in its matcher?\n"
        ),
    )


def _command_answer(tool: str, finished: list[tuple[str, Any]], missing: list[str] | None = None) -> Answer:
    """What the model hears of a command's turns (one per repository it changed, each named when there
    are several): errors (and a revert) on standard error with exit 2, which Claude Code shows the
    model; warnings and what was not recorded as additional context."""
    from ..report.render import finding_text

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
        return Answer(
            0,
            stdout=json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "\n".join(context)}})
            + "\n",
        )
    return Answer(0)


def _answer(
    data: dict[str, Any],
    event: str,
    tool: str,
    agent: str | None,
    turn: str | None,
    policy: str | None,
    on_pass: str,
    deadline: Deadline | None = None,
) -> Answer:
    from ..engine import default_agent

    ti, target = _tool_input(data, tool)
    given = data.get("cwd")
    cwd = given if isinstance(given, str) and given else os.getcwd()
    found = _locate(target, cwd, policy)
    if found is None:
        if event == "PreToolUse" and tool != READ_TOOL:
            held = _outside_write(target, cwd)
            if held is not None:
                return _deny([held])
        return Answer(0)  # outside every repository: Claude Code's own permissions decide
    g, rel = found
    agent = default_agent(agent or os.environ.get("AGENT_GUARD_AGENT") or "claude")
    turn = _prompt_turn(g, data, turn, agent)
    session = data.get("session_id")
    if isinstance(session, str) and session:
        g.budget_session = session  # per-session budgets follow Claude Code's session
    if event == "PreToolUse":
        return pre(g, data, rel, tool, ti, agent, turn, on_pass, deadline)
    if tool == READ_TOOL:
        return note_read(g, rel, ti, agent)
    return post(g, data, rel, tool, agent, turn)
