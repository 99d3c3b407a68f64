"""The Report value every command returns, and its two renderings.

A ``Report`` decides the exit status; the CLI only prints it.  Status
``applied``/``checked`` exit 0, ``refused`` exits 1.  Usage errors (2) and
internal errors (3) are exceptions mapped at the edge (``cli.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .model import FileChange, Finding
from .wording import plural

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


@dataclass(frozen=True)
class TurnRef:
    agent: str
    id: str
    commit: str
    ref: str


@dataclass(frozen=True)
class Report:
    status: str  # "applied" | "checked" | "refused" ("error": see `error_json`)
    format: str | None
    changes: tuple[FileChange, ...] = ()
    findings: tuple[Finding, ...] = ()
    turn: TurnRef | None = None
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

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
        out.update(self.extra)
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False)


def error_json(code: str, message: str, hint: str = "") -> str:
    """The one JSON object a command asked for ``--json`` prints when it ends in a usage error
    (`code` "usage", exit 2) or an internal error ("internal", exit 3): status "error", no
    files, and one finding that says what went wrong."""
    return Report("error", None, findings=(Finding(code, "error", None, None, message, hint),)).to_json()


def format_finding(f: Finding) -> str:
    where = f.path or "<input>"
    if f.line is not None:
        where += f":{f.line}"
    text = f"{where}: {f.code}: {f.message}" + ("" if f.severity == "error" else " (warning)")
    if f.hint:
        text += "\n" + "\n".join("    " + ln for ln in f.hint.splitlines())
    return text


def human(report: Report, show_diff: bool = False) -> str:
    lines: list[str] = []
    verb = {"applied": "applied", "checked": "would apply", "refused": "refused"}.get(report.status, report.status)
    what = f" ({report.format})" if report.format else ""
    if report.status == "refused":
        lines.append(f"agent-guard: refused{what}; nothing was changed")
    else:
        lines.append(f"agent-guard: {verb}{what}: {plural(len(report.changes), 'file')}")
    for c in report.changes:
        label = c.path if not c.old_path or c.old_path == c.path else f"{c.old_path} -> {c.path}"
        rep = f"  [{', '.join(c.repairs)}]" if c.repairs else ""
        lines.append(f"  {c.op.value:<7} {label}  +{len(c.added)} -{len(c.removed)}{rep}")
    for n in report.notes:
        lines.append(f"  note: {n}")
    if report.turn is not None:
        lines.append(f"  turn {report.turn.id} of {report.turn.agent}: {report.turn.commit[:12]} on {report.turn.ref}")
    for f in report.findings:
        lines.append(format_finding(f))
    if show_diff and report.diff:
        lines.append(report.diff.rstrip("\n"))
    return "\n".join(lines)
