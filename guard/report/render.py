"""How reports are printed: every command's output goes through here.

A ``Report`` (guard/report/__init__.py) decides the exit status; this module only words it.

- ``finding_text``: one finding as ``path:line: code: message`` (what editors and
  terminals link), followed by its hint.
- ``human``: an `apply` or `rollback` report: what was (or would be) written, the
  turn that recorded it, the findings.
- ``check``: an `agent-guard check` report in one of ``RENDERERS`` (``--format``):

  - ``human``: the findings grouped by file, each followed by its hint, then one
    summary line that says what was checked and what to do next;
  - ``json``: ``Report.to_json()``;
  - ``github``: one workflow command per finding (``::error file=...,line=...::...``),
    which GitHub shows as an annotation on the pull request's diff;
  - ``sarif``: a SARIF 2.1.0 log for ``github/codeql-action/upload-sarif`` and other
    code-scanning consumers; every result has a rule, a level and a location.

A finding made for a commit of a range carries the commit (``finding.commit``); each
renderer names it where it has room.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from ..model import Finding
from ..text.regex import lazy
from ..text.wording import one_line, plural, printable, printable_diff, short_id
from . import Report, Suggestion

# --- colour ------------------------------------------------------------------------------
# SGR codes, as git colours the same things: what was added green, removed red, a diff's
# hunk headers cyan and its file headers bold, a log's turn line yellow (git log's commit).
GREEN, RED, YELLOW, CYAN, BOLD = "32", "31", "33", "36", "1"


def paint(text: str, sgr: str, on: bool) -> str:
    """`text` in colour `sgr` when `on` (text already made printable: the escapes are ours)."""
    return f"\033[{sgr}m{text}\033[m" if on and text else text


def diff_text(diff: str, colour: bool = False) -> str:
    """A diff for a terminal: ``printable_diff`` (an agent's lines drive no terminal), coloured as git does."""
    text = printable_diff(diff.rstrip("\n"))
    if not colour:
        return text
    out = []
    for line in text.split("\n"):
        if line.startswith(
            ("diff --git", "index ", "--- ", "+++ ", "new file", "deleted file", "rename ", "old mode", "new mode", "similarity")
        ):
            out.append(paint(line, BOLD, True))
        elif line.startswith("@@"):
            end = line.find("@@", 2)
            out.append(paint(line[: end + 2], CYAN, True) + line[end + 2 :] if end > 0 else paint(line, CYAN, True))
        elif line.startswith("+"):
            out.append(paint(line, GREEN, True))
        elif line.startswith("-"):
            out.append(paint(line, RED, True))
        else:
            out.append(line)
    return "\n".join(out)


# --- apply and rollback -------------------------------------------------------------------
def finding_text(f: Finding, colour: bool = False) -> str:
    """`path:line: code: message`, then the hint (``Finding.__str__``), the code coloured by severity."""
    text = str(f)
    if not colour:
        return text
    where, sep, rest = text.partition(f": {f.code}: ")
    return where + ": " + paint(f.code, RED if f.severity == "error" else YELLOW, True) + ": " + rest if sep else text


def human(report: Report, show_diff: bool = False, colour: bool = False) -> str:
    """An `apply` or `rollback` report for people: the files, the turn, the findings (and the diff)."""
    lines: list[str] = []
    verb = {"applied": "applied", "checked": "would apply", "refused": "refused"}.get(report.status, report.status)
    what = f" ({report.format})" if report.format else ""
    if report.format == "shell" and report.turn is None and not report.changes:
        # No turn: the command changed nothing, or only what a turn cannot hold (the notes say what).
        lines.append(
            f"agent-guard: {paint('refused by the policy', RED + ';' + BOLD, colour)} (shell): no turn recorded"
            if report.status == "refused"
            else "agent-guard: no turn recorded (shell): what the command changed cannot be recorded"
            if report.notes or report.findings
            else "agent-guard: nothing changed (shell): no turn recorded"
        )
    elif report.format == "shell" and report.turn is not None:
        # A command's changes are written before they are judged: they were recorded either way.
        judged = (
            paint("refused by the policy", RED + ";" + BOLD, colour)
            if report.status == "refused"
            else paint("recorded", GREEN + ";" + BOLD, colour)
        )
        lines.append(f"agent-guard: {judged} (shell): {plural(len(report.changes), 'file')} the command changed")
    elif report.status == "refused":
        lines.append(f"agent-guard: {paint('refused', RED + ';' + BOLD, colour)}{what}; nothing was changed")
    else:
        lines.append(f"agent-guard: {paint(verb, GREEN + ';' + BOLD, colour)}{what}: {plural(len(report.changes), 'file')}")
    for c in report.changes:
        label = printable(c.path if not c.old_path or c.old_path == c.path else f"{c.old_path} -> {c.path}")
        rep = f"  [{', '.join(c.repairs)}]" if c.repairs else ""
        counts = f"{paint(f'+{len(c.added)}', GREEN, colour)} {paint(f'-{len(c.removed)}', RED, colour)}"
        lines.append(f"  {c.op.value:<7} {label}  {counts}{rep}")
    for n in report.notes:
        lines.append(printable(f"  note: {n}"))
    undone = report.extra.get("rolls_back") if report.format == "rollback" else None
    if undone and report.status != "refused":
        lines.append(printable(f"  {'undid' if report.status == 'applied' else 'would undo'} {_turns_named(undone, report)}"))
    if report.turn is not None:
        lines.append(f"  turn {report.turn.id} of {report.turn.agent}: {report.turn.commit[:12]} on {report.turn.ref}")
    for f in report.findings:
        lines.append(finding_text(f, colour))
    if report.suggestion is not None:
        lines.append(suggestion_text(report.suggestion))
    if show_diff and report.diff:
        # Added lines are the agent's: escapes in them would drive the reviewer's terminal.
        lines.append(diff_text(report.diff, colour))
    return "\n".join(lines)


SUGGESTED, END_SUGGESTED = "----- suggested edit -----", "----- end of suggested edit -----"


def suggestion_text(s: Suggestion) -> str:
    """A refusal's suggested edit for people and agents reading text: what it is, why, how to send it
    back, and the edit itself between two marker lines, as it is (made printable)."""
    lines = [f"suggestion ({s.format}), not applied: to apply it, {s.how}"]
    lines += [printable(f"  why: {w}") for w in s.why]
    lines += [SUGGESTED, printable_diff(s.edit.rstrip("\n")), END_SUGGESTED]
    return "\n".join(lines)


def _turns_named(ids: object, report: Report) -> str:
    """The turns a rollback undoes, as its report names them: "turn 3 of claude", "turns 5, 4 of codex"."""
    names = [str(i) for i in ids] if isinstance(ids, (list, tuple)) else [str(ids)]
    of = f" of {report.turn.agent}" if report.turn is not None else ""
    return f"{'turn' if len(names) == 1 else 'turns'} {', '.join(names)}{of}"


# --- check ------------------------------------------------------------------------------
# What `check --format` offers.
RENDERERS = ("human", "json", "github", "sarif")

# What each finding of `agent-guard check` means, and how to fix it: the SARIF rules,
# and the source of the README's table.
RULES: dict[str, tuple[str, str, str]] = {
    "placeholder": (
        "Added text elides code",
        "An added comment stands in for code (`# ... rest unchanged`, `// existing code here`): "
        "a model elided part of the file, and the commit deletes the code the comment stands for.",
        "Restore the elided code (from the previous commit, `git show HEAD:PATH`) or rewrite the change in full.",
    ),
    "conflict-marker": (
        "Added merge-conflict markers",
        "An added line is a merge-conflict marker (`<<<<<<<`, `=======`, `>>>>>>>`).",
        "Resolve the conflict: keep the lines you want and delete the marker lines.",
    ),
    "whitespace": (
        "Whitespace errors in added lines",
        "An added line has trailing whitespace, a space before a tab in its indent, or the file "
        "gains blank lines at its end (the rules of `git diff --check`, `core.whitespace` and the "
        "`whitespace` attribute).",
        "Remove the whitespace the message names (`git diff --cached --check` lists them all).",
    ),
    "budget": (
        "Commit exceeds a size budget",
        "One commit (or the staged change) adds or removes more lines, files, hunks or bytes "
        "than `budget.per_edit` allows, or makes a file larger than `budget.max_file_bytes`.",
        "Split the change into smaller commits, or raise the limit in .agent-guard.yaml.",
    ),
    "binary": (
        "Text file became binary",
        "A file that was text now holds NUL bytes: usually an escape such as \\0 written out as a raw byte.",
        "Restore the text (remove the NUL bytes), or mark the file `binary` in .gitattributes if it is meant to be.",
    ),
    "not-utf8": (
        "Text that is not UTF-8",
        "A committed text file is not UTF-8 (for instance UTF-16 with a byte-order mark, or Latin-1).",
        "Convert it to UTF-8 (`iconv -f ENCODING -t utf-8`), or mark it `binary` in .gitattributes.",
    ),
    "path-protected": (
        "Change to a protected path",
        "The commit changes a path that `paths.protected` guards (CI workflows, secrets, the policy "
        "itself). At commit time this is reported, not refused: people change these on purpose.",
        "Make sure the change to this path is intended and reviewed.",
    ),
}


def _ref(ref: object) -> str:
    text = str(ref)
    return text[:10] if len(text) == 40 and all(ch in "0123456789abcdef" for ch in text) else text


def _commit_of(f: Finding) -> str | None:
    value = getattr(f, "commit", None)
    return value if isinstance(value, str) else None


def _anchor_of(f: Finding) -> str | None:
    value = getattr(f, "anchor", None)
    return value if isinstance(value, str) else None


def _subjects(report: Report) -> dict[str, str]:
    return {c["commit"]: c.get("subject", "") for c in _extra(report).get("commits", []) if isinstance(c, dict)}


def _extra(report: Report) -> Mapping[str, Any]:
    value = report.extra.get("check")
    return value if isinstance(value, dict) else {}


def _in_commit(f: Finding, subjects: Mapping[str, str]) -> str:
    commit = _commit_of(f)
    if commit is None:
        return ""
    subject = subjects.get(commit, "")
    return f" (in commit {short_id(commit)}{f' {subject!r}' if subject else ''})"


def counts(findings: Iterable[Finding]) -> tuple[int, int]:
    errors = warnings = 0
    for f in findings:
        if f.severity == "error":
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def check(report: Report, renderer: str, colour: bool = False, quiet: bool = False) -> str:
    """An `agent-guard check` report as `renderer` (one of ``RENDERERS``) prints it.

    What a commit holds (file names, lines, subjects) is anyone's to write, and CI logs
    are read by a runner for commands: a line starting ``::`` (GitHub), ``##[`` or
    ``##vso[`` anywhere in a line (GitHub's and Azure's older form).  So no name is
    printed with a line break in it, no line of people's output starts a command, and
    ``##`` before ``[`` or ``vso[`` is written ``#\\x23`` (in JSON, ``#\\u0023``: the same
    string once parsed).
    """
    if renderer == "json":
        return _json_inert(report.to_json())
    if renderer == "github":
        return github(report)
    if renderer == "sarif":
        return _json_inert(sarif(report, version()))
    return _check_human(report, colour, quiet)


# `##[` (GitHub's older workflow commands) and `##vso[` (Azure Pipelines'): read anywhere in a line.
_HASHES = lazy(r"##(?=\[|vso\[)")
_HASH = r"#\\x23"  # what `_HASHES` becomes: `#\x23`


def _names(report: Report) -> list[str]:
    """The names in `report` that cannot be printed as they are, longest first (they are replaced in
    the messages that quote them)."""
    names = {p for c in report.changes for p in (c.path, c.old_path) if p}
    names.update(p for f in report.findings for p in (f.path, _anchor_of(f)) if p)
    return sorted((n for n in names if one_line(n) != n), key=len, reverse=True)


def _named(text: str, names: Iterable[str]) -> str:
    for name in names:
        text = text.replace(name, one_line(name))
    return text


def _inert(text: str) -> str:
    """People's output with no line a CI runner reads as a command (see ``check``)."""
    out = []
    for line in text.split("\n"):
        body = line.lstrip()
        if body.startswith("::"):
            line = line[: len(line) - len(body)] + "\\x3a" + body[1:]
        out.append(line)
    return _HASHES().sub(_HASH, "\n".join(out))


# What ``json.dumps(ensure_ascii=False)`` leaves raw of what ``printable`` escapes (it escapes
# C0 itself): DEL, the C1 controls (CSI, U+009B, drives some terminals as ESC [ does), and the
# bidirectional overrides that show a line as other text than it holds.
_JSON_RAW = lazy(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _json_inert(text: str) -> str:
    """JSON text with no line a CI runner reads as a command, and no control for a terminal: in JSON
    text `#` and those characters only stand inside strings, where ``\\uNNNN`` is the same string."""
    return _JSON_RAW().sub(lambda m: f"\\u{ord(m.group()):04x}", text.replace("##", "#\\u0023"))


def _check_human(report: Report, colour: bool = False, quiet: bool = False) -> str:
    """The findings grouped by file, each with its hint, then the summary (left out when `quiet`).

    Paths, lines and subjects come from whoever committed: each piece is made printable
    before the code's colour (our own escape) goes in."""
    subjects = _subjects(report)
    names = _names(report)
    groups: dict[str, list[Finding]] = {}
    for f in report.findings:
        groups.setdefault(f.path or "", []).append(f)
    lines: list[str] = []
    for path in sorted(groups, key=lambda p: (p == "", p)):
        if lines:
            lines.append("")
        for f in sorted(groups[path], key=lambda f: f.line or 0):
            where = one_line(f.path) if f.path else ("commit " + short_id(_commit_of(f)) if _commit_of(f) else "(staged change)")
            if f.path and f.line is not None:
                where += f":{f.line}"
            warn = " (warning)" if f.severity != "error" else ""
            in_commit = _in_commit(f, subjects) if f.path else ""
            code = paint(printable(f.code), RED if f.severity == "error" else YELLOW, colour)
            lines.append(f"{printable(where)}: {code}: {printable(_named(f.message, names) + in_commit + warn)}")
            lines.extend(printable("    " + h) for h in _named(f.hint, names).splitlines())
    if not quiet:
        if lines:
            lines.append("")
        lines.append(printable(summary(report, names)))
    return _inert("\n".join(lines))


def _checked(extra: Mapping[str, Any]) -> tuple[str, str]:
    """What was checked, and what to do about an error in it."""
    mode = extra.get("mode")
    if mode == "range":
        commits = [c for c in extra.get("commits", []) if isinstance(c, dict)]
        checked = sum(1 for c in commits if "skipped" not in c)
        base = _ref(extra.get("from_ref"))
        what = f"{plural(checked, 'commit')} of {base}..{_ref(extra.get('to_ref'))}"
        since = "--root" if not base.strip("0") else base  # the null id: from the root commits
        return what, f"rewrite the commits named above so that each one passes (`git rebase -i {since}`), then push again"
    if mode == "all-files":
        return (
            f"{plural(int(extra.get('whole_files', 0)), 'tracked file')}, checked whole",
            "fix the files above and `git add` them",
        )
    what = (
        f"the staged change ({plural(int(extra.get('files', 0)), 'file')}, "
        f"+{int(extra.get('added', 0)):,} -{int(extra.get('removed', 0)):,})"
    )
    if extra.get("whole_files"):
        what += f" and {plural(int(extra['whole_files']), 'unchanged file')} checked whole"
    return what, "fix the lines above, `git add` them, and commit again"


def summary(report: Report, names: Iterable[str] = ()) -> str:
    """The last lines of a check's report: what was checked, what was found, what to do; its notes
    (with `names`, the names that cannot be printed as they are, escaped)."""
    errors, warnings = counts(report.findings)
    what, fix = _checked(_extra(report))
    line = f"agent-guard check: {one_line(what)}: {plural(errors, 'error')}, {plural(warnings, 'warning')}"
    if errors:
        line += f"\n  {one_line(fix)}"
    for note in report.notes:
        line += f"\n  note: {one_line(_named(note, names))}"
    return line


# --- GitHub workflow commands ----------------------------------------------------------
def _gh_data(text: str) -> str:
    """`text` as a workflow command's data: `%`, CR and LF escaped as GitHub documents (the runner
    turns them back), every other control made visible as ``printable`` shows it (GitHub has no
    escape for ESC or BEL, and the line reaches whoever runs the check in a terminal too)."""
    escaped = text.replace("%", "%25")
    return "%0D".join(printable(part) for part in escaped.split("\r")).replace("\n", "%0A")


def _gh_property(text: str) -> str:
    """`text` as a property's value (`file=`): the data's escapes, and `:` and `,`, which end it."""
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github(report: Report) -> str:
    """One `::error`/`::warning` workflow command per finding, then the summary as plain text."""
    subjects = _subjects(report)
    out: list[str] = []
    for f in report.findings:
        kind = "error" if f.severity == "error" else "warning"
        props: list[str] = []
        path = f.path or _anchor_of(f)
        if path:
            props.append(f"file={_gh_property(path)}")
            props.append(f"line={f.line if f.path and f.line else 1}")
        props.append(f"title={_gh_property(f'agent-guard {f.code}')}")
        text = f.message + _in_commit(f, subjects)
        if f.hint:
            text += "\n" + f.hint
        # A command carries no raw line break or control (`_gh_data`); its file is the file's name,
        # exact but for the controls GitHub has no escape for.
        out.append(f"::{kind} {','.join(props)}::{_gh_data(_HASHES().sub(_HASH, text))}")
    out.append(_inert(printable(summary(report, _names(report)))))  # people's text
    return "\n".join(out)


# --- SARIF 2.1.0 -----------------------------------------------------------------------
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(code: str) -> dict[str, Any]:
    title, meaning, fix = RULES.get(code, (code, f"agent-guard finding `{code}`.", "See the message."))
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.split("-")),
        "shortDescription": {"text": title},
        "fullDescription": {"text": meaning},
        "help": {"text": f"{meaning}\nFix: {fix}", "markdown": f"{meaning}\n\n**Fix:** {fix}"},
        "defaultConfiguration": {"level": "error"},
    }


def _fingerprint(f: Finding) -> str:
    import hashlib  # SARIF only: not worth its start-up in every check

    # Stable across runs and line moves: what was found, where, in which text.
    key = "\x00".join((f.code, f.path or _anchor_of(f) or "", f.message.split("; ")[0]))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def sarif(report: Report, version: str = "0") -> str:
    from urllib.parse import quote  # here: only SARIF needs it

    subjects = _subjects(report)
    codes = list(dict.fromkeys([*RULES, *(f.code for f in report.findings)]))
    index = {code: i for i, code in enumerate(codes)}
    results: list[dict[str, Any]] = []
    for f in report.findings:
        path = f.path or _anchor_of(f) or ".agent-guard.yaml"
        text = f.message + _in_commit(f, subjects)
        if f.hint:
            text += "\n" + f.hint
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": text},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": quote(path, safe="/"), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": f.line if f.path and f.line else 1},
                    },
                }
            ],
            "partialFingerprints": {"agentGuardFinding/v1": _fingerprint(f)},
        }
        commit = _commit_of(f)
        if commit:
            result["properties"] = {"commit": commit}
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agent-guard",
                        "version": version,
                        "rules": [_rule(code) for code in codes],
                    }
                },
                "invocations": [{"executionSuccessful": True, "exitCode": report.exit_code}],
                "results": results,
            }
        ],
    }
    return json.dumps(log, ensure_ascii=False, indent=2)


def version() -> str:
    """This program's version, as SARIF logs and the MCP handshake name it ("0" when not installed)."""
    try:
        from importlib.metadata import version as installed  # here: slow to import, and rarely asked

        return installed("git-agent-guard")
    except Exception:  # noqa: BLE001 - a version is decoration; a missing one must not fail a command
        return "0"
