"""The policy a range of commits is judged by, and the commits of the range that change it.

A range is judged by one policy from outside it, so that no commit of the range can
relax the check of the commits after it:

- ``--policy`` (or ``$AGENT_GUARD_POLICY``) when given, read as always: a preset, or a
  file on disk (keep such a file outside the repository, where no commit changes it);
- else the policy committed at the range's base, the ``--from-ref`` commit: its
  ``.agent-guard.yaml`` and the files its ``extends:`` names, read from that commit,
  never from the work tree (which CI checks out at the range's tip).  An ``extends:``
  path is relative to the extending file, inside the same commit; one that leaves the
  repository cannot be read from a commit and is refused (give ``--policy``);
- else (no policy file at the base, or no base at all: the null id) the preset ``default``.

A commit of the range that changes a file the policy is read from (``.agent-guard.yaml``,
a file of its ``extends:`` chain) gets a ``path-protected`` finding of its own, saying
what it changes and whether that relaxes the policy.  A warning, never an error: the
change cannot touch this check (its policy comes from outside the range), and people
change their policy on purpose; but it applies to every range that starts after it,
so it must be seen and reviewed on its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

from .. import policy as policy_mod
from ..errors import UsageError
from ..files.workspace import Workspace
from ..model import Finding
from ..policy import Policy
from ..repo import EXEC, FILE, GitRepo
from ..text.wording import short_id
from .changes import NULL_IDS, Unit, resolve_commit

POLICY_FILE = policy_mod.DEFAULT_FILE
_SHOWN = 4  # settings a finding names; the rest are counted


@dataclass(frozen=True, slots=True)
class RangePolicy:
    """The policy a range is judged by, where it comes from, and the files it was read from."""

    policy: Policy
    where: str  # how messages name it: "the policy committed at origin/main", "--policy strict"
    files: frozenset[str]  # repository paths it was read from, and `.agent-guard.yaml` always
    disk: frozenset[str] = frozenset()  # those read from the work tree (a --policy file inside it), not from a commit


def for_range(g: Workspace, from_ref: str) -> RangePolicy:
    """The policy the commits of `from_ref`..TO are judged by (see the module doc)."""
    if g.policy_spec is not None:
        pol = g.policy()
        return RangePolicy(pol, f"--policy {g.policy_spec}", frozenset(pol.own_files) | {POLICY_FILE}, _on_disk(g, pol))
    if from_ref.strip() in NULL_IDS:
        return RangePolicy(
            _loaded(None), "the preset default (the range has no base commit to read a policy from)", frozenset({POLICY_FILE})
        )
    base = resolve_commit(g.repo, from_ref, "--from-ref")
    try:
        at_base = committed(g.repo, base, from_ref)
    except policy_mod.PolicyError as exc:
        raise UsageError(
            f"policy: {exc}\n(the policy committed at the range's base judges the range; to judge it "
            "by another, give --policy NAME|FILE)"
        ) from None
    if at_base is None:
        return RangePolicy(_loaded(None), f"the preset default ({from_ref} holds no {POLICY_FILE})", frozenset({POLICY_FILE}))
    return RangePolicy(at_base, f"the policy committed at {from_ref}", frozenset(at_base.own_files) | {POLICY_FILE})


def _on_disk(g: Workspace, pol: Policy) -> frozenset[str]:
    """The files of the work tree a --policy was read from (`own_files` always names `.agent-guard.yaml`,
    read or not): the commits of the range may have changed them."""
    if g.repo.bare:
        return frozenset()
    read = set(pol.own_files) - {POLICY_FILE}
    if os.path.realpath(g.policy_spec or "") == os.path.realpath(g.root / POLICY_FILE):
        read.add(POLICY_FILE)
    return frozenset(read)


def committed(repo: GitRepo, commit: str, name: str) -> Policy | None:
    """The policy `commit` (named `name` in messages) holds, read from its tree; None when it has
    no policy file.  PolicyError when it cannot be read."""
    tree = repo.commit_tree(commit)

    def read(path: str) -> str | None:
        entry = repo.tree_entry(tree, path)
        if entry is None or entry.mode not in (FILE, EXEC):
            return None  # no file, or a link or a folder: not a policy file git would check out as one
        data = repo.read_blob(entry.oid)
        return None if data is None else data.decode("utf-8", "replace")

    text = read(POLICY_FILE)
    if text is None:
        return None
    return policy_mod.load_committed(text, f"{name}:{POLICY_FILE}", read=read, at=name)


def _loaded(pol: Policy | None) -> Policy:
    try:
        return pol if pol is not None else policy_mod.load(None)
    except policy_mod.PolicyError as exc:  # pragma: no cover - the presets ship with the program
        raise UsageError(f"policy: {exc}") from None


class Watch:
    """Finds the commits of a range that change the policy, one commit after another (oldest first)."""

    def __init__(self, repo: GitRepo, source: RangePolicy, staged: tuple[Policy | None, Policy | None] | None = None) -> None:
        """`staged`: for the staged change (no commit), the policy before it and the one the index holds."""
        self.repo = repo
        self.source = source
        self.staged = staged
        # Every file a policy of the range was read from: a commit may make the policy
        # extend a new file, which later commits then change.
        self.files = set(source.files)

    def __call__(self, unit: Unit, found: Sequence[Finding]) -> list[Finding]:
        """`found` (the unit's findings) with a finding for each policy file the unit's commit
        changes, in place of the plain protected-path finding on it."""
        commit = unit.commit
        if commit is None and self.staged is None:
            return list(found)
        touched = [c for c in unit.changes if c.path in self.files or (c.old_path or "") in self.files]
        if not touched:
            return list(found)
        paths = {p for c in touched for p in (c.path, c.old_path) if p}
        out = [f for f in found if not (f.code == "path-protected" and f.path in paths)]
        failure: str | None = None
        if commit is None:
            assert self.staged is not None
            old, new = self.staged
        else:
            parent = self.repo.commit_info(commit).parents[:1]
            old, _ = self._policy(parent[0] if parent else None)
            new, failure = self._policy(commit)
        from .findings import CommitFinding

        for change in touched:
            path = change.path if change.path in self.files else change.old_path or change.path
            what = _described(old, new, failure)
            if path in self.source.disk:
                effect = (
                    f"this check read {path!r} from the work tree ({self.source.where}), as the range may have "
                    "left it: name a preset or a file outside the repository, or leave --policy out to judge "
                    "the range by the policy committed at its base"
                )
            elif commit is None:
                effect = f"this check judged the staged change by {self.source.where}: a commit cannot relax its own check"
            else:
                effect = f"this check judged every commit of the range by {self.source.where}, which the change does not touch"
            what_it = "the staged change" if commit is None else "this commit"
            message = f"{path!r} is a file the policy is read from, and {what_it} {what}; {effect}"
            hint = (
                "review the policy change on its own: it applies to the checks of every range that starts "
                "after it (a commit that relaxes the policy beside code the old policy refuses is how a check "
                "gets switched off)"
            )
            out.append(CommitFinding("path-protected", "warning", path, None, message, hint, commit=commit))
        return out

    def _policy(self, commit: str | None) -> tuple[Policy | None, str | None]:
        """The policy at `commit` (None: no commit, or no policy file) and why it cannot be read, if it cannot."""
        if commit is None:
            return None, None
        try:
            pol = committed(self.repo, commit, short_id(commit))
        except policy_mod.PolicyError as exc:
            return None, str(exc)
        if pol is not None:
            self.files.update(pol.own_files)
        return pol, None


def _described(old: Policy | None, new: Policy | None, failure: str | None) -> str:
    """What a commit does to the policy: "changes it, which relaxes the policy: checks.placeholder
    error -> off", and the like (`new` None and no `failure`: the commit has no policy file)."""
    if failure is not None:
        return f"leaves a policy that does not load ({failure.splitlines()[0]})"
    relaxed, changed = _compare(_loaded(old), _loaded(new))
    verb = "changes it" if new is not None else f"deletes {POLICY_FILE} (the preset default applies without it)"
    if relaxed:
        return f"{verb}, which relaxes the policy: {_listed(relaxed + changed)}"
    if changed:
        return f"{verb}: {_listed(changed)}"
    return f"{verb}, with no setting changed"


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


_RANK = {"off": 0, "fix": 1, "warning": 1, "error": 2}


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _compare(old: Policy, new: Policy) -> tuple[list[str], list[str]]:
    """The settings `new` changes from `old`: those that relax the policy, and the others."""
    a, b = _flat(old.data), _flat(new.data)
    relaxed: list[str] = []
    changed: list[str] = []
    lost = [p for p in old.protected if p not in new.protected]
    if lost:
        relaxed.append(f"paths.protected no longer holds {', '.join(repr(p) for p in lost[:_SHOWN])}")
    for key in sorted(set(a) | set(b), key=_weight):
        if a.get(key) == b.get(key) or key in ("paths.protected", "paths.protected_extra"):
            continue
        text = f"{key} {_short(a.get(key))} -> {_short(b.get(key))}"
        (relaxed if _relaxes(key, a.get(key), b.get(key)) else changed).append(text)
    if [p for p in new.protected if p not in old.protected] and not lost:
        changed.append("paths.protected gains patterns")
    return relaxed, changed


# The settings a reviewer should read first: what runs, then what is protected, then limits.
_FIRST = ("checks.", "paths.", "read_", "placeholder.", "whitespace.", "budget.")


def _weight(key: str) -> tuple[int, str]:
    return next((i for i, start in enumerate(_FIRST) if key.startswith(start)), len(_FIRST)), key


def _number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _items(value: object) -> set[str]:
    if isinstance(value, list):
        return {str(v) for v in value}
    if isinstance(value, str):
        return {v.strip() for v in value.split(",") if v.strip()}
    return set()


def _relaxes(key: str, old: object, new: object) -> bool:
    """Does changing `key` from `old` to `new` let through what `old` refused?"""
    if key.startswith("checks."):
        return _RANK.get(str(new), 0) < _RANK.get(str(old), 0)
    if key.startswith("budget."):
        return _number(old) and not (_number(new) and new <= old)  # type: ignore[operator]
    if key in ("placeholder.patterns", "whitespace.rules"):
        return bool(_items(old) - _items(new))
    if key in ("placeholder.exempt", "locate.tiers"):
        return bool(_items(new) - _items(old))
    if key == "paths.allow":
        return bool(_items(old)) and (not _items(new) or bool(_items(new) - _items(old)))
    if key in ("paths.create", "read_protected"):
        return new is True and old is not True
    if key == "read_before_edit":
        return old is True and new is not True
    return False


def _short(value: object) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        text = "[" + ", ".join(str(v) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
