"""What the records (``guard.model.Value``) cost: making their classes, and making values (run by hand).

1. Creating the record classes at start-up: ``git agent-apply --check FILE`` run in a child
   process, as its console script does, with ``builtins.__build_class__`` timed (CPU) for
   every class that extends ``Value``: the class body and the class itself, all a record
   costs before the command does anything.
2. Making values of the records on the per-edit path (a ``Finding`` through ``error``, a
   ``Splice`` with its defaults, ``Located`` by keywords, ...): CPU per value, the least of 7
   repeats of 20,000.

With ``--against DIR`` (another checkout, such as ``git worktree add /tmp/base main``) each
figure is measured for both, one process of each after the other, and the difference is
taken run by run, so that a machine whose load drifts moves both sides alike.

    python bench/record_cost.py [--runs 15] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

ROOT = Path(__file__).resolve().parents[1]

_CLASSES = """\
import builtins, os, sys, time
import pygit2  # what any pygit2 program loads is no cost of ours
real = builtins.__build_class__
spent = [0.0, 0]
def timed(func, name, *bases, **kw):
    t = time.thread_time()
    cls = real(func, name, *bases, **kw)
    dt = time.thread_time() - t
    if isinstance(cls, type) and any(c.__name__ == "Value" and c.__module__ == "guard.model" for c in cls.__mro__[1:]):
        spent[0] += dt
        spent[1] += 1
    return cls
builtins.__build_class__ = timed
from guard.cli import program
real_exit = os._exit
def leave(status):
    print(status, spent[1], spent[0] * 1000, file=sys.stderr)
    real_exit(status)
os._exit = leave
program.run(["--check", PATCH], prog="git agent-apply", command="apply")
"""

_VALUES = """\
import time, timeit
from guard.locate.index import Match, Sought
from guard.locate.splice import Located, Splice
from guard.model import error
from guard.report import Report
from guard.text.textfile import Text
s = Sought(("a",), (" ",), None, False, ())
cases = [
    lambda: error("stale", "a.py", 3, "changed since read", "read it again"),
    lambda: Splice(1, 2, (("x", "\\n"),)),
    lambda: Located(splices=(), notes=("n",)),
    lambda: Text(("a",), ("\\n",)),
    lambda: Match(1, 2, frozenset(), False, s, ()),
    lambda: Report("applied", "unified", notes=("n",)),
]
print(" ".join(str(min(timeit.repeat(f, number=20000, repeat=7, timer=time.thread_time)) / 20000 * 1e9) for f in cases))
"""

VALUES = (
    "error(...): a Finding, 6 by position",
    "Splice(start, end, new): 4 defaults",
    "Located(splices=, notes=): by keyword",
    "Text(lines, eols): 1 default",
    "Match(...): 6 by position",
    "Report(status, format, notes=)",
)


def _env(checkout: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_"))}
    e.update(GIT_ENV)
    e["PYTHONPATH"] = str(checkout)
    e["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    return e


def _scratch(path: Path) -> Path:
    environ = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60, env=environ)
    (path / "a.py").write_text("def f(x):\n    return x + 1\n")
    subprocess.run(["git", "add", "a.py"], cwd=path, check=True, timeout=60, env=environ)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True, timeout=60, env=environ)
    patch = path.parent / "p.diff"
    patch.write_text("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n")
    return patch


def _classes(checkout: Path, repo: Path, patch: Path) -> tuple[int, float]:
    code = _CLASSES.replace("PATCH", repr(str(patch)))
    r = subprocess.run([sys.executable, "-c", code], cwd=repo, env=_env(checkout), capture_output=True, timeout=120, check=False)
    status, count, ms = r.stderr.decode().strip().splitlines()[-1].split()
    if status != "0":
        raise RuntimeError(f"git agent-apply --check exited {status}: {r.stdout.decode(errors='replace')[:500]}")
    return int(count), float(ms)


def _values(checkout: Path) -> list[float]:
    r = subprocess.run([sys.executable, "-c", _VALUES], env=_env(checkout), capture_output=True, timeout=300, check=True)
    return [float(x) for x in r.stdout.split()]


def _spread(xs: list[float], unit: str, digits: int = 2) -> str:
    s = sorted(xs)
    q = statistics.quantiles(s, n=4) if len(s) > 1 else [s[0], s[0], s[0]]
    return f"{statistics.median(s):.{digits}f} {unit} ({q[0]:.{digits}f}-{q[2]:.{digits}f}; {s[0]:.{digits}f}-{s[-1]:.{digits}f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--against", type=Path, help="another checkout, measured run by run beside this one")
    args = ap.parse_args()
    sides = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        + ", ".join(f"{k}: {v}" for k, v in sides.items())
    )
    with tempfile.TemporaryDirectory() as tmp:
        patch = _scratch(Path(tmp) / "repo")
        made: dict[str, list[float]] = {k: [] for k in sides}
        counts: dict[str, int] = {}
        values: dict[str, list[list[float]]] = {k: [] for k in sides}
        for _ in range(args.runs):
            for side, checkout in sides.items():
                counts[side], ms = _classes(checkout, patch.parent / "repo", patch)
                made[side].append(ms)
        for _ in range(max(3, args.runs // 3)):
            for side, checkout in sides.items():
                values[side].append(_values(checkout))
    print("\ncreating the record classes of `git agent-apply --check` (CPU, median (quartiles; min-max)):")
    for side in sides:
        print(f"  {side:8} {counts[side]} classes: {_spread(made[side], 'ms')}")
    if args.against:
        print(f"  this - against, run by run: {_spread([a - b for a, b in zip(made['this'], made['against'])], 'ms')}")
    print("\nmaking a value (CPU ns, median of the runs' least of 7 x 20,000):")
    for i, label in enumerate(VALUES):
        shown = "   ".join(f"{side} {statistics.median([v[i] for v in values[side]]):6.0f}" for side in sides)
        print(f"  {label:42} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
