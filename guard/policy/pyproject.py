"""A policy in ``pyproject.toml``: the ``[tool.agent-guard]`` table, read when there is no .agent-guard.yaml.

A Python project keeps its tools' settings in ``pyproject.toml`` (ruff, mypy, pytest...),
and agent-guard reads its own there too: the table holds what a ``.agent-guard.yaml``
would (``extends``, ``checks``, ``paths``...), with ``extends`` paths relative to the
repository's top.  ``.agent-guard.yaml``, when there is one, comes first and the table
is not read.

The table is the policy that guards the agents, so no agent may change it; but agents
edit ``pyproject.toml`` for good reasons (a dependency, a version), so the file is not
protected whole: an edit that adds, changes or removes the table (or that leaves a file
that no longer reads as TOML where the table was) is refused as ``path-protected``
(``table_finding``), and every other edit of the file goes through.  Only the
``pyproject.toml`` at the top of the repository counts.
"""

from __future__ import annotations

from typing import Any

from ..model import Finding, error

FILE = "pyproject.toml"
TABLE = "[tool.agent-guard]"
_ABSENT = object()


class Unreadable(Exception):
    """The file does not read as TOML (the message says why)."""


def _loads(text: str) -> dict[str, Any]:
    import tomllib  # here: only a pyproject.toml that names agent-guard is parsed

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise Unreadable("nested too deeply to read") from None


def table(data: bytes) -> object:
    """The ``[tool.agent-guard]`` table of a pyproject.toml's bytes, or ``_ABSENT`` when it has none.

    ``Unreadable`` when the bytes do not read as TOML and might hold the table (they name
    agent-guard): a file that cannot be told apart from one with a policy is not read as one
    without.  Bytes that do not name agent-guard hold no table and are not parsed (every
    command of a Python project reads its pyproject.toml; most have no table); a table name
    spelled with TOML escapes (``"agent\\u002dguard"``) is no table, for the loader and for
    the check of an edit alike.
    """
    if b"agent-guard" not in data:
        return _ABSENT
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        if b"agent-guard" in data:
            raise Unreadable("not UTF-8 text") from None
        return _ABSENT
    try:
        doc = _loads(text)
    except Unreadable:
        if "agent-guard" in text:
            raise
        return _ABSENT
    tool = doc.get("tool")
    if not isinstance(tool, dict) or "agent-guard" not in tool:
        return _ABSENT
    return tool["agent-guard"]


def has_table(value: object) -> bool:
    return value is not _ABSENT


def table_finding(
    path: str, old_path: str | None, before: bytes | None, after: bytes | None, committing: bool = False
) -> Finding | None:
    """`path-protected` for a change of the top-level pyproject.toml that adds, changes or removes its
    ``[tool.agent-guard]`` table (a rename onto or away from the name counts); None for any other change.
    `committing`: for the person committing the change (``agent-guard check``), not for an agent."""
    was = before if (old_path or path) == FILE else None
    now = after if path == FILE else None
    if was is None and now is None:
        return None
    try:
        old = table(was) if was is not None else _ABSENT
    except Unreadable:
        return None  # the table could not be read before: the change cannot make it more permissive
    try:
        new = table(now) if now is not None else _ABSENT
    except Unreadable as exc:
        if not has_table(old):
            return _refusal(
                path,
                committing,
                f"it leaves {FILE} unreadable as TOML ({str(exc)[:120]}) while naming agent-guard, "
                f"which could hold a {TABLE} table",
            )
        return _refusal(
            path,
            committing,
            f"{FILE} holds the policy in its {TABLE} table, and the change leaves the file unreadable as TOML ({str(exc)[:120]})",
        )
    if old == new:
        return None
    what = "adds a" if not has_table(old) else "removes the" if not has_table(new) else "changes the"
    why = f"the change {what} {TABLE} table of {FILE}, which is the repository's policy when there is no .agent-guard.yaml"
    return _refusal(path, committing, why)


def _refusal(path: str, committing: bool, why: str) -> Finding:
    if committing:  # a person may change the policy; the check reports it (at the check's level)
        return error(
            "path-protected",
            path,
            None,
            why,
            "this warning does not stop the commit: review the policy change on its own (a commit that relaxes "
            "the policy beside code the old policy refuses is how a check gets switched off)",
        )
    return error(
        "path-protected",
        path,
        None,
        f"{why}: agents may never change the policy that guards them",
        f"leave the {TABLE} table as it is (the rest of {FILE} may change); the policy is the user's to change",
    )
