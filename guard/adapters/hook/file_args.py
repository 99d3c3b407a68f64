"""A file tool's arguments, as the agents without Claude Code's names give them (Copilot CLI's
``create``/``edit``, Cursor's ``Write``/``StrReplace``), read as Claude Code's Write, Edit or
MultiEdit, which the core checks (``pre_edit``) and records (``post_edit``).

Neither agent documents its file tools' arguments: each name either uses is read, and Claude
Code's; arguments that are none of them are a ``PayloadError`` naming the keys they hold (before
the tool, the call is blocked).
"""

from __future__ import annotations

from typing import Any

from .answer import PayloadError

PATH_KEYS = ("file_path", "path", "filePath", "target_file")
TEXT_KEYS = ("content", "contents", "file_text", "fileText", "code")
OLD_KEYS = ("old_string", "old_str", "oldString")
NEW_KEYS = ("new_string", "new_str", "newString")


def _text(args: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        if isinstance(args.get(key), str):
            return str(args[key])
    return None


def as_claude_code(tool: str, args: object) -> tuple[str, dict[str, Any]]:
    """`tool`'s arguments as Claude Code's (tool, tool input): a list of ``edits`` is MultiEdit, an
    old and a new string Edit, the file's whole text Write."""
    if not isinstance(args, dict):
        raise PayloadError(f"the {tool} arguments are not an object")
    path = _text(args, PATH_KEYS)
    old, new = _text(args, OLD_KEYS), _text(args, NEW_KEYS)
    if path is not None and isinstance(args.get("edits"), list):
        return "MultiEdit", {"file_path": path, "edits": args["edits"]}
    if path is not None and old is not None and new is not None:
        edit: dict[str, Any] = {"file_path": path, "old_string": old, "new_string": new}
        if args.get("replace_all") is True:
            edit["replace_all"] = True
        return "Edit", edit
    text = _text(args, TEXT_KEYS)
    if path is not None and text is not None:
        return "Write", {"file_path": path, "content": text}
    keys = ", ".join(sorted(args)) or "none"
    raise PayloadError(f"the {tool} arguments name no file and its new text (keys: {keys})")
