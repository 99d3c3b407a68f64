"""Long adversarial lines through the text checks: no example may take over 50 ms (run by hand).

An agent controls every byte of an added line.  A pattern that backtracks
(``\\.{3,}`` beside ``.*?`` beside ``\\.{3,}``, two stars around an optional word)
turns one long comment into minutes of CPU under the repository lock: a hang, not a
refusal.  This fuzzer builds lines of 1 KB to 100 KB from the pieces those patterns
react to (dots and ellipses, comment openers and closers, brackets, elision words,
blanks, conflict-marker runs, quotes), repeated, interleaved and cut at random, and
times the checks that read added lines one by one: ``placeholder`` (an edit that
replaces a line, a whole-file write that shrinks the file, a new file) in several
comment syntaxes, ``whitespace`` (report and fix) and ``conflict-marker``, plus the
lazy dialect's line test (``locate.weak``).  Time is process CPU time, so other load
on the machine does not count; the slowest examples are printed.

    python bench/adversarial_lines.py [--examples 3000] [--seed 1] [--limit-ms 50]

Exit status 1 if any example took longer than the limit.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.checks import conflict, placeholder, whitespace  # noqa: E402
from guard.checks.base import CheckInput, no_attr  # noqa: E402
from guard.locate.pieces import weak  # noqa: E402
from guard.model import FileChange, Op  # noqa: E402
from guard.policy import load  # noqa: E402
from guard.tree.diffs import make_change  # noqa: E402

POLICY = load(None, "default")
PIECES = (
    ".",
    "..",
    "...",
    "....",
    "…",
    ". . .",
    " ",
    "  ",
    "\t",
    "#",
    "# ",
    "//",
    "/*",
    "*/",
    "*",
    "<!--",
    "-->",
    "--",
    ";",
    "%",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "x",
    "rest of the code",
    "existing code",
    "unchanged",
    " here",
    "keep",
    "other methods",
    "'",
    '"',
    "\\",
    "<<<<<<<",
    "=======",
    ">>>>>>>",
    "|||||||",
    "end",
    "_",
    "\u00a0",
    "\r",
    "a" * 7,
    " as before",
    "omitted for brevity",
    "code",
    "...rest...",
    "(... existing code ...)",
)
PATHS = ("a.py", "a.js", "a.c", "a.html", "a.sql", "a.unknown", "README.md")


def adversarial_line(rng: random.Random) -> str:
    size = rng.choice((1_000, 4_000, 20_000, 100_000))
    motif = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))
    head = rng.choice(("# ... ", "// ... ", "/* ", "    ", "x = '", "", "<!-- ", "... "))
    body = (motif * (size // max(1, len(motif)) + 1))[:size]
    if rng.random() < 0.5:
        cut = rng.randrange(len(body))
        body = body[:cut] + rng.choice(PIECES) + body[cut:]
    tail = rng.choice(("x", "", " */", " -->", "...", " unchanged", "\t"))
    return (head + body + tail).replace("\n", " ")


def changes(path: str, line: str) -> list[FileChange]:
    before = "x = 1\nold()\nmore()\ny = 2\n"
    after = f"x = 1\n{line}\ny = 2\n"
    return [
        make_change(path, Op.MODIFY, before.encode(), after.encode(), old_mode=0o100644, new_mode=0o100644),
        make_change(path, Op.MODIFY, (before * 20).encode(), after.encode(), old_mode=0o100644, new_mode=0o100644)._replace(
            whole=True
        ),
        make_change(path, Op.CREATE, None, after.encode(), new_mode=0o100644),
    ]


def timed(fn: object, *args: object) -> float:
    t0 = time.process_time()
    fn(*args)  # type: ignore[operator]
    return (time.process_time() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit-ms", type=float, default=50.0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    slowest: list[tuple[float, str, str, str]] = []
    over = 0
    started = time.monotonic()
    for _ in range(args.examples):
        line = adversarial_line(rng)
        path = rng.choice(PATHS)
        for change in changes(path, line):
            inp = CheckInput((change,), POLICY, lambda _p: True, no_attr, None)
            kind = "whole" if change.whole else ("create" if change.before is None else "modify")
            for name, check in (
                ("placeholder", placeholder.check),
                ("whitespace", whitespace.check),
                ("conflict-marker", conflict.check),
            ):
                ms = timed(check, inp, "error")
                slowest.append((ms, name, f"{path} {kind}", line[:60]))
                over += ms > args.limit_ms
        ms = timed(weak, line)
        slowest.append((ms, "lazy weak()", path, line[:60]))
        over += ms > args.limit_ms
        slowest = sorted(slowest, reverse=True)[:5]
    print(
        f"{args.examples} lines of 1-100 KB (seed {args.seed}), {len(PATHS)} syntaxes, "
        f"{time.monotonic() - started:.0f} s; slowest (CPU):"
    )
    for ms, name, where, head in slowest:
        print(f"  {ms:7.2f} ms  {name:<16} {where:<22} {head!r}")
    print(f"examples over {args.limit_ms:g} ms: {over}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
