"""`budget`: how much one edit, one turn, one session and one commit may change.

Per edit: files touched, lines added and removed, hunks, and the size of the
agent's input.  Per turn and per session: what the agent already used plus this
edit.  And no file may grow beyond ``max_file_bytes``.  A message names the
limit, the value seen and the policy layer that set it.

A commit (``CheckInput.committed``) is held to ``per_edit``, its bytes being those of
the lines it adds and removes, and to ``max_file_bytes`` only where it takes a file
past it: it has no agent, so no turn or session.

Files a tool writes are not counted (``generated``), unless the policy says
``budget.skip_generated: false``: a package manager's lock files (``LOCK_FILES``, at any
depth) and files the repository's attributes mark generated (``linguist-generated``) or
not for diffing (``-diff``).  A 454-line ``package-lock.json`` is no reason to split a
commit.
"""

from __future__ import annotations

from typing import Mapping

from ..model import FileChange, Finding
from ..text.wording import short_id
from .base import CheckInput, Committed

_WHAT = {
    "files": "files",
    "lines_added": "added lines",
    "lines_removed": "removed lines",
    "hunks": "hunks",
    "bytes": "bytes of edit input",
}
_COMMITTED_WHAT = {**_WHAT, "bytes": "bytes of changed lines"}
_SCOPE = {"per_edit": "this edit", "per_turn": "this turn", "per_session": "this session"}
_HINT = {
    "per_edit": "split the change into smaller edits",
    "per_turn": "finish this turn and continue in the next one, or ask the user to raise the limit",
    "per_session": "this session's budget is spent; ask the user to review the session's turns "
    "(agent-guard log), then to end the session (agent-guard session --end) or raise the limit",
}


# Lock files package managers write (by name, at any depth): not counted in budgets.
LOCK_FILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lock",
        "bun.lockb",
        "deno.lock",
        "poetry.lock",
        "Pipfile.lock",
        "pdm.lock",
        "uv.lock",
        "pixi.lock",
        "conda-lock.yml",
        "Cargo.lock",
        "go.sum",
        "go.work.sum",
        "composer.lock",
        "Gemfile.lock",
        "mix.lock",
        "pubspec.lock",
        "Podfile.lock",
        "Package.resolved",
        "packages.lock.json",
        "paket.lock",
        "gradle.lockfile",
        "flake.lock",
        "Manifest.toml",
        "renv.lock",
        "cabal.project.freeze",
        "stack.yaml.lock",
        ".terraform.lock.hcl",
    }
)
# The attributes that mark a file generated (asked for every file of a commit at once).
ATTRIBUTES = ("linguist-generated", "diff")


def generated(path: str, inp: CheckInput) -> bool:
    """Is `path` a lock file, or marked generated (``linguist-generated``) or not for diffing (``-diff``)?"""
    if path.rpartition("/")[2] in LOCK_FILES:
        return True
    marked = inp.attr(path, "linguist-generated")
    return (
        marked is True or (isinstance(marked, str) and marked.lower() in ("true", "set", "1")) or inp.attr(path, "diff") is False
    )


def counted(inp: CheckInput) -> tuple[FileChange, ...]:
    """The changes budgets count: all, or (``budget.skip_generated``, the default) those of files
    no tool generates (``generated``)."""
    if not inp.policy.skip_generated:
        return inp.changes
    return tuple(c for c in inp.changes if not generated(c.path, inp))


def measure(inp: CheckInput) -> dict[str, int]:
    """This edit's use of each budget key (a commit's, when the input is committed); generated
    files are not counted unless the policy says so (``counted``)."""
    changes = counted(inp)
    return {
        "files": len({c.path for c in changes}),  # a rename is one file
        "lines_added": sum(len(c.added) for c in changes),
        "lines_removed": sum(len(c.removed) for c in changes),
        "hunks": sum(c.hunks for c in changes),
        "bytes": inp.edit_bytes if inp.committed is None else sum(_changed_bytes(c) for c in changes),
    }


def _over(scope: str, used: Mapping[str, int], inp: CheckInput, level: str) -> list[Finding]:
    """A finding for each limit of `scope` that `used` goes past."""
    out: list[Finding] = []
    for key, limit in inp.policy.budget(scope).items():
        value = used.get(key, 0)
        if value <= limit:
            continue
        setting = f"budget.{scope}.{key}"
        source = f"({setting}, from {inp.policy.source(setting)})"
        if inp.committed is None:
            message = f"{_SCOPE[scope]} would reach {value:,} {_WHAT.get(key, key)}; the limit is {limit:,} {source}"
            hint = _HINT[scope]
        else:
            message = (
                f"{inp.committed.label} has {value:,} {_COMMITTED_WHAT.get(key, key)}; one commit may have {limit:,} {source}"
            )
            hint = _split_hint(inp.committed, key)
        out.append(Finding("budget", level, None, None, message, hint))
    return out


def _too_large(inp: CheckInput, level: str) -> list[Finding]:
    """A file past ``max_file_bytes``; for a commit, only one the commit takes past it."""
    limit = inp.policy.max_file_bytes
    if limit is None:
        return []
    source = f"(budget.max_file_bytes, from {inp.policy.source('budget.max_file_bytes')})"
    out: list[Finding] = []
    for c in counted(inp):
        if c.after is None or len(c.after) <= limit:
            continue
        after = f"{len(c.after):,} bytes"
        if inp.committed is None:
            message, hint = (
                f"{c.path} would be {after}; the limit is {limit:,} {source}",
                "keep the file smaller (split it), or ask the user to raise budget.max_file_bytes",
            )
        elif c.before is None or len(c.before) <= limit:
            message, hint = (
                f"{c.path} becomes {after} in {inp.committed.label}; the limit is {limit:,} {source}",
                "keep large files out of the repository (or split the file), or raise budget.max_file_bytes",
            )
        else:
            continue  # it was that large before this commit
        out.append(Finding("budget", level, c.path, None, message, hint))
    return out


def check(inp: CheckInput, level: str) -> list[Finding]:
    used = measure(inp)
    findings = _over("per_edit", used, inp, level)
    if inp.committed is None:  # a commit has no agent: no turn, no session
        # A file the turn already changed is not counted again (as the ledger records it).
        more = dict(used, files=len({c.path for c in counted(inp)} - inp.usage.turn_files))
        for scope, prior in (("per_turn", inp.usage.turn), ("per_session", inp.usage.session)):
            findings += _over(scope, {key: prior.get(key, 0) + more[key] for key in more}, inp, level)
    return findings + _too_large(inp, level)


def _changed_bytes(c: FileChange) -> int:
    """Bytes of the lines a change adds and removes (all of a new or deleted file)."""
    if c.before is None or c.after is None:
        return len(c.after if c.after is not None else c.before or b"")
    return sum(len(t.encode("utf-8", "surrogateescape")) + 1 for _n, t in (*c.added, *c.removed))


def _split_hint(committed: Committed, key: str) -> str:
    commit = committed.commit
    how = (
        f"split commit {short_id(commit)} into smaller ones (`git rebase -i {short_id(commit)}^`, "
        "mark it `edit`, then `git reset HEAD^` and commit in parts)"
        if commit
        else "commit it in parts: unstage some of it (`git restore --staged PATH`, or `git reset -p`) and commit the rest first"
    )
    return f"{how}; or raise budget.per_edit.{key} in .agent-guard.yaml"
