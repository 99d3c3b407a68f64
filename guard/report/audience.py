"""Who reads a report, so that its hints name tools that reader has.

One refusal reaches three kinds of reader: someone at the command line (or a harness
on the Python API), a model over MCP, and Claude behind the Claude Code hook.  A hint
that says how to read a file again, or which option to set, must name what that reader
can run: ``git agent-read`` with a path from the current folder, the MCP ``read_file``
tool with a path from the top of the repository, or Claude Code's own Read tool with an
absolute path.  The engine is handed an ``Audience`` and asks it; nothing rewrites
finished text.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

Lines = tuple[int, int]  # 1-based, inclusive


@dataclass(frozen=True, slots=True)
class Audience:
    tool: str  # "cli" | "mcp" | "claude-code"
    folder: str = ""  # cli: the current folder, repository-relative ("" for the top)
    root: str = ""  # claude-code: the repository's top folder (its tools take absolute paths)

    def read(self, path: str, agent: str = "agent", lines: Lines | None = None, *, as_written: bool = False) -> str:
        """How this reader shows `path` (repository-relative; with `as_written`, as the agent named it).

        A phrase that follows "read it with": a command line, or a tool and its arguments.
        """
        if self.tool == "mcp":
            where = f", start_line {lines[0]}, end_line {lines[1]}" if lines else ""
            return f"the read_file tool (path {path!r}{where})"
        if self.tool == "claude-code":
            full = path if as_written or path.startswith("/") else posixpath.join(self.root, path)
            where = f", offset {lines[0]}, limit {lines[1] - lines[0] + 1}" if lines else ""
            return f"the Read tool (file_path {full}{where})"
        who = "" if agent == "agent" else f" --agent {agent}"
        shown = path if as_written or not self.folder else posixpath.relpath(path, self.folder)
        span = f" --lines {lines[0]}:{lines[1]}" if lines else ""
        return f"git agent-read{who} {shown}{span}"

    def create(self, path: str) -> str:
        """How this reader makes a new file at `path` (repository-relative): follows "create the file with"."""
        if self.tool == "mcp":
            return f"the write_file tool (path {path!r})"
        if self.tool == "claude-code":
            return f"the Write tool (file_path {posixpath.join(self.root, path)})"
        shown = path if not self.folder else posixpath.relpath(path, self.folder)
        return f"git agent-apply and a hashline 'create' section ([{shown}], then create, then one +line per line)"

    def option(self, name: str) -> str:
        """How this reader sets one of an edit's options (``format``)."""
        return f"the {name} argument" if self.tool == "mcp" else f"--{name}"

    def whole_file(self) -> str:
        """How this reader sends a file's whole new text (follows "to replace the whole file, ")."""
        if self.tool == "mcp":
            return "send all of it with write_file"
        return "send all of it and name the dialect with --format whole"


CLI = Audience("cli")
MCP = Audience("mcp")
