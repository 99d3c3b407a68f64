"""Policy checks: each a function ``(CheckInput, level) -> list[Finding]`` in ``CHECKS``.

``run`` first applies the whitespace fix when the policy's level for ``whitespace``
is ``fix`` (recording the repair ``whitespace-fix`` and rebuilding the change), then
runs every check whose level is not ``off``.  A finding's severity is its check's
level.  ``path-protected`` always runs: a path inside ``.git`` is an error whatever
the policy says.  ``stale`` is a level in the policy, but its check needs the git
object store and lives in the engine.

``run`` serves an agent's edit (the engine) and a commit check (guard/commit_check/)
alike: a commit comes as ``CheckInput.committed``, which the checks whose meaning
differs for a commit (``budget``, ``binary``, ``not-utf8``) read.

A policy's ``exclude: {CHECK: [globs]}`` keeps one check off the paths it names (test
fixtures that hold elision text on purpose, vendored code): that check is run on the
other changes only (and the whitespace fix leaves those files as they are).
"""

from __future__ import annotations

from dataclasses import replace

from . import budget, conflict, encoding, noop, placeholder, protected, syntax, untracked, whitespace
from .base import LEVELS, AttrLookup, Blocks, Check, CheckInput, CheckResult, Committed, Usage, no_attr
from .encoding import content_finding

__all__ = [
    "ALWAYS",
    "AttrLookup",
    "Blocks",
    "CHECKS",
    "Check",
    "CheckInput",
    "CheckResult",
    "Committed",
    "LEVELS",
    "Usage",
    "content_finding",
    "no_attr",
    "run",
]

CHECKS: dict[str, Check] = {
    "path-protected": protected.check,
    "untracked": untracked.check,
    "binary": encoding.check_binary,
    "not-utf8": encoding.check_utf8,
    "no-op": noop.check,
    "conflict-marker": conflict.check,
    "placeholder": placeholder.check,
    "whitespace": whitespace.check,
    "budget": budget.check,
    "syntax": syntax.check,
}

ALWAYS = frozenset({"path-protected"})


def run(inp: CheckInput) -> CheckResult:
    changes = inp.changes
    pol = inp.policy
    if pol.level("whitespace") == "fix":
        changes = tuple(
            c if pol.excluded("whitespace", c.path) else whitespace.fix(c, whitespace.rules_for(c.path, inp), inp.blocks)
            for c in changes
        )
        inp = replace(inp, changes=changes)
    findings = []
    for name, check in CHECKS.items():
        level = pol.level(name)
        if level in LEVELS or name in ALWAYS:
            findings.extend(check(_without_excluded(inp, name), level if level in LEVELS else "error"))
    return CheckResult(changes, tuple(findings))


def _without_excluded(inp: CheckInput, name: str) -> CheckInput:
    """`inp` without the changes the policy's ``exclude.NAME`` keeps check `name` off."""
    kept = tuple(c for c in inp.changes if not inp.policy.excluded(name, c.path))
    return inp if len(kept) == len(inp.changes) else replace(inp, changes=kept)
