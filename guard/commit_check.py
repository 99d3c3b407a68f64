"""`agent-guard check`: the policy's checks on what is being committed, or on commits.

What is judged is built from git trees, never from the work tree, so it is exactly
what is (or will be) committed:

- the staged change (the default): HEAD's tree against the index's tree, where the
  index is ``$GIT_INDEX_FILE`` when git set one (``git commit -a`` and
  ``git commit PATH`` run the hook on a temporary index);
- a range (``--from-ref A --to-ref B``, or pre-commit's ``PRE_COMMIT_FROM_REF`` and
  ``PRE_COMMIT_TO_REF``): each commit of ``A..B`` against its first parent, on its
  own, so a per-commit budget holds for every commit.  Merge commits are skipped:
  the commits they bring in are in the range themselves, or were checked before;
- all files (``--all-files``): every tracked file as staged, judged whole as if it
  were new, for adopting agent-guard on an existing repository.

Path arguments (pre-commit passes the files it selected) limit the check to those
paths.  In the staged mode a named *file* with no staged change is judged whole, so
``pre-commit run --all-files`` and ``pre-commit run --files F`` check what they name.

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

import gc
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from . import checks, diffs, render
from . import entry as program
from .checks.base import keeping, prime
from .errors import UsageError
from .model import FileChange, Finding, NumberedLines, Op
from .policy import Policy
from .repo import LINK, Entry, GitError, GitRepo, TreeChange, read_objects_unverified
from .report import Report
from .textfile import BOM, guess_encoding, is_binary, split
from .wording import plural, short_id
from .workspace import Workspace

GITLINK, TREE = 0o160000, 0o040000
_OPS = {"A": Op.CREATE, "D": Op.DELETE, "M": Op.MODIFY, "R": Op.RENAME}
_LEVELS = ("error", "warning")
# Checks that judge an agent's edit against the work tree, or need the engine.
_NOT_FOR_COMMITS = ("untracked", "no-op", "syntax", "stale")


@dataclass(frozen=True)
class CommitFinding(Finding):
    commit: str | None = None  # the commit of a range the finding is about (None: staged change, whole files)
    anchor: str | None = None  # a file to point at when the finding has no path of its own (budget)

    def as_dict(self) -> dict[str, object]:
        out = super().as_dict()
        out["commit"] = self.commit
        return out


class Unit(NamedTuple):
    """What is judged on its own: the staged change, one commit, or the files checked whole."""

    label: str  # "the staged change", "commit 1a2b3c4d5e 'Add parser'", "the files checked whole"
    commit: str | None
    changes: tuple[FileChange, ...]
    whole: bool
    # id(change) -> (added block, lines) of the changes that add every line of a text
    # (new files, files checked whole): decoded once, handed to the checks as is.
    texts: Mapping[int, tuple[str, tuple[str, ...]]] | None = None


# --- building changes from trees ----------------------------------------------------------
def _matches(path: str, wanted: frozenset[str]) -> bool:
    """`path` is one of `wanted` or inside one of them (a set: pre-commit names thousands)."""
    if not wanted or path in wanted:
        return True
    cut = path.rfind("/")
    while cut > 0:
        if path[:cut] in wanted:
            return True
        cut = path.rfind("/", 0, cut)
    return False


def text_of(data: bytes) -> tuple[str, tuple[str, ...]] | None:
    """(added block, lines) of a file's bytes, as checking it whole sees them; None when not text.

    The lines are ``textfile.decode(data).lines``; the block is those lines joined by
    newlines, which, when the text holds no CR, is the text without its last newline
    (one copy instead of a join of every line).  Not text: binary as ``decode`` sees it,
    or not UTF-8 (without ``decode``'s guess at the encoding, which nobody reads here).
    """
    if is_binary(data):
        return None
    bom = data.startswith(BOM)
    try:
        text = (data[len(BOM):] if bom else data).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text:
        lines = split(text, bom).lines
        return "\n".join(lines), lines
    parts = text.split("\n")  # `split(text).lines` without the line ends nobody reads here
    if not parts[-1]:
        parts.pop()
    return (text[:-1] if text.endswith("\n") else text), tuple(parts)


def created(path: str, data: bytes, mode: int | None,
            texts: dict[int, tuple[str, tuple[str, ...]]] | None = None) -> FileChange:
    """`diffs.make_change(path, CREATE, None, data)` without rendering the diff.

    A commit's new files are most of a large change, and nobody reads their diff
    here: every line is added, in one hunk.  With `texts`, the decoded text is kept
    there (by the change's id) for the checks.
    """
    decoded = text_of(data)
    lines = decoded[1] if decoded is not None else ()
    change = FileChange(path=path, op=Op.CREATE, old_path=None, before=None, after=data, old_mode=None,
                        new_mode=mode, added=NumberedLines(lines), hunks=1 if lines else 0)
    if texts is not None and decoded is not None:
        texts[id(change)] = decoded
    return change


def _changes(repo: GitRepo, deltas: Iterable[TreeChange], wanted: frozenset[str],
             texts: dict[int, tuple[str, tuple[str, ...]]] | None = None) -> tuple[FileChange, ...]:
    out: list[FileChange] = []
    for d in deltas:
        if not (_matches(d.path, wanted) or (d.old_path is not None and _matches(d.old_path, wanted))):
            continue
        if GITLINK in (d.old.mode if d.old else 0, d.new.mode if d.new else 0):
            continue  # a submodule's commit id: checked in the submodule's own repository
        before = repo.read_blob(d.old.oid) if d.old else None
        after = repo.read_blob(d.new.oid) if d.new else None
        if before is None and after is not None and d.status == "A":
            out.append(created(d.path, after, d.new.mode if d.new else None, texts))
            continue
        out.append(diffs.make_change(
            d.path, _OPS[d.status], before, after, old_path=d.old_path,
            old_mode=d.old.mode if d.old else None, new_mode=d.new.mode if d.new else None))
    return tuple(out)


def _whole(repo: GitRepo, entries: Iterable[tuple[str, Entry]],
           texts: dict[int, tuple[str, tuple[str, ...]]] | None = None) -> tuple[FileChange, ...]:
    out: list[FileChange] = []
    for path, entry in entries:
        if entry.mode in (LINK, GITLINK, TREE):
            continue
        data = repo.read_blob(entry.oid)
        if data is not None:
            out.append(created(path, data, entry.mode, texts))
    return tuple(out)


def _index_tree(repo: GitRepo) -> str:
    index_file = os.environ.get("GIT_INDEX_FILE")
    if index_file and not os.path.isfile(index_file):
        raise UsageError(f"GIT_INDEX_FILE names {index_file}, which is not a file; unset it to check the index")
    try:
        return repo.index_tree(os.path.abspath(index_file) if index_file else None)
    except GitError as exc:
        raise UsageError(f"{str(exc).rstrip('.')}; resolve the merge conflict first (`git status` lists the "
                         "files; edit them and `git add` them), then check again") from None


def _staged(repo: GitRepo, wanted: frozenset[str]) -> tuple[list[Unit], dict[str, Any], list[str]]:
    head = repo.head_commit()
    head_tree = repo.commit_tree(head) if head else None
    index_file = os.environ.get("GIT_INDEX_FILE")
    deltas = None
    if not index_file or os.path.isfile(index_file):
        try:
            deltas = repo.staged_changes(head_tree, os.path.abspath(index_file) if index_file else None)
        except GitError:
            deltas = None  # `_index_tree` reports it
    index: str | None = None
    if deltas is None:  # unmerged paths, or an index that cannot be read: `_index_tree` says so
        index = _index_tree(repo)
        deltas = repo.diff_trees(head_tree, index)
    texts: dict[int, tuple[str, tuple[str, ...]]] = {}
    changes = _changes(repo, deltas, wanted, texts)
    units = [Unit("the staged change", None, changes, False, texts)]
    touched = {c.path for c in changes} | {c.old_path for c in changes if c.old_path}
    whole: list[tuple[str, Entry]] = []
    untracked: list[str] = []
    for path in wanted:
        if path in touched:
            continue
        if index is None:
            index = _index_tree(repo)  # a named file the change does not touch: look it up in the index's tree
        entry = repo.tree_entry(index, path)
        if entry is None:
            if not any(t.startswith(path + "/") for t in touched):
                untracked.append(path)
        elif entry.mode != TREE:
            whole.append((path, entry))
    notes: list[str] = []
    merging = (repo.gitdir / "MERGE_HEAD").exists()
    if whole and os.environ.get("PRE_COMMIT") and not merging:
        # pre-commit names the staged files on a commit, and other files only under
        # `run --all-files` or `run --files`, which check every file they name, whole (it
        # does not say which it ran): so a named file with nothing staged means all of them.
        staged = [(path, repo.tree_entry(index, path)) for path in sorted(wanted & touched)] if index else []
        whole = sorted(whole + [(path, entry) for path, entry in staged if entry is not None and entry.mode != TREE])
        whole_texts: dict[int, tuple[str, tuple[str, ...]]] = {}
        checked = _whole(repo, whole, whole_texts)
        units = [Unit("the files checked whole", None, checked, True, whole_texts)]
        extra: dict[str, Any] = {"mode": "all-files", "whole_files": len(checked)}
        if untracked:
            notes.append(f"not in the index, so not checked: {_some(untracked)}")
        return units, extra, notes
    if whole:
        whole_texts = {}
        units.append(Unit("the files checked whole", None, _whole(repo, whole, whole_texts), True, whole_texts))
    if untracked:
        notes.append(f"not in the index, so not checked: {_some(untracked)}")
    extra = {"mode": "staged", **_totals(changes), "whole_files": len(units[1].changes) if whole else 0}
    if merging:
        # A merge brings in work that was committed (and checked) on the other side.
        units[0] = units[0]._replace(label="the staged merge")
        notes.append("a merge is being committed: the per-commit budget is not applied to it")
        extra["merge"] = True
    return units, extra, notes


def _some(paths: Sequence[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def _shallow(repo: GitRepo) -> set[str]:
    try:
        return set((repo.commondir / "shallow").read_text().split())
    except OSError:
        return set()


def _resolve(repo: GitRepo, ref: str, option: str) -> str:
    try:
        oid = repo.resolve(ref)
    except GitError:
        raise UsageError(
            f"{option} {ref!r} is not a commit in this repository; fetch it first "
            "(in CI: `actions/checkout` with `fetch-depth: 0`, or `git fetch origin BRANCH`)") from None
    try:
        repo.commit_info(oid)
    except GitError:
        raise UsageError(f"{option} {ref!r} names {oid[:10]}, which is not a commit; "
                         "give a branch, a tag or a commit id") from None
    return oid


def _committed_policy(g: Workspace, to_ref: str) -> Policy:
    """A bare repository's policy: the .agent-guard.yaml of the range's last commit, as a
    checkout of it would read it (else the preset `default`)."""
    from . import policy as policy_mod

    tip = _resolve(g.repo, to_ref, "--to-ref")
    entry = g.repo.tree_entry(g.repo.commit_tree(tip), policy_mod.DEFAULT_FILE)
    data = g.repo.read_blob(entry.oid) if entry is not None else None
    try:
        if data is None:
            return policy_mod.load(None)
        return policy_mod.load_committed(data.decode("utf-8", "replace"), f"{to_ref}:{policy_mod.DEFAULT_FILE}")
    except policy_mod.PolicyError as exc:
        raise UsageError(f"policy: {exc}") from None


def _range(repo: GitRepo, from_ref: str, to_ref: str, wanted: frozenset[str]) -> tuple[list[Unit], dict[str, Any], list[str]]:
    base, tip = _resolve(repo, from_ref, "--from-ref"), _resolve(repo, to_ref, "--to-ref")
    try:
        commits = repo.commits_between(base, tip)
    except GitError as exc:
        raise UsageError(f"cannot list the commits of {from_ref}..{to_ref}: {exc}") from None
    shallow = _shallow(repo)
    units: list[Unit] = []
    listed: list[dict[str, Any]] = []
    merges = 0
    for info in commits:
        subject = info.message.strip().splitlines()[0] if info.message.strip() else ""
        entry: dict[str, Any] = {"commit": info.oid, "subject": subject}
        if len(info.parents) > 1:
            merges += 1
            listed.append({**entry, "skipped": "merge commit"})
            continue
        if not info.parents and info.oid in shallow:
            raise UsageError(
                f"the history is cut off (shallow) at {info.oid[:10]}, inside {from_ref}..{to_ref}: its parent is "
                "missing, so its change cannot be told; fetch the whole range (`git fetch --unshallow`, or "
                "`actions/checkout` with `fetch-depth: 0`)")
        parent = repo.commit_tree(info.parents[0]) if info.parents else None
        texts: dict[int, tuple[str, tuple[str, ...]]] = {}
        changes = _changes(repo, repo.diff_trees(parent, info.tree), wanted, texts)
        units.append(Unit(f"commit {short_id(info.oid)} {subject!r}", info.oid, changes, False, texts))
        listed.append({**entry, **_totals(changes)})
    notes = [f"{plural(merges, 'merge commit')} skipped: the commits they bring in are checked one by one"] if merges else []
    if not commits:
        notes.append(f"no commits in {from_ref}..{to_ref}")
    return units, {"mode": "range", "from_ref": from_ref, "to_ref": to_ref, "commits": listed}, notes


def _all_files(repo: GitRepo, wanted: frozenset[str]) -> tuple[list[Unit], dict[str, Any], list[str]]:
    index = _index_tree(repo)
    entries = [(d.path, d.new) for d in repo.diff_trees(None, index) if d.new is not None and _matches(d.path, wanted)]
    texts: dict[int, tuple[str, tuple[str, ...]]] = {}
    changes = _whole(repo, entries, texts)
    return [Unit("the files checked whole", None, changes, True, texts)], {"mode": "all-files", "whole_files": len(changes)}, []


def _totals(changes: Sequence[FileChange]) -> dict[str, int]:
    return {"files": len(changes), "added": sum(len(c.added) for c in changes),
            "removed": sum(len(c.removed) for c in changes)}


# --- judging ------------------------------------------------------------------------------
def commit_policy(pol: Policy, whole: bool) -> Policy:
    """`pol` with the levels the shared checks should run at for a commit (or whole files)."""
    raw = pol.data.get("checks")
    levels: dict[str, object] = dict(raw) if isinstance(raw, dict) else {}
    # budget and the encoding checks are judged here, with commit semantics.
    for name in (*_NOT_FOR_COMMITS, "budget", "binary", "not-utf8"):
        levels[name] = "off"
    if levels.get("whitespace") == "fix":
        levels["whitespace"] = "warning"
    if whole:
        levels["path-protected"] = "off"
    elif levels.get("path-protected") == "error":
        levels["path-protected"] = "warning"
    return Policy(pol.name, {**pol.data, "checks": levels}, pol.sources, pol.agent)


_WHAT = {"files": "files", "lines_added": "added lines", "lines_removed": "removed lines", "hunks": "hunks",
         "bytes": "bytes of changed lines"}


def _split_hint(unit: Unit, key: str) -> str:
    how = (f"split commit {short_id(unit.commit)} into smaller ones (`git rebase -i {unit.commit[:10]}^`, "
           "mark it `edit`, then `git reset HEAD^` and commit in parts)" if unit.commit else
           "commit it in parts: unstage some of it (`git restore --staged PATH`, or `git reset -p`) and commit the rest first")
    return f"{how}; or raise budget.per_edit.{key} in .agent-guard.yaml"


def _changed_bytes(c: FileChange) -> int:
    """Bytes of the lines a change adds and removes (all of a new or deleted file)."""
    if c.before is None or c.after is None:
        return len(c.after if c.after is not None else c.before or b"")
    return sum(len(t.encode("utf-8", "surrogateescape")) + 1 for _n, t in (*c.added, *c.removed))


def budget_findings(unit: Unit, pol: Policy) -> list[Finding]:
    level = pol.level("budget")
    if level not in _LEVELS or not unit.changes:
        return []
    changes = unit.changes
    used = {
        "files": len({c.path for c in changes}),
        "lines_added": sum(len(c.added) for c in changes),
        "lines_removed": sum(len(c.removed) for c in changes),
        "hunks": sum(c.hunks for c in changes),
        "bytes": sum(_changed_bytes(c) for c in changes),
    }
    out: list[Finding] = []
    for key, limit in pol.budget("per_edit").items():
        if used.get(key, 0) > limit:
            setting = f"budget.per_edit.{key}"
            out.append(Finding(
                "budget", level, None, None,
                f"{unit.label} has {used[key]:,} {_WHAT.get(key, key)}; one commit may have {limit:,} "
                f"({setting}, from {pol.source(setting)})", _split_hint(unit, key)))
    most = pol.max_file_bytes
    if most is not None:
        for c in changes:
            if c.after is not None and len(c.after) > most and (c.before is None or len(c.before) <= most):
                out.append(Finding(
                    "budget", level, c.path, None,
                    f"{c.path} becomes {len(c.after):,} bytes in {unit.label}; the limit is {most:,} "
                    f"(budget.max_file_bytes, from {pol.source('budget.max_file_bytes')})",
                    "keep large files out of the repository (or split the file), or raise budget.max_file_bytes"))
    return out


def _not_text(data: bytes) -> tuple[str, str, str | None] | None:
    """(finding code, what is wrong, likely encoding) when `data` is not UTF-8 text."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return "not-utf8", "it is UTF-16 or UTF-32 text (it starts with that byte-order mark)", "utf-16"
    nul = data.find(b"\x00")
    if nul >= 0:
        return "binary", f"holds a NUL byte at line {_line_at(data, nul)}", None
    body = data[len(BOM):] if data.startswith(BOM) else data
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + len(data) - len(body)
        guess = guess_encoding(data)
        looks = f"; it looks like {guess}" if guess and guess.replace("-", "_").lower() not in ("utf_8", "ascii") else ""
        return "not-utf8", f"byte 0x{data[at]:02x} at line {_line_at(data, at)} is not UTF-8{looks}", guess
    return None


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def encoding_findings(changes: Sequence[FileChange], pol: Policy, attr: checks.AttrLookup,
                      decoded: Mapping[int, object] | None = None) -> list[Finding]:
    """`binary` / `not-utf8` findings; `decoded` holds (by id) changes whose new bytes decoded as text."""
    from .checks.encoding import marked_binary

    out: list[Finding] = []
    for c in changes:
        if c.after is None or c.new_mode in (LINK, GITLINK):
            continue
        if decoded is not None and id(c) in decoded and b"\x00" not in c.after:
            # Decoded as UTF-8 (a UTF-16/32 byte-order mark never does), and no NUL
            # anywhere (decoding looked at the ends only): `_not_text` would say None.
            continue
        problem = _not_text(c.after)
        if problem is None or marked_binary(c.path, attr) is not None:
            continue
        code, what, guess = problem
        was_text = c.before is not None and _not_text(c.before) is None
        if pol.level(code) not in _LEVELS or (c.before is not None and not was_text):
            continue  # it was not UTF-8 text before either: not this commit's doing
        if code == "binary":
            if not was_text:
                continue  # a binary file arriving or staying binary is fine
            out.append(Finding(
                "binary", pol.level(code), c.path, None,
                f"{c.path} was text and now {what}: this change makes it binary",
                "remove the NUL bytes (an escape such as \\0 may have been written as a raw byte), "
                f"or mark the file binary in .gitattributes (`{c.path} binary`) if that is intended"))
        else:
            out.append(Finding(
                "not-utf8", pol.level(code), c.path, None, f"{c.path} is not UTF-8 text: {what}",
                f"convert it (`iconv -f {guess or 'ENCODING'} -t utf-8`) and stage it again, "
                f"or mark it binary in .gitattributes (`{c.path} binary`) if it is not text"))
    return out


# The attributes each check asks for every file (asked for a whole unit at once).
_ATTRIBUTES = {"whitespace": ("whitespace",), "conflict-marker": ("conflict-marker-size",)}


class _Judge:
    """Runs the checks on one unit after another, with the policies built once."""

    def __init__(self, repo: GitRepo, pol: Policy) -> None:
        self.repo = repo
        self.pol = pol
        self.for_change = commit_policy(pol, whole=False)
        self.for_whole = commit_policy(pol, whole=True)
        self.core_whitespace = repo.config("core.whitespace")

    def __call__(self, unit: Unit, budget: bool = True) -> list[Finding]:
        if not unit.changes:
            return []
        policy = self.for_whole if unit.whole else self.for_change
        # What checks.run would run (the commit policy never says `fix`), decided once.
        named = [(name, check, level if level in _LEVELS else "error")
                 for name, check in checks.CHECKS.items()
                 for level in (policy.level(name),)
                 if level in _LEVELS or name in checks.ALWAYS]
        active = [(check, level) for _name, check, level in named]
        found: list[Finding] = []
        texts = unit.texts or {}
        wanted = {attr for name, _check, _level in named for attr in _ATTRIBUTES.get(name, ())}
        self.repo.prefetch_attributes([c.path for c in unit.changes], sorted(wanted))
        # Each check once over the whole unit; the line checks share the joined text of each
        # change (its block, kept for all of them meanwhile).  The findings are then put in
        # the order a change at a time would give: by change, then by check.
        with keeping(len(unit.changes)):
            for change in unit.changes:
                decoded = texts.get(id(change))
                if decoded is not None:
                    prime(change, *decoded)
            inp = checks.CheckInput(
                changes=unit.changes,
                policy=policy,
                tracked=lambda _path: True,  # `untracked` does not run on commits
                attr=self.repo.attr,
                core_whitespace=self.core_whitespace,
            )
            for check, level in active:
                found += check(inp, level)
        at = {p: i for i, c in enumerate(unit.changes) for p in (c.old_path, c.path) if p}
        found.sort(key=lambda f: at.get(f.path or "", len(at)))
        # The budget, which needs all of them, is ours.
        if not unit.whole:
            found += encoding_findings(unit.changes, self.pol, self.repo.attr, texts)
            if budget:
                found += budget_findings(unit, self.pol)
        anchor = unit.changes[0].path
        return [CommitFinding(f.code, f.severity, f.path, f.line, f.message, f.hint, commit=unit.commit,
                              anchor=None if f.path else anchor) for f in found]


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
    if from_ref is not None and to_ref is not None:
        units, extra, notes = _range(repo, from_ref, to_ref, wanted)
    elif all_files:
        units, extra, notes = _all_files(repo, wanted)
    else:
        units, extra, notes = _staged(repo, wanted)
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
    changes = tuple(replace(c, diff="") if c.diff else c for unit in units for c in unit.changes)
    status = "refused" if any(f.severity == "error" for f in findings) else "checked"
    return Report(status, None, changes, tuple(findings), notes=tuple(notes), extra={"check": extra})


# --- the plain git hook ---------------------------------------------------------------------
HOOK_MARK = "# agent-guard-hook: 1"
PREVIOUS = "pre-commit.agent-guard-previous"

_HOOK = """#!/bin/sh
# agent-guard pre-commit hook: `agent-guard check` on what is being committed.
# For repositories that do not use the pre-commit framework.  Copy it to
# .git/hooks/pre-commit (or into core.hooksPath), or let `agent-guard install-hook` do it:
# that keeps a hook already there as pre-commit.agent-guard-previous, which runs first,
# and `agent-guard uninstall-hook` puts it back.  Skip the check once: git commit --no-verify
__MARK__

previous="$(dirname "$0")/__PREVIOUS__"
if [ -x "$previous" ]; then
    "$previous" "$@" || exit $?
fi

# The Python that installed this hook (empty in the copy shipped in hooks/), else PATH.
AGENT_GUARD_PYTHON=__PYTHON__
if [ -n "$AGENT_GUARD_PYTHON" ] && [ -x "$AGENT_GUARD_PYTHON" ]; then
    exec "$AGENT_GUARD_PYTHON" -m guard check
fi
if command -v agent-guard >/dev/null 2>&1; then
    exec agent-guard check
fi
echo "agent-guard pre-commit hook: agent-guard is not installed here (not on PATH${AGENT_GUARD_PYTHON:+, not at $AGENT_GUARD_PYTHON})." >&2
echo "  Install it (pip install agent-guard), or remove this hook: agent-guard uninstall-hook" >&2
exit 1
"""


def hook_script(python: str = "") -> str:
    """The plain pre-commit hook; `python` (an interpreter with agent-guard) is tried before PATH."""
    import shlex

    return (_HOOK.replace("__MARK__", HOOK_MARK).replace("__PREVIOUS__", PREVIOUS)
            .replace("__PYTHON__", shlex.quote(python) if python else "''"))


def hooks_dir(g: Workspace) -> tuple[Path, bool]:
    """Where git looks for hooks: core.hooksPath (relative to the work tree) or the common git dir."""
    configured = g.repo.config("core.hooksPath")
    if configured:
        path = Path(os.path.expanduser(configured))
        return (path if path.is_absolute() else g.root / path), True
    return g.repo.commondir / "hooks", False


def _is_ours(path: Path) -> bool:
    try:
        return HOOK_MARK.encode() in path.read_bytes()
    except OSError:
        return False


def _write_executable(path: Path, text: str) -> None:
    import tempfile  # here: only installing a hook writes a file

    fd, tmp = tempfile.mkstemp(prefix=".agent-guard-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def install_hook(g: Workspace, python: str) -> list[str]:
    folder, configured = hooks_dir(g)
    target, previous = folder / "pre-commit", folder / PREVIOUS
    where = f"{target}" + (" (core.hooksPath)" if configured else "")
    lines: list[str] = []
    folder.mkdir(parents=True, exist_ok=True)
    if _is_ours(target):
        lines.append(f"agent-guard: updated the pre-commit hook at {where}")
    elif os.path.lexists(target):
        if os.path.lexists(previous):
            raise UsageError(
                f"{target} is another tool's hook, and {previous} (where install-hook keeps such a hook) "
                "exists too; move one of them away, then run `agent-guard install-hook` again")
        os.replace(target, previous)
        lines.append(f"agent-guard: installed the pre-commit hook at {where}")
        lines.append(f"  the hook that was there is now {previous}; it runs first, and a failure there still stops the commit")
        if not os.access(previous, os.X_OK):
            lines.append("  note: it is not executable, so (as before) it does not run")
    else:
        lines.append(f"agent-guard: installed the pre-commit hook at {where}")
    _write_executable(target, hook_script(python))
    inside = [g.root, g.repo.commondir]
    if configured and not any(target.resolve().is_relative_to(p) for p in inside):
        lines.append(f"  note: {folder} is outside this repository: every repository that uses it now runs the hook")
    lines.append("  `git commit` now runs `agent-guard check`; remove it with `agent-guard uninstall-hook`")
    return lines


def uninstall_hook(g: Workspace) -> list[str]:
    folder, _configured = hooks_dir(g)
    target, previous = folder / "pre-commit", folder / PREVIOUS
    if not os.path.lexists(target):
        if os.path.lexists(previous):
            os.replace(previous, target)
            return [f"agent-guard: no hook at {target}; put back the one kept at {previous}"]
        return [f"agent-guard: no pre-commit hook at {target}; nothing to do"]
    if not _is_ours(target):
        return [f"agent-guard: the pre-commit hook at {target} is not agent-guard's; left it alone"]
    os.unlink(target)
    if os.path.lexists(previous):
        os.replace(previous, target)
        return [f"agent-guard: removed the pre-commit hook at {target} and put back the hook it had kept"]
    return [f"agent-guard: removed the pre-commit hook at {target}"]


# --- command line -----------------------------------------------------------------------------
def repo_paths(root: Path, raw: Sequence[str]) -> tuple[str, ...]:
    """Paths as given (relative to the current folder) -> relative to the repository root."""
    # Plain strings, not pathlib (pre-commit names thousands of files), and each
    # folder resolved once.
    top = str(root)
    inside = top.rstrip("/") + "/"
    folders: dict[str, str] = {}
    out: list[str] = []
    cwd = os.getcwd()
    for p in raw:
        full = os.path.normpath(os.path.join(cwd, p))  # os.path.abspath, without a getcwd per path
        folder, name = os.path.split(full)
        # Resolve the folders, not the name itself: a committed symlink is judged as itself.
        if name:
            real_folder = folders.get(folder)
            if real_folder is None:
                real_folder = folders[folder] = os.path.realpath(folder)
            real = os.path.join(real_folder, name)
        else:
            real = os.path.realpath(full)
        if real == top:
            out.append("")
        elif real.startswith(inside):
            out.append(real[len(inside):])
        else:
            raise UsageError(f"{p} is outside the repository {root}; name paths inside it")
    return tuple(out)


def run_check(paths: Sequence[str], *, mode: str | None = None, from_ref: str | None = None,
              to_ref: str | None = None, policy: str | None = None, fmt: str | None = None) -> int:
    """`agent-guard check` once its options are read (by click or by ``entry``): print the report, return the status.

    `mode` is "staged", "all-files" or None; `fmt` one of ``output_formats.FORMATS`` or
    None (human).  The options are consistent (the caller refused the rest).
    """
    if mode is None and from_ref is None and to_ref is None:
        env_from, env_to = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
        if env_from and env_to:
            from_ref, to_ref = env_from, env_to
    if program.PROCESS_ENDS_AFTER:
        read_objects_unverified()  # this process reads the commit and ends: as git reads it
    collect = gc.isenabled()
    # A check allocates a tuple per added line and keeps them all: the cycle collector
    # would walk them again and again while they pile up, and find no cycle.
    gc.disable()
    try:
        g = Workspace(".", policy, bare_ok=True)
        # A bare repository (a server's receive hook) has no work tree: paths are the repository's.
        named = tuple(os.path.normpath(p) for p in paths) if g.repo.bare else repo_paths(g.root, paths)
        report = check(g, from_ref=from_ref, to_ref=to_ref, all_files=mode == "all-files", paths=named)
    finally:
        # Turned back on, the collector would first walk everything the check still holds
        # (a tuple per added line, tens of milliseconds): not worth it when the process
        # ends after this command (`entry.run`).
        if collect and not program.PROCESS_ENDS_AFTER:
            gc.enable()
    if fmt is None and os.environ.get("PRE_COMMIT") and not report.findings and not report.notes:
        # pre-commit prints a passing hook's output (the hook is `verbose`, so that warnings
        # show): a clean check has nothing to add to its "Passed".
        return report.exit_code
    text = render.check(report, fmt or "human")
    sys.stdout.write(text + "\n")
    sys.stdout.flush()  # as click.echo does: a caller that swapped the stream reads it next
    return report.exit_code
