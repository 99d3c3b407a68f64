"""Codex CLI's hook configuration for agent-guard: agent-guard's block of TOML, put into a
``config.toml`` and taken out again, with the user's text kept byte for byte.

Codex (0.171.0) reads hooks from the ``[hooks]`` table of each layer's ``config.toml``: the
user's (``$CODEX_HOME/config.toml``, default ``~/.codex/config.toml``) and a trusted project's
(``<project>/.codex/config.toml``).  Two traps, both observed with the real program:

- Every failure of a hook lets the tool run: exit 1, output it cannot read, a command that is
  not there, a timeout.  ``blocking`` wraps the command (Codex runs it with the shell) so that
  any status but 0 and 2 becomes 2, with a reason on standard error, which denies.
- In ``codex exec``, a hook that is not *trusted* is skipped without a word.  Trust is an entry
  ``[hooks.state."<config file>:<event>:<group>:<handler>"]`` in the *user's* config (one in
  the project's own file is ignored) whose ``trusted_hash`` is ``trust_hash`` of the hook: a
  SHA-256 over the hook's identity as compact JSON with sorted keys, UTF-8 as it is (checked
  against ``codex app-server``'s ``hooks/list``).  A changed command is untrusted again.

Python reads TOML (``tomllib``) but writes none, so agent-guard never rewrites the user's file:
its own lines sit between two marker comments (``BEGIN``/``END``, with a label), appended at the
end; ``with_block`` replaces them, ``without_block`` takes them out, and every text is read back
with ``tomllib`` before it is written.  The functions take and give text: reading and writing
the files is the caller's (``agent-guard install codex``).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from typing import Any

MATCHER = "^(Bash|apply_patch)$"  # Codex's shell and its own patch tool; not MCP tools
TIMEOUT = 30  # seconds Codex gives each hook call (the hook's own deadline is under it)
EVENTS = (("PreToolUse", "pre_tool_use"), ("PostToolUse", "post_tool_use"))  # as configured, as trusted
SUBCOMMAND = "hook codex"
MCP_SERVER = "agent-guard"  # its tools reach the hook as mcp__agent-guard__*
BEGIN = "# >>> agent-guard{label} >>>"
END = "# <<< agent-guard{label} <<<"
WRITTEN_BY = "# written by `agent-guard install codex`; `agent-guard uninstall codex` takes it out"


class ConfigError(ValueError):
    """A config.toml agent-guard will not change: left as it is, with the reason."""


def blocking(command: str) -> str:
    """`command` as a shell line whose every status but 0 (pass) and 2 (deny, the reason on standard
    error) becomes 2, with why on standard error: Codex lets the tool run on any other."""
    from .install import exit_blocking

    return exit_blocking(command)


def trust_hash(event: str, command: str, matcher: str = MATCHER, timeout: int = TIMEOUT) -> str:
    """Codex's ``trusted_hash`` of one command hook of `event` (``pre_tool_use``...)."""
    hook = {"type": "command", "command": command, "timeout": max(timeout, 1), "async": False}
    identity = {"event_name": event, "matcher": matcher, "hooks": [hook]}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def trust_key(config: str, event: str, group: int) -> str:
    """The ``hooks.state`` key of the first handler of hook group `group` of `event` in the file `config`."""
    return f"{config}:{event}:{group}:0"


def string(value: str) -> str:
    """`value` as a TOML basic string."""
    text = json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML's too
    return text.replace("\x7f", "\\u007f")  # which JSON leaves as it is and TOML does not allow


def hooks_toml(command: str) -> str:
    """The hook groups: both events run `command` (already ``blocking``) for Codex's shell and patch tool."""
    out = []
    for event, _key in EVENTS:
        out.append(
            f"[[hooks.{event}]]\nmatcher = {string(MATCHER)}\n[[hooks.{event}.hooks]]\n"
            f'type = "command"\ncommand = {string(command)}\ntimeout = {TIMEOUT}\n'
        )
    return "\n".join(out)


def state_toml(trusts: dict[str, str]) -> str:
    """``hooks.state`` entries: key -> trusted hash."""
    return "\n".join(f"[hooks.state.{string(key)}]\ntrusted_hash = {string(value)}\n" for key, value in trusts.items())


def mcp_toml(program: list[str]) -> str:
    """agent-guard's MCP server, run by `program` (``install.this_program``); ``required``: Codex does
    not wait for a server that is slow to start, and without it the first calls come back as
    unsupported."""
    args = ", ".join(string(a) for a in [*program[1:], "mcp", "--agent", "codex"])
    return f"[mcp_servers.{MCP_SERVER}]\ncommand = {string(program[0])}\nargs = [{args}]\nrequired = true\n"


def _markers(label: str) -> tuple[str, str]:
    if "\n" in label or "\r" in label:
        raise ConfigError(f"{label!r} holds a line break: agent-guard's markers must stay one line each")
    return BEGIN.format(label=label), END.format(label=label)


def _span(text: str, label: str) -> tuple[int, int] | None:
    """Where agent-guard's block with `label` is in `text` (from the line break before its first
    marker to the end of its last marker's line), or None; ``ConfigError`` for a marker without
    its pair, or two blocks."""
    begin, end = _markers(label)
    starts = [m.start() for m in re.finditer(f"^{re.escape(begin)}$", text, re.M)]
    ends = [m.end() for m in re.finditer(f"^{re.escape(end)}$", text, re.M)]
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ConfigError(f"its agent-guard markers ({begin!r} ... {end!r}) are not one pair: fix them by hand")
    start = starts[0] - 1 if starts[0] > 0 and text[starts[0] - 1] == "\n" else starts[0]
    stop = ends[0] + 1 if text[ends[0] : ends[0] + 1] == "\n" else ends[0]
    return start, stop


def without_block(text: str, label: str = "") -> str:
    """`text` without agent-guard's block `label` (as it was before ``with_block`` put it there)."""
    span = _span(text, label)
    return text if span is None else text[: span[0]] + text[span[1] :]


def with_block(text: str, body: str, label: str = "") -> str:
    """`text` with agent-guard's block `label` holding `body` (in place of the block it had): the
    user's text is kept byte for byte, ours is appended after one line break of its own (taken
    away again by ``without_block``).  ``ConfigError`` when `text`, or the result, is not TOML."""
    begin, end = _markers(label)
    mine = without_block(text, label)
    parsed(mine)
    joined = f"{mine}\n{begin}\n{WRITTEN_BY}\n{body.rstrip()}\n{end}\n"
    try:
        tomllib.loads(joined)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"agent-guard's lines cannot be added to it: they clash with what it holds ({exc})") from None
    return joined


def parsed(text: str) -> dict[str, Any]:
    """`text` read as TOML; ``ConfigError`` when it is not."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"it is not TOML ({exc})") from None


def groups(text: str, command: str) -> dict[str, int]:
    """For each event key, the index of the hook group that runs `command` in `text`'s ``hooks``."""
    hooks = parsed(text).get("hooks", {})
    found: dict[str, int] = {}
    for event, key in EVENTS:
        entries = hooks.get(event, []) if isinstance(hooks, dict) else []
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            handlers = entry.get("hooks", []) if isinstance(entry, dict) else []
            if (
                isinstance(handlers, list)
                and handlers
                and isinstance(handlers[0], dict)
                and handlers[0].get("command") == command
            ):
                found[key] = i
    return found


def trusts(text: str, config: str, command: str) -> dict[str, str]:
    """The ``hooks.state`` entries that trust agent-guard's hooks (running `command`) of the file
    `config`, whose text is `text`."""
    found = groups(text, command)
    missing = [key for _event, key in EVENTS if key not in found]
    if missing:
        raise ConfigError(f"agent-guard's {', '.join(missing)} hook is not where it was written")
    return {trust_key(config, key, found[key]): trust_hash(key, command) for _event, key in EVENTS}


def trusted_project(user_text: str, root: str) -> bool:
    """Whether the user's config trusts the project at `root` (Codex reads a project's .codex/ only then)."""
    projects = parsed(user_text).get("projects", {})
    entry = projects.get(root) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"
