"""The changes a commit check judges, read from git: the staged change, each commit of a range
(a merge commit by what it holds beyond git's own merge of its parents: ``merges``), or every
file whole."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..fs.filekind import read_regular
from ..repo import GitError, GitRepo
from ..text.wording import plural, short_id
from .changes import (
    CHANGE,
    NULL_IDS,
    ROOT,
    Found,
    Progress,
    Unit,
    all_files_found,
    file_changes,
    resolve_commit,
    staged_found,
    totals,
)
from .merges import merge_unit


def _shallow(repo: GitRepo) -> set[str]:
    try:
        return set(read_regular(repo.commondir / "shallow").decode("utf-8", "replace").split())
    except OSError:
        return set()


def commit_range(repo: GitRepo, from_ref: str, to_ref: str, wanted: frozenset[str], progress: Progress | None = None) -> Found:
    base = None if from_ref.strip() in NULL_IDS else resolve_commit(repo, from_ref, "--from-ref")
    tip = resolve_commit(repo, to_ref, "--to-ref")
    try:
        commits = repo.commits_between(base, tip)
    except GitError as exc:
        raise UsageError(f"cannot list the commits of {from_ref}..{to_ref}: {exc}") from None
    shallow = _shallow(repo)
    units: list[Unit] = []
    listed: list[dict[str, Any]] = []
    merges = roots = 0
    for done, info in enumerate(commits):
        if progress is not None:
            progress(done, len(commits), "reading commits")
        subject = info.message.strip().splitlines()[0] if info.message.strip() else ""
        row: dict[str, Any] = {"commit": info.oid, "subject": subject}
        if not info.parents and info.oid in shallow:
            raise UsageError(
                f"the history is cut off (shallow) at {info.oid[:10]}, inside {from_ref}..{to_ref}: its parent is "
                "missing, so its change cannot be told; fetch the whole range (`git fetch --unshallow`, or "
                "`actions/checkout` with `fetch-depth: 0`)"
            )
        if len(info.parents) > 1:
            merges += 1
            unit, conflicted = merge_unit(repo, info, f"merge commit {short_id(info.oid)} {subject!r}", wanted)
            units.append(unit)
            listed.append({**row, "merge": {"parents": len(info.parents), "conflicted": conflicted}, **totals(unit.changes)})
            continue
        roots += not info.parents
        parent = repo.commit_tree(info.parents[0]) if info.parents else None
        texts: dict[int, tuple[str, tuple[str, ...]]] = {}
        changes = file_changes(repo, repo.diff_trees(parent, info.tree), wanted, texts)
        units.append(
            Unit(
                f"commit {short_id(info.oid)} {subject!r}", info.oid, changes, False, texts, kind=CHANGE if info.parents else ROOT
            )
        )
        listed.append({**row, **({} if info.parents else {"root": True}), **totals(changes)})
    if progress is not None:
        progress(len(commits), len(commits), "reading commits")
    notes: list[str] = []
    if base is None:
        notes.append(f"--from-ref is the null id: every commit {to_ref} reaches was checked, from its root commits on")
    if roots:
        notes.append(
            f"{plural(roots, 'root commit')} (no parent): every file in it is added content, judged as a "
            "new file; the per-commit budget is not applied to it"
        )
    if merges:
        notes.append(
            f"{plural(merges, 'merge commit')}: each judged on what it holds beyond git's automatic merge of its parents"
        )
    if not commits:
        notes.append(f"no commits in {from_ref}..{to_ref}")
    return units, {"mode": "range", "from_ref": from_ref, "to_ref": to_ref, "commits": listed}, notes


def changes_from_git(
    repo: GitRepo,
    wanted: frozenset[str],
    from_ref: str | None = None,
    to_ref: str | None = None,
    all_files: bool = False,
    progress: Progress | None = None,
) -> Found:
    """The commits of from_ref..to_ref one by one, every file whole (`all_files`), or else the
    staged change; `wanted` (repository paths, empty for all) limits what is judged.  `progress`
    is told (done, total, step) as commits and files are read."""
    if from_ref is not None and to_ref is not None:
        return commit_range(repo, from_ref, to_ref, wanted, progress)
    if all_files:
        return all_files_found(repo, wanted, progress)
    return staged_found(repo, wanted)
