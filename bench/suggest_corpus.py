"""Suggestions benchmark: refused edits whose intent is known, and where their suggestions land.

A refusal with one likely reading carries it as a ready edit (``Report.suggestion``).  This
corpus sends each suggestion back unchanged and holds where it lands to the edit's intent.
The cases are built from real files at run time, with the locate corpus's machinery
(``locate_corpus.py``: its sources, edits, renderings and mistakes; nothing is copied into
the repository), and each is applied with ``Guard.apply(check=True)`` in a scratch
repository holding the file.  A case counts when agent-guard refuses it; then:

    lands      the suggestion, sent back unchanged (``Guard.apply`` again, the same agent,
               policy and reader), gives the intended file byte for byte
    elsewhere  it gives anything else, or the case's right answer is a refusal (target: 0;
               each one is a defect to investigate)
    refused    it is refused when sent back (a defect too: a suggestion is checked before
               it is made)
    none       the refusal carries no suggestion

The rows, by where the intent comes from.  The edit as the developer meant it, made on the
file as it is now (by construction; None where the file changed a line the edit changes,
or where new lines could go on either side of a line the file gained: two readings):

    stale-adjoining, invented-adjoining, misremembered-adjoining, stale-inside,
    hallucinated-removed, ambiguous
                         the locate corpus's rows (its docstring), in the dialects that
                         change part of a file; the first three are the ones git's merge rule
                         refuses only for adjacency
    context-drift        half of the hunk's context lines (rounded up, at least two) read
                         otherwise than the file (an identifier renamed): past the `fuzz`
                         tier's third, `not-found`
    lines-added          the file gained a line right next to the change since the edit was
                         written (no base: `not-found`, or `stale` where `fuzz` reads the
                         line as the one the edit shows there; with an `index` line,
                         `unified+index`: git's merge rule).  (A line one or two lines away
                         merges by git's rule: the edit applies, and is no case here.)
    hashline-adjoining   the agent read the file (`git agent-read`), a line was then added
                         right next to the lines its edit replaces or deletes, and it sent the
                         edit under the tag it read (`stale`: git's rule calls that a conflict)
    hashline-changed     likewise, the line the edit changes (or an insertion's neighbour)
                         changed instead
    hashline-reread      lines were added far above; the agent read the file again and sent
                         the edit under its first read's tag
    mcp-far, mcp-adjoining, mcp-inside
                         the MCP server's read rule (``require_read``): read, then the file
                         changed (lines added far above; a line next to the change; a line the
                         edit changes), then an edit in any dialect
    rbe-adjoining, rbe-inside
                         the same under a policy with ``read_before_edit: true`` (lines added far
                         above merge by git's rule there: no case)

    python bench/suggest_corpus.py [--files 12] [--sites 3] [--seed 6] [--only ROWS] [-v]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from locate_corpus import (  # bench/, this script's folder, is on the import path
    PATCHES,
    READ_AS,
    Case,
    Edit,
    Scratch,
    Source,
    _at_distance,
    _blob_id,
    _changes,
    _comment,
    _join,
    _kept,
    _mutate,
    _shows,
    build,
    model_for,
    places,
    render,
    sources,
)
from scratch import GitMerge

LOCATE_ROWS = (
    "stale-adjoining",
    "invented-adjoining",
    "misremembered-adjoining",
    "stale-inside",
    "hallucinated-removed",
    "ambiguous",
)
OWN_ROWS = ("context-drift", "lines-added")
HASHLINE_ROWS = ("hashline-adjoining", "hashline-changed", "hashline-reread")
READ_ROWS = ("mcp-far", "mcp-adjoining", "mcp-inside", "rbe-adjoining", "rbe-inside")
ROWS = LOCATE_ROWS + OWN_ROWS + HASHLINE_ROWS + READ_ROWS
CONSTRUCTED = ("stale-adjoining", "invented-adjoining", "misremembered-adjoining")  # git: conflict; intent known
OUTCOMES = ("lands", "elsewhere", "refused", "none")


@dataclass
class Run:
    """One case as agent-guard meets it: the case, and how the agent read the file before."""

    case: Case
    dialect: str  # the --format it is read with
    read: list[str] | None = None  # the file as the agent read it (whole) before it changed
    reread: bool = False  # the agent read the file again, as it is, after that
    policy: str = "default"  # or "rbe": read_before_edit
    mcp: bool = False  # through the MCP server's rule (require_read) and its reader


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    examples: list[str] = field(default_factory=list)
    unsuggested: list[str] = field(default_factory=list)
    missed: dict[str, int] = field(default_factory=dict)  # refusals of an edit with an intent, without a suggestion

    def add(self, outcome: str, note: str = "", code: str = "") -> None:
        self.counts[outcome] += 1
        if outcome in ("elsewhere", "refused") and len(self.examples) < 3:
            self.examples.append(note)
        if outcome == "none" and note:
            self.missed[code] = self.missed.get(code, 0) + 1
            if "ambiguous" not in code and len(self.unsuggested) < 3:
                self.unsuggested.append(note)

    @property
    def n(self) -> int:
        return sum(self.counts.values())


# --------------------------------------------------------------------------- cases


def _applied(e: Edit, file: list[str], eol: str = "\n") -> bytes:
    return _join(_kept(e, file).apply(file), eol)


def locate_case(src: Source, e: Edit, dialect: str, mistake: str, rng: random.Random, merge: GitMerge) -> Run | None:
    case = build(src, e, dialect, mistake, rng, merge)
    if case is None:
        return None
    if case.intended is None and mistake in CONSTRUCTED:
        # git's rule refuses these for adjacency only; the edit's own lines are unchanged in the
        # file: the intent is the edit made there (the file has the edit's lines where it had them).
        case = replace(case, intended=_applied(case.edit, case.file, case.eol))
    return Run(case, READ_AS.get(dialect, dialect))


def _added_line(src: Source, text: str) -> str:
    return _comment(src.lang, "", text)


def own_case(src: Source, e: Edit, dialect: str, row: str, rng: random.Random) -> Run | None:
    """The context-drift and lines-added rows."""
    m = model_for(src, e, dialect, least=3)
    if m is None:
        return None
    file = list(src.lines)
    intended: bytes | None
    committed: list[str] | None = None
    lo, hi = _changes(m)
    first_old = m.start - 1

    def file_line(k: int) -> int:
        return first_old + sum(1 for tg, _ in m.lines[:k] if tg != "+")

    if row == "context-drift":
        ctx = [k for k, (tg, t) in enumerate(m.lines) if tg == " " and t.strip()]
        want = max(2, (len(ctx) + 1) // 2)
        if len(ctx) < want:
            return None
        for k in rng.sample(ctx, want):
            text = _mutate(m.lines[k][1], rng, tag="_old")
            if text in file:
                return None
            m.lines[k] = (" ", text)
        intended = _applied(e, file)
    else:
        ks = _at_distance(m, 0)
        if not ks:
            return None
        k = rng.choice(ks)
        # Inside the hunk: between that context line and the change.
        p = file_line(k) + 1 if k < lo else file_line(k)
        committed = list(file)
        file = file[:p] + [_added_line(src, "added since the edit was written")] + file[p:]
        if p == e.start and not e.old:
            intended = None  # new lines and the added line at one place: before it, or after?
        else:
            shifted = replace(e, start=e.start + (1 if p <= e.start else 0))
            intended = _applied(shifted, file)
        if dialect == "unified+index":
            m.base = _blob_id(_join(committed))[:12]
    case = Case(src, e, dialect, row, file, "\n", intended, render(m), committed)
    return Run(case, READ_AS.get(dialect, dialect))


def _hashline_text(src: Source, e: Edit, tag: str) -> str | None:
    s = e.start
    if e.kind == "insert":
        op = f"insert after {s}"
    elif not e.new:
        op = f"delete {s + 1}" if len(e.old) == 1 else f"delete {s + 1}..{s + len(e.old)}"
    else:
        op = f"replace {s + 1}" if len(e.old) == 1 else f"replace {s + 1}..{s + len(e.old)}"
    body = "".join("+" + x + "\n" for x in e.new)
    return f"[{src.rel}#{tag}]\n{op}\n{body}"


def hashline_case(src: Source, e: Edit, row: str, rng: random.Random) -> Run | None:
    seen = list(src.lines)
    tag = _blob_id(_join(seen))[:8]
    text = _hashline_text(src, e, tag)
    if text is None:
        return None
    file = list(seen)
    intended: bytes | None
    added = _added_line(src, "added since the read")
    if row == "hashline-adjoining":
        if not e.old:
            return None  # a line next to an insertion point: before it or after it?
        p = e.start if rng.random() < 0.5 else e.start + len(e.old)
        file = file[:p] + [added] + file[p:]
        intended = _applied(replace(e, start=e.start + (1 if p == e.start else 0)), file)
    elif row == "hashline-changed":
        if e.old:
            p = e.start + rng.randrange(len(e.old))
            intended = None  # a line the edit replaces changed: the edit's own line
        else:
            p = e.start - 1 if e.start > 0 else e.start
            if p >= len(file):
                return None
            intended = None  # a line the insertion anchors on changed
        changed = _mutate(file[p], rng, tag="_now")
        if changed == file[p]:
            return None
        file[p] = changed
    else:  # hashline-reread
        top = next((p for p in range(min(40, e.start)) if not file[p].strip()), None)
        if top is None:
            return None
        file = file[:top] + [_added_line(src, f"added since: line {n}") for n in range(3)] + file[top:]
        intended = _applied(replace(e, start=e.start + 3), file)
    case = Case(src, e, "hashline", row, file, "\n", intended, text)
    return Run(case, "hashline", read=seen, reread=row == "hashline-reread")


def read_case(src: Source, e: Edit, dialect: str, row: str, rng: random.Random) -> Run | None:
    """The mcp-* and rbe-* rows: the agent read the file, then it changed, then the edit came."""
    m = model_for(src, e, dialect, least=1)
    if m is None:
        return None
    seen = list(src.lines)
    file = list(seen)
    kind = row.split("-", 1)[1]
    first_old = m.start - 1
    intended: bytes | None
    if kind == "far":
        top = next((p for p in range(min(40, e.start - 5)) if not file[p].strip()), None) if e.start > 5 else None
        if top is None:
            return None
        file = file[:top] + [_added_line(src, f"added since: line {n}") for n in range(3)] + file[top:]
        intended = _applied(replace(e, start=e.start + 3), file)
    elif kind == "adjoining":
        ks = [k for k in _at_distance(m, 0) if m.lines[k][1].strip()]
        if not ks:
            return None
        k = rng.choice(ks)
        p = first_old + sum(1 for tg, _ in m.lines[:k] if tg != "+")
        file[p] = _mutate(file[p], rng, tag="_now")
        if file[p] == seen[p] or (dialect == "json" and not _shows(m, file)):
            return None
        intended = _applied(e, file)
    else:  # inside: a line the edit removes changed
        changed = [e.start + i for i, x in enumerate(e.old) if x.strip() and x not in e.new]
        if not changed:
            return None
        p = rng.choice(changed)
        file[p] = _mutate(file[p], rng, tag="_now")
        if file[p] == seen[p]:
            return None
        intended = None
    case = Case(src, e, dialect, row, file, "\n", intended, render(m))
    return Run(
        case,
        READ_AS.get(dialect, dialect),
        read=seen,
        policy="rbe" if row.startswith("rbe") else "default",
        mcp=row.startswith("mcp"),
    )


# --------------------------------------------------------------------------- running


class Bench:
    """One scratch repository per source file, with a guard per policy and a fresh agent per case."""

    def __init__(self, root: Path, src: Source, rbe_policy: Path) -> None:
        from guard.pipeline.engine import Guard

        self.scratch = Scratch(root, src)
        self.guards = {"default": self.scratch.guard, "rbe": Guard(root, str(rbe_policy))}
        self.n = 0

    def run(self, r: Run) -> tuple[str, str, str]:
        from guard.pipeline import hashline_read
        from guard.report.audience import MCP, Audience

        s = self.scratch
        g = self.guards[r.policy]
        self.n += 1
        agent = f"case{self.n}"
        if r.read is not None:
            s.path.write_bytes(_join(r.read))
            hashline_read.read(g, s.src.rel, None, agent, cwd=s.root)
        s.prepare(r.case)
        if r.reread:
            hashline_read.read(g, s.src.rel, None, agent, cwd=s.root)
        audience = MCP if r.mcp else Audience("cli")
        cwd = s.root
        report = g.apply(r.case.text, format=r.dialect, agent=agent, check=True, cwd=cwd, audience=audience, require_read=r.mcp)
        if report.status != "refused":
            return "not refused", "", ""
        sug = report.suggestion
        codes = ",".join(sorted({f.code for f in report.findings if f.severity == "error"}))
        if sug is None:
            return "none", "\n".join(str(f) for f in report.findings), codes
        again = g.apply(sug.edit, format=sug.format, agent=agent, check=True, cwd=cwd, audience=audience, require_read=r.mcp)
        note = f"[{codes}] suggestion ({sug.format}):\n{sug.edit}\nwhy: {sug.why}"
        if again.status != "checked":
            return "refused", note + "\nsent back: " + "; ".join(str(f) for f in again.findings), codes
        after = again.changes[0].after if again.changes else None
        if r.case.intended is None or after != r.case.intended:
            return "elsewhere", note + _diff(r.case.intended, after), codes
        return "lands", "", codes


def _diff(want: bytes | None, got: bytes | None) -> str:
    import difflib

    if want is None:
        return "\n(the right answer is a refusal)"
    a = want.decode(errors="replace").splitlines()
    b = (got or b"").decode(errors="replace").splitlines()
    return "\n" + "\n".join(list(difflib.unified_diff(a, b, "intended", "landed", n=2, lineterm=""))[:30])


def cases_for(src: Source, row: str, seed: int, sites: int, merge: GitMerge, n: int) -> list[Run]:
    if row in LOCATE_ROWS:
        picks, make = places(src, row, seed, sites)
        dialects: tuple[str, ...] = PATCHES
    else:
        picks, make = places(src, "none", seed + 1000 * (ROWS.index(row) + 1), sites)
        dialects = (
            ("unified", "unified+index", "codex", "search-replace", "json")
            if row.startswith("lines-added")
            else ("unified", "codex", "search-replace", "json")
            if row == "context-drift" or row in READ_ROWS
            else ("hashline",)
        )
    out: list[Run] = []
    made = 0
    for k, i in enumerate(picks):
        if made >= sites:
            break
        e = make(i, made + k + n)
        if e is None:
            continue
        built = False
        for dialect in dialects:
            rng = random.Random(f"{seed}/{src.rel}/{row}/{i}/{dialect}")
            if row in LOCATE_ROWS:
                got = locate_case(src, e, dialect, row, rng, merge)
            elif row in OWN_ROWS:
                got = own_case(src, e, dialect, row, rng)
            elif row in HASHLINE_ROWS:
                got = hashline_case(src, e, row, rng)
            else:
                got = read_case(src, e, dialect, row, rng)
            if got is not None:
                out.append(got)
                built = True
        made += built
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--files", type=int, default=12, help="source files per language")
    ap.add_argument("--sites", type=int, default=3, help="edits per file and row")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--only", help="run only these rows (comma-separated)")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the defects (elsewhere, refused)")
    ap.add_argument(
        "--show-none", action="store_true", help="show refusals without a suggestion whose intent is an edit (coverage)"
    )
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    srcs = sources(args.files, rng)
    only = set(args.only.split(",")) if args.only else None
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    unrefused: dict[str, int] = defaultdict(int)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="suggest-corpus-") as tmp:
        merge = GitMerge(Path(tmp) / "merge")
        rbe = Path(tmp) / "rbe.yaml"
        rbe.write_text("extends: default\nread_before_edit: true\n")
        for n, src in enumerate(srcs):
            bench = Bench(Path(tmp) / f"r{n}", src, rbe)
            for row in ROWS:
                if only is not None and row not in only:
                    continue
                for r in cases_for(src, row, args.seed, args.sites, merge, n):
                    outcome, note, code = bench.run(r)
                    if outcome == "not refused":
                        unrefused[row] += 1
                        continue
                    if outcome == "none" and r.case.intended is None:
                        note = ""  # no suggestion where the right answer is a refusal: as it should be
                    where = f"{src.rel}:{r.case.edit.start + 1} {r.case.edit.kind} {row} ({r.dialect}, from {src.origin})"
                    tallies[(row, r.case.dialect)].add(outcome, f"{where}\n{r.case.text}\n{note}" if note else "", code)
    _print(tallies, unrefused, srcs, time.monotonic() - started, args)
    if args.verbose:
        for key, t in sorted(tallies.items()):
            for ex in t.examples:
                print(f"\n--- {key}\n{ex}")
    if args.show_none:
        for key, t in sorted(tallies.items()):
            for ex in t.unsuggested:
                print(f"\n--- no suggestion: {key}\n{ex}")
    return 0


def _print(
    tallies: dict[tuple[str, str], Tally], unrefused: dict[str, int], srcs: list[Source], elapsed: float, args: argparse.Namespace
) -> None:
    langs = defaultdict(int)
    for s in srcs:
        langs[s.lang] += 1
    print(
        f"suggest corpus: {len(srcs)} files ({langs['py']} Python stdlib, {langs['c']} C headers, {langs['js']} npm JS), "
        f"{args.sites} edits per file and row, seed {args.seed}, {elapsed:.0f} s"
    )
    print("cells: refused cases, then lands / elsewhere / refused when sent back / no suggestion\n")
    dialects = ("unified", "unified+index", "codex", "search-replace", "json", "hashline")
    print("| row | " + " | ".join(dialects) + " | not refused |")
    print("|" + "---|" * (len(dialects) + 2))
    for row in ROWS:
        if not any((row, d) in tallies for d in dialects) and not unrefused.get(row):
            continue
        cells = []
        for d in dialects:
            t = tallies.get((row, d))
            cells.append("n/a" if t is None else f"{t.n}: " + "/".join(str(t.counts[o]) for o in OUTCOMES))
        print(f"| {row} | " + " | ".join(cells) + f" | {unrefused.get(row, 0)} |")
    tot = Tally()
    for t in tallies.values():
        for o in OUTCOMES:
            tot.counts[o] += t.counts[o]
    made = tot.n - tot.counts["none"]
    print(
        f"\n{tot.n} refused cases; {made} carry a suggestion ({100 * made / max(1, tot.n):.1f}%): "
        f"{tot.counts['lands']} land as intended ({100 * tot.counts['lands'] / max(1, made):.1f}% of suggestions), "
        f"{tot.counts['elsewhere']} land elsewhere, {tot.counts['refused']} are refused when sent back"
    )
    missed: dict[str, int] = defaultdict(int)
    for t in tallies.values():
        for code, k in t.missed.items():
            missed[code] += k
    meant = sum(missed.values()) + tot.counts["lands"] + tot.counts["elsewhere"] + tot.counts["refused"]
    print(
        f"of the {meant} refused cases whose intent is an edit, {tot.counts['lands']} "
        f"({100 * tot.counts['lands'] / max(1, meant):.1f}%) carry a suggestion that lands as intended; "
        f"the {sum(missed.values())} without one were refused as "
        + ", ".join(f"{c} ({k})" for c, k in sorted(missed.items(), key=lambda x: -x[1]))
    )


if __name__ == "__main__":
    sys.exit(main())
