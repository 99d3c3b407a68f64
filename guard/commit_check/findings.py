"""The findings of a commit check."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Finding


@dataclass(frozen=True, slots=True)
class CommitFinding(Finding):
    """A finding of a commit check: the commit it is about, and where to point when it has no path."""

    commit: str | None = None  # the commit of a range the finding is about (None: staged change, whole files)
    anchor: str | None = None  # a file to point at when the finding has no path of its own (budget)

    def as_dict(self) -> dict[str, object]:
        out = Finding.as_dict(self)  # not super(): the slotted class dataclass makes is a new one
        out["commit"] = self.commit
        return out
