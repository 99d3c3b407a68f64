"""Adapters: agents' own ways of editing, put under the guard through the same API as the CLI.

- ``hook/``: the core every agent's hook shares (check before, deny, record after, a command as a
  turn, a denied write undone), answering in the agent's own form (``hook.answer.Form``).
- ``claude_code``, ``codex``, ``copilot``, ``cursor``: the translators of Claude Code's, Codex CLI's,
  GitHub Copilot CLI's and Cursor's hook payloads and answers; ``install``, ``codex_config``,
  ``hooks_file``: their settings, as `agent-guard install AGENT` writes them.
- ``gemini``: Gemini CLI's translator; ``gemini_calls`` pairs its BeforeTool and AfterTool, whose
  payloads carry no call id; ``gemini_settings``: its settings.
- ``mcp_server``: the guard as an MCP server's tools (read, edit, write, patch, log, rollback).

Their command-line faces (`agent-guard hook claude-code|codex|gemini|copilot|cursor`, `agent-guard
mcp`, `agent-guard install`) are in guard/cli/.
"""
