"""Per-edit cost of this checkout against another, paired (issue 28 §7; run by hand).

The one-hunk edit of ``inprocess_apply.py`` (a comment added to one of 40 lines in the middle
of a 2,000-line Python file, a ``Guard`` session kept open), timed in a child process per
checkout, the two checkouts alternating (which goes first alternates too).  Both children
take the workload from *this* checkout's bench (``source_lines``, ``unified``), so the edits
are the same bytes; each imports ``guard`` from its own checkout (``PYTHONPATH``).  Per child,
by CPU time (``time.process_time``: a shared machine's other work moves it far less than the
wall clock), after 50 applies to warm the session:

- ``Guard.apply(check=True)`` with the default policy and with ``syntax: off`` (budgets lifted):
  the minimum over ``--rounds`` rounds of ``--per`` applies, per apply;
- ``locate_changes`` alone on the same hunk: the minimum over rounds of 2,000 calls;
- the ``placeholder`` check alone (issue 36) on three changes of the same file, the minimum
  over rounds of 200 calls (``placeholder_figures``).

Per figure it prints each pair's ratio (this checkout / the other) and their median: the way
the §7 target ("within 1.2x of 4be2221") is judged.  The other checkout may be older than
the module moves of issue 28 (``guard.formats``, ``guard.textfile``): both layouts import.

    python bench/per_edit_pair.py OTHER_CHECKOUT [--pairs 4] [--rounds 15] [--per 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
HERE = BENCH.parent
UNLIMITED = "budget:\n  per_session: {files: null, lines_added: null, lines_removed: null, hunks: null, bytes: null}\n"


def child(rounds: int, per: int) -> dict[str, float]:
    """Run in a child whose PYTHONPATH starts with the checkout to time: the figures, in ms."""
    # guard first, from PYTHONPATH: importing inprocess_apply puts this checkout on sys.path.
    import guard
    from guard.locate import ALL_TIERS, locate_changes

    # The layout of the checkout timed: a name it lacks would be found in the installed one.
    if (Path(guard.__file__).parent / "pipeline").is_dir():
        from guard.pipeline.engine import Guard
    else:  # a checkout from before issue 38 moved it
        from guard.engine import Guard  # type: ignore[no-redef]

    try:
        from guard.dialects import parse
        from guard.text.textfile import decode
    except ImportError:  # a checkout from before issue 28 moved them
        from guard.formats import parse
        from guard.textfile import decode

    sys.path.insert(0, str(BENCH))
    from inprocess_apply import source_lines, unified
    from scratch import GIT_ENV

    wanted = Path(os.environ["PYTHONPATH"].split(os.pathsep)[0]).resolve()
    assert Path(guard.__file__).resolve().is_relative_to(wanted), (guard.__file__, wanted)

    tmp = Path(tempfile.mkdtemp(prefix="ag-pair-"))
    try:
        repo = tmp / "repo"
        repo.mkdir()
        env = {**os.environ, **GIT_ENV}
        lines = source_lines(2000, 1)
        (repo / "src").mkdir()
        (repo / "src" / "big.py").write_text("\n".join(lines) + "\n")
        for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
            subprocess.run(["git", *argv], cwd=repo, env=env, check=True, timeout=60)
        os.environ.update(GIT_ENV)
        # An older checkout keeps git's configuration once no file it depends on changed in the
        # last two seconds (its guard/repo/config.py): wait that out, as a session's steady state.
        time.sleep(2.3)
        k = 1000 + lines[1000:].index("") + 5

        def edit(n: int) -> str:
            at = k + 7 * (n % 40)
            was = lines[at - 3 : at + 4]
            return unified("src/big.py", lines, [(at - 3, was, [*was[:3], lines[at] + f"  # edit {n}", *was[4:]])])

        edits = [edit(n) for n in range(rounds * per + 60)]
        out: dict[str, float] = {}
        for label, extra in (("check, default policy", ""), ("check, syntax: off", "checks:\n  syntax: off\n")):
            policy = tmp / "policy.yaml"
            policy.write_text("extends: default\n" + extra + UNLIMITED)
            g = Guard(repo, str(policy))
            at = iter(edits)
            for _ in range(50):
                g.apply(next(at), check=True)
            best = []
            for _ in range(rounds):
                t0 = time.process_time()
                for _ in range(per):
                    rep = g.apply(next(at), check=True)
                best.append((time.process_time() - t0) / per)
                assert rep.status == "checked", rep.findings
            out[label] = min(best) * 1e3
        edits_set, _ = parse(edit(0), "unified")
        changes = edits_set.files[0].changes
        text = decode(("\n".join(lines) + "\n").encode())
        best = []
        for _ in range(rounds):
            t0 = time.process_time()
            for _ in range(2000):
                locate_changes(text, changes, ALL_TIERS, "src/big.py")
            best.append((time.process_time() - t0) / 2000)
        out["locate_changes"] = min(best) * 1e3
        out.update(placeholder_figures(lines, k, rounds))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def placeholder_figures(lines: list[str], k: int, rounds: int) -> dict[str, float]:
    """The `placeholder` check alone (issue 36's cost target), per call, on three changes of the
    2,000-line file: the bench's edit (a comment after a line); a rewrite of three lines as a
    comment and one line of code (the shape a stand-in has, judged to the end); the same three
    lines replaced by a comment alone (a stand-in)."""
    import guard
    from guard.checks import CheckInput, no_attr, placeholder
    from guard.model import Op
    from guard.policy import load

    if (Path(guard.__file__).parent / "tree").is_dir():
        from guard.tree.diffs import make_change
    else:  # a checkout from before issue 38 moved it
        from guard.diffs import make_change  # type: ignore[no-redef]

    pol = load(None, "default")
    before = ("\n".join(lines) + "\n").encode()

    def change(at: int, new: list[str]) -> object:
        after = ("\n".join([*lines[:at], *new, *lines[at + 3 :]]) + "\n").encode()
        return make_change("src/big.py", Op.MODIFY, before, after, old_mode=0o100644, new_mode=0o100644)

    at = k + 2
    cases = {
        "placeholder, a comment after a line": change(at, [lines[at] + "  # edit", *lines[at + 1 : at + 3]]),
        "placeholder, three lines rewritten": change(at, ["    # the cached value, as kept", "    return self.cached"]),
        "placeholder, three lines for a comment": change(at, ["    # the value as it was computed before"]),
    }
    out: dict[str, float] = {}
    for label, ch in cases.items():
        inp = CheckInput((ch,), pol, lambda _p: True, no_attr, None)
        best = []
        for _ in range(rounds):
            t0 = time.process_time()
            for _ in range(200):
                placeholder.check(inp, "error")
            best.append((time.process_time() - t0) / 200)
        out[label] = min(best) * 1e3
    return out


def run_child(checkout: Path, rounds: int, per: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(checkout), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--rounds", str(rounds), "--per", str(per)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the child for {checkout} failed:\n{proc.stderr}")
    got: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", nargs="?", help="the checkout to compare this one with (e.g. a worktree of 4be2221)")
    ap.add_argument("--pairs", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--per", type=int, default=100, help="applies per round")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.rounds, args.per)))
        return
    if not args.other:
        ap.error("name the other checkout")
    other = Path(args.other).resolve()
    print(f"{HERE} against {other}; load average {os.getloadavg()[0]:.2f}; CPU time, min per round")
    ratios: dict[str, list[float]] = {}
    for i in range(args.pairs):
        order = [(HERE, "this"), (other, "other")] if i % 2 == 0 else [(other, "other"), (HERE, "this")]
        got = {name: run_child(tree, args.rounds, args.per) for tree, name in order}
        shown = []
        for label in got["this"]:
            r = got["this"][label] / got["other"][label]
            ratios.setdefault(label, []).append(r)
            shown.append(f"{label} {got['other'][label]:.3f} / {got['this'][label]:.3f} ms ({r:.2f}x)")
        print(f"  pair {i + 1}: " + "; ".join(shown))
    for label, rs in ratios.items():
        print(f"{label:24s} this / other: median {statistics.median(rs):.2f}x (pairs {', '.join(f'{r:.2f}' for r in rs)})")


if __name__ == "__main__":
    main()
