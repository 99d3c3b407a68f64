"""The policy the staged change is judged by: the one the index holds, as the commit will record it.

The work tree is not what is committed.  Read from there, an unstaged ``placeholder: off``
(in ``.agent-guard.yaml``, in pyproject.toml's ``[tool.agent-guard]`` table, in a file
``extends:`` names) would switch a check off for a commit that does not hold it, and an
unstaged baseline would pass the very findings it lists.  So, as a range reads the policy
committed at its base (``range_policy``), the staged check reads every policy file from the
index git is about to commit (``$GIT_INDEX_FILE`` where git set one: ``git commit -a`` and
``git commit PATH`` run the hook on a temporary index):

- ``.agent-guard.yaml`` as staged, and each file its ``extends:`` names, from the index too: a
  file the index lacks (untracked, or staged as deleted) is a usage error that says to stage
  it, and a path that leaves the repository is refused (give ``--policy``);
- else the ``[tool.agent-guard]`` table of the staged pyproject.toml;
- else the preset ``default``: a policy staged as deleted is gone for the commit;
- and the baseline the policy names, from the index (none there: every finding is reported),
  whoever named it (``--policy`` too: the file is the repository's).

A symbolic link among them is followed inside the index, as a checkout of the commit
follows it.  A staged change to the policy is what the commit holds, so it applies, with a
``path-protected`` warning of its own.  ``--policy`` is read as always.  The pre-commit
framework stashes unstaged changes before its hooks run but leaves untracked files in
place; reading the index makes the check the same with the framework and without it.
"""

from __future__ import annotations

import posixpath
from typing import Callable

from .. import policy as policy_mod
from ..errors import UsageError
from ..policy import Policy, PolicyCache
from ..policy.pyproject import FILE as PYPROJECT
from ..policy.pyproject import TABLE
from ..repo import EXEC, FILE, GITLINK, LINK, Entry, GitError, GitRepo
from ..workspace import Workspace
from . import baseline

WHERE = "the index"  # how messages name what the policy was read from
Read = Callable[[str], bytes | None]  # a repository path -> its bytes as staged (None: the index holds no such path)


def reader(repo: GitRepo, index_file: str | None) -> Read:
    """A repository path -> its bytes as the index stages it (None: the index holds no such path).

    A symbolic link is followed inside the index, as a checkout of the commit would follow it (a
    linked policy is the file it names); a link that leaves the repository or leads to nothing
    the index holds, and a submodule, are a PolicyError: no policy can be read there."""
    try:
        entry_of = repo.index_entries(index_file)
    except GitError as exc:
        raise UsageError(f"{exc}; the staged check reads the policy from the index") from None

    def read(path: str) -> bytes | None:
        at, entry = path, entry_of(path)
        for _hop in range(_HOPS):
            if entry is None or entry.mode != LINK:
                break
            at = _target(repo, path, at, entry)
            entry = entry_of(at)
            if entry is None:
                raise policy_mod.PolicyError(f"{WHERE}:{path} is a symbolic link to {at}, which {WHERE} does not hold")
        if entry is None:
            return None
        if entry.mode not in (FILE, EXEC):
            what = "a submodule" if entry.mode == GITLINK else f"a chain of more than {_HOPS} symbolic links"
            raise policy_mod.PolicyError(f"{WHERE}:{path} is {what}, not a file a policy can be read from")
        return repo.read_blob(entry.oid)

    return read


_HOPS = 8  # symbolic links followed from one path; a loop ends here


def _target(repo: GitRepo, path: str, link: str, entry: Entry) -> str:
    """The repository path the link at `link` (reached from `path`) names; a PolicyError when it leaves the repository."""
    named = (repo.read_blob(entry.oid) or b"").decode("utf-8", "replace")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(link), named))
    if named.startswith("/") or target == ".." or target.startswith("../"):
        raise policy_mod.PolicyError(f"{WHERE}:{path} is a symbolic link to {named!r}, outside the repository")
    return target


def staged(g: Workspace, read: Read) -> Policy:
    """The policy of the staged change: ``--policy`` when given, else the index's (the module doc)."""
    if g.policy_spec is not None:
        return g.policy()
    ignorecase = g.repo.ignores_case()
    try:
        found = _in_index(read, g.policy_cache, ignorecase)
    except policy_mod.PolicyError as exc:
        raise UsageError(
            f"policy: {exc}\n(the staged change is judged by the policy the index holds, as the commit will record "
            "it: stage the policy's files with `git add`, or judge it by another with --policy NAME|FILE)"
        ) from None
    return found if found is not None else policy_mod.load(None, cache=g.policy_cache, ignorecase=ignorecase)


def _in_index(read: Read, cache: PolicyCache | None, ignorecase: bool) -> Policy | None:
    """The index's .agent-guard.yaml, else its pyproject.toml's table; None when it holds neither."""

    def text(path: str) -> str | None:
        data = read(path)
        return None if data is None else data.decode("utf-8", "replace")

    own = text(policy_mod.DEFAULT_FILE)
    if own is not None:
        label = f"{WHERE}:{policy_mod.DEFAULT_FILE}"
        return policy_mod.load_committed(own, label, cache=cache, read=text, at=WHERE, ignorecase=ignorecase)
    table = read(PYPROJECT)
    if table is None:
        return None
    label = f"{WHERE}:{PYPROJECT} {TABLE}"
    return policy_mod.load_committed_table(table, label, cache=cache, read=text, at=WHERE, ignorecase=ignorecase)


def staged_baseline(read: Read, path: str) -> baseline.Baseline | None:
    """The baseline at `path` as the index stages it (None: not there)."""
    try:
        data = read(path)
    except policy_mod.PolicyError as exc:
        raise UsageError(f"baseline: {exc}") from None
    return None if data is None else baseline.parse(data, f"{WHERE}:{path}")
