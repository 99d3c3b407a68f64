"""Adapters: agents' own ways of editing, put under the guard through the same API as the CLI.

- ``hook/``: the core every agent's hook shares (check before, deny, record after, a command as a
  turn, a denied write undone), answering in the agent's own form (``hook.answer.Form``).
- ``claude_code``, ``codex``: the translators of Claude Code's and Codex CLI's hook payloads and
  answers; ``install``, ``codex_config``: their settings, as `agent-guard install AGENT` writes them.
- ``gemini``: Gemini CLI's translator; ``gemini_calls`` pairs its BeforeTool and AfterTool, whose
  payloads carry no call id.
- ``mcp_server``: the guard as an MCP server's tools (read, edit, write, patch, log, rollback).

Their command-line faces (`agent-guard hook claude-code|codex|gemini`, `agent-guard mcp`, `agent-guard
install`) are in guard/cli/.
"""
