"""Adapters: agents' own ways of editing, put under the guard through the same API as the CLI.

- ``claude_code``: Claude Code's PreToolUse/PostToolUse hook payloads (Edit, MultiEdit, Write, Read).
- ``mcp_server``: the guard as an MCP server's tools (read, edit, write, patch, log, rollback).

Their command-line faces (`agent-guard hook claude-code`, `agent-guard mcp`) are in guard/cli/adapters.py.
"""
