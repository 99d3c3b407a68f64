"""`agent-guard check`: the policy's checks on what is being committed, or on commits.

Git's trees become changes (``sources.changes_from_git``: the staged change, each
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
  a merge commit's own change is held to ``files`` and ``lines_added`` (``merges``), a
  root commit (no parent) and a merge being committed to no ``per_edit`` limit;
- ``binary`` / ``not-utf8``: a text file that the commit makes binary, or text that
  is not UTF-8 (files marked binary in .gitattributes are left alone);
- ``path-protected``: reported as a warning, never refused: people change CI files and
  the policy itself on purpose, and a commit has no agent to stop.
Not ``untracked`` or ``no-op``: they judge an agent's edit against the work tree.
Whole files get only the first group: a budget or a protected path is about a change.

A range is judged by one policy from outside it (``range_policy``: ``--policy``, else the
one committed at its base), and a commit of it that changes the policy is reported.  The
staged change is judged likewise by the policy committed at HEAD (``index_policy``), never by
one it brings or an unstaged edit of it, and what it does to the policy is reported.

A policy's ``exclude: {CHECK: [globs]}`` keeps a check off some paths (``checks.run``);
lock files and generated files are not counted in budgets (``checks.budget``); and a
policy's ``baseline`` file lists the findings the repository had when it adopted the
check, which are then passed over (``baseline``).
"""

from __future__ import annotations

from typing import Sequence

from .. import checks
from ..errors import UsageError
from ..files.workspace import Workspace
from ..model import FileChange, Finding
from ..policy import Policy
from ..repo import GitRepo
from ..report import Report
from . import baseline, index_policy, named, range_policy
from .changes import (
    CHANGE,
    MERGE,
    NULL_IDS,
    ROOT,
    STAGED_MERGE,
    Progress,
    Unit,
    index_file,
    resolve_commit,
)
from .findings import CommitFinding
from .sources import changes_from_git

# Checks that judge an agent's edit against the work tree, or need the engine.
_NOT_FOR_COMMITS = ("untracked", "no-op", "syntax", "stale")
# Checks of what a change does (its size, text it makes binary): not of files checked whole.
_OF_A_CHANGE = ("budget", "binary", "not-utf8")


def commit_policy(pol: Policy, whole: bool, budget: bool = True, per_edit: tuple[str, ...] | None = None) -> Policy:
    """`pol` with the levels the checks run at for a commit, for files checked whole, or (without
    `budget`) for a merge being committed; `per_edit`: the only ``budget.per_edit`` limits kept."""
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
    data = {**pol.data, "checks": levels}
    budgets = pol.data.get("budget")
    if per_edit is not None and isinstance(budgets, dict):
        limits = budgets.get("per_edit")
        kept = {k: v for k, v in limits.items() if k in per_edit} if isinstance(limits, dict) else {}
        data["budget"] = {**budgets, "per_edit": kept}
    return Policy(pol.name, data, pol.sources, pol.agent)


# The attributes each check asks for every file (asked for a whole unit at once).
_ATTRIBUTES = {"whitespace": ("whitespace",), "conflict-marker": ("conflict-marker-size",), "budget": checks.budget.ATTRIBUTES}
# A commit's report lists the line checks' findings change by change, then what the
# commit does to files' encodings (by change), then its budget.
_LATER = {"binary": 1, "not-utf8": 1, "budget": 2}


def _in_order(findings: Sequence[Finding], changes: Sequence[FileChange]) -> list[Finding]:
    at = {p: i for i, c in enumerate(changes) for p in (c.old_path, c.path) if p}

    def key(f: Finding) -> tuple[int, int]:
        rank = _LATER.get(f.code, 0)
        return rank, at.get(f.path or "", len(at)) if rank < 2 else 0

    return sorted(findings, key=key)


# The budget.per_edit limits a merge commit's own change is held to (``merges``).
_MERGE_LIMITS = ("files", "lines_added")
_MERGE_HINT = (
    "do the merge with no change of its own beyond resolving conflicts, and commit the rest on its own "
    "before or after it; or raise budget.per_edit.{key} in .agent-guard.yaml"
)


class _Judge:
    """Runs the checks on one unit after another, with the policies built once."""

    def __init__(self, repo: GitRepo, pol: Policy, range_base: str | None = None) -> None:
        """`range_base`: the commit a range starts from (its policy's and its attributes' tree)."""
        self.repo = repo
        self.range_base = range_base
        self.policies = {
            CHANGE: commit_policy(pol, whole=False),
            ROOT: commit_policy(pol, whole=False, per_edit=()),
            MERGE: commit_policy(pol, whole=False, per_edit=_MERGE_LIMITS),
            STAGED_MERGE: commit_policy(pol, whole=False, budget=False),
        }
        self.for_whole = commit_policy(pol, whole=True)
        self.core_whitespace = repo.config("core.whitespace")

    def _before(self, unit: Unit) -> str | None | bool:
        """Whose `.gitattributes` the checks of `unit` read: never what the commits judged write
        (they could switch the checks off, `* -whitespace`), but the tree before them, as for the
        policy (``range_policy``): a range's base commit (None, no tree's, from the null id), HEAD
        for the staged change; the work tree's (False) for files checked whole, which change
        nothing.  Files outside every tree (info/attributes, core.attributesFile) count as always."""
        if unit.whole:
            return False
        if unit.commit is None:
            return self.repo.head_commit()
        return self.range_base

    def __call__(self, unit: Unit) -> list[Finding]:
        if not unit.changes:
            return []
        policy = self.for_whole if unit.whole else self.policies[unit.kind]
        running = [name for name in checks.CHECKS if policy.level(name) in checks.LEVELS or name in checks.ALWAYS]
        wanted = {attr for name in running for attr in _ATTRIBUTES.get(name, ())}
        before = self._before(unit)
        if before is False:
            attr = self.repo.attributes([c.path for c in unit.changes], sorted(wanted))
        else:
            attr = self.repo.attributes_at(before if isinstance(before, str) else None)
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
            attr=attr,
            core_whitespace=self.core_whitespace,
            committed=checks.Committed(unit.label, unit.commit),
            blocks=blocks,
        )
        found = _in_order(checks.run(inp).findings, unit.changes)
        if unit.kept:
            found = _own(found, unit)
        anchor = unit.changes[0].path
        return [
            CommitFinding(
                f.code,
                f.severity,
                f.path,
                f.line,
                f.message,
                _hint(f, unit),
                commit=unit.commit,
                anchor=None if f.path else anchor,
            )
            for f in found
        ]


def _own(found: Sequence[Finding], unit: Unit) -> list[Finding]:
    """`found` without the findings on a conflicted file's lines that a version merged there holds
    (the resolution moved them; the commit that wrote them was judged)."""
    kept = unit.kept or {}
    lines = {c.path: dict(c.added) for c in unit.changes if c.path in kept}
    out: list[Finding] = []
    for f in found:
        text = lines.get(f.path or "", {}).get(f.line) if f.line is not None else None
        if text is not None and text in kept[f.path or ""]:
            continue
        out.append(f)
    return out


def _hint(f: Finding, unit: Unit) -> str:
    """A finding's hint; a merge's budget says how to keep a merge small (not `git rebase -i` of it)."""
    if unit.kind == MERGE and f.code == "budget" and f.path is None:
        key = next((k for k in _MERGE_LIMITS if f"budget.per_edit.{k}," in f.message), "lines_added")
        return _MERGE_HINT.format(key=key)
    return f.hint


def _baseline(g: Workspace, pol: Policy, base: str | None, name: str | None) -> baseline.Baseline | None:
    """The baseline the policy names, read as the policy was: from the commit `base` (named `name`:
    a range's base, HEAD for the staged change; none from the null id or no commit yet), else (files
    checked whole) from the work tree."""
    if pol.baseline is None:
        return None
    if name is not None:
        return baseline.from_commit(g.repo, base, pol.baseline, name) if base is not None else None
    return baseline.from_work_tree(g.root, pol.baseline)


def _judged_by(
    g: Workspace, from_ref: str | None, all_files: bool
) -> tuple[range_policy.RangePolicy | None, range_policy.Watch | None, tuple[str | None, str] | None]:
    """The policy a check is judged by (None: the work tree's, for files checked whole), what finds
    the changes to it, and, for the staged change, the commit its baseline is read from (HEAD)."""
    if from_ref is not None:
        source = range_policy.for_range(g, from_ref)
        return source, range_policy.Watch(g.repo, source), None
    if all_files:
        return None, None, None
    staged = index_policy.before_staged(g, index_policy.reader(g.repo, index_file()))
    return staged.source, range_policy.Watch(g.repo, staged.source, (staged.before, staged.after)), (staged.head, "HEAD")


def check(
    g: Workspace,
    *,
    from_ref: str | None = None,
    to_ref: str | None = None,
    all_files: bool = False,
    paths: Sequence[str] = (),
    use_baseline: bool = True,
    progress: Progress | None = None,
) -> Report:
    """Check the staged change (default), every commit of from_ref..to_ref, or all files.

    `paths` are relative to the repository root; they limit the check (a named file
    with no staged change is checked whole).  The Report's status is "refused" (exit
    1) when any finding is an error, else "checked".  Findings the policy's baseline
    lists are passed over (``baseline``), unless `use_baseline` is false (to write a new
    one).  `progress` is told (done, total, step) as the check goes.
    """
    if (from_ref is None) != (to_ref is None):
        raise UsageError("give both --from-ref and --to-ref (the range FROM..TO), or neither")
    if from_ref is not None and all_files:
        raise UsageError("--all-files checks the files as they are; it does not combine with --from-ref/--to-ref")
    wanted = frozenset(p.strip("/") for p in paths)
    if "" in wanted or "." in wanted:
        wanted = frozenset()
    repo = g.repo
    if repo.bare and (from_ref is None or to_ref is None):
        raise UsageError(
            f"{repo.gitdir} is a bare repository: it has no index or work tree to check; "
            "check the commits of a range: agent-guard check --from-ref A --to-ref B"
        )
    # A range is judged by a policy from outside it (read before its commits are: a broken
    # policy is a usage error however long the range), the staged change by the one committed
    # before it (``index_policy``): never by one it brings, or an unstaged edit of it.
    source, watch, read_at = _judged_by(g, from_ref, all_files)
    units, extra, notes = changes_from_git(repo, wanted, from_ref, to_ref, all_files, progress)
    if wanted:
        named.refuse_unmatched(repo, wanted, units, to_ref)
    base = None if from_ref is None or from_ref.strip() in NULL_IDS else resolve_commit(repo, from_ref, "--from-ref")
    pol = source.policy if source is not None else g.policy()
    judge = _Judge(repo, pol, base)
    listed = _baseline(g, pol, *(read_at or (base, from_ref))) if use_baseline else None
    findings: list[Finding] = []
    for done, unit in enumerate(units):
        found = judge(unit)
        if listed is not None:
            found = listed.unlisted(found, unit.changes)
        findings += watch(unit, found) if watch is not None else found
        if progress is not None:
            progress(done + 1, len(units), "checking")
    if source is not None:
        extra["policy"] = source.where
    if listed is not None:
        extra["baseline"] = {"file": listed.where, "passed": listed.matched}
        if listed.matched:
            notes.append(
                f"{listed.matched} finding{'s' if listed.matched != 1 else ''} listed in the baseline {listed.where} not reported"
            )
    elif use_baseline and pol.baseline is not None:
        notes.append(f"the policy names the baseline {pol.baseline}, which does not exist: every finding is reported")
    # The change list is for the report's "files"; the diffs are the user's own commits.
    changes = tuple(c._replace(diff="") if c.diff else c for unit in units for c in unit.changes)
    status = "refused" if any(f.severity == "error" for f in findings) else "checked"
    return Report(status, None, changes, tuple(findings), notes=tuple(notes), extra={"check": extra})
