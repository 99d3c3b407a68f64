"""``agent-guard mcp``: the guard as an MCP server on standard input and output.

Started in a repository (or with ``--repo DIR``), the server keeps one ``Guard``
session for its lifetime and offers six tools, each a plain function here from
arguments to a ``Result`` (text for the model, the JSON report, an error flag);
only ``serve`` knows the ``mcp`` SDK, imported when the command runs so the
rest of the CLI never pays for it::

    read_file    hashline-tagged lines of a file (or a range): what `git agent-read` prints
    edit_file    str_replace edits to one file, several per call, all or nothing
    write_file   create a file, or replace one whole
    apply_patch  a patch in any dialect agent-guard reads
    list_turns   the recorded turns, newest first
    rollback     undo the last turn, one turn, or every turn after one

The agent has no current folder here: every relative path, in every tool and
dialect, starts from the top of the repository (``cwd=root``), and is resolved
inside it (``paths.resolve``): the server never reads or writes outside it.  ``edit_file``, ``write_file`` and
``apply_patch`` change (move, delete) an existing file only if the agent read it
(``read_file`` or ``git agent-read``) and it has not changed since; the engine judges that on
the path it writes, after every repair of the agent's (``Guard.apply(require_read=True)``), so
``a/src/x.py`` is held to a read of ``src/x.py``.  The read record is the shared one in
``guard/reading/reads.py``, and an applied edit updates it, so a model can make several
edits in a row after one read.  ``--no-require-read`` turns the rule off.  No result shows the
contents of a file the policy protects (``guard/files/redaction.py``), and human text escapes terminal
control characters; the structured report keeps other content exact.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, Callable

from ..bounds import LINE, TURNS
from ..dialects import DIALECTS
from ..report.audience import MCP

INSTRUCTIONS = (
    "agent-guard checks every edit against the repository's policy and applies it all or nothing; "
    "every applied edit is recorded as a turn that can be rolled back. Read a file with read_file before "
    "editing it; change files with edit_file (exact text replacement), write_file (new or whole files) or "
    "apply_patch (unified diff, Codex patch, SEARCH/REPLACE, hashline). A refused edit changed nothing: "
    "each finding names the problem and the hint says how to fix it. Paths are relative to the repository root."
)

FINDINGS = (
    "Findings on refusal: not-found (the old text is not in the file; the hint shows the closest lines), "
    "ambiguous (it occurs more than once; add surrounding lines, or set replace_all), "
    "stale (the file changed since you read it: read it again), overlap (two edits touch the same lines), "
    "no-op (the edit changes nothing), placeholder (new text elides code such as '... existing code ...': "
    "write it out), budget (too large for the policy: split it), path-protected / path-outside "
    "(this path may not be changed), untracked (git does not track the file), missing / exists "
    "(the file is not there / already there)."
)


_TO_END = 1 << 62  # an end_line past any file: read to the end


@dataclass(frozen=True, slots=True)
class Result:
    text: str
    data: dict[str, Any] | None = None
    error: bool = False


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    run: Callable[["Session", dict[str, Any]], Result]
    read_only: bool = False


# ---------------------------------------------------------------------- the session


class Session:
    """One repository, one agent, one policy: what every tool call works on.

    The server lives as long as the agent's session; each tool call opens the repository anew
    (``fresh``), so it sees the repository and its policy as they are then."""

    def __init__(self, g, agent: str, require_read: bool = True) -> None:  # type: ignore[no-untyped-def]
        self.g = g
        self.agent = agent
        self.require_read = require_read

    def fresh(self) -> None:
        """A new ``Guard`` on the same repository, policy and budget session, for the next call."""
        again = type(self.g)(self.g.root, self.g.policy_spec)
        again.budget_session = self.g.budget_session
        self.g = again

    def call(self, name: str, args: dict[str, Any]) -> Result:
        from ..errors import UsageError

        tool = TOOLS.get(name)
        if tool is None:
            return Result(f"unknown tool {name!r}; tools: {', '.join(TOOLS)}", error=True)
        problem = _check_args(tool.schema, args)
        if problem:
            return Result(f"{name}: {problem}", error=True)
        try:
            self.fresh()
            return tool.run(self, args)
        except UsageError as exc:
            return Result(f"{name}: {exc}", error=True)
        except Exception as exc:  # the server must outlive one bad call
            print(f"agent-guard mcp: {name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return Result(f"{name}: internal error ({type(exc).__name__}: {exc}); nothing was changed", error=True)

    def note_written(self, report) -> None:  # type: ignore[no-untyped-def]
        """After an applied edit the agent knows the new content (it wrote it)."""
        from ..record import reads
        from ..tree import worktree

        if report.status != "applied":
            return
        who = self.g.reader(self.agent)  # this server's session's: another session's write is no read of this one
        with worktree.locked(self.g.repo):
            for c in report.changes:
                if c.after is not None:
                    reads.record(self.g.repo, who, c.path, self.g.repo.hash_blob(c.after), None)


# ---------------------------------------------------------------------- rendering


def _report(report) -> Result:  # type: ignore[no-untyped-def]
    from ..report.render import human
    from ..text.wording import printable_diff

    text = human(report)
    if report.turn is not None:
        text += f"\n  undo with: rollback turn={report.turn.id!r}"
    if report.diff:
        label = "Diff of what was written" if report.status == "applied" else "Diff of what would be written"
        text += f"\n\n{label}:\n{printable_diff(report.diff)}"
    return Result(text.rstrip("\n"), report.as_dict(), report.status == "refused")


_TYPES: dict[str, tuple[type, str]] = {
    "string": (str, "a string"),
    "integer": (int, "an integer"),
    "boolean": (bool, "true or false"),
    "array": (list, "an array"),
    "object": (dict, "an object"),
}


def _json_type(value: Any) -> str:
    names = (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (list, "an array"),
        (dict, "an object"),
    )
    return next((name for t, name in names if isinstance(value, t)), "null")


def _check_args(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """What is wrong with `args` against the tool's JSON schema (every problem, each naming its argument), or None.

    A model's call is checked before any tool runs, so a value out of the schema (a
    negative limit, a string for a number, an unknown or a missing argument) is an error
    result that says which argument to fix, never a quiet success.  A null for an
    optional top-level argument counts as leaving it out: strict function calling makes
    models send every argument, null for those they skip.
    """
    problems = _problems(schema, args, "", top=True)
    return "; ".join(problems) if problems else None


def _problems(spec: dict[str, Any], value: Any, where: str, top: bool = False) -> list[str]:
    name = f"argument {where!r}"
    kind = spec.get("type")
    if kind in _TYPES:
        want, label = _TYPES[kind]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            if want is int and isinstance(value, float) and "minimum" in spec and "maximum" in spec:
                # 1e30, 2.5, NaN: say the range, and the number as it came.
                return [
                    f"{name} must be a whole number from {spec['minimum']:,} to {spec['maximum']:,}, not the number {value!r}"
                ]
            return [f"{name} must be {label}, not {_json_type(value)}"]
    if "enum" in spec and value not in spec["enum"]:
        return [f"{name} must be one of {', '.join(map(str, spec['enum']))}, not {value!r}"]
    low, high = spec.get("minimum"), spec.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        shown = f"{value:,}" if abs(value) < 10**30 else f"a number of {len(str(abs(value))):,} digits"
        span = (
            f"from {low:,} to {high:,}"
            if low is not None and high is not None
            else f"at least {low:,}"
            if low is not None
            else f"at most {high:,}"
        )
        return [f"{name} must be {'a whole number ' if kind == 'integer' and high is not None else ''}{span}, not {shown}"]
    if kind == "array":
        least = spec.get("minItems", 0)
        if len(value) < least:
            return [f"{name} must hold at least {least} item{'s' if least != 1 else ''}, not {len(value)}"]
        items = spec.get("items")
        return [p for i, v in enumerate(value) for p in _problems(items, v, f"{where}[{i}]")] if items else []
    if kind != "object":
        return []
    props: dict[str, Any] = spec.get("properties", {})
    required = spec.get("required", ())
    out: list[str] = []
    for key in required:
        if key not in value:
            out.append(f"missing required argument {key!r}" if top else f"{name} is missing {key!r}")
    for key, item in value.items():
        inner = key if top else f"{where}.{key}"
        if key not in props:
            if spec.get("additionalProperties") is False:
                known = ", ".join(props)
                out.append(
                    f"unknown argument {key!r}; arguments: {known}"
                    if top
                    else f"{name} has an unknown key {key!r}; keys: {known}"
                )
        elif not (top and item is None and key not in required):
            out += _problems(props[key], item, inner)
    return out


# ---------------------------------------------------------------------- tools


def read_file(s: Session, args: dict[str, Any]) -> Result:
    from ..pipeline import hashline_read
    from ..report.render import finding_text

    start, end = args.get("start_line"), args.get("end_line")
    lines = None
    if start is not None or end is not None:
        lines = (start or 1, end if end is not None else _TO_END)
        if lines[0] < 1 or lines[1] < lines[0]:
            return Result(
                f"read_file: no lines {lines[0]} to {lines[1]}: lines start at 1 and end_line must not be less than start_line",
                error=True,
            )
    try:
        return Result(hashline_read.read(s.g, args["path"], lines, s.agent, cwd=s.g.root, audience=MCP).rstrip("\n"))
    except hashline_read.Unreadable as exc:
        return Result(finding_text(exc.finding), {"findings": [exc.finding.as_dict()]}, error=True)


def edit_file(s: Session, args: dict[str, Any]) -> Result:
    return _apply_json(s, args, {"file_path": args["path"], "edits": args["edits"]}, "edit_file")


def write_file(s: Session, args: dict[str, Any]) -> Result:
    return _apply_json(s, args, {"file_path": args["path"], "content": args["content"]}, "write_file")


def _apply_json(s: Session, args: dict[str, Any], edit: dict[str, Any], tool: str) -> Result:
    """An edit of one file the agent must have read, as the JSON dialect says it."""
    report = s.g.apply(
        json.dumps(edit),
        format="json",
        agent=s.agent,
        check=bool(args.get("dry_run")),
        cwd=s.g.root,
        audience=MCP,
        tool=tool,
        require_read=s.require_read,
    )
    s.note_written(report)
    return _report(report)


def apply_patch(s: Session, args: dict[str, Any]) -> Result:
    dialect = args.get("format") or "auto"
    # The read rule of edit_file and write_file, for every file the patch changes, moves or
    # deletes: the engine judges it on the paths it will write (``target.change_for``).
    report = s.g.apply(
        args["patch"],
        format=dialect,
        agent=s.agent,
        check=bool(args.get("dry_run")),
        cwd=s.g.root,
        audience=MCP,
        tool="apply_patch",
        require_read=s.require_read,
    )
    s.note_written(report)
    return _report(report)


def list_turns(s: Session, args: dict[str, Any]) -> Result:
    from ..turns import history

    agent = None if args.get("all_agents") else s.agent
    # The diffs are shown as this server's agent may see them: no protected file's contents.
    listing = history.Listing(limit=args.get("limit") or 10)
    turns = history.log(s.g, agent, listing, bool(args.get("diff")), viewer=s.agent)
    return Result(history.render(turns, bool(args.get("diff"))).rstrip("\n"), {"version": 1, "turns": turns})


def rollback(s: Session, args: dict[str, Any]) -> Result:
    from ..turns.rollback import Asked
    from ..turns.rollback import rollback as rollback_turns

    given = [name for name in ("turn", "to", "session") if args.get(name)]
    if len(given) > 1:
        return Result(f"rollback: give one of turn, to and session, not {' and '.join(given)}", error=True)
    asked = Asked(turn=args.get("turn"), to=args.get("to"), session=args.get("session"))
    report = rollback_turns(s.g, s.agent, asked, check=bool(args.get("dry_run")), force=bool(args.get("force")))
    return _report(report)


_PATH = {
    "type": "string",
    "description": "File path relative to the repository root (whatever folder the server runs in), e.g. src/app.py.",
}
_DRY = {"type": "boolean", "default": False, "description": "Only check: report findings and the diff, write nothing."}

TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "read_file",
            "Read a file of the repository. Returns a header [PATH#TAG] (TAG identifies this exact content) and "
            "the lines as N:text, numbered from 1. Give start_line/end_line to read part of a long file. "
            "Read a file before changing it with edit_file or write_file: edits to a file you have not read, "
            "or that changed since you read it, are refused as stale. A hashline patch (apply_patch) names "
            "lines by these numbers under the same [PATH#TAG] header.",
            {
                "type": "object",
                "properties": {
                    "path": _PATH,
                    "start_line": {
                        "type": "integer",
                        "minimum": int(LINE.low),
                        "maximum": int(LINE.high),
                        "description": "First line to show (default 1).",
                    },
                    "end_line": {
                        "type": "integer",
                        "minimum": int(LINE.low),
                        "maximum": int(LINE.high),
                        "description": "Last line to show (default: the end).",
                    },
                },
                "required": ["path"],
                "additionalProperties": False,
            },
            read_file,
            read_only=True,
        ),
        Tool(
            "edit_file",
            "Replace exact text in one file. Each edit's old_string must match the file as it is now, "
            "character for character (indentation included, no line numbers), and occur exactly once "
            "unless replace_all is true: include enough surrounding lines to make it unique. Every edit is "
            "matched against the file as it was before this call, not after the earlier edits of the call; "
            "edits must not touch the same lines. All edits apply together or none does. "
            "Read the file first (read_file). " + FINDINGS + " The result shows the diff actually written "
            "and the turn id to roll it back.",
            {
                "type": "object",
                "properties": {
                    "path": _PATH,
                    "edits": {
                        "type": "array",
                        "minItems": 1,
                        "description": "One or more replacements in this file.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "old_string": {"type": "string", "description": "Exact text to replace (not empty)."},
                                "new_string": {"type": "string", "description": "Text to put in its place."},
                                "replace_all": {
                                    "type": "boolean",
                                    "default": False,
                                    "description": "Replace every occurrence instead of exactly one.",
                                },
                            },
                            "required": ["old_string", "new_string"],
                            "additionalProperties": False,
                        },
                    },
                    "dry_run": _DRY,
                },
                "required": ["path", "edits"],
                "additionalProperties": False,
            },
            edit_file,
        ),
        Tool(
            "write_file",
            "Create a file with the given content, or replace an existing file's whole content (read it first). "
            "Prefer edit_file for changes to part of a file. Write the complete content: elisions such as "
            "'... rest unchanged ...' are refused (placeholder). " + FINDINGS,
            {
                "type": "object",
                "properties": {
                    "path": _PATH,
                    "content": {"type": "string", "description": "The complete new content of the file."},
                    "dry_run": _DRY,
                },
                "required": ["path", "content"],
                "additionalProperties": False,
            },
            write_file,
        ),
        Tool(
            "apply_patch",
            "Apply a patch to one or more files, all or nothing. Dialects: unified diff (git diff / diff -u), "
            "Codex patch (*** Begin Patch ... *** End Patch), SEARCH/REPLACE blocks (a file path line, then "
            "<<<<<<< SEARCH / ======= / >>>>>>> REPLACE), hashline edits against a read_file result "
            "([PATH#TAG] then replace A..B / insert after N / delete A..B with '+' body rows), JSON "
            "str_replace objects, whole files or lazy snippets in fences labelled with their path (format whole "
            "or lazy), or ast-grep structural rewrites. The dialect is detected unless format names it. "
            "Every file path in the patch is relative to the repository root. Read every existing file the "
            "patch changes first (read_file): a file you have not read, or that changed since, is refused as stale. "
            "Context lines must match the file; small drift in line numbers or whitespace is repaired and "
            "reported. " + FINDINGS,
            {
                "type": "object",
                "properties": {
                    "patch": {"type": "string", "description": "The patch text."},
                    "format": {
                        "type": "string",
                        "enum": ["auto", *DIALECTS],
                        "default": "auto",
                        "description": "The patch dialect (default: detect it).",
                    },
                    "dry_run": _DRY,
                },
                "required": ["patch"],
                "additionalProperties": False,
            },
            apply_patch,
        ),
        Tool(
            "list_turns",
            "List the recorded turns (each applied edit or rollback), newest first: turn id, files, lines "
            "added/removed, and whether it was rolled back. Use a turn id with rollback. With diff, each turn's "
            "diff; a protected file (.env, keys...) shows as its name and counts, never its contents.",
            {
                "type": "object",
                "properties": {
                    "limit": {
                        "type": "integer",
                        "minimum": int(TURNS.low),
                        "maximum": int(TURNS.high),
                        "default": 10,
                        "description": "At most this many turns.",
                    },
                    "diff": {"type": "boolean", "default": False, "description": "Include each turn's diff."},
                    "all_agents": {
                        "type": "boolean",
                        "default": False,
                        "description": "Also list other agents' turns (default: only this server's agent).",
                    },
                },
                "additionalProperties": False,
            },
            list_turns,
            read_only=True,
        ),
        Tool(
            "rollback",
            "Undo turns of this agent: with no arguments the last turn still in effect; with turn, that one "
            "turn (later changes to other lines are kept); with to, every turn after that one; with session, "
            "the last turn of that session (list_turns shows each turn's session). The rollback "
            "is itself recorded as a turn. rollback-conflict means a later change overlaps what must be "
            "undone: nothing was changed; set force only if the user agrees to lose that later change.",
            {
                "type": "object",
                "properties": {
                    "turn": {"type": "string", "description": "Undo just this turn (an id from list_turns)."},
                    "to": {"type": "string", "description": "Undo every turn after this one."},
                    "session": {
                        "type": "string",
                        "description": "Undo the last turn of this session, whatever other sessions of the agent did since.",
                    },
                    "force": {
                        "type": "boolean",
                        "default": False,
                        "description": "Undo even where later changes overlap (they are lost).",
                    },
                    "dry_run": _DRY,
                },
                "additionalProperties": False,
            },
            rollback,
        ),
    )
}


# ---------------------------------------------------------------------- serving


def serve(session: Session) -> None:
    """Answer MCP requests on standard input/output until the client closes it."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.schema,
                    annotations=types.ToolAnnotations(read_only_hint=t.read_only, destructive_hint=False, open_world_hint=False),
                )
                for t in TOOLS.values()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        # Tools run to completion without awaiting, so calls are served one at a time.
        r = session.call(params.name, dict(params.arguments or {}))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=r.text)], structured_content=r.data, is_error=r.error
        )

    from ..report.render import version

    server = Server("agent-guard", version=version(), instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
