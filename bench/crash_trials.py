"""kill -9 at random moments during multi-file applies and rollbacks (run by hand).

A scratch repository holds 24 files; the edit modifies 16 of them, creates 6 in new
nested folders and deletes 2.  Trials alternate: ``agent-guard apply`` of that edit
from the tree *before* it, ``agent-guard rollback`` from the tree *after* it; each is
sent SIGKILL at a random moment: half the kill times uniform over the command's
whole run, half uniform over its write window (counted from the moment its journal
appears, as long as the window lasts in uninterrupted runs, re-timed every 10
trials); some trials kill the recovering command too.  Then the next command
(``agent-guard log``) runs, and the trial checks:

- the work tree is wholly *before* or wholly *after* (every file's bytes and mode);
- the shadow ref agrees: unchanged when the tree is where it started, else one
  new turn (or rollback) whose tree holds exactly the work tree's touched files,
  descending from the old value;
- no journal, no temporary file in the work tree, no journal temp or ref lock in
  ``.git``; the next command exited 0.

A second phase kills at every named crash point (``AGENT_GUARD_CRASH_AT``) of both
commands.  Prints one line per failure and a summary (JSON with ``--json``).

    python bench/crash_trials.py [--trials 200] [--seed 1] [--files 24] [--dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from guard.tree.worktree import journal_pending

TIMEOUT = 120
REF = "refs/agent-guard/agent"
# Hundreds of turns of 24 files each: lift the budgets, which are not what is tested here.
NO_LIMITS = """\
budget:
  per_edit:    {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
  per_turn:    {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
  per_session: {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
"""


def bench_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_"))}
    env.update(GIT_ENV)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    return env


ENV = bench_env()
GUARD = [sys.executable, "-m", "guard"]


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=TIMEOUT, env=ENV, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


# The crash points are a hook the tests install (tests/crashpoints/sitecustomize.py), not the package's.
CHECKOUT = Path(__file__).resolve().parents[1]
CRASHPOINTS = CHECKOUT / "tests" / "crashpoints"


def guard(
    root: Path, args: list[str], data: bytes | None = None, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = dict(ENV, **(extra or {}))
    if env.get("AGENT_GUARD_CRASH_AT"):
        env["PYTHONPATH"] = os.pathsep.join([str(CRASHPOINTS), str(CHECKOUT), env.get("PYTHONPATH", "")])
    return subprocess.run(GUARD + args, cwd=root, input=data, capture_output=True, timeout=TIMEOUT, env=env, check=False)


# ---------------------------------------------------------------------- the scene


def build(root: Path, nfiles: int) -> tuple[bytes, list[str]]:
    """The repository and the multi-file edit; returns (patch, every path it touches)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    n_mod, n_new, n_del = nfiles * 2 // 3, nfiles // 4, max(1, nfiles - nfiles * 2 // 3 - nfiles // 4)
    files = {}
    for i in range(n_mod + n_del):
        files[f"src/m{i % 4}/file{i}.txt"] = "".join(f"line {j} of file {i}\n" for j in range(40))
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "scene")
    parts, touched = [], []
    for i in range(n_mod):
        rel = f"src/m{i % 4}/file{i}.txt"
        parts.append(
            f"diff --git a/{rel} b/{rel}\n--- a/{rel}\n+++ b/{rel}\n@@ -19,3 +19,3 @@\n"
            f" line 18 of file {i}\n-line 19 of file {i}\n+LINE 19 OF FILE {i}\n line 20 of file {i}\n"
        )
        touched.append(rel)
    for i in range(n_new):
        rel = f"new/n{i}/deep/created{i}.txt"
        parts.append(
            f"diff --git a/{rel} b/{rel}\nnew file mode 100644\n--- /dev/null\n+++ b/{rel}\n@@ -0,0 +1,2 @@\n+born {i}\n+here\n"
        )
        touched.append(rel)
    for i in range(n_mod, n_mod + n_del):
        rel = f"src/m{i % 4}/file{i}.txt"
        body = "".join(f"-line {j} of file {i}\n" for j in range(40))
        parts.append(
            f"diff --git a/{rel} b/{rel}\ndeleted file mode 100644\n--- a/{rel}\n+++ /dev/null\n@@ -1,40 +0,0 @@\n{body}"
        )
        touched.append(rel)
    return "".join(parts).encode(), touched


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = (p.read_bytes(), p.lstat().st_mode)
    return out


def leftovers(root: Path) -> list[str]:
    """Temporary files in the work tree; journal, journal temp and ref locks in .git."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames:
            dirnames.remove(".git")
        found += [os.path.join(dirpath, f) for f in filenames if ".agent-guard-tmp-" in f]
    state = root / ".git" / "agent-guard"
    found += [str(p) for p in (state / "journal.json",) if journal_pending(p)]
    found += [str(p) for p in (state / "journal.json.tmp",) if p.exists()]
    found += [str(p) for p in (root / ".git").rglob("*.lock") if "agent-guard" in p.as_posix()]
    return found


def ref(root: Path) -> str | None:
    proc = subprocess.run(["git", "rev-parse", "-q", "--verify", REF], cwd=root, capture_output=True, env=ENV, timeout=TIMEOUT)
    return proc.stdout.decode().strip() or None


def ledger_matches(root: Path, commit: str, touched: list[str], work: dict[str, tuple[bytes, int]]) -> bool:
    """The turn commit's tree holds exactly the work tree's bytes for every touched path."""
    listing = git(root, "ls-tree", "-r", commit, "--", *touched)
    in_tree = {}
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        in_tree[path] = meta.split()[2]
    for path in touched:
        blob = in_tree.get(path)
        if path not in work:
            if blob is not None:
                return False
            continue
        if blob is None:
            return False
        if git(root, "cat-file", "blob", blob).encode() != work[path][0]:
            return False
    return True


def kind_of(root: Path, commit: str) -> str:
    return git(root, "log", "-1", "--format=%(trailers:key=Agent-Guard-Kind,valueonly)", commit).strip()


def is_ancestor(root: Path, old: str, new: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=root, env=ENV, timeout=TIMEOUT).returncode == 0


# ---------------------------------------------------------------------- trials


@dataclass
class Stats:
    trials: int = 0
    by_command: dict[str, int] = field(default_factory=dict)
    landed: int = 0
    undone: int = 0
    finished_before_kill: int = 0
    killed_mid_write: int = 0
    window_kills: int = 0
    recovery_killed: int = 0
    point_trials: int = 0
    failures: list[str] = field(default_factory=list)


def launch_and_kill(root: Path, args: list[str], data: bytes | None, after: float, in_window: bool = False) -> tuple[bool, bool]:
    """Start the command and SIGKILL it `after` seconds in (with `in_window`: `after` seconds
    after its journal appears); returns (it had finished already, a journal was left)."""
    journal = root / ".git" / "agent-guard" / "journal.json"
    proc = subprocess.Popen(
        GUARD + args, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
    )
    assert proc.stdin is not None
    try:
        if data:
            proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    if in_window:
        while proc.poll() is None and not journal_pending(journal):
            time.sleep(0.0002)
    time.sleep(after)
    finished = proc.poll() is not None
    if not finished:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    mid_write = journal_pending(journal)
    return finished, mid_write


def timed(root: Path, args: list[str], data: bytes | None) -> float:
    """Run a command uninterrupted; its length.  Also notes when its journal existed."""
    journal = root / ".git" / "agent-guard" / "journal.json"
    started = time.monotonic()
    proc = subprocess.Popen(
        GUARD + args, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(data or b"")
    proc.stdin.close()
    first = last = None
    while proc.poll() is None:
        if journal_pending(journal):
            now = time.monotonic() - started
            first = now if first is None else first
            last = now
        time.sleep(0.0005)
    err = proc.stderr.read()
    proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{args}: {err.decode(errors='replace')}")
    total = time.monotonic() - started
    if first is not None and last is not None:
        WINDOWS.setdefault(args[0], []).append((first, last))
    return total


# Per command, (first, last) moment the journal was seen in uninterrupted runs: the write window.
WINDOWS: dict[str, list[tuple[float, float]]] = {}


def kill_moment(rng: random.Random, command: str, total: float) -> tuple[float, bool]:
    """Half the kills uniform over the whole run; half at a uniform moment of the write
    window (timed from the journal's appearance, its length as seen in uninterrupted runs)."""
    seen = WINDOWS.get(command, [])[-5:]
    if rng.random() < 0.5 or not seen:
        return rng.uniform(0, 1.1 * total), False
    length = statistics.median(w[1] - w[0] for w in seen)
    return rng.uniform(0, 1.2 * length + 0.002), True


def verify(
    root: Path,
    label: str,
    start: str,
    states: dict[str, dict[str, tuple[bytes, int]]],
    ref_before: str | None,
    touched: list[str],
    command: str,
    stats: Stats,
) -> str | None:
    """Run the next command, check every invariant; the state reached ('before'/'after') or None on failure."""
    nxt = guard(root, ["log"])
    problems = []
    if nxt.returncode != 0:
        problems.append(f"next command exited {nxt.returncode}: {nxt.stderr.decode(errors='replace')[:300]}")
    work = tree(root)
    reached = next((name for name, t in states.items() if t == work), None)
    if reached is None:
        diff = sorted(
            p for p in set(work) | set(states["before"]) if work.get(p) not in (states["before"].get(p), states["after"].get(p))
        )
        problems.append(f"the tree is neither before nor after (e.g. {diff[:3]})")
    now = ref(root)
    if reached == start:
        if now != ref_before:
            problems.append(f"the tree did not move but the ref did ({ref_before} -> {now})")
    elif reached is not None:
        want = "turn" if command == "apply" else "rollback"
        if now is None or now == ref_before:
            problems.append("the tree moved but the ref did not")
        elif ref_before is not None and not is_ancestor(root, ref_before, now):
            problems.append(f"the ref regressed: {now} does not descend from {ref_before}")
        elif kind_of(root, now) != want:
            problems.append(f"the ref's tip is a {kind_of(root, now)!r}, not a {want}")
        elif not ledger_matches(root, now, touched, work):
            problems.append("the ref's tip does not hold the work tree's files")
    left = leftovers(root)
    if left:
        problems.append(f"left behind: {left[:4]}")
    if problems:
        stats.failures.append(f"{label}: " + "; ".join(problems))
        return None
    return reached


def reset(root: Path, state: dict[str, tuple[bytes, int]]) -> None:
    """Force the tree back to a known state after a failed trial (so later trials still mean something)."""
    for path in list(tree(root)):
        if path not in state:
            (root / path).unlink()
    for path, (data, mode) in state.items():
        p = root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        os.chmod(p, mode & 0o777)
    for p in leftovers(root):
        Path(p).unlink(missing_ok=True)


def random_trials(
    root: Path,
    patch: bytes,
    touched: list[str],
    states: dict[str, dict[str, tuple[bytes, int]]],
    n: int,
    rng: random.Random,
    stats: Stats,
    timings: dict[str, list[float]],
) -> None:
    state = "before"
    for i in range(n):
        if i and i % 10 == 0 and state == "before":
            # Re-time both commands now and then: on a shared machine their length drifts,
            # and kill moments drawn from a stale length land after the command has ended.
            timings["apply"].append(timed(root, ["apply"], patch))
            timings["rollback"].append(timed(root, ["rollback"], None))
        durations = {k: statistics.median(v[-5:]) for k, v in timings.items()}
        # Applies and rollbacks take turns; when a kill left the tree where the other
        # command starts, an uninterrupted command brings it back first (not a trial).
        command = "apply" if i % 2 == 0 else "rollback"
        start = "before" if command == "apply" else "after"
        if state != start:
            back = guard(root, ["rollback"] if command == "apply" else ["apply"], None if command == "apply" else patch)
            if back.returncode != 0 or tree(root) != states[start]:
                stats.failures.append(f"trial {i}: could not bring the tree to {start!r} before the trial")
                reset(root, states[start])
            state = start
        args, data = (["apply"], patch) if command == "apply" else (["rollback"], None)
        total = durations[command]
        after, in_window = kill_moment(rng, command, total)
        ref_before = ref(root)
        finished, mid_write = launch_and_kill(root, args, data, after, in_window)
        stats.window_kills += in_window
        stats.trials += 1
        stats.by_command[command] = stats.by_command.get(command, 0) + 1
        stats.finished_before_kill += finished
        stats.killed_mid_write += mid_write
        if mid_write and rng.random() < 0.25:
            # Kill the recovering command as well, somewhere in its run.
            launch_and_kill(root, ["log"], None, rng.uniform(0, durations["log"]))
            stats.recovery_killed += 1
        when = f"{after * 1000:.0f} ms after the journal appeared" if in_window else f"{after * 1000:.0f} ms in"
        reached = verify(root, f"trial {i} ({command}, killed {when})", state, states, ref_before, touched, command, stats)
        if reached is None:
            reset(root, states[state])
            continue
        if reached != state:
            stats.landed += 1
        else:
            stats.undone += 1
        state = reached


def crash_points(touched: list[str]) -> list[str]:
    points = ["before-journal-rename", "after-journal", "before-journal-removal"]
    for i, path in enumerate(touched):
        points += [f"before-rename:{path}", f"after-file:{i}"]
    return points


def point_trials(
    root: Path, patch: bytes, touched: list[str], states: dict[str, dict[str, tuple[bytes, int]]], stats: Stats
) -> None:
    for command in ("apply", "rollback"):
        start = "before" if command == "apply" else "after"
        args, data = (["apply"], patch) if command == "apply" else (["rollback"], None)
        back_args, back_data = (["rollback"], None) if command == "apply" else (["apply"], patch)
        for point in crash_points(touched):
            if tree(root) != states[start]:
                # The last point was past the ref move (or never reached): undo it as a user would.
                back = guard(root, back_args, back_data)
                if back.returncode != 0 or tree(root) != states[start]:
                    stats.failures.append(f"crash point {point} ({command}): could not return to the start state")
                    reset(root, states[start])
                    continue
            ref_before = ref(root)
            proc = guard(root, args, data, {"AGENT_GUARD_CRASH_AT": point})
            if proc.returncode == 0:
                continue  # a point this command never passes (a rollback renames nothing over a path it deletes)
            stats.point_trials += 1
            if proc.returncode != -signal.SIGKILL:
                stats.failures.append(f"crash point {point} ({command}): exited {proc.returncode}")
                continue
            verify(root, f"crash point {point} ({command})", start, states, ref_before, touched, command, stats)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--no-points", action="store_true", help="skip the named crash points phase")
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="agent-guard-crash-")) if opts.dir is None else opts.dir
    root = base / "repo"
    if root.exists():
        shutil.rmtree(root)
    started = time.monotonic()
    policy = base / "no-limits.yaml"
    policy.write_text(NO_LIMITS)
    ENV["AGENT_GUARD_POLICY"] = str(policy)
    patch, touched = build(root, opts.files)
    before = tree(root)
    durations: dict[str, list[float]] = {"apply": [], "rollback": [], "log": []}
    for _ in range(3):
        durations["apply"].append(timed(root, ["apply"], patch))
        after = tree(root)
        durations["log"].append(timed(root, ["log"], None))
        durations["rollback"].append(timed(root, ["rollback"], None))
    assert tree(root) == before
    states = {"before": before, "after": after}
    stats = Stats()
    random_trials(root, patch, touched, states, opts.trials, random.Random(opts.seed), stats, durations)
    medians = {k: statistics.median(v) for k, v in durations.items()}
    if not opts.no_points:
        point_trials(root, patch, touched, states, stats)
    summary = {
        "random_trials": stats.trials,
        "by_command": stats.by_command,
        "ended_after_the_command": stats.landed,
        "ended_where_it_started": stats.undone,
        "kills_aimed_at_the_write_window": stats.window_kills,
        "finished_before_the_kill": stats.finished_before_kill,
        "killed_mid_write": stats.killed_mid_write,
        "recovery_also_killed": stats.recovery_killed,
        "crash_point_trials": stats.point_trials,
        "failures": len(stats.failures),
        "files": len(touched),
        "median_ms": {k: round(v * 1000) for k, v in medians.items()},
        "seconds": round(time.monotonic() - started, 1),
    }
    for f in stats.failures:
        print("FAIL", f)
    print(json.dumps(summary) if opts.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))
    if opts.dir is None:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
