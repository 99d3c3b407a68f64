"""Many processes applying and rolling back at once, through the CLI (run by hand).

The long form of ``tests/test_concurrency_mixed.py``: by default 8 worker processes
x 50 operations each, every operation a separate ``agent-guard`` command (as
agent harnesses run it).  Every worker owns one line in each of 3 shared files
and keeps a model of them: it applies increments (``apply --agent ownerN``) and
rolls back its own latest live turn (``rollback --turn ID``), while the others
change their lines of the same files; it also races the others for one contested
line, replacing the value it last read (``--agent contenderN``).  Two agent names
are shared by all workers, so their shadow refs are contended.  A monitor thread
records every value each ref takes.

Checked afterwards: every command exited 0 (landed) or 1 (refused), never 2 or 3;
every owned line holds what its worker's model says (no update lost, no rollback
lost); the contested line's landed replacements form one chain from the initial
value to the final one (no two landed on the same old value); each ref's
successive values descend from each other (``git merge-base --is-ancestor``);
every landed turn is in its ref's history, one ledger commit per landed operation;
no journal or temporary file is left.

    python bench/concurrency_long.py [--procs 8] [--ops 50] [--files 3] [--seed 1] [--mode cli|api] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TIMEOUT = 300
OWNER_AGENTS = ("owner0", "owner1")
CONTEST_AGENTS = ("contender0", "contender1")
from scratch import GIT_ENV  # bench/, this script's folder, is on the import path

# The test's own watcher of the ledger refs (the test's workers are not this script's).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_concurrency_mixed import RefMonitor

from guard.tree.worktree import journal_pending

# Hundreds of turns on two shared agents: lift the session budgets, which are not what is tested.
NO_LIMITS = """\
budget:
  per_turn:    {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
  per_session: {files: 100000, lines_added: 100000000, lines_removed: 100000000, hunks: 1000000, bytes: 1000000000}
"""


def bench_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_GUARD_", "GIT_"))}
    env.update(GIT_ENV)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "agent-guard-bench-pycache")
    return env


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=TIMEOUT, env=bench_env(), check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr}")
    return proc


def layout(procs: int, files: int) -> dict[str, str]:
    out = {}
    for k in range(files):
        lines = ["shared: init"] if k == 0 else []
        for p in range(procs):
            lines += [f"~~ filler {k}.{p}.a", f"p{p}: 0", f"~~ filler {k}.{p}.b"]
        out[f"f{k}.txt"] = "\n".join(lines) + "\n"
    return out


# ---------------------------------------------------------------------- one worker


class Cli:
    def __init__(self, root: str) -> None:
        self.root = root

    def apply(self, edit: dict[str, str], agent: str) -> dict[str, Any]:
        return self._run(["apply", "--json", "--agent", agent], json.dumps(edit).encode())

    def rollback(self, agent: str, turn: str) -> dict[str, Any]:
        return self._run(["rollback", "--json", "--agent", agent, "--turn", turn], None)

    def _run(self, args: list[str], data: bytes | None) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, "-m", "guard", *args], cwd=self.root, input=data, capture_output=True, timeout=TIMEOUT, check=False
        )
        out = json.loads(proc.stdout) if proc.stdout.strip().startswith(b"{") else {}
        out["exit"] = proc.returncode
        if proc.returncode not in (0, 1):
            out["error"] = proc.stderr.decode(errors="replace")[-500:]
        return out


class Api:
    def __init__(self, root: str) -> None:
        from guard.pipeline.engine import Guard

        self.g = Guard(root)

    def apply(self, edit: dict[str, str], agent: str) -> dict[str, Any]:
        return self._done(lambda: self.g.apply(json.dumps(edit), agent=agent))

    def rollback(self, agent: str, turn: str) -> dict[str, Any]:
        from guard.turns.rollback import Asked, rollback

        return self._done(lambda: rollback(self.g, agent, Asked(turn=turn)))

    @staticmethod
    def _done(call: Any) -> dict[str, Any]:
        try:
            rep = call()
        except Exception as exc:
            return {"exit": 3, "error": f"{type(exc).__name__}: {exc}"}
        out = rep.as_dict()
        out["exit"] = rep.exit_code
        return out


def worker(root: str, me: int, ops: int, files: int, seed: int, mode: str) -> None:
    tool = Cli(root) if mode == "cli" else Api(root)
    rng = random.Random(seed)
    owner, contender = OWNER_AGENTS[me % 2], CONTEST_AGENTS[me % 2]
    values = {k: 0 for k in range(files)}
    stack: list[tuple[int, int, str]] = []
    for n in range(ops):
        roll = rng.random()
        rec: dict[str, Any] = {"proc": me, "n": n}
        if roll < 0.25 and stack:
            k, old, turn = stack.pop()
            out = tool.rollback(owner, turn)
            rec.update(op="rollback", agent=owner, file=k, target=turn)
            if out.get("status") == "applied":
                values[k] = old
            else:
                stack.append((k, old, turn))
        elif roll < 0.5:
            text = (Path(root) / "f0.txt").read_text()
            current = next(ln for ln in text.splitlines() if ln.startswith("shared: "))
            new = f"shared: {me}-{n}"
            out = tool.apply({"file_path": "f0.txt", "old_string": current + "\n", "new_string": new + "\n"}, contender)
            rec.update(op="contest", agent=contender, old=current, new=new)
        else:
            k = rng.randrange(files)
            v = values[k]
            out = tool.apply({"file_path": f"f{k}.txt", "old_string": f"p{me}: {v}\n", "new_string": f"p{me}: {v + 1}\n"}, owner)
            rec.update(op="apply", agent=owner, file=k)
            if out.get("status") == "applied":
                stack.append((k, v, out["turn"]["id"]))
                values[k] = v + 1
        turn = out.get("turn") or {}
        rec.update(
            exit=out["exit"],
            status=out.get("status", "error"),
            error=out.get("error"),
            codes=[f["code"] for f in out.get("findings", []) if f["severity"] == "error"],
            commit=turn.get("commit"),
            ref=turn.get("ref"),
        )
        print(json.dumps(rec), flush=True)
    print(json.dumps({"proc": me, "final": values}), flush=True)


# ---------------------------------------------------------------------- the run


def is_ancestor(root: Path, old: str, new: str) -> bool:
    return git(root, "merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def check(
    root: Path,
    records: list[dict[str, Any]],
    finals: dict[int, dict[str, int]],
    seen: dict[str, list[str]],
    torn: list[str],
    procs: int,
    files: int,
) -> list[str]:
    problems: list[str] = []
    for r in records:
        if r["exit"] not in (0, 1):
            problems.append(f"exit {r['exit']}: {r}")
    for r in records:
        if r["op"] in ("apply", "rollback") and r["status"] != "applied":
            problems.append(f"an owned-line {r['op']} did not land: {r}")
    for k in range(files):
        text = (root / f"f{k}.txt").read_text()
        for p in range(procs):
            if f"\np{p}: {finals[p][str(k)]}\n" not in text:
                problems.append(f"f{k}.txt: worker {p}'s line is not {finals[p][str(k)]} (lost update)")
    landed = [r for r in records if r["op"] == "contest" and r["status"] == "applied"]
    refused = [r for r in records if r["op"] == "contest" and r["status"] == "refused"]
    for r in refused:
        if not r["codes"] or not set(r["codes"]) <= {"not-found", "stale"}:
            problems.append(f"contested edit refused for an unexpected reason: {r}")
    by_old: dict[str, str] = {}
    for r in landed:
        if r["old"] in by_old:
            problems.append(f"two contested edits landed on {r['old']!r}: a lost update")
        by_old[r["old"]] = r["new"]
    value, walked = "shared: init", 0
    while value in by_old and walked <= len(landed):
        value, walked = by_old[value], walked + 1
    if walked != len(landed):
        problems.append(f"the contested chain covers {walked} of {len(landed)} landed edits")
    if not (root / "f0.txt").read_text().startswith(value + "\n"):
        problems.append(f"the contested line is not the chain's end {value!r}")
    if torn:
        problems.append(f"torn ref reads: {torn[:3]}")
    tips = {name: git(root, "rev-parse", f"refs/agent-guard/{name}").stdout.strip() for name in seen}
    for name, values in seen.items():
        for old, new in zip(values, values[1:]):
            if not is_ancestor(root, old, new):
                problems.append(f"{name} regressed: {new} does not descend from {old}")
    for r in records:
        if r["status"] == "applied" and not is_ancestor(root, r["commit"], tips[r["agent"]]):
            problems.append(f"landed turn {r['commit']} is not in {r['agent']}'s history")
    for name, tip in tips.items():
        kinds = git(root, "log", "--format=%(trailers:key=Agent-Guard-Kind,valueonly)", tip).stdout.split()
        landed_here = sum(1 for r in records if r["status"] == "applied" and r["agent"] == name)
        if sum(1 for k in kinds if k in ("turn", "rollback")) != landed_here:
            problems.append(
                f"{name}: {sum(1 for k in kinds if k in ('turn', 'rollback'))} ledger commits for {landed_here} landed operations"
            )
    if journal_pending(root / ".git" / "agent-guard" / "journal.json"):
        problems.append("a journal was left")
    temps = [p for p in root.rglob("*") if ".agent-guard-tmp-" in p.name]
    if temps:
        problems.append(f"temporary files left: {temps[:3]}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--ops", type=int, default=50)
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", choices=("cli", "api"), default="cli")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", nargs=5, metavar=("ROOT", "ME", "OPS", "FILES", "SEED"), help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.worker:
        root, me, ops, files, seed = opts.worker
        worker(root, int(me), int(ops), int(files), int(seed), opts.mode)
        return 0
    base = Path(tempfile.mkdtemp(prefix="agent-guard-conc-"))
    root = base / "repo"
    root.mkdir()
    env = bench_env()
    (base / "no-limits.yaml").write_text(NO_LIMITS)
    env["AGENT_GUARD_POLICY"] = str(base / "no-limits.yaml")
    git(root, "init", "-q", "-b", "main")
    for name, text in layout(opts.procs, opts.files).items():
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "scene")
    monitor = RefMonitor(root / ".git")
    monitor.start()
    started = time.monotonic()
    children = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--mode",
                opts.mode,
                "--worker",
                str(root),
                str(i),
                str(opts.ops),
                str(opts.files),
                str(opts.seed * 1000 + i),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i in range(opts.procs)
    ]
    records: list[dict[str, Any]] = []
    finals: dict[int, dict[str, int]] = {}
    problems: list[str] = []
    for child in children:
        out, err = child.communicate(timeout=TIMEOUT * opts.ops)
        if child.returncode != 0:
            problems.append(f"a worker exited {child.returncode}: {err.decode(errors='replace')[-500:]}")
        for line in out.decode().splitlines():
            rec = json.loads(line)
            if "final" in rec:
                finals[rec["proc"]] = rec["final"]
            else:
                records.append(rec)
    wall = time.monotonic() - started
    monitor.stop.set()
    monitor.join(timeout=10)
    if len(finals) == opts.procs:
        problems += check(root, records, finals, monitor.seen, monitor.torn, opts.procs, opts.files)
    summary = {
        "processes": opts.procs,
        "operations_each": opts.ops,
        "mode": opts.mode,
        "operations": len(records),
        "landed": sum(r["status"] == "applied" for r in records),
        "refused": sum(r["status"] == "refused" for r in records),
        "by_op": {op: sum(r["op"] == op for r in records) for op in ("apply", "rollback", "contest")},
        "contested_landed": sum(r["op"] == "contest" and r["status"] == "applied" for r in records),
        "ref_values_seen": sum(len(v) for v in monitor.seen.values()),
        "ref_polls": monitor.polls,
        "exit_2_or_3": sum(r["exit"] not in (0, 1) for r in records),
        "problems": len(problems),
        "seconds": round(wall, 1),
    }
    for p in problems:
        print("FAIL", p)
    print(json.dumps(summary) if opts.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))
    shutil.rmtree(base, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
