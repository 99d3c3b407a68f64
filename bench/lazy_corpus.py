"""How often a lazy snippet merges to exactly the intended file (run by hand).

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
it stands for) for each unchanged stretch.  The snippet is merged back into the
original in-process (``dialects.lazy`` + ``locate.locate_changes``), and the result
is compared with the intended file:

    merged exactly / refused (by finding code) / wrongly merged

With --context 0 the snippets carry no context at all (a stress test: a changed
line between two markers cannot be placed, so most are refused).

    python bench/lazy_corpus.py [--files 400] [--edits 5] [--seed 1] [--context N] [--show 5]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import sysconfig
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.dialects import lazy  # noqa: E402
from guard.locate import weak  # noqa: E402
from guard.locate import ALL_TIERS, apply_splices, locate_changes  # noqa: E402
from guard.model import ParseError  # noqa: E402
from guard.textfile import NotText, decode  # noqa: E402

MARKER = {".py": "# ... existing code ...", ".js": "// ... existing code ..."}


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


def _mutate(line: str, rng: random.Random) -> str:
    body = line.rstrip()
    words = [w for w in body.replace("(", " ").replace(")", " ").replace(".", " ").split() if w.isidentifier()]
    if words:
        w = rng.choice(words)
        return body.replace(w, w + "_v2", 1)
    return body + ("  # changed" if not body.endswith(";") else " // changed")


def make_ops(lines: list[str], rng: random.Random, suffix: str) -> list[Op]:
    kinds = ["modify", "modify", "insert", "insert", "delete", "replace", "multi"]
    kind = rng.choice(kinds)
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
                op = Op(at, at + 1, (_mutate(lines[at], rng),))
            elif sub == "insert":
                op = Op(at, at, _fresh(rng, lines, at, suffix, rng.randint(1, 3)))
            elif sub == "delete":
                k = rng.randint(1, 3)
                if not all(x.strip() for x in lines[at : at + k]):
                    continue
                op = Op(at, at + k, ())
            else:
                k = rng.randint(1, 4)
                op = Op(at, min(len(lines), at + k), _fresh(rng, lines, at, suffix, rng.randint(1, 4)))
            if any(x in lines for x in op.new):
                continue
            ops.append(op)
            break
    return sorted(ops, key=lambda o: o.a0)


def apply_ops(lines: list[str], ops: list[Op]) -> tuple[list[str], list[tuple[int, int]]]:
    """The new lines, and each op's range [b0, b1) in them."""
    out: list[str] = []
    spans = []
    pos = 0
    for op in ops:
        out += lines[pos : op.a0]
        b0 = len(out)
        out += op.new
        spans.append((b0, len(out)))
        pos = op.a1
    out += lines[pos:]
    return out, spans


def _substantial(line: str) -> bool:
    return not weak(line.strip())


def _once(block: list[str], old: list[str]) -> bool:
    """`block` occurs exactly once in `old`, and holds more than blanks and brackets."""
    if not any(_substantial(x) for x in block):
        return False
    n = len(block)
    return sum(1 for p in range(len(old) - n + 1) if old[p] == block[0] and old[p : p + n] == block) == 1


def render(new: list[str], spans: list[tuple[int, int]], rng: random.Random, suffix: str, context: int | None,
           raw: bool = False, old: list[str] | None = None) -> str:
    windows: list[list[int]] = []
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
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    out: list[str] = []
    pos = 0
    for lo, hi in windows + [[len(new), len(new)]]:
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


def merge(path: str, old: list[str], snippet: str) -> tuple[list[str] | None, str]:
    try:
        fe = lazy.parse(snippet, path=path).files[0]
    except ParseError:
        return None, "parse-error"  # a deletion shown with no context is a snippet of markers only
    text = decode(("\n".join(old) + "\n").encode())
    out = locate_changes(text, fe.changes, ALL_TIERS, path)
    if out.findings:
        return None, out.findings[0].code
    merged, _ = apply_splices(text, out.splices)
    return list(merged.lines), ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=400, help="source files per language")
    ap.add_argument("--edits", type=int, default=5, help="edits per file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--context", type=int, default=None, help="context lines around a change (default: 1-3)")
    ap.add_argument("--raw", action="store_true",
                    help="take exactly that many context lines, even when they are only blanks or brackets")
    ap.add_argument("--show", type=int, default=3, help="print this many wrong merges and refusals")
    ap.add_argument("--dump", type=Path, default=None, help="write each wrong merge's files into this folder")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    totals: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    shown = {"wrong": 0, "refused": 0}
    started = time.monotonic()
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
            for _ in range(args.edits):
                ops = make_ops(lines, rng, suffix)
                if not ops:
                    continue
                new, spans = apply_ops(lines, ops)
                snippet = render(new, spans, rng, suffix, args.context, args.raw, lines)
                merged, code = merge(path.name, lines, snippet)
                totals[suffix + " edits"] += 1
                if merged is None:
                    outcome = "refused"
                    refusals[code] += 1
                elif merged == new:
                    outcome = "exact"
                else:
                    outcome = "wrong"
                totals[outcome] += 1
                totals[f"{suffix} {outcome}"] += 1
                if outcome == "wrong" and args.dump is not None:
                    case = args.dump / f"{totals['wrong']:03d}{suffix}"
                    case.mkdir(parents=True, exist_ok=True)
                    (case / "source").write_text(f"{path}\n{ops}\n{spans}\n")
                    (case / "before").write_text("\n".join(lines) + "\n")
                    (case / "snippet").write_text(snippet)
                    (case / "expected").write_text("\n".join(new) + "\n")
                    (case / "merged").write_text("\n".join(merged or []) + "\n")
                if outcome != "exact" and shown[outcome] < args.show:
                    shown[outcome] += 1
                    print(f"--- {outcome} ({code or 'merged'}): {path}\n{snippet[:1500]}")
    n = totals[".py edits"] + totals[".js edits"]
    secs = time.monotonic() - started
    print(f"\n{n} edits ({totals['.py edits']} Python, {totals['.js edits']} JavaScript) in {secs:.1f}s")
    for outcome in ("exact", "refused", "wrong"):
        print(f"  {outcome:8} {totals[outcome]:6}  {100 * totals[outcome] / max(1, n):6.2f}%"
              f"   (py {totals['.py ' + outcome]}, js {totals['.js ' + outcome]})")
    if refusals:
        print("  refusals by code: " + ", ".join(f"{c} {k}" for c, k in refusals.most_common()))
    return 1 if totals["wrong"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
