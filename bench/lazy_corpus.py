"""How often a lazy snippet gives exactly the intended file, through the engine (run by hand).

A corpus of edits is made from real source files installed on this machine: the
Python standard library (.py) and npm's JavaScript under /usr/lib/node_modules
(.js, minified files skipped).  Each file gets seeded random edits of the kinds
agents make (change a line, insert lines, delete lines, replace a block, several
regions at once), and each edited file is rendered as the update snippet a
Cursor-style agent would send: every changed region with 1-3 lines of context
around it, widened (by up to 8 lines) until the lines shown on each side occur
once in the file, as such agents are told to ("enough context to resolve
ambiguity"; --raw takes exactly 1-3 lines), and a marker comment
(``# ... existing code ...`` / ``// ... existing code ...``, indented like the code
it stands for) for each unchanged stretch.

Each snippet goes through the engine as an agent's would:
``Guard(root).apply(snippet, format="lazy", path=P, check=True)`` in a scratch
repository per source file, the file committed as it was (HEAD, the version the
snippet was written against) and the work tree file written per case, so the
engine's whole rule applies (it takes HEAD, and the agent's reads and writes, as
earlier versions the snippet may have been written against).  The classes:

    modify, insert, delete, replace, multi
                     the edit above; the work tree is HEAD's file; expected: the edited file
    stale-adjoining  a context line the snippet shows, right next to a change, was changed
                     in the work tree since (an identifier renamed, or a comment added)
    stale-1, stale-2 likewise with one or two unchanged lines between it and the change
    stale-deleted    a line the snippet deletes (or replaces) was changed in the work tree since
        expected: ``git merge-file -p OURS BASE THEIRS`` (OURS = the edited file, BASE =
        HEAD's, THEIRS = the work tree's): exit 0, its merged output byte for byte; a
        conflict, a refusal
    replace-or-insert-first, replace-or-insert-last
                     a one-line change shown as the first (last) real line next to a marker:
                     an identifier in it renamed (``operator=`` -> ``operator_v2=``).  Nothing
                     tells a replaced line from a new one there: expected a refusal
                     (``ambiguous``, the hint asking for one more unchanged line)

    exact / refused (by finding code) / wrongly merged, per class and language

With --context 0 the snippets carry no context at all (a stress test: a changed
line between two markers cannot be placed, so most are refused).

    python bench/lazy_corpus.py [--files 400] [--edits 5] [--seed 1] [--context N] [--show 5]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV, GitMerge, whitespace_fixed  # noqa: E402  (bench/, this script's folder)

from guard.text.textfile import NotText, decode  # noqa: E402

MARKER = {".py": "# ... existing code ...", ".js": "// ... existing code ..."}
COMMENT = {".py": "# changed since", ".js": "// changed since"}
KINDS = ("modify", "insert", "delete", "replace", "multi")
STALE_AT = {"stale-adjoining": 0, "stale-1": 1, "stale-2": 2}
ROI = ("replace-or-insert-first", "replace-or-insert-last")
CLASSES = (*KINDS, *STALE_AT, "stale-deleted", *ROI)
KEYWORDS = frozenset(
    "if else elif for while return def class import from in is not and or None True False pass "
    "break continue try except finally with as lambda yield raise global self const let var "
    "function new this null undefined async await typeof instanceof case switch default do "
    "delete void throw catch".split()
)


def python_files() -> Iterator[Path]:
    top = Path(sysconfig.get_paths()["stdlib"])
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "dist-packages", "__pycache__"))
        for f in sorted(filenames):
            if f.endswith(".py"):
                yield Path(dirpath) / f


def js_files() -> Iterator[Path]:
    for top in (Path("/usr/lib/node_modules"), Path("/usr/local/lib/node_modules"), Path("/usr/share/nodejs")):
        if not top.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d not in ("test", "tests", "dist", "docs"))
            for f in sorted(filenames):
                if f.endswith(".js") and not f.endswith(".min.js"):
                    yield Path(dirpath) / f


def usable(path: Path) -> list[str] | None:
    try:
        data = path.read_bytes()
        text = decode(data)
    except (OSError, NotText):
        return None
    lines = list(text.lines)
    if not 30 <= len(lines) <= 4000 or "\r\n" in text.eols or max(map(len, lines)) > 200:
        return None
    return lines


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class Op:
    a0: int  # old lines [a0, a1) become `new`
    a1: int
    new: tuple[str, ...]


def _indent(lines: list[str], at: int) -> str:
    for line in lines[at:] + lines[:at][::-1]:
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


def _fresh(rng: random.Random, lines: list[str], at: int, suffix: str, k: int) -> tuple[str, ...]:
    ind = _indent(lines, at)
    token = rng.randrange(10**6)
    if suffix == ".py":
        return tuple(f"{ind}audit_{token}({j}, 'step')" for j in range(k))
    return tuple(f"{ind}audit{token}({j}, 'step');" for j in range(k))


def _mutate(line: str, rng: random.Random, suffix: str) -> str:
    body = line.rstrip()
    words = [w for w in body.replace("(", " ").replace(")", " ").replace(".", " ").split() if w.isidentifier()]
    if words:
        w = rng.choice(words)
        return body.replace(w, w + "_v2", 1)
    return body + ("  # changed" if suffix == ".py" else "  // changed")


def _renamed(line: str, rng: random.Random, tag: str) -> str | None:
    """The line with one identifier renamed (`operator=` -> `operator_v2=`), as locate_corpus does."""
    words = [m for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]{2,}", line) if m.group() not in KEYWORDS]
    if not words:
        return None
    m = rng.choice(words)
    return line[: m.end()] + tag + line[m.end() :]


def make_ops(lines: list[str], rng: random.Random, suffix: str) -> tuple[str, list[Op]]:
    kind = rng.choice(["modify", "modify", "insert", "insert", "delete", "replace", "multi"])
    count = rng.randint(2, 3) if kind == "multi" else 1
    ops: list[Op] = []
    for _ in range(count):
        sub = rng.choice(["modify", "insert", "delete", "replace"]) if kind == "multi" else kind
        for _try in range(20):
            at = rng.randrange(1, len(lines) - 1)
            if any(abs(at - o.a0) < 12 for o in ops):
                continue
            if sub == "modify":
                if not lines[at].strip():
                    continue
                op = Op(at, at + 1, (_mutate(lines[at], rng, suffix),))
            elif sub == "insert":
                op = Op(at, at, _fresh(rng, lines, at, suffix, rng.randint(1, 3)))
            elif sub == "delete":
                k = rng.randint(1, 3)
                if not all(x.strip() for x in lines[at : at + k]):
                    continue
                op = Op(at, min(len(lines), at + k), ())
            else:
                k = rng.randint(1, 4)
                op = Op(at, min(len(lines), at + k), _fresh(rng, lines, at, suffix, rng.randint(1, 4)))
            if any(x in lines for x in op.new):
                continue
            ops.append(op)
            break
    return kind, sorted(ops, key=lambda o: o.a0)


def apply_ops(lines: list[str], ops: list[Op]) -> tuple[list[str], list[tuple[int, int]], list[int | None]]:
    """The new lines, each op's range [b0, b1) in them, and each new line's old line (None: new)."""
    out: list[str] = []
    origin: list[int | None] = []
    spans = []
    pos = 0
    for op in ops:
        out += lines[pos : op.a0]
        origin += range(pos, op.a0)
        b0 = len(out)
        out += op.new
        origin += [None] * len(op.new)
        spans.append((b0, len(out)))
        pos = op.a1
    out += lines[pos:]
    origin += range(pos, len(lines))
    return out, spans, origin


# --------------------------------------------------------------------------- the snippet


_CLOSING_WORDS = frozenset(("end", "fi", "done", "esac", "endif", "endfor", "endwhile", "wend", "loop", "next"))


def _substantial(line: str) -> bool:
    """More than punctuation and at most one closing keyword (`}`, `});`, `end`): a line worth anchoring on."""
    words = re.findall(r"[^\W_]+", line)
    return len(words) > 1 or (len(words) == 1 and words[0] not in _CLOSING_WORDS)


def _once(block: list[str], old: list[str]) -> bool:
    """`block` occurs exactly once in `old`, and holds more than blanks and brackets."""
    if not any(_substantial(x) for x in block):
        return False
    n = len(block)
    return sum(1 for p in range(len(old) - n + 1) if old[p] == block[0] and old[p : p + n] == block) == 1


def windows(
    new: list[str],
    spans: list[tuple[int, int]],
    rng: random.Random,
    context: int | None,
    raw: bool = False,
    old: list[str] | None = None,
) -> list[list[int]]:
    """The stretches [lo, hi) of the new file the snippet shows: each change and its context."""
    out: list[list[int]] = []
    for b0, b1 in spans:
        c = rng.choice((1, 1, 2, 2, 3)) if context is None else context
        lo, hi = max(0, b0 - c), min(len(new), b1 + c)
        if not raw and c and old is not None:
            # As agents are told: enough unchanged lines around the change to be unambiguous,
            # i.e. the lines shown on each side occur once in the file (up to 8 more lines).
            while lo > 0 and lo > b0 - c - 8 and not _once(new[lo:b0], old):
                lo -= 1
            while hi < len(new) and hi < b1 + c + 8 and not _once(new[b1:hi], old):
                hi += 1
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def snippet(new: list[str], wins: list[list[int]], suffix: str) -> str:
    """The shown stretches, and a marker (indented like the code it stands for) for each gap."""
    out: list[str] = []
    pos = 0
    for lo, hi in wins + [[len(new), len(new)]]:
        if lo > pos:
            elided = [x for x in new[pos:lo] if x.strip()]
            if elided:
                base = min(elided, key=lambda x: len(x) - len(x.lstrip()))
                out.append(base[: len(base) - len(base.lstrip())] + MARKER[suffix])
            else:
                out += new[pos:lo]
        out += new[lo:hi]
        pos = max(pos, hi)
    return "\n".join(out) + "\n"


def render(
    new: list[str],
    spans: list[tuple[int, int]],
    rng: random.Random,
    suffix: str,
    context: int | None,
    raw: bool = False,
    old: list[str] | None = None,
) -> str:
    return snippet(new, windows(new, spans, rng, context, raw, old), suffix)


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    cls: str
    work: list[str]  # the work tree file the snippet meets
    text: str  # the snippet
    intended: bytes | None  # None: the right answer is a refusal
    expect: str = "file"  # "file", "refuse", "git: clean", "git: conflict"


def _join(lines: list[str]) -> bytes:
    return "".join(x + "\n" for x in lines).encode()


def _written(lines: list[str], ops: list[Op]) -> list[str]:
    """The edited file as the default policy writes it (`whitespace: fix` on the new lines)."""
    fixed = [Op(o.a0, o.a1, tuple(whitespace_fixed(list(o.new)))) for o in ops]
    return apply_ops(lines, fixed)[0]


def stale_case(
    lines: list[str], rng: random.Random, suffix: str, cls: str, context: int | None, raw: bool, merge: GitMerge
) -> Case | None:
    """An edit whose snippet shows (or deletes) a line the work tree has changed since HEAD."""
    for _try in range(10):
        _kind, ops = make_ops(lines, rng, suffix)
        if cls == "stale-deleted":
            ops = [o for o in ops if o.a1 > o.a0] or []
        if not ops:
            continue
        new, spans, origin = apply_ops(lines, ops)
        wins = windows(new, spans, rng, context, raw, lines)
        shown = {j for lo, hi in wins for j in range(lo, hi)}
        if cls == "stale-deleted":
            cands = [a for o in ops for a in range(o.a0, o.a1) if lines[a].strip()]
        else:
            d = STALE_AT[cls]
            cands = []
            for b0, b1 in spans:
                for j, between in ((b0 - 1 - d, range(b0 - d, b0)), (b1 + d, range(b1, b1 + d))):
                    at = origin[j] if 0 <= j < len(new) else None
                    if (
                        at is not None
                        and j in shown
                        and new[j].strip()
                        and all(x in shown and origin[x] is not None for x in between)
                    ):
                        cands.append(at)
        if not cands:
            continue
        a = rng.choice(cands)
        work = list(lines)
        renamed = _renamed(lines[a], rng, "_now")
        work[a] = renamed if renamed is not None and rng.random() < 0.5 else lines[a].rstrip() + "  " + COMMENT[suffix]
        got, merged = merge(_join(_written(lines, ops)), _join(lines), _join(work))
        return Case(cls, work, snippet(new, wins, suffix), merged if got == "clean" else None, f"git: {got}")
    return None


def roi_case(lines: list[str], rng: random.Random, suffix: str, cls: str, context: int | None) -> Case | None:
    """A one-line change shown right after (or before) a marker: replace or insert?"""
    first = cls.endswith("first")
    fit = [i for i in range(1, len(lines) - 1) if lines[i - 1].strip() and lines[i].strip() and lines[i + 1].strip()]
    for i in rng.sample(fit, min(20, len(fit))):
        changed = _renamed(lines[i], rng, "_v2")
        if changed is None or changed in lines:
            continue
        new = lines[:i] + [changed] + lines[i + 1 :]
        c = rng.choice((1, 2, 3)) if context is None else max(1, context)
        if first:
            lo, hi = i, min(len(new), i + 1 + c)
            while hi < len(new) and hi < i + 1 + c + 8 and not _once(new[i + 1 : hi], lines):
                hi += 1
        else:
            lo, hi = max(0, i - c), i + 1
            while lo > 0 and lo > i - c - 8 and not _once(new[lo:i], lines):
                lo -= 1
        return Case(cls, list(lines), snippet(new, [[lo, hi]], suffix), None, "refuse")
    return None


# --------------------------------------------------------------------------- running


class Scratch:
    """One repository per source file: the file committed as HEAD, the work tree rewritten per case."""

    def __init__(self, root: Path, rel: str, lines: list[str]) -> None:
        from guard.pipeline.engine import Guard

        env = {**os.environ, **GIT_ENV}
        root.mkdir(parents=True)
        self.path = root / rel
        self.rel = rel
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(_join(lines))
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
            subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, timeout=60, check=True)
        self.guard = Guard(root)
        self.refusal = ""  # the last refusal's findings, for --dump-refused

    def run(self, case: Case) -> tuple[str, bytes | None, str]:
        work = _join(case.work)
        self.path.write_bytes(work)
        report = self.guard.apply(case.text, format="lazy", path=self.rel, check=True)
        if report.status != "checked":
            errors = [f for f in report.findings if f.severity == "error"]
            self.refusal = "\n".join(f"{f.code}: {f.message}\n    {f.hint}" for f in errors)
            codes = ",".join(sorted({f.code for f in errors}))
            return "refused", None, codes or report.status
        after = report.changes[0].after if report.changes else work
        return "applied", after, ",".join(report.changes[0].repairs) if report.changes else ""


def judge(case: Case, status: str, after: bytes | None) -> str:
    if case.intended is None:
        return "exact" if status == "refused" else "wrong"
    if status == "refused":
        return "refused"
    return "exact" if after == case.intended else "wrong"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=400, help="source files per language")
    ap.add_argument("--edits", type=int, default=5, help="edits per file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--context", type=int, default=None, help="context lines around a change (default: 1-3)")
    ap.add_argument(
        "--raw", action="store_true", help="take exactly that many context lines, even when they are only blanks or brackets"
    )
    ap.add_argument("--show", type=int, default=3, help="print this many wrong merges and refusals")
    ap.add_argument("--dump", type=Path, default=None, help="write each wrong merge's files into this folder")
    ap.add_argument(
        "--dump-refused",
        type=Path,
        default=None,
        help="write each refused intended edit's files, and the refusal, into this folder",
    )
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    tally: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)  # (class, expect, language)
    refusals: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)  # (class, expect) -> code
    shown = {"wrong": 0, "refused": 0}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lazy-corpus-") as tmp:
        merge = GitMerge(Path(tmp) / "merge")
        n = 0
        for suffix, source in ((".py", python_files), (".js", js_files)):
            candidates = [p for p in source()]
            rng.shuffle(candidates)
            taken = 0
            for path in candidates:
                if taken >= args.files:
                    break
                lines = usable(path)
                if lines is None:
                    continue
                taken += 1
                n += 1
                scratch = Scratch(Path(tmp) / f"r{n}", f"src/{path.name}", lines)
                cases: list[Case] = []
                for _ in range(args.edits):
                    kind, ops = make_ops(lines, rng, suffix)
                    if not ops:
                        continue
                    new, spans, _origin = apply_ops(lines, ops)
                    text = render(new, spans, rng, suffix, args.context, args.raw, lines)
                    cases.append(Case(kind, list(lines), text, _join(_written(lines, ops))))
                for cls in (*STALE_AT, "stale-deleted", *ROI):
                    crng = random.Random(f"{args.seed}/{path}/{cls}")
                    made = (
                        roi_case(lines, crng, suffix, cls, args.context)
                        if cls in ROI
                        else stale_case(lines, crng, suffix, cls, args.context, args.raw, merge)
                    )
                    if made is not None:
                        cases.append(made)
                for case in cases:
                    status, after, info = scratch.run(case)
                    outcome = judge(case, status, after)
                    tally[(case.cls, case.expect, suffix)][outcome] += 1
                    if status == "refused":
                        refusals[(case.cls, case.expect)][info] += 1
                    if outcome == "wrong" and args.dump is not None:
                        _dump(args.dump / f"{sum(t['wrong'] for t in tally.values()):03d}{suffix}", path, case, after)
                    if outcome == "refused" and args.dump_refused is not None:
                        folder = args.dump_refused / f"{sum(t['refused'] for t in tally.values()):03d}{suffix}"
                        _dump(folder, path, case, None)
                        (folder / "refusal").write_text(scratch.refusal + "\n")
                    if outcome in shown and shown[outcome] < args.show:
                        shown[outcome] += 1
                        print(f"--- {outcome} {case.cls} ({info or 'merged'}): {path}\n{case.text[:1500]}")
        calls = merge.calls
    _print(tally, refusals, time.monotonic() - started, calls, args)
    return 1 if any(t["wrong"] for t in tally.values()) else 0


def _dump(folder: Path, path: Path, case: Case, after: bytes | None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "source").write_text(f"{path}\n{case.cls} ({case.expect})\n")
    (folder / "work-tree").write_bytes(_join(case.work))
    (folder / "snippet").write_text(case.text)
    (folder / "expected").write_bytes(case.intended or b"(a refusal)\n")
    (folder / "merged").write_bytes(after or b"")


def _print(
    tally: dict[tuple[str, str, str], Counter[str]],
    refusals: dict[tuple[str, str], Counter[str]],
    secs: float,
    merges: int,
    args: argparse.Namespace,
) -> None:
    total: Counter[str] = Counter()
    for (_c, _e, suffix), t in tally.items():
        total.update(t)
        total[suffix] += sum(t.values())
    n = total[".py"] + total[".js"]
    print(
        f"\nlazy corpus, seed {args.seed}: {n} cases ({total['.py']} Python, {total['.js']} JavaScript) in {secs:.1f}s, "
        f"{merges} git merge-file runs"
    )
    print("cells: exact/refused/wrong (for an expected refusal, exact = refused)\n")
    print("| class | expected | Python | JavaScript | refusals by code |")
    print("|---|---|---|---|---|")
    for cls in CLASSES:
        for expect in ("file", "git: clean", "git: conflict", "refuse"):
            cells = [tally.get((cls, expect, s)) for s in (".py", ".js")]
            if not any(cells):
                continue
            shown = ["/".join(str(c[o]) for o in ("exact", "refused", "wrong")) if c else "n/a" for c in cells]
            codes = ", ".join(f"{k} {v}" for k, v in refusals[(cls, expect)].most_common())
            print(f"| {cls} | {expect} | {shown[0]} | {shown[1]} | {codes} |")
    for label, expects in (("intent carried out", ("file", "git: clean")), ("must refuse", ("refuse", "git: conflict"))):
        group: Counter[str] = Counter()
        for (_c, e, _s), c in tally.items():
            if e in expects:
                group.update(c)
        cases = sum(group.values())
        print(
            f"\n{label}: {cases} cases, exact {group['exact']} ({100 * group['exact'] / max(1, cases):.2f}%), "
            f"refused {group['refused']}, wrong {group['wrong']}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
