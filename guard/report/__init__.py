"""The Report value every command returns (guard/report/render.py words it).

A ``Report`` decides the exit status; the CLI only prints it.  Status
``applied``/``checked`` exit 0, ``refused`` exits 1.  Usage errors (2) and
internal errors (3) are exceptions mapped at the edge (``guard/cli/``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..model import FileChange, Finding

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
# Interrupted (Ctrl-C, SIGINT): git's status, 128 + the signal's number; the program dies of the
# signal itself (``cli.program.run``), so a shell sees this status and stops a script's loop.
EXIT_INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class TurnRef:
    """The turn that recorded an applied edit: whose, which, its commit and ref."""

    agent: str
    id: str
    commit: str
    ref: str


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A refused edit's one likely reading, as a ready edit the agent may send back (guard/suggest/).

    agent-guard never applies it: sent back unchanged, in `format`, it lands as computed.
    """

    format: str  # the dialect of `edit`: the agent's own
    edit: str  # the text to send back
    why: tuple[str, ...]  # per file it rewrites: what differed, and what the suggestion does about it
    files: tuple[str, ...]  # the repository paths it changes
    how: str = ""  # how the reader sends it back (its tool, or the command); said in people's words only

    def as_dict(self) -> dict[str, object]:
        return {"format": self.format, "edit": self.edit, "why": list(self.why), "files": list(self.files)}


@dataclass(frozen=True, slots=True)
class Report:
    """What a command did or decided: its status, the files, the findings and the turn."""

    status: str  # "applied" | "checked" | "refused" ("error": see `error_json`)
    format: str | None
    changes: tuple[FileChange, ...] = ()
    findings: tuple[Finding, ...] = ()
    turn: TurnRef | None = None
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # more keys of `as_dict` (a commit check's "check"; rollback's)
    suggestion: Suggestion | None = None  # a refusal's edit to send back, when it has one likely reading

    @property
    def exit_code(self) -> int:
        return EXIT_REFUSED if self.status == "refused" else EXIT_OK

    @property
    def diff(self) -> str:
        return "".join(c.diff for c in self.changes)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": 1,
            "status": self.status,
            "format": self.format,
            "files": [
                {
                    "path": c.path,
                    "op": c.op.value,
                    "old_path": c.old_path,
                    "added": len(c.added),
                    "removed": len(c.removed),
                    "repairs": list(c.repairs),
                }
                for c in self.changes
            ],
            "findings": [f.as_dict() for f in self.findings],
            "turn": None
            if self.turn is None
            else {"agent": self.turn.agent, "id": self.turn.id, "commit": self.turn.commit, "ref": self.turn.ref},
            "diff": self.diff,
        }
        if self.notes:
            out["notes"] = list(self.notes)
        if self.suggestion is not None:
            out["suggestion"] = self.suggestion.as_dict()
        out.update(self.extra)
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False)


def error_json(code: str, message: str, hint: str = "") -> str:
    """The one JSON object a command asked for ``--json`` prints when it ends in a usage error
    (`code` "usage", exit 2), an internal error ("internal", exit 3) or an interrupt
    ("interrupted", 130): status "error", no files, and one finding that says what went wrong."""
    return Report("error", None, findings=(Finding(code, "error", None, None, message, hint),)).to_json()
