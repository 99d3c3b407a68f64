"""In-process cost of one apply, and the locator's worst case (run by hand).

1. A one-hunk unified diff against a 2,000-line file in a scratch repository, through
   a long-lived ``Guard`` session (what the Python API and the MCP server do):
   ``Guard.apply(check=True)`` (decide, write nothing), a full ``Guard.apply``
   (write the file and record the turn), and ``guard.locate.locate_changes`` alone.
   Each run is a new edit (a new comment on one of 40 lines), and each full apply
   starts from the file the last one wrote: a session's sequence of edits.
   Target: a full apply under 5 ms (median).
2. The locator's worst case (issue 6): a 20,000-line file and 100 hunks that each
   fail every tier but the loosest (``fuzz``), timed through ``locate_changes``.
   Shapes: "misremembered" (one context line differs from the file's line there),
   "invented" (one context line the file does not have, between real ones), and
   "refused" (context that describes another file: every tier, fuzz included, fails
   and each hunk gets a not-found finding with its closest-region hint).  Target:
   under 2 s each.
3. Rollback against the ledger's length: ``rollback.rollback(check=True)`` (and, for
   comparison, ``Guard.apply(check=True)``, and the same with a new ``--turn`` id of
   its own, which asks the turn-id index whether an earlier turn has it) after 10,
   100, 1,000 and 10,000 recorded turns.  Reading the ledger follows the turns asked
   for, so the cost must not grow with its length: target, the 10,000-turn rollback
   within 2x of the 100-turn one (median).

    python bench/inprocess_apply.py [--runs 300] [--worst-runs 5] [--ledger-depths 10,100,1000,10000] [--clock cpu]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path


def source_lines(n: int, seed: int) -> list[str]:
    """n lines of Python-like code; every line unique enough to be located."""
    rng = random.Random(seed)
    words = ("value", "result", "config", "items", "index", "buffer", "count", "name", "path", "node")
    out: list[str] = []
    i = 0
    while len(out) < n:
        a, b = rng.choice(words), rng.choice(words)
        out += [
            f"def {a}_{b}_{i}(self, {a}, {b}=None):",
            f'    """Return the {a} of {b} number {i}."""',
            f"    if {a} is None:",
            "        return None",  # common: the same line every few lines
            f"    {b}_{i} = self.{a}.get({b!r}, {i})",
            f"    return {b}_{i} + {rng.randrange(1000)}",
            "",
        ]
        i += 1
    return out[:n]


def unified(path: str, lines: list[str], hunks: list[tuple[int, list[str], list[str]]]) -> str:
    """A unified diff of `hunks`: (0-based start, old lines, new lines), in order."""
    out = [f"--- a/{path}", f"+++ b/{path}"]
    shift = 0
    for start, old, new in hunks:
        out.append(f"@@ -{start + 1},{len(old)} +{start + 1 + shift},{len(new)} @@")
        shift += len(new) - len(old)
        # A hunk body: common prefix/suffix as context, the rest removed/added.
        k = 0
        while k < min(len(old), len(new)) and old[k] == new[k]:
            k += 1
        e = 0
        while e < min(len(old), len(new)) - k and old[-1 - e] == new[-1 - e]:
            e += 1
        out += [" " + x for x in old[:k]]
        out += ["-" + x for x in old[k : len(old) - e]]
        out += ["+" + x for x in new[k : len(new) - e]]
        out += [" " + x for x in old[len(old) - e :]]
    return "\n".join(out) + "\n"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def report(label: str, xs: list[float], unit: float = 1e3, name: str = "ms") -> None:
    print(
        f"  {label:<52} median {statistics.median(xs) * unit:8.3f} {name}   p90 {pct(xs, 0.9) * unit:8.3f} {name}"
        f"   min {min(xs) * unit:8.3f} {name}   (n={len(xs)})"
    )


def disk_probe(folder: Path, rounds: int = 50) -> float:
    """Median seconds for four small files created and renamed into place in `folder`.

    A turn creates and renames about that many (its blob, trees and commit as loose
    objects), and this machine's disk makes them cost 0.2 to 2 ms minutes apart: the
    figure puts each run's full-apply time in context.
    """
    times = []
    for r in range(rounds):
        t0 = time.perf_counter()
        for k in range(4):
            tmp = folder / f"probe-tmp-{r}-{k}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            os.write(fd, b"x" * 300)
            os.close(fd)
            os.replace(tmp, folder / f"probe-{r}-{k}")
        times.append(time.perf_counter() - t0)
    for f in folder.glob("probe-*"):
        f.unlink()
    return statistics.median(times)


# What `timed` reads: the wall clock, or with --clock cpu this process's CPU time, which a
# shared machine's other work and its disk's stalls move far less (the way the paired figures
# in bench/README.md are taken).
CLOCK: list[Callable[[], float]] = [time.perf_counter]


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    clock = CLOCK[0]
    fn()  # warm-up
    out = []
    for _ in range(runs):
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return out


# ---------------------------------------------------------------------- 1. one hunk


def one_hunk(runs: int) -> None:
    from guard import dialects
    from guard.locate import ALL_TIERS, locate_changes
    from guard.pipeline.engine import Guard
    from guard.text.textfile import decode

    tmp = Path(tempfile.mkdtemp(prefix="ag-inproc-"))
    try:
        repo = tmp / "repo"
        repo.mkdir()
        env = {**os.environ, **GIT_ENV}
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True, timeout=60)
        lines = source_lines(2000, 1)
        base = "\n".join(lines) + "\n"
        (repo / "src").mkdir()
        (repo / "src" / "big.py").write_text(base)
        subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True, timeout=60)
        subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=repo, env=env, check=True, timeout=60)
        k = 1000 + lines[1000:].index("") + 5  # a `    x_i = self...get(...)` line near the middle
        old = lines[k - 3 : k + 4]
        new = old[:3] + [old[3] + "  # changed"] + old[4:]
        patch = unified("src/big.py", lines, [(k - 3, old, new)])
        current = list(lines)

        def next_edit(n: int, write: bool) -> str:
            """The n-th edit of a session: a new comment on one of 40 lines near the middle.

            Every edit is new text (no cache answers it as seen before); the file a full
            apply starts from is the one the last apply wrote, as in an agent's session.
            """
            at = k + 7 * (n % 40)
            was = current[at - 3 : at + 4]
            now = was[:3] + [current[at].split("  #")[0] + f"  # edit {n}"] + was[4:]
            text = unified("src/big.py", current, [(at - 3, was, now)])
            if write:
                current[at] = now[3]
            return text

        # Budgets off: hundreds of applies in one session would reach per_session.files.
        unlimited = "budget:\n  per_session: {files: null, lines_added: null, lines_removed: null, hunks: null, bytes: null}\n"
        default = tmp / "default.yaml"
        default.write_text("extends: default\n" + unlimited)
        no_syntax = tmp / "no-syntax.yaml"
        no_syntax.write_text("extends: default\nchecks:\n  syntax: off\n" + unlimited)
        os.environ.update(GIT_ENV)
        probe_dir = repo / ".git" / "objects" / "probe"
        probe_dir.mkdir()
        # agent-guard caches git's configuration once no file it reads changed in the last two
        # seconds (a racy-clean rule, guard/repo/config.py); a repository made this instant would
        # have every run ask git again.  Steady state is what a session sees: wait it out.
        time.sleep(max(0.0, 2.2 - (time.time() - (repo / ".git" / "config").stat().st_mtime)))
        print(f"one-hunk edit of a 2,000-line Python file ({len(base.encode())} bytes), Guard session kept open:")
        print(
            f"  disk probe before: 4 small files created and renamed in .git/objects: "
            f"{disk_probe(probe_dir) * 1e3:.3f} ms (median of 50)"
        )
        state = {"i": 0}
        medians = {}
        for label, policy in (("default policy", str(default)), ("syntax: off", str(no_syntax))):
            g = Guard(repo, policy)

            def check_only(g: Guard = g) -> None:
                state["i"] += 1
                rep = g.apply(next_edit(state["i"], False), check=True)
                assert rep.status == "checked", rep.findings

            def full(g: Guard = g) -> None:
                state["i"] += 1
                rep = g.apply(next_edit(state["i"], True))
                assert rep.status == "applied", rep.findings

            report(f"[{label}] Guard.apply(check=True)  (no write)", timed(check_only, runs))
            fulls = timed(full, runs)
            medians[label] = statistics.median(fulls)
            report(f"[{label}] Guard.apply  (write + record)", fulls)
            if label == "default policy":
                from guard.syntax import python as pysyntax

                def cold(g: Guard = g) -> None:
                    # The first edit of a file this process has not seen: its outline is lexed.
                    pysyntax._STARTS.clear()
                    pysyntax._VERDICTS.clear()
                    full(g)

                report(f"[{label}] Guard.apply, file not seen before", timed(cold, max(10, runs // 4)))
        print(f"  disk probe after: {disk_probe(probe_dir) * 1e3:.3f} ms")
        probe_dir.rmdir()
        assert (repo / "src" / "big.py").read_text() == "\n".join(current) + "\n", "the file does not hold what was applied"
        edits, findings = dialects.parse(patch, "unified")
        assert edits is not None, findings
        text = decode(base.encode())
        changes = edits.files[0].changes
        report("dialects.parse (unified)", timed(lambda: dialects.parse(patch, "unified"), runs))
        report("locate_changes (1 hunk)", timed(lambda: locate_changes(text, changes, ALL_TIERS, "src/big.py"), runs))
        report("ast.parse of the file (the syntax check's cost)", timed(lambda: __import__("ast").parse(base), runs))
        for label, med in medians.items():
            print(f"  [{label}] full apply target < 5 ms (median): {'OK' if med < 0.005 else 'MISSED'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------- 2. worst case


def worst_case(runs: int) -> None:
    from guard import dialects
    from guard.locate import ALL_TIERS, locate_changes
    from guard.model import Change
    from guard.text.textfile import decode

    lines = source_lines(20000, 2)
    text = decode(("\n".join(lines) + "\n").encode())
    print("worst case: 20,000-line file, 100 hunks that no tier but fuzz can place (locate_changes, all tiers):")
    for shape in ("misremembered", "invented", "refused"):
        rng = random.Random(3)
        hunks = []
        for h in range(100):
            # One hunk in every 200 lines, on a function (7 lines each, the first at line 0):
            # 3 context lines, its unique `    b_i = self.a.get(...)` line removed, 3 after.
            lo = 7 * ((h * 200) // 7 + rng.randrange(1, 25))
            k = lo + 4
            old = lines[k - 3 : k + 4]
            ctx = list(old)
            if shape == "misremembered":
                # One context line the model got wrong (same indent as the file's line).
                ctx[0] = ctx[0] + "  # not in the file"
            elif shape == "invented":
                # One context line that is not in the file at all, between two real ones.
                ctx.insert(1, f"    invented_context_{h} = True")
            else:
                # Context that describes some other file: every tier fails, the hunk is refused.
                for j in (0, 1, 2, 4, 5, 6):
                    ctx[j] = f"    invented_context_{h}_{j} = True"
            at = ctx.index(old[3])
            new = ctx[:at] + [old[3] + "  # changed"] + ctx[at + 1 :]
            hunks.append((k - 3, ctx, new))
        # The diff's old side is what the model believed (ctx), not the file.
        patch = unified("src/huge.py", lines, hunks)
        edits, findings = dialects.parse(patch, "unified")
        assert edits is not None, findings
        changes = edits.files[0].changes
        out = locate_changes(text, changes, ALL_TIERS, "src/huge.py")
        reps = ",".join(sorted(set(out.repairs))) or "-"
        codes = ",".join(sorted({f.code for f in out.findings})) or "-"

        def locate(changes: tuple[Change, ...] = changes) -> object:
            return locate_changes(text, changes, ALL_TIERS, "src/huge.py")

        times = timed(locate, runs)
        report(f"{shape}: placed {len(out.splices)}/100 (repairs {reps}; refused: {codes})", times, 1, "s ")
        print(f"  {shape}: target < 2 s: {'OK' if statistics.median(times) < 2.0 else 'MISSED'}")


# ---------------------------------------------------------------------- 3. ledger length


def ledger_depth(depths: list[int], runs: int) -> None:
    """Rollback (check only) and apply (check only) after 10, 100, 1,000... recorded turns."""
    from guard.pipeline.engine import Guard
    from guard.turns import rollback

    tmp = Path(tempfile.mkdtemp(prefix="ag-ledger-"))
    try:
        repo = tmp / "repo"
        repo.mkdir()
        env = {**os.environ, **GIT_ENV}
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True, timeout=60)
        (repo / "a.txt").write_text("x\n")
        subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True, timeout=60)
        subprocess.run(["git", "commit", "-q", "-m", "base"], cwd=repo, env=env, check=True, timeout=60)
        policy = tmp / "unlimited.yaml"
        policy.write_text(
            "extends: default\nbudget:\n  per_session: {files: null, lines_added: null, "
            "lines_removed: null, hunks: null, bytes: null}\n"
        )
        os.environ.update(GIT_ENV)
        g = Guard(repo, str(policy))
        flip = ("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-y\n+x\n")
        print("rollback cost against the ledger's length (one-line file, in-process, check only):")
        done = 0
        rollback_medians: dict[int, float] = {}
        for depth in depths:
            while done < depth:
                rep = g.apply(flip[done % 2])
                assert rep.status == "applied", rep.findings
                done += 1
            nxt = flip[done % 2]

            def check_apply(nxt: str = nxt) -> object:
                return g.apply(nxt, check=True)

            def named_apply(nxt: str = nxt, depth: int = depth) -> object:
                return g.apply(nxt, check=True, turn=f"task-{depth}")

            rb = timed(lambda: rollback.rollback(g, None, check=True), runs)
            ap = timed(check_apply, runs)
            named = timed(named_apply, runs)
            rollback_medians[depth] = statistics.median(rb)
            report(f"after {depth:6} turns: rollback(check=True)", rb)
            report(f"after {depth:6} turns: apply(check=True)", ap)
            report(f"after {depth:6} turns: apply(check=True, turn=<new id>)", named)
        if 100 in rollback_medians:
            for depth in (d for d in rollback_medians if d > 100):
                ratio = rollback_medians[depth] / rollback_medians[100]
                print(
                    f"  rollback after {depth} turns is {ratio:.2f}x the 100-turn figure: target <= 2x: "
                    f"{'OK' if ratio <= 2 else 'MISSED'}"
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--worst-runs", type=int, default=5)
    ap.add_argument("--ledger-depths", default="10,100,1000,10000", help="turns recorded before timing rollback ('' skips)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="what each run's time is (default: wall)")
    args = ap.parse_args()
    if args.clock == "cpu":
        CLOCK[0] = time.process_time
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
        f"{args.clock} time per run"
    )
    one_hunk(args.runs)
    print()
    worst_case(args.worst_runs)
    if args.ledger_depths:
        print()
        ledger_depth([int(x) for x in args.ledger_depths.split(",")], 15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
