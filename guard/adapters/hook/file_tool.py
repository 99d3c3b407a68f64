"""A file tool's call (Claude Code's Edit, MultiEdit, Write, NotebookEdit, and Read after it): the
repository that holds the file the tool names, and its pre or post hook there."""

from __future__ import annotations

from .answer import Answer, why_refused
from .payload import READ_TOOL, HookCall, agent_of, locate, outside_write, prompt_turn, session_cwd, session_of, tool_input


def file_tool(call: HookCall) -> Answer:
    """The hook of the repository that holds the file the tool names, or nothing of ours outside
    every repository (but a write into a git directory or a harness's settings, denied)."""
    ti, target = tool_input(call.data, call.tool)
    cwd = session_cwd(call)
    found = locate(target, cwd, call.policy)
    if found is None:
        if call.event == "PreToolUse" and call.tool != READ_TOOL:
            held = outside_write(target, cwd)
            if held is not None:
                return call.form.deny(why_refused([held]))
        return Answer(0)  # outside every repository: the agent's own permissions decide
    g, rel = found
    agent = agent_of(call)
    turn = prompt_turn(g, call, agent)
    session = session_of(call)
    if session is not None:
        g.budget_session = session  # per-session budgets, turns and reads follow the agent's session
    if call.event == "PreToolUse":
        from .pre_edit import pre

        return pre(g, call, rel, ti, agent, turn)
    from .post_edit import note_read, post

    if call.tool == READ_TOOL:
        return note_read(g, rel, ti, agent)
    return post(g, call, rel, agent, turn)
