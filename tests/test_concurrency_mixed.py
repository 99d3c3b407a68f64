"""Applies and rollbacks from many processes at once, on the same files and the same refs.

Each worker process owns one line in every shared file and keeps a model of its
lines: it applies increments and rolls back its own latest live turn (by turn id,
through the three-way merge, while the other workers keep changing their lines of
the same files).  Each also races the others for one contested line, replacing
the value it last read.  Two agent names are shared by all workers, so their refs
are contended too.  A monitor thread records every value each shadow ref takes.

Afterwards: every operation landed or was refused (no other outcome); every owned
line holds exactly what its worker's model says (no update lost, no rollback lost);
the contested line's landed replacements form one unbroken chain (no two landed
on the same old value); each ref's successive values each descend from the one
before (`git merge-base --is-ancestor`), and every landed turn is in its ref's
history.  ``bench/concurrency_long.py`` runs the same with 8 processes x 50
operations through the CLI.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo, checkout_env, journal_pending
from conftest import guard as guard_child

pytestmark = pytest.mark.system  # the system tier: pyproject.toml's markers

PROCS, OPS, FILES = 4, 10, 3
OWNER_AGENTS = ("owner0", "owner1")
CONTEST_AGENTS = ("contender0", "contender1")
TESTS = Path(__file__).resolve().parent


def layout(procs: int, files: int) -> dict[str, str]:
    """Every file: one line per worker, two unique filler lines apart (so merges never touch)."""
    out = {}
    for k in range(files):
        lines = ["shared: init"] if k == 0 else []
        for p in range(procs):
            lines += [f"~~ filler {k}.{p}.a", f"p{p}: 0", f"~~ filler {k}.{p}.b"]
        out[f"f{k}.txt"] = "\n".join(lines) + "\n"
    return out


def worker(root: str, me: int, ops: int, files: int, seed: int) -> None:
    """One process: `ops` operations through one long-lived Guard (as the MCP server keeps one)."""
    from guard.pipeline.engine import Guard
    from guard.turns.rollback import Asked, rollback

    g = Guard(root)
    rng = random.Random(seed)
    owner, contender = OWNER_AGENTS[me % 2], CONTEST_AGENTS[me % 2]
    values = {k: 0 for k in range(files)}
    stack: list[tuple[int, int, str]] = []  # (file, value before, turn id) of my live turns
    for n in range(ops):
        roll = rng.random()
        rec: dict[str, Any] = {"proc": me, "n": n}
        try:
            if roll < 0.25 and stack:
                k, old, turn = stack.pop()
                rep = rollback(g, owner, Asked(turn=turn))
                rec.update(op="rollback", agent=owner, file=k, target=turn)
                if rep.status == "applied":
                    values[k] = old
                else:
                    stack.append((k, old, turn))
            elif roll < 0.5:
                text = (Path(root) / "f0.txt").read_text()
                current = next(ln for ln in text.splitlines() if ln.startswith("shared: "))
                new = f"shared: {me}-{n}"
                rep = g.apply(
                    json.dumps({"file_path": "f0.txt", "old_string": current + "\n", "new_string": new + "\n"}), agent=contender
                )
                rec.update(op="contest", agent=contender, old=current, new=new)
            else:
                k = rng.randrange(files)
                v = values[k]
                rep = g.apply(
                    json.dumps({"file_path": f"f{k}.txt", "old_string": f"p{me}: {v}\n", "new_string": f"p{me}: {v + 1}\n"}),
                    agent=owner,
                )
                rec.update(op="apply", agent=owner, file=k)
                if rep.status == "applied":
                    assert rep.turn is not None
                    stack.append((k, v, rep.turn.id))
                    values[k] = v + 1
            rec.update(
                status=rep.status,
                codes=[f.code for f in rep.findings if f.severity == "error"],
                commit=rep.turn.commit if rep.turn else None,
                ref=rep.turn.ref if rep.turn else None,
            )
        except Exception as exc:  # reported, and fails the test: an operation must land or be refused
            rec.update(status="error", error=f"{type(exc).__name__}: {exc}")
        print(json.dumps(rec), flush=True)
    print(json.dumps({"proc": me, "final": values}), flush=True)


class RefMonitor(threading.Thread):
    """Records each distinct value every loose ref under refs/agent-guard/ takes, in order."""

    def __init__(self, gitdir: Path) -> None:
        super().__init__(daemon=True)
        self.folder = gitdir / "refs" / "agent-guard"
        self.seen: dict[str, list[str]] = {}
        self.torn: list[str] = []  # reads of a ref caught mid-write (libgit2 renames: never expected)
        self.polls = 0
        self.stop = threading.Event()

    def poll(self) -> None:
        self.polls += 1
        if not self.folder.is_dir():
            return
        for f in self.folder.iterdir():
            if f.name.endswith(".lock"):
                continue
            try:
                value = f.read_text().strip()
            except FileNotFoundError:
                continue
            if len(value) != 40:
                self.torn.append(f"{f.name}:{value!r}")
                continue
            values = self.seen.setdefault(f.name, [])
            if not values or values[-1] != value:
                values.append(value)

    def run(self) -> None:
        while not self.stop.is_set():
            self.poll()
            time.sleep(0.002)
        self.poll()


def run_workers(
    root: Path, procs: int, ops: int, files: int, seed: int
) -> tuple[list[dict[str, Any]], dict[int, dict[str, int]], dict[str, list[str]]]:
    monitor = RefMonitor(root / ".git")
    monitor.start()
    code = (
        "import sys; sys.path[:0] = [sys.argv[1]]; "
        "from test_concurrency_mixed import worker; worker(*sys.argv[2:3], *map(int, sys.argv[3:]))"
    )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(TESTS), str(root), str(i), str(ops), str(files), str(seed * 100 + i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=checkout_env(),
        )
        for i in range(procs)
    ]
    records: list[dict[str, Any]] = []
    finals: dict[int, dict[str, int]] = {}
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err.decode()
        for line in out.decode().splitlines():
            rec = json.loads(line)
            if "final" in rec:
                finals[rec["proc"]] = rec["final"]
            else:
                records.append(rec)
    monitor.stop.set()
    monitor.join(timeout=10)
    assert not monitor.torn, monitor.torn[:3]
    return records, finals, monitor.seen


def is_ancestor(root: Path, old: str, new: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=root, timeout=60).returncode == 0


def check_outcome(
    repo: Repo,
    records: list[dict[str, Any]],
    finals: dict[int, dict[str, int]],
    seen: dict[str, list[str]],
    procs: int,
    files: int,
) -> dict[str, int]:
    """Every invariant of the module doc; returns counts for a report."""
    errors = [r for r in records if r["status"] not in ("applied", "refused")]
    assert not errors, errors[:5]
    # Owned lines: nobody else touches them, so every own apply and rollback must land.
    own = [r for r in records if r["op"] in ("apply", "rollback")]
    assert all(r["status"] == "applied" for r in own), [r for r in own if r["status"] != "applied"][:5]
    for k in range(files):
        text = repo.read(f"f{k}.txt").decode()
        for p in range(procs):
            assert f"\np{p}: {finals[p][str(k)]}\n" in text, (k, p, finals[p], text)
    # The contested line: landed replacements chain from "init" to the final value, one each.
    landed = [r for r in records if r["op"] == "contest" and r["status"] == "applied"]
    refused = [r for r in records if r["op"] == "contest" and r["status"] == "refused"]
    assert all(set(r["codes"]) <= {"not-found", "stale"} and r["codes"] for r in refused), refused[:5]
    by_old = {}
    for r in landed:
        assert r["old"] not in by_old, ("two replacements landed on the same value: a lost update", r, by_old.get(r["old"]))
        by_old[r["old"]] = r["new"]
    value, walked = "shared: init", 0
    while value in by_old:
        value, walked = by_old[value], walked + 1
    assert walked == len(landed)
    assert f"{value}\n" in repo.read("f0.txt").decode().splitlines(keepends=True)[0]
    # Refs: every observed value descends from the one before; every landed turn is in history.
    finals_ref = {name: repo.git("rev-parse", f"refs/agent-guard/{name}").strip() for name in seen}
    pairs = 0
    for name, values in seen.items():
        assert values[-1] == finals_ref[name]
        for old, new in zip(values, values[1:]):
            assert is_ancestor(repo.root, old, new), (name, old, new)
            pairs += 1
    for r in records:
        if r["status"] == "applied":
            assert is_ancestor(repo.root, r["commit"], finals_ref[r["agent"]]), r
    # One ledger commit (turn or rollback) per landed operation, no more, no fewer.
    for name in finals_ref:
        kinds = repo.git("log", "--format=%(trailers:key=Agent-Guard-Kind,valueonly)", f"refs/agent-guard/{name}").split()
        landed_here = sum(1 for r in records if r["status"] == "applied" and r["agent"] == name)
        assert sum(1 for kind in kinds if kind in ("turn", "rollback")) == landed_here, name
    assert not journal_pending(repo.root / ".git" / "agent-guard" / "journal.json")
    assert not [p for p in repo.root.rglob("*") if ".agent-guard-tmp-" in p.name]
    return {
        "operations": len(records),
        "landed": sum(r["status"] == "applied" for r in records),
        "refused": sum(r["status"] == "refused" for r in records),
        "rollbacks": sum(r["op"] == "rollback" for r in records),
        "contested_landed": len(landed),
        "ref_values": sum(len(v) for v in seen.values()),
        "ancestor_checks": pairs,
    }


def test_applies_and_rollbacks_at_once(repo: Repo) -> None:
    repo.commit(layout(PROCS, FILES))
    head, index = repo.snapshot()["<HEAD>"], repo.snapshot()["<index>"]
    records, finals, seen = run_workers(repo.root, PROCS, OPS, FILES, seed=1)
    counts = check_outcome(repo, records, finals, seen, PROCS, FILES)
    assert counts["operations"] == PROCS * OPS
    assert counts["rollbacks"] > 0 and counts["contested_landed"] > 0
    assert repo.snapshot()["<HEAD>"] == head and repo.snapshot()["<index>"] == index


def test_a_rolled_back_turn_is_not_rolled_back_twice(repo: Repo) -> None:
    """Two processes racing to undo the same turn: one lands, the other is told it is done."""
    repo.commit({"a.txt": "one\n"})
    from guard.pipeline.engine import Guard

    report = Guard(repo.root).apply(json.dumps({"file_path": "a.txt", "old_string": "one", "new_string": "two"}))
    assert report.status == "applied" and report.turn is not None
    code = (
        "import sys; sys.path[:0] = [sys.argv[1]]\n"
        "from guard.errors import UsageError\nfrom guard.pipeline.engine import Guard\n"
        "from guard.turns.rollback import Asked, rollback\n"
        "try:\n    print(rollback(Guard(sys.argv[2]), None, Asked(turn=sys.argv[3])).status)\n"
        "except UsageError as e:\n    print('usage:', e)\n"
    )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(TESTS), str(repo.root), report.turn.id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=checkout_env(),
        )
        for _ in range(4)
    ]
    outs = [c.communicate(timeout=120)[0].decode().strip() for c in children]
    assert sorted(outs)[0] == "applied" and outs.count("applied") == 1, outs
    assert all("already rolled back" in o for o in outs if o != "applied"), outs
    assert repo.read("a.txt") == b"one\n"


# ---------------------------------------------------------------------- kill -9 at random moments
# (the long run, 200+ trials on 24 files, is bench/crash_trials.py)

KILL_PATCH = (
    "".join(f"--- a/k{i}.txt\n+++ b/k{i}.txt\n@@ -2,3 +2,3 @@\n line 1\n-line 2\n+LINE 2\n line 3\n" for i in range(5))
    + "--- /dev/null\n+++ b/fresh/dir/new.txt\n@@ -0,0 +1 @@\n+born\n"
)
KILL_FILES = {f"k{i}.txt": "".join(f"line {j}\n" for j in range(6)) for i in range(5)}


def _work_tree(repo: Repo) -> dict[str, object]:
    return {k: v for k, v in repo.snapshot().items() if not k.startswith("<")}


def _leftovers(repo: Repo) -> list[str]:
    state = repo.root / ".git" / "agent-guard"
    found = [str(p) for p in repo.root.rglob("*") if ".agent-guard-tmp-" in p.name]
    found += [str(p) for p in (state / "journal.json",) if journal_pending(p)]
    found += [str(p) for p in (state / "journal.json.tmp",) if p.exists()]
    return found + [str(p) for p in (repo.root / ".git").rglob("*.lock") if "agent-guard" in p.as_posix()]


def _guard(
    repo: Repo, args: list[str], data: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return guard_child(repo.root, *args, input=data.encode() if data else None, env=env)


def _ref(repo: Repo) -> str:
    return repo.git("for-each-ref", "--format=%(objectname)", "refs/agent-guard/agent").strip()


def test_torn_journal_write_is_cleared(repo: Repo) -> None:
    """Killed while writing the journal itself (half of it written): no file was touched, the journal is cleared."""
    repo.commit(KILL_FILES)
    before = _work_tree(repo)
    journal = repo.root / ".git" / "agent-guard" / "journal.json"
    for attempt in range(2):  # the journal's first creation, then a write over the kept, empty file
        r = _guard(repo, ["apply"], KILL_PATCH, {"AGENT_GUARD_CRASH_AT": "mid-journal"})
        assert r.returncode == -9, r.stderr
        assert journal_pending(journal), attempt
        assert _work_tree(repo) == before
        assert _guard(repo, ["log"]).returncode == 0
        assert _work_tree(repo) == before and _ref(repo) == "" and not _leftovers(repo)
        assert journal.exists() and not journal_pending(journal)


def test_torn_journal_update_is_cleared(repo: Repo) -> None:
    """Killed while rewriting the journal to add folders about to be created: its temporary copy goes too."""
    repo.commit(KILL_FILES)
    before = _work_tree(repo)
    patch = "--- /dev/null\n+++ b/fresh/deeper/new.txt\n@@ -0,0 +1 @@\n+new\n"
    r = _guard(repo, ["apply"], patch, {"AGENT_GUARD_CRASH_AT": "before-journal-rename"})
    assert r.returncode == -9, r.stderr
    assert (repo.root / ".git" / "agent-guard" / "journal.json.tmp").exists()
    assert _guard(repo, ["log"]).returncode == 0
    assert _work_tree(repo) == before and _ref(repo) == "" and not _leftovers(repo)
    assert not (repo.root / "fresh").exists()


def test_random_kills_during_applies_and_rollbacks(repo: Repo) -> None:
    repo.commit(KILL_FILES)
    states = {"before": _work_tree(repo)}
    started = time.monotonic()
    assert _guard(repo, ["apply"], KILL_PATCH).returncode == 0
    took = time.monotonic() - started
    states["after"] = _work_tree(repo)
    assert _guard(repo, ["rollback"]).returncode == 0
    rng = random.Random(11)
    state = "before"
    for trial in range(10):
        command = ["apply"] if state == "before" else ["rollback"]
        ref_before = _ref(repo)
        proc = subprocess.Popen(
            [sys.executable, "-m", "guard", *command],
            cwd=repo.root,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None
        proc.stdin.write(KILL_PATCH.encode() if state == "before" else b"")
        proc.stdin.close()
        time.sleep(rng.uniform(0.5 * took, 1.1 * took))
        proc.kill()
        proc.wait(timeout=60)
        assert _guard(repo, ["log"]).returncode == 0
        now = _work_tree(repo)
        reached = next((name for name, tree in states.items() if tree == now), None)
        assert reached is not None, f"trial {trial}: the tree is neither before nor after"
        assert not _leftovers(repo), trial
        if reached == state:
            assert _ref(repo) == ref_before, trial
        else:
            tip = _ref(repo)
            assert tip != ref_before and (not ref_before or is_ancestor(repo.root, ref_before, tip)), trial
            kind = repo.git("log", "-1", "--format=%(trailers:key=Agent-Guard-Kind,valueonly)", tip).strip()
            assert kind == ("turn" if state == "before" else "rollback"), trial
        state = reached


def test_recovery_keeps_what_the_user_wrote_after_the_crash(repo: Repo) -> None:
    """Killed mid-write; the user then edits a half-written file by hand.  The next command
    undoes the rest, but not the user's work (it holds neither the journal's before nor after)."""
    repo.commit(KILL_FILES)
    before = _work_tree(repo)
    r = _guard(repo, ["apply"], KILL_PATCH, {"AGENT_GUARD_CRASH_AT": "after-file:2"})
    assert r.returncode == -9, r.stderr
    assert (repo.root / "k0.txt").read_text().startswith("line 0\nline 1\nLINE 2\n")
    (repo.root / "k0.txt").write_text("the user's own text\n")
    assert _guard(repo, ["log"]).returncode == 0
    assert (repo.root / "k0.txt").read_text() == "the user's own text\n"
    now = _work_tree(repo)
    assert {k: v for k, v in now.items() if k != "k0.txt"} == {k: v for k, v in before.items() if k != "k0.txt"}
    assert _ref(repo) == "" and not _leftovers(repo)


def test_kill_inside_the_ref_update_leaves_no_lock_behind(repo: Repo) -> None:
    """Found by the crash trials (2 of 200 kills aimed at the write window): killed while
    libgit2 held `refs/agent-guard/<agent>.lock`, the lock outlived the process and every
    later apply of that agent failed.  Recovery now clears the lock the journal's dead
    writer held.  (Here the state is built: a crash after the last file, plus the lock.)"""
    repo.commit(KILL_FILES)
    before = _work_tree(repo)
    assert _guard(repo, ["apply"], KILL_PATCH).returncode == 0
    assert _guard(repo, ["rollback"]).returncode == 0
    tip = _ref(repo)
    r = _guard(repo, ["apply"], KILL_PATCH, {"AGENT_GUARD_CRASH_AT": "after-file:5"})
    assert r.returncode == -9, r.stderr
    (repo.root / ".git" / "refs" / "agent-guard" / "agent.lock").write_text("")
    assert _guard(repo, ["log"]).returncode == 0
    assert _work_tree(repo) == before and _ref(repo) == tip and not _leftovers(repo)
    assert _guard(repo, ["apply"], KILL_PATCH).returncode == 0


def test_a_live_lock_is_not_taken(repo: Repo) -> None:
    """Without a crash, a ref lock belongs to someone alive (a git command): an apply that
    meets it is refused (exit 1, a finding that names the lock), and leaves the lock alone."""
    repo.commit(KILL_FILES)
    before = _work_tree(repo)
    assert _guard(repo, ["apply"], KILL_PATCH).returncode == 0
    assert _guard(repo, ["rollback"]).returncode == 0
    lock = repo.root / ".git" / "refs" / "agent-guard" / "agent.lock"
    lock.write_text("")
    r = _guard(repo, ["apply"], KILL_PATCH)
    assert r.returncode == 1 and b"agent.lock" in r.stdout, r
    assert _work_tree(repo) == before and lock.exists()
    assert not journal_pending(repo.root / ".git" / "agent-guard" / "journal.json")
