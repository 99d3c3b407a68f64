"""What an agent sends the hook, and where the file it names lives.

One JSON object on standard input (``session_id``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_use_id``...: Claude Code's names, which Codex shares),
read once into a ``HookCall`` with the command's options and the agent's ``Form``.  A translator
whose agent names things otherwise (Gemini CLI's ``write_file``) hands the core a ``HookCall`` in
these names, and what its agent reports of a file tool's write beside it (``Told``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from .answer import Form, PayloadError

if TYPE_CHECKING:
    from ...pipeline.engine import Guard

EDIT_TOOLS = ("Edit", "MultiEdit", "Write")
PASSED = ("NotebookEdit",)
READ_TOOL = "Read"  # PostToolUse only, when the settings add it: records what Claude read


@dataclass(frozen=True, slots=True)
class Told:
    """What the agent reports of its file tool's write, after it (Gemini CLI's ``AfterTool``): the
    file's text before (None: the tool made the file) and after.  With `lf_only` the agent reports
    both with CRLF line ends made LF, and wrote CRLF where the file had them."""

    before: str | None
    after: str
    lf_only: bool = False


@dataclass(frozen=True, slots=True)
class HookCall:
    """One call of the hook: the agent's payload (`data`), the event and tool it names, the
    command's options (`agent`, `turn` and `policy` as given, None when not), and the agent's
    ``Form`` (how it reads answers, what its payload names)."""

    data: dict[str, Any]
    event: str
    tool: str
    agent: str | None
    turn: str | None
    policy: str | None
    on_pass: str
    form: Form
    # When the policy's verify commands must be done by, and how their messages name it
    # (``Deadline.verify_by``); None without a deadline.
    verify_by: tuple[float, str] | None = None
    told: Told | None = None  # after a file tool: what the agent reports it wrote, when it does
    # The agent's own name of the tool, where `tool` is Claude Code's name its call was read as
    # (Gemini's `replace` as Edit): messages name the tool the model called.
    named: str = ""

    @property
    def shown(self) -> str:
        """The tool's name as the agent knows it, for messages."""
        return self.named or self.tool


def payload(raw: bytes) -> dict[str, Any]:
    """The payload's JSON object, which names its event; ``PayloadError`` for any other bytes."""
    data = json_object(raw)
    event = data.get("hook_event_name")
    if not isinstance(event, str):
        raise PayloadError('the hook payload has no "hook_event_name" (expected "PreToolUse" or "PostToolUse")')
    return data


def json_object(raw: bytes) -> dict[str, Any]:
    """The payload's JSON object, whatever it names; ``PayloadError`` for any other bytes."""
    from ... import jsonvalue

    if not raw.strip():
        raise PayloadError("no hook payload on standard input (the agent sends one JSON object)")
    try:
        data = jsonvalue.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PayloadError(f"the hook payload is not UTF-8 (byte {exc.start})") from None
    except ValueError as exc:  # nested too deep, half a surrogate pair: decode errors too
        raise PayloadError(f"the hook payload is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise PayloadError(f"the hook payload must be a JSON object, not {type(data).__name__}")
    return data


def tool_input(data: dict[str, Any], tool: str) -> tuple[dict[str, Any], str]:
    """(tool input, the file it writes as written by the tool)."""
    ti = data.get("tool_input")
    if not isinstance(ti, dict):
        raise PayloadError(f'the {tool} payload has no "tool_input" object')
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    target = ti.get(key)
    if not isinstance(target, str) or not target:
        raise PayloadError(f'the {tool} tool input has no "{key}" string (keys: {", ".join(sorted(ti)) or "none"})')
    return ti, target


def locate(target: str, cwd: str, policy: str | None) -> tuple[Guard, str] | None:
    """The repository that holds `target` and the path in it as written, or None outside every repository.

    The repository is looked for in the folders the path names before its text first
    climbs (``..``): ``link/../a.txt`` is looked up from ``link``'s parent, never from
    where the OS would land, and the resolver then judges ``link/..`` as it judges any
    edit's path.  A folder reached through a symbolic link (a linked home) counts as
    the repository's when it is the repository's root or inside it.
    """
    from ...pipeline.engine import Guard

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


def outside_write(target: str, cwd: str) -> Any:
    """`path-protected` for a write outside every work tree that would change what runs later or
    switch the guard off: into a git directory (a bare repository, such as the local remote the user
    pushes to, whose `hooks/` git runs; another clone's `.git`), by git's own rule
    (``discovery.git_directory_above``), or to an agent harness's or git's user settings
    (``control.user_kind``: `~/.claude/settings.json`, `~/.gitconfig`...).  None for any other path:
    Claude Code's own permissions decide those."""
    from ...files.control import user_kind
    from ...fs.discovery import git_directory_above
    from ...model import error

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


def id_turn(prompt: object) -> str | None:
    """An agent's id of the user prompt (Codex's ``turn_id``, Cursor's ``generation_id``) as a turn
    id: ``p`` and its last eight hex digits (UUIDv7 ids begin with a timestamp, which prompts a
    minute apart share); None when it holds none."""
    if isinstance(prompt, str):
        hexed = re.sub(r"[^0-9a-fA-F]", "", prompt)[-8:].lower()
        if hexed:
            return "p" + hexed
    return None


def turn_of(call: HookCall) -> str | None:
    """`--turn`, $AGENT_GUARD_TURN, else one turn per user prompt when the agent names the prompt."""
    if call.turn:
        return call.turn
    if os.environ.get("AGENT_GUARD_TURN"):
        return os.environ["AGENT_GUARD_TURN"]
    return call.form.prompt_turn(call.data)


def prompt_turn(g: Guard, call: HookCall, agent: str) -> str | None:
    """``turn_of``, but a turn of the prompt that can no longer go on (a revert or rollback came after
    it) gives way to the next number: the prompt's next edit is a turn of its own, never refused for
    its id.  An id the user gave (`--turn`, $AGENT_GUARD_TURN) is kept, and its refusal said."""
    from ...record import ledger

    chosen = turn_of(call)
    if chosen is None or call.turn or os.environ.get("AGENT_GUARD_TURN"):
        return chosen
    ref = ledger.ref_for(g.repo, g.policy(agent).ledger_prefix, agent)
    return chosen if ledger.check_turn_id(g.repo, ref, agent, chosen, memo=g.ledger_memo) is None else None


def session_of(call: HookCall) -> str | None:
    """Claude Code's session id (``session_id``), which each turn of the call names
    (``Agent-Guard-Session``: `git agent-rollback --session ID`), and its reads are kept under."""
    given = call.data.get("session_id")
    return given if isinstance(given, str) and given else None


def session_cwd(call: HookCall) -> str:
    """The session's folder: the payload's ``cwd``, else the hook's own."""
    given = call.data.get("cwd")
    return given if isinstance(given, str) and given else os.getcwd()


def agent_of(call: HookCall) -> str:
    """`--agent`, $AGENT_GUARD_AGENT, else the agent's own name (``claude``, ``codex``)."""
    from ...pipeline.engine import default_agent

    return default_agent(call.agent or os.environ.get("AGENT_GUARD_AGENT") or call.form.agent)
