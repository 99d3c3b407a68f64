"""Does a shell turn cost what the command changed, or what the tree holds?  (run by hand)

Uses ``apply_scale``'s repositories (1,000 and 100,000 files, built once into
``$TMPDIR/agent-guard-bench``) and times, interleaved run by run, as a user runs them:

- ``git status --porcelain`` (git's own walk of the tree's stat data: the floor);
- ``agent-guard run -- true`` (a command that changes nothing: snapshot, diff, no turn);
- ``agent-guard run -- sh -c 'edit one file'`` (one file changed each run, alternating
  two contents: snapshot, diff, one recorded and checked turn);
- the Claude Code hook around the same one-file command (PreToolUse + PostToolUse: two
  processes), the command run between them: as `agent-guard hook claude-code` with no server
  (cold), and as the set-up `agent-guard install claude-code` writes (``hook.py``, answered by a
  running `agent-guard serve`); each starts the tree's watch (guard/warm/watch.py) on its first
  slow call, in its own runtime folder, and asks it after that;
- with ``--before CHECKOUT``, the cold hook of another checkout of agent-guard (its
  ``python -m guard``), for a paired before-and-after.

Reports medians and p90 of wall and CPU time, the 100k/1k ratio, and each row against ``git
status`` in the same repository.  CPU is user + system of the processes a row runs, plus, for
the hooks, what the server (parent and workers) and the tree's watch spent meanwhile (/proc).

    python bench/shell_turns.py [--sizes 1000,100000] [--runs 15] [--warmups 3] [--dir DIR] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_scale import TARGET, Sample, bench_env, ensure, fmt_ms, reset, stats, timed_run  # noqa: E402
from warm_hook import server_cpu, start_server  # noqa: E402

HOOK = Path(__file__).resolve().parents[1] / "guard" / "warm" / "hook.py"


def edit_command(i: int) -> list[str]:
    text = "# shell turn %d\n" % (i % 2)
    return ["sh", "-c", f"printf '{text}' >> {TARGET}"]


def proc_cpu(pids: list[int]) -> float:
    """User + system seconds of live processes (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(stat[11]) + int(stat[12])
    return total / os.sysconf("SC_CLK_TCK")


def watches(run_dir: Path) -> list[int]:
    """The pids of the tree watches whose sockets are in `run_dir`."""
    got = subprocess.run(["pgrep", "-f", f"{run_dir}/agent-guard/w-"], capture_output=True, timeout=10)
    return [int(x) for x in got.stdout.split()]


def env_run(cmd: list[str], cwd: Path, environ: dict[str, str], input: bytes) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=environ, input=input, capture_output=True, timeout=600, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:2000]}")
    return Sample(wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def hook_round(cmd: list[str], environ: dict[str, str], run_dir: Path, server: int | None = None):  # type: ignore[no-untyped-def]
    """PreToolUse + the command + PostToolUse: the two hook processes timed (the command's own time
    left out), and the server's and the watch's CPU over the round."""

    def one(repo: Path, i: int) -> Sample:
        ti = {"command": " ".join(edit_command(i)), "description": "bench"}

        def payload(event: str) -> bytes:
            return json.dumps(
                {
                    "session_id": "bench",
                    "cwd": str(repo),
                    "hook_event_name": event,
                    "tool_name": "Bash",
                    "tool_input": ti,
                    "tool_use_id": f"toolu_bench_{i}",
                }
            ).encode()

        pids = watches(run_dir)
        side = proc_cpu(pids) + (server_cpu(server) if server else 0.0)
        a = env_run(cmd, repo, environ, payload("PreToolUse"))
        subprocess.run(edit_command(i), cwd=repo, check=True, timeout=60)
        b = env_run(cmd, repo, environ, payload("PostToolUse"))
        side = proc_cpu(pids) + (server_cpu(server) if server else 0.0) - side
        return Sample(a.wall + b.wall, a.cpu + b.cpu + side)

    return one


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmups", type=int, default=3, help="rounds run first and not counted (the first starts the watch)")
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "agent-guard-bench"))
    ap.add_argument("--before", help="another checkout of agent-guard: its cold hook, for a paired before-and-after")
    args = ap.parse_args()
    env = bench_env()
    os.environ.clear()
    os.environ.update(env)
    base_dir = Path(args.dir)
    base_dir.mkdir(parents=True, exist_ok=True)
    repos = {int(n): ensure(base_dir, int(n), False) for n in args.sizes.split(",")}
    originals = {n: (r / TARGET).read_bytes() for n, r in repos.items()}
    work = Path(tempfile.mkdtemp(prefix="ag-shell-"))
    cold_run, warm_run, before_run = (work / "cold", work / "warm", work / "before")
    for d in (cold_run, warm_run, before_run):
        d.mkdir(mode=0o700)
    cold_env, warm_env = dict(env, XDG_RUNTIME_DIR=str(cold_run)), dict(env, XDG_RUNTIME_DIR=str(warm_run))
    server, _ = start_server(warm_env, work)
    rows = {
        "git status --porcelain": lambda repo, i: timed_run(["git", "status", "--porcelain"], repo),
        "agent-guard run -- true": lambda repo, i: timed_run(["agent-guard", "run", "--", "true"], repo),
        "agent-guard run -- (one file)": lambda repo, i: timed_run(["agent-guard", "run", "--", *edit_command(i)], repo),
        "hook Bash cold, pre + post": hook_round(["agent-guard", "hook", "claude-code"], cold_env, cold_run),
        "hook Bash warm (install), pre + post": hook_round([sys.executable, "-SI", str(HOOK)], warm_env, warm_run, server.pid),
    }
    if args.before:
        before_env = dict(env, XDG_RUNTIME_DIR=str(before_run), PYTHONPATH=args.before)
        rows["hook Bash cold, --before checkout"] = hook_round(
            [sys.executable, "-m", "guard", "hook", "claude-code"], before_env, before_run
        )
    results: dict[str, dict[int, list[Sample]]] = {name: {n: [] for n in repos} for name in rows}
    try:
        for n, repo in repos.items():
            reset(repo, originals[n])
        for i in range(args.runs + args.warmups):  # warm-ups fill the snapshot's memory and start the watches
            if i == args.warmups:
                time.sleep(3)  # the watches set up their folders' watches before they answer
            for name, one in rows.items():  # interleaved: a drifting machine moves every row alike
                for n, repo in repos.items():
                    sample = one(repo, i)
                    if i >= args.warmups:
                        results[name][n].append(sample)
    finally:
        server.terminate()
        server.wait(timeout=60)
        for d in (cold_run, warm_run, before_run):
            for pid in watches(d):
                os.kill(pid, 15)
        for n, repo in repos.items():
            reset(repo, originals[n])
    sizes = sorted(repos)
    print(f"median (p90) ms over {args.runs} runs; cpu = user+system of the command's processes")
    head = "".join(f" | {n:,} files wall | cpu" for n in sizes)
    print(f"{'':36}{head} | {sizes[-1]:,}/{sizes[0]:,} cpu")
    floor = {n: stats([s.cpu for s in results["git status --porcelain"][n]])[0] for n in sizes}
    per_size(results, sizes, "cpu / git status's cpu", lambda c, n: f"{c / floor[n]:.2f}x")
    for name, out in results.items():
        cells = []
        for n in sizes:
            w, wp = stats([s.wall for s in out[n]])
            c, cp = stats([s.cpu for s in out[n]])
            cells.append(f" | {fmt_ms(w)} ({fmt_ms(wp).strip()}) | {fmt_ms(c)} ({fmt_ms(cp).strip()})")
        ratio = stats([s.cpu for s in out[sizes[-1]]])[0] / max(stats([s.cpu for s in out[sizes[0]]])[0], 1e-9)
        print(f"{name:36}{''.join(cells)} | {ratio:.2f}x")
    per_size(results, sizes, "cpu minus git status's (ms)", lambda c, n: f"{(c - floor[n]) * 1000:.0f}")
    return 0


def per_size(results, sizes, what, cell):  # type: ignore[no-untyped-def]
    """One line: each row but git status's, its median CPU per size put by `cell` (cpu, size)."""
    rows = (
        f"{name}: " + " / ".join(cell(stats([s.cpu for s in out[n]])[0], n) for n in sizes)
        for name, out in results.items()
        if name != "git status --porcelain"
    )
    print(f"{what}, per size: " + ", ".join(rows))


if __name__ == "__main__":
    sys.exit(main())
