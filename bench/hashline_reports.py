"""oh-my-pi's published JSON hashline calls, read and applied by agent-guard (run by hand).

oh-my-pi's edit benchmark (``packages/react-edit-benchmark`` in gtrak/oh-my-pi, MIT) ran
models on small React fixes and published a report per run (``runs/*.md``).  The reports
of its hashline runs quote every call the edit tool refused or could not apply
("**Patch args**", the tool's arguments as the model sent them) under the task it was
made for, with the tool's own error ("**Tool error**"), which for a stale anchor prints
the lines around it as ``LINE:HH|text``.  The fixtures (``fixtures.tar.gz``: per task the
file as given to the model, ``input/``, and the fixed file, ``expected/``) changed over
the runs; each report is matched to the version of the tarball whose files its task
table names.  Nothing is copied: everything is read from the fetched repository.

For every call this script

1. parses it as agent-guard does (``dialects.parse``, format ``auto``: it must be detected
   as ``hashline-json``), counting the calls per shape;
2. applies it with ``Guard.apply(check=True)`` to the task's input file committed in a
   scratch repository, no read on record (the file as it is is the one the agent saw),
   the call's path cut to the file's name (the runs named files under a temporary folder);
3. compares what would be written with the task's expected file (exact), and with an
   independent application of the call (below): any difference there is the tool's own
   mistake, ``applied wrongly``;
4. counts the calls whose independent application only re-indents the file's lines (the
   model retyped a line to change it and left the change out), and what became of them
   (issue 36: a ``no-op`` refusal, not an indentation change).

The independent application reads the call's JSON itself (not agent-guard's parser): each
item's anchored lines replaced, deleted or inserted after, bottom-up, text ``replace``
items by ``str.replace`` of their one occurrence.  Separately, every ``LINE:HH|text`` row
the tool errors print is hashed here from its own text with each rule of
``guard.text.linehash``: which rule reproduces oh-my-pi's printed anchors, per report.

    python bench/hashline_reports.py PATH [--rev REV] [--show N]

PATH: a clone (or bare copy) of gtrak/oh-my-pi; REV: the revision whose reports to read
(default HEAD).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV  # noqa: E402  (bench/, this script's folder)

from guard import dialects
from guard.pipeline.engine import Guard  # noqa: E402
from guard.text import linehash  # noqa: E402

RUNS = "packages/react-edit-benchmark/runs"
FIXTURES = "packages/react-edit-benchmark/fixtures.tar.gz"
_CALL = re.compile(r"\*\*Patch args\*\*\n\n```diff\n(.*?)\n```", re.S)
_ERROR = re.compile(r"\*\*Tool error\*\*\n\n```\n(.*?)\n```", re.S)
_TASK = re.compile(r"^### (.+?) \(([^()]+)\)\s*$", re.M)
# A line of a stale-anchor refusal: ">>> " or four spaces, then LINE:HH|text.
_ROW = re.compile(r"^(?:>>> |    )(\d+):([0-9a-z]{2,3})\|(.*)$", re.M)
# Any LINE:HH|text row a tool error prints (also "  237:e6|text" under "identical to current content").
_ANY_ROW = re.compile(r"^(?:>>> |[ \t]*)(\d+):([0-9a-z]{2,3})\|(.*)$", re.M)
_TABLE_ROW = re.compile(r"^\| ([A-Z][^|]*?\d{3}) \| ([^|]+?) \| ", re.M)
_DATE = re.compile(r"^\| Date \| (\S+) \|", re.M)
SHAPES = (
    ("shape 1: src/dst", {"src", "dst"}),
    ("shape 2: single/range/insertAfter", {"single", "range", "insertAfter"}),
    (
        "shape 3: set_line/replace_lines/insert_after/delete_line/replace",
        {"set_line", "replace_lines", "insert_after", "delete_line", "replace"},
    ),
    ("LINE#ID: op", {"op"}),
)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, check=True, timeout=120, env={**GIT_ENV, "PATH": "/usr/bin:/bin"}
    ).stdout


# --------------------------------------------------------------------------- the reports and fixtures


def fixture_sets(repo: Path) -> list[tuple[str, dict[str, tuple[str, bytes, bytes]]]]:
    """Every version of the fixtures: (commit, {task id: (file name, input, expected)})."""
    out = []
    for commit in git(repo, "log", "--format=%H", "--", FIXTURES).decode().split():
        data = git(repo, "show", f"{commit}:{FIXTURES}")
        files: dict[str, dict[str, tuple[str, bytes]]] = defaultdict(dict)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                parts = member.name.split("/")
                if member.isfile() and len(parts) == 4 and parts[2] in ("input", "expected"):
                    got = tar.extractfile(member)
                    if got is not None:
                        files[parts[1]][parts[2]] = (parts[3], got.read())
        tasks = {
            task: (kinds["input"][0], kinds["input"][1], kinds["expected"][1])
            for task, kinds in files.items()
            if "input" in kinds and "expected" in kinds
        }
        out.append((commit, tasks))
    return out


def task_id(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def pick_fixtures(
    report: str, sets: list[tuple[str, dict[str, tuple[str, bytes, bytes]]]]
) -> tuple[str, dict[str, tuple[str, bytes, bytes]]]:
    """The fixture version whose files the report's task table names (the most of them)."""
    named = {task_id(name): file.strip() for name, file in _TABLE_ROW.findall(report)}
    return max(sets, key=lambda s: sum(1 for t, f in named.items() if t in s[1] and s[1][t][0] == f))


def calls(report: str) -> list[tuple[str, str, str, str]]:
    """(task id, file, the tool's error, the call's JSON) for every call the report quotes."""
    heads = [(m.start(), m.group(1), m.group(2)) for m in _TASK.finditer(report)]
    out = []
    for m in _CALL.finditer(report):
        head = max((h for h in heads if h[0] < m.start()), default=None, key=lambda h: h[0])
        if head is None:
            continue
        errors = [e for e in _ERROR.finditer(report, head[0], m.start())]
        out.append((task_id(head[1]), head[2], errors[-1].group(1) if errors else "", m.group(1)))
    return out


def shape(call: Any) -> str:
    items = call.get("edits") if isinstance(call, dict) else None
    if isinstance(items, str):
        try:
            items = json.loads(items)
        except ValueError:
            return "edits as a string that is not JSON"
    keys = {k for item in items or [] if isinstance(item, dict) for k in item}
    for name, marks in SHAPES:
        if keys & marks:
            return name
    return "no op"


# --------------------------------------------------------------------------- the independent application


def _line(anchor: str) -> int:
    return int(re.match(r"\s*[>+-]*\s*(\d+)", anchor).group(1))  # type: ignore[union-attr]


def reference(call: dict[str, Any], text: str) -> str | None:
    """The call applied by its own JSON's plain meaning (None: it names nothing this reads)."""
    items = call["edits"] if not isinstance(call["edits"], str) else json.loads(call["edits"])
    lines = text.split("\n")
    ops: list[tuple[int, int, list[str]]] = []  # 0-based [a, b) replaced by the lines
    one = {"set_line": "anchor", "insert_after": "anchor", "delete_line": "anchor", "single": "loc", "insertAfter": "loc"}
    for item in items:
        for key, body in item.items():
            if isinstance(body, str) and key in one:  # {"insert_after": "15:c1", "text": ...}
                body = {one[key]: body}
            if key == "replace":
                if text.count(body["old_text"]) != 1:
                    return None
                text = text.replace(body["old_text"], body["new_text"])
                lines = text.split("\n")
                continue
            if not isinstance(body, dict):
                continue
            new = lambda s: [] if s == "" else s.split("\n")  # noqa: E731
            if key in ("set_line", "single", "delete_line"):
                n = _line(body.get("anchor", body.get("loc", "")))
                ops.append((n - 1, n, [] if key == "delete_line" else new(body.get("new_text", body.get("replacement")))))
            elif key in ("replace_lines", "range"):
                a = _line(body.get("start_anchor", body.get("start", "")))
                b = _line(body.get("end_anchor", body.get("end", "")))
                ops.append((a - 1, b, new(body.get("new_text", body.get("replacement")))))
            elif key in ("insert_after", "insertAfter"):
                n = _line(body.get("anchor", body.get("loc", "")))
                ops.append((n, n, new(body.get("text", item.get("text", body.get("content"))))))
        if "src" in item and isinstance(item["src"], str):
            src, dst = item["src"], item.get("dst", "")
            parts = src.split("..")
            if not re.fullmatch(r"\s*\d+:\w+(\|.*)?", parts[0] or parts[-1]):
                if text.count(src) != 1:
                    return None
                text = text.replace(src, dst)
                lines = text.split("\n")
                continue
            if len(parts) == 1:
                n = _line(src)
                ops.append((n - 1, n, [] if dst == "" else dst.split("\n")))
            elif parts[1] == "":
                n = _line(parts[0])
                ops.append((n, n, dst.split("\n")))
            elif parts[0] == "":
                n = _line(parts[1])
                ops.append((n - 1, n - 1, dst.split("\n")))
            else:
                ops.append((_line(parts[0]) - 1, _line(parts[1]), [] if dst == "" else dst.split("\n")))
        elif "src" in item and isinstance(item["src"], dict):
            s, dst = item["src"], item.get("dst", "")
            if s.get("kind") == "single":
                n = _line(s["ref"])
                ops.append((n - 1, n, [] if dst == "" else dst.split("\n")))
            elif s.get("kind") == "range":
                ops.append((_line(s["start"]) - 1, _line(s["end"]), [] if dst == "" else dst.split("\n")))
            else:
                return None
    for a, b, new_lines in sorted(ops, key=lambda o: (o[0], o[1]), reverse=True):
        lines[a:b] = new_lines
    return "\n".join(lines)


# --------------------------------------------------------------------------- the run


def their_error(error: str) -> str:
    """What oh-my-pi's tool said of the call, in a word."""
    if "changed since last read" in error:
        return "oh-my-pi: stale anchor"
    if "No changes made" in error or "identical content" in error:
        return "oh-my-pi: no change"
    if "must have required property" in error or "Validation failed" in error or "must be" in error:
        return "oh-my-pi: schema"
    if "Tool execution failed" in error:
        return "oh-my-pi: failed"
    return "oh-my-pi: other"


def saw(error: str, fixture: str) -> str:
    """Whether the file was the fixture as given when the call was made, as far as the tool's error shows:
    the lines it printed (a stale anchor's surroundings) are the fixture's, or differ; or it printed none."""
    lines = fixture.split("\n")
    rows = [(int(n), h, t) for n, h, t in _ANY_ROW.findall(error)]
    if "differs from the original fixture" in error or any(n > len(lines) or lines[n - 1] not in (t, t[1:]) for n, _h, t in rows):
        return "file changed by earlier calls"
    return "file as given" if rows else "file not shown"


def printed_anchors(error: str) -> list[tuple[int, str, str]]:
    return [(int(n), h, t) for n, h, t in _ROW.findall(error)]


def rules_of(rows: list[tuple[int, str, str]]) -> list[str]:
    """The rules of guard.text.linehash that give every printed anchor (a row may print ' text' for 'text')."""

    def fits(rule: str, n: int, h: str, t: str) -> bool:
        return linehash.digest(rule, n, t) == h or (t.startswith(" ") and linehash.digest(rule, n, t[1:]) == h)

    return [r for r in linehash.RULES if rows and all(fits(r, n, h, t) for n, h, t in rows)]


def reindents(before: str, after: str) -> bool:
    """`after` differs from `before`, and only in how lines are indented (an independent test)."""
    a, b = before.splitlines(), after.splitlines()
    return a != b and len(a) == len(b) and all(x.lstrip() == y.lstrip() for x, y in zip(a, b))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path, help="a clone (or bare copy) of gtrak/oh-my-pi")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--show", type=int, default=3, help="calls shown per outcome")
    args = ap.parse_args()
    started = time.monotonic()
    names = [n for n in git(args.repo, "ls-tree", "--name-only", args.rev, RUNS + "/").decode().split() if "_hashline" in n]
    sets = fixture_sets(args.repo)
    per_shape: Counter[str] = Counter()
    parsed: Counter[str] = Counter()
    outcome: Counter[str] = Counter()
    reindented: Counter[str] = Counter()  # calls whose own lines only re-indent the file's
    by_shape: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    cross: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    evidence: Counter[str] = Counter()
    wrong = 0
    total = 0
    compared: Counter[bool] = Counter()  # applied calls held to the independent application, or not
    with tempfile.TemporaryDirectory(prefix="hashline-reports-") as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60, env={**GIT_ENV, "PATH": "/usr/bin:/bin"})
        guard = Guard(root)
        print(f"{'report':62} {'date':24} {'fixtures':9} calls  printed anchors: rows, rules giving them all")
        for name in names:
            report = git(args.repo, "show", f"{args.rev}:{name}").decode("utf-8")
            commit, tasks = pick_fixtures(report, sets)
            found = calls(report)
            rows = [r for _t, _f, err, _c in found for r in printed_anchors(err)]
            date = _DATE.search(report)
            print(
                f"{name.rsplit('/', 1)[-1]:62} {date.group(1) if date else '?':24} {commit[:8]:9} {len(found):5}  "
                f"{len(rows):4} {', '.join(rules_of(rows)) or '-'}"
            )
            for rule in rules_of(rows):
                evidence[rule] += len(rows)
            for task, file, err, raw in found:
                total += 1
                call = json.loads(raw)
                kind = shape(call)
                per_shape[kind] += 1
                edits, findings = dialects.parse(raw, "auto")
                parsed[edits.format if edits is not None else "parse-error"] += 1
                if task not in tasks or tasks[task][0] != file.strip():
                    outcome["no fixture"] += 1
                    continue
                fname, before, expected = tasks[task]
                seen = saw(err, before.decode("utf-8"))
                theirs = their_error(err)
                (root / fname).write_bytes(before)
                subprocess.run(
                    ["git", "-C", str(root), "add", "-A"], check=True, timeout=60, env={**GIT_ENV, "PATH": "/usr/bin:/bin"}
                )
                subprocess.run(
                    ["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", task],
                    check=True,
                    timeout=60,
                    env={**GIT_ENV, "PATH": "/usr/bin:/bin"},
                )
                call["path"] = fname
                try:
                    independent = reference(call, before.decode("utf-8"))
                except (ValueError, KeyError, TypeError, IndexError):  # a call the independent reader cannot read
                    independent = None
                only_indent = independent is not None and reindents(before.decode("utf-8"), independent)
                result = guard.apply(json.dumps(call), check=True, agent="bench")
                if result.status == "refused":
                    codes = sorted({f.code for f in result.findings if f.severity == "error"})
                    key = "refused: " + ", ".join(codes)
                else:
                    after = next((c.after for c in result.changes if c.path == fname), None)
                    ref = independent
                    compared[ref is not None and after is not None] += 1
                    if ref is not None and after is not None and after.decode("utf-8") != ref:
                        wrong += 1
                        key = "APPLIED WRONGLY"
                    elif after == before:
                        key = "changes nothing (no-op, reported)"
                    elif after == expected:
                        key = "applied: the expected file"
                    else:
                        key = "applied: not the expected file (the call's own lines)"
                outcome[key] += 1
                if only_indent:
                    reindented[key] += 1
                by_shape[kind][key] += 1
                cross[(theirs, seen)][key] += 1
                if len(examples[key]) < args.show:
                    said = "; ".join(f"{f.code}: {f.message[:140]}" for f in result.findings[:1])
                    examples[key].append(f"{name.rsplit('/', 1)[-1]} / {task}: {said}")
    print(f"\n{total} calls in {len(names)} reports ({time.monotonic() - started:.1f} s)")
    print(
        "anchors oh-my-pi printed, each reproduced from its line's text: "
        + ", ".join(f"{rule} {n}" for rule, n in evidence.most_common())
    )
    print("\nper shape:")
    for kind, n in per_shape.most_common():
        print(f"  {n:5}  {kind}")
    print("\nread as (dialect detection, --format auto):")
    for kind, n in parsed.most_common():
        print(f"  {n:5}  {kind}")
    print("\noutcome:")
    for key, n in outcome.most_common():
        print(f"  {n:5}  {key}")
        for ex in examples[key]:
            print(f"           e.g. {ex}")
    print(
        f"\ncalls whose lines (applied independently) only re-indent the file's, the change itself missing: "
        f"{sum(reindented.values())}: " + "; ".join(f"{k} {n}" for k, n in reindented.most_common())
    )
    print("\noutcome per shape:")
    for kind, counts in by_shape.items():
        print(f"  {kind}: " + "; ".join(f"{k} {n}" for k, n in counts.most_common()))
    print("\nby what oh-my-pi said, and the file the call was made against:")
    for (theirs, seen), counts in sorted(cross.items()):
        print(f"  {theirs} / {seen}: " + "; ".join(f"{k} {n}" for k, n in counts.most_common()))
    given = Counter()
    for (_theirs, seen), counts in cross.items():
        if seen != "file changed by earlier calls":
            given.update(counts)
    later = sum(sum(c.values()) for (_t, seen), c in cross.items() if seen == "file changed by earlier calls")
    exact = outcome["applied: the expected file"]
    print(
        f"\nlands exactly on the expected file: {exact} of {total} calls; "
        f"{given['applied: the expected file']} of the {sum(given.values())} whose file the error shows as given "
        f"or does not show (the other {later} were made on a file earlier calls of the run had changed, which "
        "the report does not hold: applied here to the file as given, they may fit it by chance)"
    )
    print(
        f"\napplied wrongly by the tool: {wrong} (of the {compared[True]} applied calls the independent "
        f"application reads; {compared[False]} it cannot: text it finds more than once, or a shape it does not know)"
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
