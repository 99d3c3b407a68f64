"""The policy the staged change is judged by: the one committed before it, never one it brings.

The work tree is not what is committed: read from there, an unstaged ``placeholder: off`` (in
``.agent-guard.yaml``, in pyproject.toml's ``[tool.agent-guard]`` table, in a file ``extends:``
names) would switch a check off for a commit that does not hold it, and an unstaged baseline
would pass the very findings it lists.  Nor may the commit relax its own check: a staged
``placeholder: off`` beside a staged elision (an agent's ``git add``, or ``git commit -a`` over
both) would let the elision in with the policy that waves it through.  So, as a range is judged by
the policy committed at its base (``range_policy``) and attributes come from HEAD, the staged
change is judged by the policy committed at HEAD (``before_staged``): its ``.agent-guard.yaml``
(else pyproject.toml's table) and the files its ``extends:`` names, read from HEAD's tree, and
the baseline it names from there too; with no policy at HEAD (or no commit yet), the preset
``default``.  ``--policy`` is read as always.

What the staged change does to the policy is read from the index git is about to commit
(``$GIT_INDEX_FILE`` where git set one: ``git commit -a`` and ``git commit PATH`` run the hook on
a temporary index) and reported as a ``path-protected`` warning that says what it relaxes; it
judges the commits after it.  A staged policy that cannot be loaded (an ``extends:`` target the
index lacks, a link that leaves the repository) is a usage error: every later check would fail
on it.  A symbolic link among the policy's files is followed inside the index, as a checkout of
the commit follows it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Callable

from .. import policy as policy_mod
from ..errors import UsageError
from ..files.workspace import Workspace
from ..policy import Policy
from ..policy.pyproject import FILE as PYPROJECT
from ..policy.pyproject import TABLE
from ..repo import EXEC, FILE, GITLINK, LINK, Entry, GitError, GitRepo
from . import range_policy

WHERE = "the index"  # how messages name what the staged policy was read from
Read = Callable[[str], bytes | None]  # a repository path -> its bytes there (None: no such path)


def reader(repo: GitRepo, index_file: str | None) -> Read:
    """A repository path -> its bytes as the index stages it (``_following``)."""
    try:
        entry_of = repo.index_entries(index_file)
    except GitError as exc:
        raise UsageError(f"{exc}; the staged check reads the policy from the index") from None
    return _following(repo, entry_of, WHERE)


def head_reader(repo: GitRepo, head: str) -> Read:
    """A repository path -> its bytes as HEAD's tree holds it (``_following``)."""
    tree = repo.commit_tree(head)
    return _following(repo, lambda path: repo.tree_entry(tree, path), "HEAD")


def _following(repo: GitRepo, entry_of: Callable[[str], Entry | None], where: str) -> Read:
    """A repository path -> its bytes (None: `where` holds no such path).

    A symbolic link is followed inside `where`, as a checkout would follow it (a linked policy is
    the file it names); a link that leaves the repository or leads to nothing `where` holds, and
    a submodule, are a PolicyError: no policy can be read there."""

    def read(path: str) -> bytes | None:
        at, entry = path, entry_of(path)
        for _hop in range(_HOPS):
            if entry is None or entry.mode != LINK:
                break
            at = _target(repo, path, at, entry, where)
            entry = entry_of(at)
            if entry is None:
                raise policy_mod.PolicyError(f"{where}:{path} is a symbolic link to {at}, which {where} does not hold")
        if entry is None:
            return None
        if entry.mode not in (FILE, EXEC):
            what = "a submodule" if entry.mode == GITLINK else f"a chain of more than {_HOPS} symbolic links"
            raise policy_mod.PolicyError(f"{where}:{path} is {what}, not a file a policy can be read from")
        return repo.read_blob(entry.oid)

    return read


_HOPS = 8  # symbolic links followed from one path; a loop ends here


def _target(repo: GitRepo, path: str, link: str, entry: Entry, where: str) -> str:
    """The repository path the link at `link` (reached from `path`) names; a PolicyError when it leaves the repository."""
    named = (repo.read_blob(entry.oid) or b"").decode("utf-8", "replace")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(link), named))
    if named.startswith("/") or target == ".." or target.startswith("../"):
        raise policy_mod.PolicyError(f"{where}:{path} is a symbolic link to {named!r}, outside the repository")
    return target


@dataclass(frozen=True, slots=True)
class Staged:
    """What the staged change is judged by (``source``), and the policy before it and as the index holds it."""

    source: range_policy.RangePolicy
    head: str | None  # HEAD's commit (None: no commit yet): where the baseline is read from
    before: Policy | None  # the policy committed at HEAD (None: none there)
    after: Policy | None  # the policy the index holds (None: none)


def before_staged(g: Workspace, read: Read) -> Staged:
    """The policy of the staged change: ``--policy`` when given, else HEAD's (the module doc)."""
    ignorecase = g.repo.ignores_case()
    head = g.repo.head_commit()
    try:
        before = _policy_in(head_reader(g.repo, head), "HEAD", ignorecase) if head is not None else None
    except policy_mod.PolicyError as exc:
        raise UsageError(
            f"policy: {exc}\n(the staged change is judged by the policy committed at HEAD; to judge it by another, "
            "give --policy NAME|FILE)"
        ) from None
    try:
        after = _policy_in(read, WHERE, ignorecase)
    except policy_mod.PolicyError as exc:
        raise UsageError(
            f"policy: {exc}\n(the policy the index holds is the one this commit leaves for every later check: "
            "stage the policy's files with `git add`, or unstage the policy change)"
        ) from None
    if g.policy_spec is not None:
        pol, where = g.policy(), f"--policy {g.policy_spec}"
    elif before is not None:
        pol, where = before, "the policy committed at HEAD"
    else:
        pol = policy_mod.load(None, ignorecase=ignorecase)
        where = "the preset default (HEAD holds no policy)" if head is not None else "the preset default (no commit yet)"
    files = {policy_mod.DEFAULT_FILE, *pol.own_files}
    for side in (before, after):
        if side is not None:
            files.update(side.own_files)
            if side.name.startswith(PYPROJECT):
                files.add(PYPROJECT)  # a table there is a policy the change may edit
    return Staged(range_policy.RangePolicy(pol, where, frozenset(files)), head, before, after)


def _policy_in(read: Read, where: str, ignorecase: bool) -> Policy | None:
    """The .agent-guard.yaml `read` gives (from `where`), else its pyproject.toml's table; None when it holds neither."""

    def text(path: str) -> str | None:
        data = read(path)
        return None if data is None else data.decode("utf-8", "replace")

    own = text(policy_mod.DEFAULT_FILE)
    if own is not None:
        label = f"{where}:{policy_mod.DEFAULT_FILE}"
        return policy_mod.load_committed(own, label, read=text, at=where, ignorecase=ignorecase)
    table = read(PYPROJECT)
    if table is None:
        return None
    label = f"{where}:{PYPROJECT} {TABLE}"
    return policy_mod.load_committed_table(table, label, read=text, at=where, ignorecase=ignorecase)
