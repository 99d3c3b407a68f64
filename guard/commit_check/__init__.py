"""`agent-guard check`: the policy's checks on what is being committed, or on commits.

Git's trees become changes (``changes.changes_from_git``: the staged change, each
commit of a range, or every file whole), and each unit of them goes through the
checks an agent's edit goes through (``checks.run``), as committed
(``CheckInput.committed``).  ``githook`` installs the plain git hook that runs it.

Which checks apply, and how:
- ``placeholder``, ``conflict-marker``, ``whitespace``: on added lines (on every line
  of a file judged whole, where a placeholder counts only by strong evidence, since
  nothing was removed).  A commit is never rewritten, so ``whitespace: fix`` reports
  warnings;
- ``budget``: ``budget.per_edit`` per commit (files, added and removed lines, hunks,
  bytes of changed lines) and ``budget.max_file_bytes`` for a file the commit takes past it;
- ``binary`` / ``not-utf8``: a text file that the commit makes binary, or text that
  is not UTF-8 (files marked binary in .gitattributes are left alone);
- ``path-protected``: reported as a warning, never refused: people change CI files and
  the policy itself on purpose, and a commit has no agent to stop.
Not ``untracked`` or ``no-op``: they judge an agent's edit against the work tree.
Whole files get only the first group: a budget or a protected path is about a change.
"""

from __future__ import annotations

from typing import Sequence

from .. import checks
from ..errors import UsageError
from ..model import FileChange, Finding
from ..policy import Policy
from ..repo import GitRepo
from ..report import Report
from ..workspace import Workspace
from .changes import Unit, changes_from_git, resolve_commit

# Checks that judge an agent's edit against the work tree, or need the engine.
_NOT_FOR_COMMITS = ("untracked", "no-op", "syntax", "stale")
# Checks of what a change does (its size, text it makes binary): not of files checked whole.
_OF_A_CHANGE = ("budget", "binary", "not-utf8")


class CommitFinding(Finding):
    """A finding of a commit check: the commit it is about, and where to point when it has no path."""

    __slots__ = ("commit", "anchor")
    _fields = Finding._fields + __slots__
    commit: str | None  # the commit of a range the finding is about (None: staged change, whole files)
    anchor: str | None  # a file to point at when the finding has no path of its own (budget)

    def __init__(self, code: str, severity: str, path: str | None, line: int | None, message: str, hint: str = "",
                 commit: str | None = None, anchor: str | None = None) -> None:
        self._init(code, severity, path, line, message, hint, commit, anchor)

    def as_dict(self) -> dict[str, object]:
        out = super().as_dict()
        out["commit"] = self.commit
        return out


def commit_policy(pol: Policy, whole: bool, budget: bool = True) -> Policy:
    """`pol` with the levels the checks run at for a commit, for files checked whole, or (without
    `budget`) for a merge."""
    raw = pol.data.get("checks")
    levels: dict[str, object] = dict(raw) if isinstance(raw, dict) else {}
    for name in _NOT_FOR_COMMITS + (_OF_A_CHANGE if whole else ()) + (() if budget else ("budget",)):
        levels[name] = "off"
    if levels.get("whitespace") == "fix":
        levels["whitespace"] = "warning"
    if whole:
        levels["path-protected"] = "off"
    elif levels.get("path-protected") == "error":
        levels["path-protected"] = "warning"
    return Policy(pol.name, {**pol.data, "checks": levels}, pol.sources, pol.agent)


# The attributes each check asks for every file (asked for a whole unit at once).
_ATTRIBUTES = {"whitespace": ("whitespace",), "conflict-marker": ("conflict-marker-size",)}
# A commit's report lists the line checks' findings change by change, then what the
# commit does to files' encodings (by change), then its budget.
_LATER = {"binary": 1, "not-utf8": 1, "budget": 2}


def _in_order(findings: Sequence[Finding], changes: Sequence[FileChange]) -> list[Finding]:
    at = {p: i for i, c in enumerate(changes) for p in (c.old_path, c.path) if p}

    def key(f: Finding) -> tuple[int, int]:
        rank = _LATER.get(f.code, 0)
        return rank, at.get(f.path or "", len(at)) if rank < 2 else 0

    return sorted(findings, key=key)


class _Judge:
    """Runs the checks on one unit after another, with the policies built once."""

    def __init__(self, repo: GitRepo, pol: Policy) -> None:
        self.repo = repo
        self.for_change = commit_policy(pol, whole=False)
        self.for_merge = commit_policy(pol, whole=False, budget=False)
        self.for_whole = commit_policy(pol, whole=True)
        self.core_whitespace = repo.config("core.whitespace")

    def __call__(self, unit: Unit, budget: bool = True) -> list[Finding]:
        if not unit.changes:
            return []
        policy = self.for_whole if unit.whole else self.for_change if budget else self.for_merge
        running = [name for name in checks.CHECKS if policy.level(name) in checks.LEVELS or name in checks.ALWAYS]
        wanted = {attr for name in running for attr in _ATTRIBUTES.get(name, ())}
        self.repo.prefetch_attributes([c.path for c in unit.changes], sorted(wanted))
        # Each check once over the whole unit; the line checks share the joined text of each
        # change (its block), which a new file's decoded text already is.
        blocks = checks.Blocks()
        for change in unit.changes:
            decoded = (unit.texts or {}).get(id(change))
            if decoded is not None:
                blocks.prime(change, *decoded)
        inp = checks.CheckInput(
            changes=unit.changes,
            policy=policy,
            tracked=lambda _path: True,  # `untracked` does not run on commits
            attr=self.repo.attr,
            core_whitespace=self.core_whitespace,
            committed=checks.Committed(unit.label, unit.commit),
            blocks=blocks,
        )
        found = _in_order(checks.run(inp).findings, unit.changes)
        anchor = unit.changes[0].path
        return [CommitFinding(f.code, f.severity, f.path, f.line, f.message, f.hint, commit=unit.commit,
                              anchor=None if f.path else anchor) for f in found]


def _committed_policy(g: Workspace, to_ref: str) -> Policy:
    """A bare repository's policy: the .agent-guard.yaml of the range's last commit, as a
    checkout of it would read it (else the preset `default`)."""
    from .. import policy as policy_mod

    tip = resolve_commit(g.repo, to_ref, "--to-ref")
    entry = g.repo.tree_entry(g.repo.commit_tree(tip), policy_mod.DEFAULT_FILE)
    data = g.repo.read_blob(entry.oid) if entry is not None else None
    try:
        if data is None:
            return policy_mod.load(None)
        return policy_mod.load_committed(data.decode("utf-8", "replace"), f"{to_ref}:{policy_mod.DEFAULT_FILE}")
    except policy_mod.PolicyError as exc:
        raise UsageError(f"policy: {exc}") from None


def check(g: Workspace, *, from_ref: str | None = None, to_ref: str | None = None, all_files: bool = False,
          paths: Sequence[str] = (), staged: bool = True) -> Report:
    """Check the staged change (default), every commit of from_ref..to_ref, or all files.

    `paths` are relative to the repository root; they limit the check (a named file
    with no staged change is checked whole).  The Report's status is "refused" (exit
    1) when any finding is an error, else "checked".
    """
    if (from_ref is None) != (to_ref is None):
        raise UsageError("give both --from-ref and --to-ref (the range FROM..TO), or neither")
    if from_ref is not None and all_files:
        raise UsageError("--all-files checks the files as they are; it does not combine with --from-ref/--to-ref")
    if from_ref is None and not all_files and not staged:
        raise UsageError("nothing to check: give --staged, --all-files, or --from-ref with --to-ref")
    wanted = frozenset(p.strip("/") for p in paths)
    if "" in wanted or "." in wanted:
        wanted = frozenset()
    repo = g.repo
    if repo.bare and (from_ref is None or to_ref is None):
        raise UsageError(f"{repo.gitdir} is a bare repository: it has no index or work tree to check; "
                         "check the commits of a range: agent-guard check --from-ref A --to-ref B")
    units, extra, notes = changes_from_git(repo, wanted, from_ref, to_ref, all_files)
    if repo.bare and g.policy_spec is None:
        assert to_ref is not None  # a bare repository checks ranges only (above)
        pol = _committed_policy(g, to_ref)
    else:
        pol = g.policy()
    judge = _Judge(repo, pol)
    findings: list[Finding] = []
    for unit in units:
        findings += judge(unit, budget=not extra.get("merge"))
    # The change list is for the report's "files"; the diffs are the user's own commits.
    changes = tuple(c._replace(diff="") if c.diff else c for unit in units for c in unit.changes)
    status = "refused" if any(f.severity == "error" for f in findings) else "checked"
    return Report(status, None, changes, tuple(findings), notes=tuple(notes), extra={"check": extra})
